// McpService joined to the hub as the composition root joins them: tools listed outside a task through a
// window of their own (opened and closed around it), the rule each tool shows following the person's rules
// now, the prompt's part listed as a run begins, and the gateway guard that lets only package installs
// through while Posthoc itself starts a server. Real SDK servers in process, a real SQLite store.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Task } from '../../shared/domain';
import type { GatewayRoute, RouteContext, StreamingRoute } from '../../main/gateway/gateway';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { McpServerStore } from '../../main/store/mcp-servers';
import { EventBus } from '../../main/services/event-bus';
import { actionsOnly, HubToolSource, isListing, ListingHub, listingTask, mcpPrompt, mcpServerInUse, McpService, OWN_WINDOW } from '../../main/services/mcp-service';
import { McpStateFolders } from '../../main/sandbox/mcp-state';
import type { McpServerView } from '../../shared/domain/mcp';
import { inMemoryConnector, type CountingConnector } from '../support/mcp-test-connectors';

let dir: string;
let db: AppDatabase;
let store: McpServerStore;
let connector: CountingConnector;
let hub: ListingHub;
let windows: string[];
let service: McpService;
let updated: Array<{ name: string; tools: number | null }>;

function notesServer(): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool('list_notes', { description: 'Lists the notes.\nSecond line.', inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({
    content: [{ type: 'text', text: '[]' }],
  }));
  server.registerTool('add_note', { description: 'Adds a note.', inputSchema: { text: z.string() } }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
  return server;
}

const task = (mcp: string[]): Task => ({ ...listingTask('task-1'), id: 'task-1', title: 't', mcp });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'posthoc-mcp-service-'));
  db = openDatabase(dir);
  store = new McpServerStore(db);
  connector = inMemoryConnector(() => notesServer());
  // The hub tells the service built after it: a late-bound callback, as in the composition root.
  hub = new ListingHub({ connectors: { stdio: connector, http: connector }, server: (name) => store.get(name), task: (taskId) => ({ taskId, workspaces: [] }) }, (name) => service.toolsChanged(name));
  windows = [];
  const source = new HubToolSource(hub, {
    open: (taskId) => void windows.push(`open ${isListing(taskId) ? 'listing' : taskId}`),
    close: async (taskId) => void windows.push(`close ${isListing(taskId) ? 'listing' : taskId}`),
  });
  const bus = new EventBus();
  updated = [];
  bus.subscribe((event, payload) => {
    if (event === 'mcp:updated') updated.push({ name: (payload as { name: string }).name, tools: (payload as { tools: unknown[] | null }).tools?.length ?? null });
  });
  service = new McpService(store, bus, { tools: source });
});

