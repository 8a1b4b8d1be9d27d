// Hostile code against the real Docker daemon and the real sandbox image. Each case asserts its specific
// outcome; afterwards the host must be unchanged (sentinel files outside the grant, no stray containers).
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionLanguage, ActionOutput, Task } from '../../shared/domain';
import { TASK_LABEL } from '../../main/sandbox/container-policy';
import { createServices, type AppServices } from '../../main/services/app-services';
import { startEchoServer, type EchoServer } from '../support/echo-server';
import { startHarness } from '../support/services-harness';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let services: AppServices;
let task: Task;
let readOnlyTask: Task;
let workspace: string;
let outside: string;
let outsideForLinks: string;
let hostServer: Server;
let hostPort: number;
let echo: EchoServer;
let seq = 0;

beforeAll(async () => {
  services = createServices({ dataDir: dirs.make('posthoc-data-'), env: {} });
  workspace = dirs.workspace();
  outside = dirs.make('posthoc-outside-');
  writeFileSync(join(outside, 'secret.txt'), 'host secret\n');
  outsideForLinks = dirs.make('posthoc-outside-links-');
  writeFileSync(join(outsideForLinks, 'secret.txt'), 'host secret\n');
  writeFileSync(join(workspace, 'shared.txt'), 'in the grant\n');
  echo = await startEchoServer();
  services.services.add('granted', echo.baseUrl);
  services.services.add('forbidden', echo.baseUrl);
  const grant = (readOnly: boolean) => [{ name: 'ws', hostPath: workspace, mountPath: '/workspace', readOnly }];
  task = services.store.createTask({ title: 'hostile', workspaces: grant(false), services: ['granted'], model: 'm' });
  readOnlyTask = services.store.createTask({ title: 'hostile ro', workspaces: grant(true), services: [], model: 'm' });
  hostServer = createServer((s) => s.end('you reached the host\n'));
  await new Promise<void>((r) => hostServer.listen(0, '127.0.0.1', () => r()));
  hostPort = (hostServer.address() as { port: number }).port;
});

afterAll(async () => {
  await services.close();
  hostServer.close();
  await echo.close();
  // The host is unchanged: the file outside the grant is intact and no sandbox container is left.
  expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('host secret\n');
  expect(readdirSync(outside)).toEqual(['secret.txt']);
  for (const t of [task, readOnlyTask]) {
    const left = await services.docker.listContainers({ all: true, filters: { label: [`${TASK_LABEL}=${t.id}`] } });
    expect(left).toEqual([]);
  }
  dirs.cleanup();
});

async function run(source: string, language: ActionLanguage = 'python', timeoutSeconds = 20, on: Task = task): Promise<ActionOutput> {
  const actionId = `hostile-${++seq}`;
  services.gateway.beginAction(on.id, actionId);
  try {
    return await services.executor.run({ taskId: on.id, workspaces: on.workspaces, seq, language, source, timeoutSeconds });
  } finally {
    services.gateway.endAction(on.id);
  }
}

const processCount = "import os\nprint(sorted(open(f'/proc/{p}/cmdline','rb').read().split(b'\\0')[0].decode() for p in os.listdir('/proc') if p.isdigit() and p != str(os.getpid())))";

