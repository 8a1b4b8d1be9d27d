// A stdio MCP server confined in its own container (main/sandbox/mcp-container.ts), with real Docker, the
// real @modelcontextprotocol/server-filesystem installed by `npx -y` inside the container through the
// gateway's npm route from a local registry stand-in (tests/support/npm-modules-registry.ts: this repo's
// node_modules), and small hostile servers written here. No traffic leaves the machine.
import Docker from 'dockerode';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FsEffect, Task, WorkspaceGrant } from '../../shared/domain';
import { FsChannel } from '../../main/effects/fs/fs-channel';
import { GrantedFolder } from '../../main/effects/fs/beneath';
import { FAN, kernelAccount } from '../../main/effects/fs/watch-log';
import { SandboxExecutor } from '../../main/sandbox/executor';
import { ActionRunner } from '../../main/services/action-runner';
import { EventBus } from '../../main/services/event-bus';
import { openDatabase } from '../../main/store/database';
import { TaskStore } from '../../main/store/task-store';
import { UndoStore } from '../../main/store/undo-store';
import type { McpServerDefinition } from '../../shared/domain/mcp';
import { Gateway } from '../../main/gateway/gateway';
import { npmRoute } from '../../main/gateway/packages/npm-route';
import { PackageCache } from '../../main/gateway/packages/package-cache';
import type { PackagePolicy } from '../../main/gateway/packages/package-policy';
import { OWNER_LABEL, SANDBOX_LABEL, TASK_LABEL } from '../../main/sandbox/container-policy';
import { MCP_SERVER_LABEL, McpContainers, mergeClaims, type McpConnection } from '../../main/sandbox/mcp-container';
import { SANDBOX_IMAGE } from '../../main/sandbox/sandbox-image';
import { startNpmModulesRegistry, type NpmModulesRegistry } from '../support/npm-modules-registry';
import { tempDirs } from '../support/temp-dir';

const image = process.env.POSTHOC_TEST_IMAGE ?? SANDBOX_IMAGE;
const docker = new Docker();
const dirs = tempDirs();
const taskDirs = tempDirs();
let registry: NpmModulesRegistry;
let gateway: Gateway;
let data: string;
const opened: McpConnection[] = [];

