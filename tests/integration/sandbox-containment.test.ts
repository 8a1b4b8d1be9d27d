// The red team's critical chain, as regressions against the real Docker daemon and the real image: action
// code tries to trace, read or signal the container's PID 1 and action runner, to outlive its action, and
// to swap a granted folder for a link to a host folder while Posthoc checkpoints and undoes. Each case runs
// twice: with a folder of the person's own (uid 1000) and with a root-owned folder (Posthoc as root).
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ActionLanguage, ActionOutput, Task } from '../../shared/domain';
import { CheckpointStore } from '../../main/effects/fs/checkpoint-store';
import { TASK_LABEL } from '../../main/sandbox/container-policy';
import { createServices, type AppServices } from '../../main/services/app-services';
import { startHarness, type Harness } from '../support/services-harness';
import { tempDirs } from '../support/temp-dir';

const owners = [
  { label: 'a folder of the person (uid 1000)', uid: 1000, gid: 1000 },
  { label: 'a root-owned folder, Posthoc as root', uid: 0, gid: 0 },
];

/** Prints "name errno" for each attempt on PID 1 and on the runner (the action's parent). */
const ATTACKS = String.raw`
import ctypes, errno, os, signal
libc = ctypes.CDLL(None, use_errno=True)
runner = os.getppid()
def report(name, ok):
    print(name, 'ok' if ok else errno.errorcode.get(ctypes.get_errno() or 0, '?'))
for target, label in ((1, 'pid1'), (runner, 'runner')):
    ctypes.set_errno(0)
    report(label + '-ptrace-attach', libc.ptrace(16, target, 0, 0) == 0)
    ctypes.set_errno(0)
    report(label + '-ptrace-seize', libc.ptrace(0x4206, target, 0, 0) == 0)
    class iovec(ctypes.Structure):
        _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]
    buf = ctypes.create_string_buffer(64)
    local = iovec(ctypes.cast(buf, ctypes.c_void_p), 64)
    remote = iovec(0x400000, 64)
    ctypes.set_errno(0)
    report(label + '-vm-read', libc.process_vm_readv(target, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) >= 0)
    for path in ('mem', 'environ'):
        try:
            open('/proc/%d/%s' % (target, path), 'rb').read(1)
            print(label + '-' + path, 'ok')
        except OSError as e:
            print(label + '-' + path, errno.errorcode[e.errno])
ctypes.set_errno(0)
report('unshare', libc.unshare(0x10000000) == 0)
for line in open('/proc/self/status'):
    if line.startswith(('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'Uid')):
        print(' '.join(line.split()))
`;