describe('hostile code in the sandbox', () => {
  it('runs as a non-root user with no capabilities', async () => {
    const out = await run("import os\nprint(os.getuid(), os.getgid())\nprint(open('/proc/self/status').read().split('CapEff:')[1].split()[0])");
    const [ids, caps] = out.stdout.trim().split('\n');
    expect(ids!.split(' ')[0]).not.toBe('0');
    expect(caps).toBe('0000000000000000');
  });

  it('a fork bomb hits the process limit and is ended with the action; the task stays usable', async () => {
    const bomb = await run(':(){ :|:& };:\nsleep 3', 'bash', 10);
    expect(bomb.stderr).toContain('fork: retry: Resource temporarily unavailable');
    const after = await run(processCount);
    expect(after.exitCode).toBe(0);
    // Left: PID 1 (the image's init) and the init's `--run` wrapper of this very action, both Python.
    expect(after.stdout.trim()).toBe("['/usr/bin/python3', '/usr/bin/python3']");
  });

  it('a memory hog is killed at the memory limit, not the host', async () => {
    const out = await run('b = bytearray(3 * 1024 ** 3)\nprint("allocated")', 'python', 60);
    expect(out.stdout).not.toContain('allocated');
    expect(out.timedOut).toBe(false);
    expect(out.exitCode === 137 || /MemoryError/.test(out.stderr)).toBe(true);
    expect((await run('print("alive")')).stdout).toBe('alive\n');
  });

  it('an infinite loop is stopped at the action timeout and the next action runs', async () => {
    const out = await run('while True:\n    pass', 'python', 2);
    expect(out.timedOut).toBe(true);
    expect(out.stderr).toContain('action timeout');
    expect((await run('print(2 + 2)')).stdout).toBe('4\n');
  });

  it('100 MB of output is capped: head and tail kept, the cut counted', async () => {
    const out = await run("import sys\nsys.stdout.write('a' * 1024)\nsys.stdout.write('x' * (100 * 1024 * 1024))\nsys.stdout.write('THE END')", 'python', 120);
    expect(out.exitCode).toBe(0);
    expect(out.truncated).toBe(true);
    expect(out.stdout.startsWith('a'.repeat(1024))).toBe(true);
    expect(out.stdout.endsWith('THE END')).toBe(true);
    expect(out.stdout.length).toBeLessThan(200 * 1024);
    const cut = Number(/\[… (\d+) bytes cut/.exec(out.stdout)?.[1]);
    expect(cut).toBe(1024 + 100 * 1024 * 1024 + 7 - 128 * 1024);
  });

  it('a background process left running ends with the action', async () => {
    const out = await run('nohup sleep 600 >/dev/null 2>&1 &\nsetsid sleep 601 >/dev/null 2>&1 < /dev/null &\necho started', 'bash');
    expect(out.stdout).toBe('started\n');
    const after = await run(processCount);
    expect(after.stdout).not.toContain('sleep');
  });

  it('cannot open a TCP connection to a server on the host\'s 127.0.0.1', async () => {
    const out = await run(
      `import socket\ntry:\n    s = socket.create_connection(('127.0.0.1', ${hostPort}), timeout=3)\n    print('CONNECTED', s.recv(100))\nexcept OSError as e:\n    print('blocked:', e)`,
    );
    expect(out.stdout).toMatch(/^blocked:/);
    expect(out.stdout).not.toContain('CONNECTED');
  });

  it('cannot resolve names (no DNS, no network)', async () => {
    const out = await run("import socket\ntry:\n    print(socket.getaddrinfo('example.com', 443))\nexcept OSError as e:\n    print('no dns:', type(e).__name__)");
    expect(out.stdout).toMatch(/^no dns: gaierror/);
  });

  it('cannot read a file outside the granted folder', async () => {
    const out = await run(
      `import os\nfor p in ['${join(outside, 'secret.txt')}', '/host/etc/shadow']:\n    print(os.path.exists(p))\nprint(open('/workspace/shared.txt').read().strip())`,
    );
    expect(out.stdout).toBe('False\nFalse\nin the grant\n');
  });

  it('cannot write to a read-only grant', async () => {
    const out = await run("try:\n    open('/workspace/new.txt', 'w').write('x')\n    print('WROTE')\nexcept OSError as e:\n    print('refused:', e.strerror)", 'python', 20, readOnlyTask);
    expect(out.stdout).toBe('refused: Read-only file system\n');
    expect(readdirSync(workspace)).not.toContain('new.txt');
  });

  it('cannot mount, chown or open raw sockets', async () => {
    const out = await run(
      [
        'import ctypes, os, socket',
        "libc = ctypes.CDLL(None, use_errno=True)",
        "r = libc.mount(b'none', b'/tmp', b'tmpfs', 0, None)",
        "print('mount', r, os.strerror(ctypes.get_errno()))",
        "open('/workspace/mine.txt', 'w').write('x')",
        'try:',
        "    os.chown('/workspace/mine.txt', 0, 0)",
        "    print('chown ok')",
        'except OSError as e:',
        "    print('chown', e.strerror)",
        'try:',
        '    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)',
        "    print('raw ok')",
        'except OSError as e:',
        "    print('raw', e.strerror)",
      ].join('\n'),
    );
    expect(out.stdout).toBe('mount -1 Operation not permitted\nchown Operation not permitted\nraw Operation not permitted\n');
  });

  it('finds no Docker socket, only Posthoc\'s own two (the gateway and the action runner\'s control)', async () => {
    const out = await run("find / -xdev -type s 2>/dev/null; find /run /var/run /tmp /workspace -type s 2>/dev/null; ls /var/run/docker.sock 2>&1 || true", 'sh');
    const sockets = new Set(out.stdout.split('\n').filter((l) => l.startsWith('/')));
    expect([...sockets].filter((s) => !s.includes('No such file')).sort()).toEqual(['/run/posthoc-control/control.sock', '/run/posthoc/gateway.sock']);
    expect(out.stdout).toContain('No such file or directory');
  });

  it('cannot take the action runner\'s place: the control socket drops every later connection', async () => {
    const out = await run(
      [
        'import socket',
        's = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)',
        "s.connect('/run/posthoc-control/control.sock')",
        's.settimeout(5)',
        'try:',
        "    s.sendall(b'X' + (30).to_bytes(4, 'big') + b'{\"exitCode\": 0, \"timedOut\": 0}')",
        "    print('closed' if s.recv(10) == b'' else 'open')",
        'except (ConnectionResetError, BrokenPipeError):',
        "    print('closed')",
        'except OSError as e:',
        "    print('unexpected', type(e).__name__, e)",
        "print('still running')",
      ].join('\n'),
    );
    expect(out.stdout, JSON.stringify(out)).toBe('closed\nstill running\n');
    expect(out.exitCode).toBe(0);
    expect((await run('print("next")')).stdout).toBe('next\n');
  });

  it('reaches a granted service through the gateway, and is refused one not granted', async () => {
    const out = await run(
      [
        'import os, requests',
        "base = os.environ['POSTHOC_GATEWAY']",
        "ok = requests.post(base + '/svc/granted/notes', json={'text': 'hi'})",
        "print(ok.status_code, ok.json()['url'])",
        "no = requests.get(base + '/svc/forbidden/secrets')",
        "print(no.status_code, no.json()['error'])",
      ].join('\n'),
    );
    const [first, second] = out.stdout.trim().split('\n');
    expect(first).toBe('200 /notes');
    expect(second).toMatch(/^403 The service "forbidden" is not granted to this task/);
    expect(echo.received.map((r) => r.url)).toEqual(['/notes']);
  });
});

describe('symlinks an action plants in the granted folder', () => {
  it('are checkpointed as links and undone as links; the host never follows them out', async () => {
    const target = join(outsideForLinks, 'secret.txt');
    const harness = await startHarness([`\`\`\`sh\nln -s ${target} escape\nln -s /etc/shadow shadow\necho done\n\`\`\``, 'Made two links.']);
    try {
      const started = await harness.services.tasks.start({ prompt: 'link out', workspaces: [harness.workspace] });
      const done = await harness.services.tasks.wait(started.id);
      expect(done.status).toBe('done');
      const [action] = harness.services.tasks.get(done.id).actions;
      const fs = action!.effects.find((e) => e.channel === 'fs');
      expect(fs && fs.channel === 'fs' ? fs.added : []).toEqual(['escape', 'shadow']);
      const gitdir = join(harness.dataDir, 'checkpoints', readdirSync(join(harness.dataDir, 'checkpoints')).find((d) => d.endsWith('.git'))!);
      const after = fs && fs.channel === 'fs' ? fs.checkpointAfter : '';
      const tree = execFileSync('git', ['--git-dir', gitdir, 'ls-tree', after], { encoding: 'utf8' });
      const link = /^120000 blob (\w+)\tescape$/m.exec(tree);
      expect(link).not.toBeNull();
      expect(execFileSync('git', ['--git-dir', gitdir, 'cat-file', '-p', link![1]!], { encoding: 'utf8' })).toBe(target);
      const undo = await harness.services.tasks.undo(action!.id);
      expect(undo.outcome).toBe('undone');
      expect(readdirSync(harness.workspace)).toEqual([]);
      expect(readFileSync(target, 'utf8')).toBe('host secret\n');
    } finally {
      await harness.close();
    }
  });
});