const task = (id: string): Task => ({
  id,
  title: 't',
  status: 'running',
  workspaces: [],
  services: [],
  model: 'm',
  answer: null,
  error: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

beforeAll(async () => {
  registry = await startNpmModulesRegistry(['@modelcontextprotocol/server-filesystem']);
  data = taskDirs.make('posthoc-mcp-data-');
  const policy: PackagePolicy = { fetching: 'on', allowed: [], pipIndexUrl: 'http://127.0.0.1:9/simple', npmRegistryUrl: registry.url, indexMaxAgeMs: 600_000 };
  gateway = new Gateway(join(data, 'gateway'), (id) => task(id));
  gateway.route('npm', npmRoute(new PackageCache(join(data, 'packages')), () => policy));
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
  dirs.cleanup();
});
afterAll(async () => {
  await gateway.closeAll();
  await registry.close();
  taskDirs.cleanup();
});

function connector(extra: Partial<ConstructorParameters<typeof McpContainers>[1]> = {}): McpContainers {
  return new McpContainers(docker, {
    image,
    controlDir: join(data, 'sandbox'),
    envDir: join(data, 'task-env'),
    doors: { open: async (id) => (await gateway.open(id)).dir },
    ...extra,
  });
}

function stdio(name: string, command: string, args: string[], env: Record<string, string> = {}): McpServerDefinition {
  return { name, transport: { kind: 'stdio', command, args, env }, rules: { deny: [], hold: [], noInverse: 'allow' }, api: null, createdAt: '2026-01-01T00:00:00.000Z' };
}

const grant = (hostPath: string, name = 'ws', mountPath = '/workspace', readOnly = false): WorkspaceGrant => ({ name, hostPath, mountPath, readOnly });
const containersOf = (taskId: string) => docker.listContainers({ all: true, filters: { label: [`${TASK_LABEL}=${taskId}`] } });

/** A folder holding a hand-written MCP server (newline-delimited JSON-RPC, no dependencies) whose behaviour MODE picks. */
function rawServer(): string {
  const dir = dirs.workspace();
  chmodSync(dir, 0o755);
  writeFileSync(
    join(dir, 'server.mjs'),
    `import readline from 'node:readline';
const mode = process.argv[2];
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
if (mode === 'network') {
  const net = await import('node:net');
  const s = net.connect(80, '1.1.1.1');
  s.on('connect', () => { console.error('network reached'); process.exit(0); });
  s.on('error', (e) => { console.error('no network: ' + e.code); process.exit(2); });
}
readline.createInterface({ input: process.stdin }).on('line', async (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') {
    if (mode === 'silent') return;
    if (mode === 'huge') { process.stdout.write('x'.repeat(3 * 1024 * 1024)); return; }
    send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } });
  } else if (msg.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: msg.id, result: { tools: [{ name: 'boom', inputSchema: { type: 'object' } }] } });
  } else if (msg.method === 'tools/call' && mode === 'write') {
    (await import('node:fs')).writeFileSync(msg.params.arguments.path, msg.params.arguments.content);
    send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'written' }] } });
  } else if (msg.method === 'tools/call') {
    console.error('boom: the disk is on fire');
    process.exit(3);
  }
});
`,
  );
  chmodSync(join(dir, 'server.mjs'), 0o644);
  return dir;
}

describe('a stdio MCP server in its own container', () => {
  it('server-filesystem via npx: lists its tools, writes the granted folder as the action user, frozen between calls, confined; its writes come back as claims; close removes it', async () => {
    const mcp = connector();
    const workspace = dirs.workspace();
    const taskId = 'mcp-stdio-fs';
    // The gateway answers a task's code only while one of its actions runs: the server starts inside one
    // (the hub starts a server on its first call).
    gateway.beginAction(taskId, 'action-1');
    const conn = await mcp.connect(stdio('files', 'npx', ['-y', '@modelcontextprotocol/server-filesystem', workspace]), { taskId, workspaces: [grant(workspace)] }).finally(() => gateway.endAction(taskId));
    opened.push(conn);
    // npx fetched it through the gateway's npm route, from the stand-in.
    expect(registry.requests.some((r) => r.includes('server-filesystem/-/server-filesystem-'))).toBe(true);

    const tools = await conn.use(async (c) => (await c.listTools()).tools.map((t) => t.name));
    expect(tools).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'list_directory']));

    const [info] = await containersOf(taskId);
    expect(info!.Labels[MCP_SERVER_LABEL]).toBe('files');
    // The sandbox's labels: the orphan cleanup at the next start removes it once this process is gone.
    expect(info!.Labels[SANDBOX_LABEL]).toBe('1');
    expect(info!.Labels[OWNER_LABEL]).toBe(String(process.pid));
    const inspect = await docker.getContainer(info!.Id).inspect();
    expect(inspect.State.Paused).toBe(true);
    expect(inspect.HostConfig.NetworkMode).toBe('none');
    expect(inspect.HostConfig.ReadonlyRootfs).toBe(true);
    expect(inspect.HostConfig.CapDrop).toEqual(['ALL']);
    expect(inspect.HostConfig.SecurityOpt).toEqual(expect.arrayContaining(['no-new-privileges']));
    // The server's processes (children of PID 1): the action user, no capability at all, empty bounding set.
    const children = readFileSync(`/proc/${inspect.State.Pid}/task/${inspect.State.Pid}/children`, 'utf8').trim().split(/\s+/);
    expect(children.length).toBeGreaterThan(0);
    const owner = statSync(workspace);
    for (const pid of children) {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      expect(/^Uid:\s+(\d+)/m.exec(status)![1]).toBe(String(owner.uid));
      expect(/^Uid:\s+(\d+)/m.exec(status)![1]).not.toBe('0');
      for (const set of ['CapEff', 'CapPrm', 'CapBnd', 'CapAmb']) expect(new RegExp(`^${set}:\\s+0+$`, 'm').test(status)).toBe(true);
    }

    const mark = mcp.mark(taskId);
    const wrote = await conn.use((c) => c.callTool({ name: 'write_file', arguments: { path: join(workspace, 'hello.txt'), content: 'from the server\n' } }));
    expect(wrote.isError ?? false).toBe(false);
    expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('from the server\n');
    const st = statSync(join(workspace, 'hello.txt'));
    expect(st.uid).toBe(owner.uid);
    expect((await docker.getContainer(info!.Id).inspect()).State.Paused).toBe(true);

    // What the kernel saw the server change, by the file's own handle.
    const claims = mcp.claimsSince(taskId, mark, [grant(workspace)]);
    expect(claims?.kind).toBe('kernel');
    const account = kernelAccount([], claims!.kind === 'kernel' ? claims!.servers : []);
    expect(account.complete).toBe(true);
    const folder = GrantedFolder.open(workspace);
    const handle = folder.handle('hello.txt')?.handle;
    folder.close();
    expect(account.inside.some((r) => r.name === 'hello.txt' && r.object === handle && (r.mask & FAN.MODIFY) !== 0)).toBe(true);
    // Nothing new since: no claims to add to the next action.
    expect(mcp.claimsSince(taskId, mcp.mark(taskId), [grant(workspace)])).toBeNull();
    // Merged into an action's own account, the server's collections are there and it stays complete.
    const merged = mergeClaims({ kind: 'kernel', logs: [], servers: [] }, claims);
    expect(merged).toMatchObject({ kind: 'kernel', servers: [expect.any(Buffer)] });
    expect(merged).not.toHaveProperty('lost');

    await conn.close();
    await expect(docker.getContainer(info!.Id).inspect()).rejects.toMatchObject({ statusCode: 404 });
  }, 300_000);

  it('with no folders (tools listed outside a task) a path in the args is an empty stand-in, and the server still lists its tools', async () => {
    const mcp = connector();
    gateway.beginAction('mcp-stdio-fs', 'action-2');
    const conn = await mcp
      .connect(stdio('files', 'npx', ['-y', '@modelcontextprotocol/server-filesystem', '/home/someone/project']), { taskId: 'mcp-stdio-fs', workspaces: [] })
      .finally(() => gateway.endAction('mcp-stdio-fs'));
    opened.push(conn);
    const tools = await conn.use(async (c) => (await c.listTools()).tools.map((t) => t.name));
    expect(tools).toContain('write_file');
  }, 300_000);

  it('refuses, before any container starts, a server whose args name a folder the task was not granted', async () => {
    const mcp = connector();
    const workspace = dirs.workspace();
    const taskId = 'mcp-stdio-ungranted';
    await expect(
      mcp.connect(stdio('files', 'npx', ['-y', '@modelcontextprotocol/server-filesystem', workspace, '/home/someone/private']), { taskId, workspaces: [grant(workspace)] }),
    ).rejects.toThrow('The MCP server files names /home/someone/private, which this task was not granted: run with --workspace /home/someone/private');
    expect(await containersOf(taskId)).toEqual([]);
  });

  it('a server that tries the network finds none, and the error names what it said', async () => {
    const mcp = connector();
    const dir = rawServer();
    const taskId = 'mcp-stdio-network';
    const error = await mcp.connect(stdio('raw', 'node', [join(dir, 'server.mjs'), 'network']), { taskId, workspaces: [grant(dir)] }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/The MCP server raw exited \(exit code 2\) before it was ready\. Its last output: no network: (ENETUNREACH|EHOSTUNREACH)/);
    expect(await containersOf(taskId)).toEqual([]);
  });

  it('a server that prints a huge line is cut off with a message at the limit on one message', async () => {
    const mcp = connector({ messageLimit: 1024 * 1024 });
    const dir = rawServer();
    const taskId = 'mcp-stdio-huge';
    await expect(mcp.connect(stdio('raw', 'node', [join(dir, 'server.mjs'), 'huge']), { taskId, workspaces: [grant(dir)] })).rejects.toThrow(
      /The MCP server raw sent a message over 1 MiB \(the limit on one message\), so Posthoc stopped it/,
    );
    expect(await containersOf(taskId)).toEqual([]);
  });

  it('a server that never answers initialize times out with a message, and its container is removed', async () => {
    const mcp = connector({ startTimeoutMs: 4000 });
    const dir = rawServer();
    const taskId = 'mcp-stdio-silent';
    await expect(mcp.connect(stdio('raw', 'node', [join(dir, 'server.mjs'), 'silent']), { taskId, workspaces: [grant(dir)] })).rejects.toThrow(
      /The MCP server raw did not answer within 4 s of starting/,
    );
    expect(await containersOf(taskId)).toEqual([]);
  });

  it('stopping the start (the AbortSignal) ends it at once and removes its container', async () => {
    const mcp = connector();
    const dir = rawServer();
    const taskId = 'mcp-stdio-abort';
    const stop = new AbortController();
    const started = mcp.connect(stdio('raw', 'node', [join(dir, 'server.mjs'), 'silent']), { taskId, workspaces: [grant(dir)] }, stop.signal);
    await expect.poll(async () => (await containersOf(taskId)).some((c) => c.State === 'running')).toBe(true);
    stop.abort();
    await expect(started).rejects.toThrow('Starting the MCP server raw was stopped.');
    expect(await containersOf(taskId)).toEqual([]);
  });

  it('a server that dies during a call: the call fails naming its exit and its stderr; the claims are marked incomplete', async () => {
    const mcp = connector();
    const dir = rawServer();
    const taskId = 'mcp-stdio-dies';
    const conn = await mcp.connect(stdio('raw', 'node', [join(dir, 'server.mjs'), 'die']), { taskId, workspaces: [grant(dir)] });
    opened.push(conn);
    expect(await conn.use(async (c) => (await c.listTools()).tools.map((t) => t.name))).toEqual(['boom']);
    const mark = mcp.mark(taskId);
    await expect(conn.use((c) => c.callTool({ name: 'boom', arguments: {} }))).rejects.toThrow(
      /The MCP server raw exited \(exit code 3\) during the call\. Its last output: boom: the disk is on fire/,
    );
    // What it changed cannot be known whole: the record says so, whichever way it is kept.
    const after = mcp.claimsSince(taskId, mark, [grant(dir)]);
    expect(after && (after.kind === 'kernel' ? after.lost !== undefined : !after.complete)).toBe(true);
    await expect(conn.use((c) => c.listTools())).rejects.toThrow(/The MCP server raw exited/);
    await expect.poll(async () => (await containersOf(taskId)).length).toBe(0);
  });
});