describe.each(owners)('PID 1 and the action runner are out of reach: $label', (owner) => {
  const dirs = tempDirs();
  let services: AppServices;
  let task: Task;
  let seq = 0;

  beforeAll(() => {
    services = createServices({ dataDir: dirs.make('posthoc-data-'), env: {} });
    const workspace = dirs.make('posthoc-ws-');
    chownSync(workspace, owner.uid, owner.gid);
    task = services.store.createTask({
      title: 'containment',
      workspaces: [{ name: 'ws', hostPath: workspace, mountPath: '/workspace', readOnly: false }],
      services: [],
      model: 'm',
    });
  });

  afterAll(async () => {
    await services.close();
    dirs.cleanup();
  });

  const run = (source: string, language: ActionLanguage = 'python'): Promise<ActionOutput> =>
    services.executor.run({ taskId: task.id, workspaces: task.workspaces, seq: ++seq, language, source, timeoutSeconds: 30 });

  it('action code cannot trace, read or take over PID 1 or its runner, and holds no capability', async () => {
    const out = await run(ATTACKS);
    expect(out.stderr).toBe('');
    expect(out.exitCode).toBe(0);
    const lines = Object.fromEntries(out.stdout.trim().split('\n').map((l) => [l.split(' ')[0], l.split(' ').slice(1).join(' ')]));
    for (const target of ['pid1', 'runner']) {
      expect(lines[`${target}-ptrace-attach`]).toBe('EPERM');
      expect(lines[`${target}-ptrace-seize`]).toBe('EPERM');
      expect(lines[`${target}-vm-read`]).toBe('EPERM');
      expect(['EACCES', 'EPERM']).toContain(lines[`${target}-mem`]);
      expect(['EACCES', 'EPERM']).toContain(lines[`${target}-environ`]);
    }
    expect(lines.unshare).toBe('EPERM');
    // A root-owned folder's action keeps CHOWN and FOWNER (root as on a machine, inside its container only).
    const kept = owner.uid === 0 ? '0000000000000009' : '0000000000000000';
    for (const set of ['CapPrm:', 'CapEff:', 'CapBnd:']) expect(lines[set], set).toBe(kept);
    for (const set of ['CapInh:', 'CapAmb:']) expect(lines[set], set).toBe('0000000000000000');
    expect(lines['Uid:']).toBe(`${owner.uid} ${owner.uid} ${owner.uid} ${owner.uid}`);
  });

  it("PID 1 and the runner keep only the runner's capabilities once the kernel's watch is set up", async () => {
    await run('print(1)');
    const [info] = await services.docker.listContainers({ all: true, filters: { label: [`${TASK_LABEL}=${task.id}`] } });
    const pid1 = (await services.docker.getContainer(info!.Id).inspect()).State.Pid;
    const runner = readFileSync(`/proc/${pid1}/task/${pid1}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    expect(runner.length).toBeGreaterThan(0);
    // CHOWN (0), FOWNER (3), KILL (5), SETGID (6), SETUID (7), SETPCAP (8); SYS_ADMIN (21) and DAC_READ_SEARCH (2)
    // served the watch's set-up only.
    const RUNNER = (1n << 0n) | (1n << 3n) | (1n << 5n) | (1n << 6n) | (1n << 7n) | (1n << 8n);
    for (const pid of [String(pid1), ...runner]) {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      for (const set of ['CapEff', 'CapPrm', 'CapBnd']) {
        const value = BigInt(`0x${new RegExp(`^${set}:\\s+([0-9a-f]+)$`, 'm').exec(status)![1]}`);
        expect(value, `${set} of ${pid}`).toBe(RUNNER);
      }
    }
  });

  it('cannot signal PID 1, and the runner only when the action shares its uid (then the sandbox is replaced)', async () => {
    const out = await run("import os, signal\ntry:\n    os.kill(1, signal.SIGKILL)\n    print('pid1 sent')\nexcept OSError as e:\n    print('pid1', e.errno)\n");
    // Root of the container sends it, PID 1 ignores it (no handler in its namespace); others are refused.
    expect(out.stdout.trim()).toBe(owner.uid === 0 ? 'pid1 sent' : 'pid1 1');
    expect((await run('print("alive")')).stdout).toBe('alive\n');
  });

  it('threads and ordinary programs still work under the seccomp profile (clone3 falls back to clone)', async () => {
    const out = await run("import threading, subprocess\nt = threading.Thread(target=lambda: print('thread'))\nt.start(); t.join()\nprint(subprocess.run(['sh', '-c', 'echo child'], capture_output=True, text=True).stdout.strip())");
    expect(out.stdout).toBe('thread\nchild\n');
    expect((await run('echo "$HOME" && echo note > "$HOME/.note" && cat "$HOME/.note"', 'bash')).stdout).toBe('/home/sandbox\nnote\n');
  });

  it('between actions the container is frozen, so nothing of the sandbox runs while the host works on the folder', async () => {
    await run('print(1)');
    const [info] = await services.docker.listContainers({ all: true, filters: { label: [`${TASK_LABEL}=${task.id}`] } });
    expect(info?.State).toBe('paused');
    expect((await run('print(2)')).stdout).toBe('2\n');
  });

  it('the relay to the gateway survives a flood of connections and still answers afterwards', async () => {
    const flood = [
      'import os, socket',
      'held, refused = [], 0',
      'for _ in range(700):',
      '    s = socket.create_connection(("127.0.0.1", 8080), timeout=5)',
      '    held.append(s)',
      'import select, time',
      'deadline = time.time() + 10',
      'pending = list(held)',
      'while pending and refused == 0 and time.time() < deadline:',
      '    ready, _, _ = select.select(pending, [], [], 0.5)',
      '    for s in ready:',
      '        pending.remove(s)',
      '        if s.recv(100).startswith(b"HTTP/1.1 503"): refused += 1',
      'print("refused", refused > 0)',
      'for s in held: s.close()',
      'import urllib.request, urllib.error',
      'try:',
      '    urllib.request.urlopen(os.environ["POSTHOC_GATEWAY"] + "/svc/nothing/x", timeout=10)',
      'except urllib.error.HTTPError as e:',
      '    print("gateway", e.code, "error" in __import__("json").loads(e.read()))',
    ].join('\n');
    const out = await run(flood);
    expect(out.stderr).toBe('');
    // The gateway itself answers (a JSON error: this call is outside any action or service grant).
    expect(out.stdout).toMatch(/^refused True\ngateway 4\d\d True\n$/);
  });

  it('a Stop that comes while the container starts stops the action as soon as it is sent', async () => {
    await services.executor.stop(task.id);
    const controller = new AbortController();
    setImmediate(() => controller.abort());
    const out = await services.executor.run({
      taskId: task.id,
      workspaces: task.workspaces,
      seq: ++seq,
      language: 'python',
      source: "import time\ntime.sleep(3)\nopen('/workspace/finished.txt', 'w').write('ran to the end')",
      timeoutSeconds: 30,
      signal: controller.signal,
    });
    expect(out.exitCode).toBe(137);
    expect(out.stderr).toMatch(/stopped/);
    expect(existsSync(join(task.workspaces[0]!.hostPath, 'finished.txt'))).toBe(false);
  });

  it('nothing of an action outlives it: a daemon that double-forks, ignores signals and renames itself is gone', async () => {
    const daemon = [
      'import os, signal, time',
      'if os.fork() == 0:',
      '    os.setsid()',
      '    if os.fork() == 0:',
      '        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT): signal.signal(s, signal.SIG_IGN)',
      "        open('/proc/self/comm', 'w').write('innocent')",
      '        while True: time.sleep(0.05)',
      '    os._exit(0)',
      "print('spawned')",
    ].join('\n');
    expect((await run(daemon)).stdout).toBe('spawned\n');
    const left = await run(
      "import os\nme = os.getpid()\nprint(sorted(open('/proc/%s/comm' % p).read().strip() for p in os.listdir('/proc') if p.isdigit() and int(p) != me))",
    );
    // PID 1 and the runner: both the image's init.
    expect(left.stdout.trim()).toBe("['posthoc-init', 'posthoc-init']");
  });
});

describe.each(owners)('a folder swapped for a link to the host during undo and checkpoints writes and reads nothing outside: $label', (owner) => {
  const dirs = tempDirs();
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  afterAll(() => dirs.cleanup());

  it('the red team chain: plant a link-swapping daemon, then undo and rewind as the person', async () => {
    const outside = dirs.make('posthoc-outside-');
    writeFileSync(join(outside, 'keep.txt'), 'host file\n');
    const secrets = dirs.make('posthoc-secrets-');
    writeFileSync(join(secrets, 'shadow'), 'root:HOST-SECRET-7f3a:19000:0:99999:7:::\n');
    const swapper = [
      'import os, time',
      'if os.fork() == 0:',
      '    os.setsid()',
      '    if os.fork() == 0:',
      '        while True:',
      '            for name, target in ((\'d\', %OUT%), (\'e\', %SECRETS%)):',
      '                try:',
      "                    os.rename(name, name + '.real')",
      '                    os.symlink(target, name)',
      '                    time.sleep(0.001)',
      '                    os.unlink(name)',
      "                    os.rename(name + '.real', name)",
      '                except OSError:',
      '                    pass',
      '    os._exit(0)',
      'time.sleep(0.5)',
      "print('planted')",
    ]
      .join('\n')
      .replace('%OUT%', JSON.stringify(outside))
      .replace('%SECRETS%', JSON.stringify(secrets));
    harness = await startHarness([
      "```python\nimport os\nos.makedirs('d', exist_ok=True)\nos.makedirs('e', exist_ok=True)\nopen('d/pwned.txt', 'w').write('x' * 100000)\nopen('e/plain.txt', 'w').write('plain')\n```",
      `\`\`\`python\n${swapper}\n\`\`\``,
      'Done.',
    ]);
    const { services, workspace } = harness;
    chownSync(workspace, owner.uid, owner.gid);
    const started = await services.tasks.start({ prompt: 'go', workspaces: [workspace] });
    const task = await services.tasks.wait(started.id);
    expect(task.status).toBe('done');
    const [first, second] = services.tasks.get(task.id).actions;
    expect(second!.output.stdout).toBe('planted\n');

    // The person undoes the first action (refused while the second changed the same folders) and rewinds.
    const undone = await services.tasks.undo(first!.id);
    // Where the daemon was killed mid-swap, the second action changed d or e: undo is refused and a rewind
    // takes back both actions, newest first (through the link the daemon left, never out of the folder).
    if (undone.outcome === 'conflict') expect((await services.undo.rewind(first!.id)).outcome).toBe('rewound');
    else expect(undone.outcome).toBe('undone');

    // Nothing was written outside the grant, and no host secret entered a checkpoint.
    expect(readdirSync(outside)).toEqual(['keep.txt']);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('host file\n');
    const gitdir = CheckpointStore.gitdirFor(workspace, join(harness.dataDir, 'checkpoints'));
    const objects = execFileSync('git', ['--git-dir', gitdir, 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 256 * 1024 * 1024 });
    expect(objects.includes(Buffer.from('HOST-SECRET-7f3a'))).toBe(false);
    // The folder is back as before the task, and the daemon is gone (nothing swaps any more).
    expect(existsSync(join(workspace, 'd'))).toBe(false);
    expect(existsSync(join(workspace, 'e'))).toBe(false);
    mkdirSync(join(workspace, 'd'));
    await new Promise((r) => setTimeout(r, 300));
    expect(readdirSync(workspace).sort()).toEqual(['d']);
  });
});