afterEach(async () => {
  await hub.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const stdio = { kind: 'stdio' as const, command: 'notes-server', args: [], env: {} };

describe('tools listed outside a task', () => {
  it('a refresh lists them in a window of its own and closes the server after; the rules shown follow the person\'s rules now', async () => {
    await service.add({ name: 'notes', transport: stdio });
    expect((await service.list())[0]!.tools).toBeNull();
    const [listed] = await service.list(true);
    expect(listed!.toolsError).toBeNull();
    expect(listed!.tools!.map((t) => [t.name, t.rule])).toEqual([
      ['list_notes', 'allow'],
      ['add_note', 'allow'],
    ]);
    expect(windows).toEqual(['open listing', 'close listing']);
    expect(connector.closed).toBe(1);

    // Without listing again: deny one, and hold calls undo cannot take back (add_note has no inverse).
    await service.setRules('notes', { deny: ['list_notes'] });
    expect((await service.list())[0]!.tools!.map((t) => t.rule)).toEqual(['deny', 'allow']);
    await service.setRules('notes', { deny: [], noInverse: 'hold' });
    expect((await service.list())[0]!.tools!.map((t) => t.rule)).toEqual(['allow', 'hold']);

    // Redefined: what was listed for the old definition no longer holds.
    await service.add({ name: 'notes', transport: { ...stdio, args: ['--other'] }, replace: true });
    expect((await service.list())[0]!.tools).toBeNull();
  });

  it('a server that cannot be reached says why, and its window still closes', async () => {
    const failing: CountingConnector = { opened: [], closed: 0, connect: async () => Promise.reject(new Error('The MCP server notes exited (exit code 1) before it was ready.')) };
    hub = new ListingHub({ connectors: { stdio: failing, http: failing }, server: (name) => store.get(name), task: (taskId) => ({ taskId, workspaces: [] }) });
    service = new McpService(store, new EventBus(), { tools: new HubToolSource(hub, { open: () => void windows.push('open'), close: async () => void windows.push('close') }) });
    await service.add({ name: 'notes', transport: stdio });
    const [view] = await service.list(true);
    expect(view!.tools).toBeNull();
    expect(view!.toolsError).toBe('The server could not be asked for its tools: The MCP server notes exited (exit code 1) before it was ready.');
    expect(windows).toEqual(['open', 'close']);
  });
});

describe("the prompt's part as a run begins", () => {
  it("lists each granted server's tools in one window, names a server that failed, and leaves out one removed since", async () => {
    await service.add({ name: 'notes', transport: stdio });
    const opened: string[] = [];
    const text = await mcpPrompt(task(['notes', 'gone']), { hub, open: (id) => opened.push(`open ${id}`), close: (id) => opened.push(`close ${id}`) });
    expect(opened).toEqual(['open task-1', 'close task-1']);
    expect(text).toContain('from posthoc_tools import notes');
    expect(text).toMatch(/- list_notes: Lists the notes\. \[read-only\]/);
    expect(text).toMatch(/- add_note: Adds a note\./);
    expect(text).not.toContain('gone');
    // The hub remembered the listing for mcp:list, and the front ends heard of it once (not again for the same tools).
    expect((await service.list())[0]!.tools!.map((t) => t.name)).toEqual(['list_notes', 'add_note']);
    expect(updated).toEqual([{ name: 'notes', tools: null }, { name: 'notes', tools: 2 }]);
    await hub.closeTask('task-1');
    await mcpPrompt(task(['notes']), { hub, open: () => undefined, close: () => undefined });
    expect(updated).toHaveLength(2);
    expect(await mcpPrompt(task([]), { hub, open: () => opened.push('x'), close: () => opened.push('y') })).toBe('');
    expect(opened).toHaveLength(2);

    const failing: CountingConnector = { opened: [], closed: 0, connect: async () => Promise.reject(new Error('npm ERR! 409 Conflict')) };
    const broken = new ListingHub({ connectors: { stdio: failing, http: failing }, server: (name) => store.get(name), task: (taskId) => ({ taskId, workspaces: [] }) });
    const closedAfterFailure: string[] = [];
    const failed = await mcpPrompt(task(['notes']), { hub: broken, open: () => closedAfterFailure.push('open'), close: () => closedAfterFailure.push('close') });
    expect(failed).toMatch(/notes \(local\):\n {2}\(its tools could not be listed: npm ERR! 409 Conflict\)/);
    expect(closedAfterFailure).toEqual(['open', 'close']);
  });
});

describe("the gateway in Posthoc's own windows", () => {
  const ctx = (actionId: string) => ({ actionId }) as RouteContext;
  const route: GatewayRoute = async () => ({ status: 200, body: { ok: true } });

  it('refuses every route but packages while Posthoc starts a server, and answers actions as before', async () => {
    const guarded = actionsOnly(route);
    for (const window of ['start', 'undo', 'list']) {
      const reply = await guarded(ctx(`${OWN_WINDOW}${window}`), { method: 'POST', path: '/notes', search: '', headers: {}, body: Buffer.from('{}') });
      expect(reply.status).toBe(409);
      expect((reply.body as { error: string }).error).toMatch(/only package installs go through the gateway now/);
    }
    const answered = await guarded(ctx('3f0c7a52-action'), { method: 'POST', path: '/notes', search: '', headers: {}, body: Buffer.from('{}') });
    expect(answered).toEqual({ status: 200, body: { ok: true } });
    const streaming = Object.assign(async () => ({ status: 200, body: 'streamed' }), { streaming: true as const }) as StreamingRoute;
    expect(actionsOnly(streaming).streaming).toBe(true);
    expect(actionsOnly(route).streaming).toBeUndefined();
  });

  it('a listing runs as a task with nothing granted', () => {
    const t = listingTask('mcp-list:1');
    expect(t).toMatchObject({ id: 'mcp-list:1', workspaces: [], services: [], mcp: [], status: 'running' });
    expect(isListing(t.id)).toBe(true);
    expect(isListing('0b7e-task')).toBe(false);
  });
});


describe('what a stdio server keeps between tasks', () => {
  const http = { kind: 'http' as const, url: 'https://mcp.example.com/mcp', auth: { kind: 'none' as const } };
  const me = `${process.getuid?.() ?? 1000}:${process.getgid?.() ?? 1000}`;

  function withState(inUse: (name: string) => Promise<string | null> = async () => null) {
    const state = new McpStateFolders(join(dir, 'mcp-state'));
    const bus = new EventBus();
    const events: Array<{ name: string; stateBytes: number | null }> = [];
    bus.subscribe((event, payload) => {
      if (event === 'mcp:updated') events.push({ name: (payload as McpServerView).name, stateBytes: (payload as McpServerView).stateBytes });
    });
    return { state, events, service: new McpService(store, bus, { tools: new HubToolSource(hub), state, inUse }) };
  }

  it('is listed by size (null for a remote server), cleared to nothing, and the front ends hear of it', async () => {
    const { state, events, service: s } = withState();
    await s.add({ name: 'notes', transport: stdio });
    await s.add({ name: 'docs', transport: http });
    expect((await s.list()).map((v) => [v.name, v.stateBytes])).toEqual([
      ['docs', null],
      ['notes', 0],
    ]);
    writeFileSync(join(await state.forUser('notes', me), 'graph.jsonl'), 'x'.repeat(20_000));
    const size = (await s.list()).find((v) => v.name === 'notes')!.stateBytes!;
    expect(size).toBeGreaterThanOrEqual(20_000);

    const cleared = await s.clear('notes');
    expect(cleared.freedBytes).toBe(size);
    expect(cleared.server).toMatchObject({ name: 'notes', stateBytes: 0 });
    expect(events.at(-1)).toEqual({ name: 'notes', stateBytes: 0 });
    expect(existsSync(join(dir, 'mcp-state', 'notes'))).toBe(false);
    expect(await refusal(() => s.clear('docs'))).toMatch(/^docs is a remote server: it keeps its data on its own side/);
    expect(await refusal(() => s.clear('nothing'))).toMatch(/^No MCP server named nothing/);
    expect(await refusal(() => s.clear('../notes'))).toMatch(/starts with a letter/);
    // --replace keeps it (the same server, changed); removing the server removes it too.
    writeFileSync(join(await state.forUser('notes', me), 'graph.jsonl'), 'kept');
    await s.add({ name: 'notes', transport: { ...stdio, args: ['--verbose'] }, replace: true });
    expect(readFileSync(join(dir, 'mcp-state', 'notes', me.split(':')[0]!, 'graph.jsonl'), 'utf8')).toBe('kept');
    const removed = await s.remove('notes');
    expect(removed.removed).toBe(true);
    expect(removed.freedBytes).toBeGreaterThan(0);
    expect(existsSync(join(dir, 'mcp-state', 'notes'))).toBe(false);
    // Added again under that name: it starts empty, never with the data of the one removed.
    await s.add({ name: 'notes', transport: stdio });
    expect((await s.list()).find((v) => v.name === 'notes')!.stateBytes).toBe(0);
  });

  it('is not cleared nor removed while the server is in use: refused in words, nothing touched', async () => {
    let busy: string | null = 'the task "remember alice" (t-1) uses notes and is still running';
    const { state, service: s } = withState(async (name) => (name === 'notes' ? busy : null));
    await s.add({ name: 'notes', transport: stdio });
    writeFileSync(join(await state.forUser('notes', me), 'graph.jsonl'), 'alice');
    const clearing = await refusal(() => s.clear('notes'));
    expect(clearing).toBe('Posthoc cannot clear the data of notes now: the task "remember alice" (t-1) uses notes and is still running. Clear it once that has ended.');
    expect(await refusal(() => s.remove('notes'))).toBe('Posthoc cannot remove notes now: the task "remember alice" (t-1) uses notes and is still running. Remove it once that has ended.');
    expect(s.get('notes')).toBeDefined();
    expect(readFileSync(join(dir, 'mcp-state', 'notes', me.split(':')[0]!, 'graph.jsonl'), 'utf8')).toBe('alice');
    busy = null;
    expect((await s.clear('notes')).freedBytes).toBeGreaterThan(0);
  });

  it('two servers whose names differ only in case are refused: their data would share a folder on a case-insensitive disk', async () => {
    const { service: s } = withState();
    await s.add({ name: 'Notes', transport: stdio });
    expect(await refusal(() => s.add({ name: 'notes', transport: stdio }))).toMatch(/^Notes and notes differ only in case, so their data would share one folder/);
  });

  it('is in use while a task granted it runs in a live process, or while a container of it exists', async () => {
    const owner = { pid: 1, start: 'x' };
    const running = [{ task: { ...task(['notes']), title: 'remember alice' }, owner }];
    let containers = 0;
    let gone = false;
    const inUse = mcpServerInUse({ runningTasks: () => running, ownerGone: () => gone, containers: async () => containers });
    expect(await inUse('notes')).toBe('the task "remember alice" (task-1) uses notes and is still running');
    expect(await inUse('other')).toBeNull();
    gone = true;
    expect(await inUse('notes')).toBeNull();
    containers = 1;
    expect(await inUse('other')).toBe('Posthoc is running other right now (listing its tools, or undoing one of its calls)');
    const noDocker = mcpServerInUse({ runningTasks: () => [], ownerGone: () => false, containers: async () => Promise.reject(new Error('connect ENOENT /var/run/docker.sock')) });
    expect(await noDocker('notes')).toBeNull();
  });
});

async function refusal(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}