describe('the action runner with a stdio MCP server', () => {
  it("a server's write during the action is the action's (not the person's edit), and the person's own edit stays apart", async () => {
    const dataDir = dirs.make('posthoc-mcp-runner-');
    const db = openDatabase(dataDir);
    const store = new TaskStore(db);
    const door = new Gateway(join(dataDir, 'gateway'), (id) => store.getTask(id));
    const executor = new SandboxExecutor(docker, image, { controlDir: join(dataDir, 'sandbox'), envDir: join(dataDir, 'task-env'), doors: { open: async (id) => (await door.open(id)).dir, close: (id) => door.close(id) } });
    const mcp = new McpContainers(docker, { image, controlDir: join(dataDir, 'sandbox'), envDir: join(dataDir, 'task-env'), doors: { open: async (id) => (await door.open(id)).dir } });
    const files = new FsChannel(join(dataDir, 'checkpoints'), new UndoStore(db));
    const runner = new ActionRunner(store, executor, files, new EventBus(), door, { mcpClaims: mcp });
    const ws = dirs.workspace();
    const scripts = rawServer();
    const task = store.createTask({ title: 't', model: 'm', workspaces: [grant(ws, 'ws', '/workspace/ws'), grant(scripts, 'scripts', '/workspace/scripts', true)] });
    try {
      const source = ["import os, time", "open('ws/started.txt', 'w').write('started')", "while not os.path.exists('ws/go.txt'):", '    time.sleep(0.05)'].join('\n');
      const running = runner.run(task, { language: 'python', source }, 60);
      while (!existsSync(join(ws, 'started.txt'))) await sleep(20);
      // A tool call made while the action runs (the hub starts the server on the first call).
      const conn = await mcp.connect(stdio('raw', 'node', [join(scripts, 'server.mjs'), 'write']), { taskId: task.id, workspaces: task.workspaces });
      opened.push(conn);
      await conn.use((c) => c.callTool({ name: 'write', arguments: { path: join(ws, 'server.txt'), content: 'from the server' } }));
      // The person's own edit, which lets the action end.
      writeFileSync(join(ws, 'go.txt'), 'go');
      const action = await running;
      expect(action.status).toBe('done');
      const effect = action.effects.find((e): e is FsEffect => e.channel === 'fs')!;
      expect(effect.added).toEqual(['server.txt', 'started.txt']);
      expect(effect.whileRunning?.added).toEqual(['go.txt']);
      expect(effect.unattributed).toBeUndefined();
    } finally {
      await mcp.closeAll();
      await executor.stopAll();
      await door.closeAll();
      await files.close();
      db.close();
    }
  });
});
