// Red team of the containment built for issue 11: action code attacking PID 1, the action runner, its
// work folder, the claim log, the freezer and the host's checkpoint and undo. Every test asserts the SAFE
// outcome. Each runs with a folder of the
// person's (uid 1000) and with a root-owned folder (Posthoc as root: actions are uid 0 of the container,
// the same uid as PID 1 and the runner, without capabilities).
import { chownSync, existsSync, lstatSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inflateSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ActionLanguage, ActionOutput, FsEffect, Task } from '../../shared/domain';
import type { ActionClaims } from '../../main/sandbox/claims';
import { TASK_LABEL } from '../../main/sandbox/container-policy';
import { createServices, type AppServices } from '../../main/services/app-services';
import { startHarness, type Harness } from '../support/services-harness';
import { tempDirs } from '../support/temp-dir';

const owners = [
  { label: 'a folder of the person (uid 1000)', uid: 1000, gid: 1000 },
  { label: 'a root-owned folder, Posthoc as root', uid: 0, gid: 0 },
];

const chownTree = (dir: string, uid: number, gid: number) => {
  chownSync(dir, uid, gid);
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) chownSync(join(e.parentPath, e.name), uid, gid);
};

// ------------------------------------------------------------------------------------------------------
// Raw actions against the executor.
// ------------------------------------------------------------------------------------------------------
describe.each(owners)('red team, raw actions: $label', (owner) => {
  const dirs = tempDirs();
  let services: AppServices;
  let task: Task;
  let workspace: string;
  let seq = 0;

  beforeAll(() => {
    services = createServices({ dataDir: dirs.make('posthoc-data-'), env: {} });
    workspace = dirs.make('posthoc-ws-');
    chownSync(workspace, owner.uid, owner.gid);
    task = services.store.createTask({
      title: 'redteam',
      workspaces: [{ name: 'ws', hostPath: workspace, mountPath: '/workspace', readOnly: false }],
      services: [],
      model: 'm',
    });
  });

  afterAll(async () => {
    await services.close();
    const left = await services.docker.listContainers({ all: true, filters: { label: [`${TASK_LABEL}=${task.id}`] } });
    expect(left).toEqual([]);
    dirs.cleanup();
  });

  const run = (source: string, language: ActionLanguage = 'python', timeoutSeconds = 30): Promise<ActionOutput> => {
    const actionId = `redteam-${++seq}`;
    services.gateway.beginAction(task.id, actionId);
    return services.executor.run({ taskId: task.id, workspaces: task.workspaces, seq, language, source, timeoutSeconds }).finally(() => services.gateway.endAction(task.id));
  };
  const containerId = async () => (await services.docker.listContainers({ all: true, filters: { label: [`${TASK_LABEL}=${task.id}`] } }))[0]?.Id;

  /** Marks the container's /tmp; the next action says whether the mark is still there (same container, runner alive). */
  const sameSandboxAfter = async (attack: string) => {
    expect((await run("open('/tmp/redteam-mark', 'w').write('x')\nprint('marked')")).stdout).toBe('marked\n');
    const before = await containerId();
    const out = await run(attack);
    const after = await run("import os\nprint('mark', os.path.exists('/tmp/redteam-mark'))");
    return { out, after: after.stdout, restarted: before !== (await containerId()) };
  };

  it('SIGINT to PID 1 and to the runner (Python installs a SIGINT handler: KeyboardInterrupt) takes neither down', async () => {
    const { out, after, restarted } = await sameSandboxAfter(
      [
        'import os, signal, time',
        'runner = os.getppid()',
        'for pid in (1, runner):',
        '    try:',
        '        os.kill(pid, signal.SIGINT)',
        "        print('sent', pid == 1 and 'pid1' or 'runner')",
        '    except OSError as e:',
        "        print('refused', e.errno)",
        'time.sleep(1)',
        "print('action still reported')",
      ].join('\n'),
    );
    expect(out.stdout, JSON.stringify(out)).toContain('action still reported');
    expect(out.exitCode, JSON.stringify(out)).toBe(0);
    expect(after).toBe('mark True\n');
    expect(restarted).toBe(false);
  });

  it('other catchable signals (TERM, HUP, USR1, ALRM, PIPE) and pidfd_send_signal do not disturb PID 1 or the runner', async () => {
    const { out, after } = await sameSandboxAfter(
      [
        'import ctypes, os, signal, time',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'runner = os.getppid()',
        'for pid in (1, runner):',
        '    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGALRM, signal.SIGPIPE, signal.SIGCHLD):',
        '        try:',
        '            os.kill(pid, sig)',
        '        except OSError:',
        '            pass',
        '    fd = libc.syscall(434, pid, 0)  # pidfd_open',
        '    if fd >= 0:',
        '        libc.syscall(424, fd, signal.SIGTERM, None, 0)  # pidfd_send_signal',
        'time.sleep(1)',
        "print('action still reported')",
      ].join('\n'),
    );
    expect(out.stdout, JSON.stringify(out)).toContain('action still reported');
    expect(after).toBe('mark True\n');
  });

  it('F_SETOWN + F_SETSIG: SIGIO-style signals steered at the runner do not take it down', async () => {
    const { out, after } = await sameSandboxAfter(
      [
        'import ctypes, fcntl, os, signal, socket, time',
        'runner = os.getppid()',
        'a, b = socket.socketpair()',
        'fcntl.fcntl(a.fileno(), fcntl.F_SETOWN, runner)',
        'fcntl.fcntl(a.fileno(), 10, signal.SIGINT)  # F_SETSIG',
        'fcntl.fcntl(a.fileno(), fcntl.F_SETFL, fcntl.fcntl(a.fileno(), fcntl.F_GETFL) | os.O_ASYNC)',
        'b.send(b"x")',
        'time.sleep(1)',
        "print('action still reported')",
      ].join('\n'),
    );
    expect(out.stdout, JSON.stringify(out)).toContain('action still reported');
    expect(after).toBe('mark True\n');
  });

  it('SIGSTOP of the runner: the host\'s guard ends the action and the next action still runs', async () => {
    const started = Date.now();
    const out = await run(
      [
        'import os, signal, time',
        'try:',
        '    os.kill(os.getppid(), signal.SIGSTOP)',
        '    print("stopped the runner", flush=True)',
        'except OSError as e:',
        '    print("refused", e.errno, flush=True)',
        "open('/workspace/after-stop.txt', 'w').write('x')",
        'time.sleep(3)',
      ].join('\n'),
      'python',
      3,
    );
    // The host's own guard (timeout + 15 s) ends it at the latest; the next action works.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect((await run('print("next")')).stdout).toBe('next\n');
    expect(out).toBeDefined();
  });

  it('/proc of PID 1 and the runner: root, cwd, fd links and contents, fdinfo, maps, environ are all refused', async () => {
    const out = await run(
      [
        'import os',
        'runner = os.getppid()',
        'for pid in (1, runner):',
        "    for what, f in (('root', lambda p: os.listdir('/proc/%d/root/' % p)), ('cwd', lambda p: os.listdir('/proc/%d/cwd/' % p)),",
        "                    ('fdlink', lambda p: [os.readlink('/proc/%d/fd/%s' % (p, n)) for n in os.listdir('/proc/%d/fd' % p)] if os.access('/proc/%d/fd' % p, os.R_OK) else os.readlink('/proc/%d/fd/0' % p)),",
        "                    ('fdinfo', lambda p: open('/proc/%d/fdinfo/0' % p).read()),",
        "                    ('maps', lambda p: open('/proc/%d/maps' % p).read()), ('environ', lambda p: open('/proc/%d/environ' % p).read()),",
        "                    ('fd3', lambda p: open('/proc/%d/fd/3' % p, 'rb').read(1)), ('map_files', lambda p: os.listdir('/proc/%d/map_files' % p))):",
        '        try:',
        '            f(pid)',
        "            print(pid == 1 and 'pid1' or 'runner', what, 'OPEN')",
        '        except OSError as e:',
        '            pass',
        "print('done')",
      ].join('\n'),
    );
    expect(out.stdout).toBe('done\n');
  });

  it('kernel surface: io_uring, user namespaces (clone, unshare, x32 ABI), pidfd_getfd, keyrings, mknod of a device, chroot are refused', async () => {
    const out = await run(
      [
        'import ctypes, os, errno',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'libc.syscall.restype = ctypes.c_long',
        'def s(name, *args):',
        '    ctypes.set_errno(0)',
        '    r = libc.syscall(*[ctypes.c_char_p(a) if isinstance(a, bytes) else ctypes.c_long(a) for a in args])',
        '    e = ctypes.get_errno()',
        '    if r >= 0 and args[0] == 56 and r == 0:',
        '        os._exit(0)',
        "    print(name, 'OK' if r >= 0 else errno.errorcode.get(e, e))",
        'params = ctypes.create_string_buffer(120)',
        "s('io_uring_setup', 425, 8, ctypes.addressof(params))",
        "s('clone_newuser', 56, 0x10000000 | 17, 0, 0, 0, 0)",
        "s('clone_newuser_hi', 56, 0x10000000 | 17 | (1 << 40), 0, 0, 0, 0)",
        "s('clone_newns', 56, 0x00020000 | 17, 0, 0, 0, 0)",
        "s('unshare_user', 272, 0x10000000)",
        "s('unshare_x32', 272 | 0x40000000, 0x10000000)",
        "s('pidfd_getfd', 438, 0, 0, 0)",
        "s('keyctl', 250, 0, 0, 0)",
        "s('mknod_chr', 259, -100, b'/tmp/dev-null-2', 0o20666, os.makedev(1, 3))",
        "s('chroot', 161, b'/tmp')",
        "s('open_by_handle_at', 304, -100, 0, 0)",
        "s('userfaultfd', 323, 0)",
        "s('bpf', 321, 0, 0, 0)",
        "s('perf_event_open', 298, 0, 0, -1, -1, 0)",
      ].join('\n'),
    );
    const lines = Object.fromEntries(out.stdout.trim().split('\n').map((l) => l.split(' ') as [string, string]));
    expect(out.stderr).toBe('');
    for (const [name, result] of Object.entries(lines)) expect(result, name).not.toBe('OK');
    expect(Object.keys(lines)).toHaveLength(14);
  });

  it('cannot leave the freezer: the cgroup file system is read-only to action code', async () => {
    const out = await run(
      [
        'import os',
        'for attempt in (lambda: os.mkdir("/sys/fs/cgroup/escape"), lambda: open("/sys/fs/cgroup/cgroup.procs", "w").write(str(os.getpid())),',
        '                lambda: open("/sys/fs/cgroup/cgroup.freeze", "w").write("0")):',
        '    try:',
        '        attempt()',
        "        print('WROTE')",
        '    except OSError as e:',
        "        print('refused')",
      ].join('\n'),
    );
    expect(out.stdout).toBe('refused\nrefused\nrefused\n');
  });

  it('nothing outlives the action: a thread-group leader that exits (shows as a zombie) while its thread writes on', async () => {
    const hb = join(workspace, 'hb-leader.txt');
    const out = await run(
      [
        'import ctypes, os, threading, time',
        'libc = ctypes.CDLL(None)',
        'if os.fork() == 0:',
        '    os.setsid()',
        '    def beat():',
        '        while True:',
        "            with open('/workspace/hb-leader.txt', 'a') as f: f.write('.')",
        '            time.sleep(0.05)',
        '    threading.Thread(target=beat, daemon=False).start()',
        '    time.sleep(0.2)',
        '    libc.syscall(60, 0)  # exit of the leader only: the thread goes on',
        'time.sleep(0.5)',
        "print('planted')",
      ].join('\n'),
    );
    expect(out.stdout).toBe('planted\n');
    const size = statSync(hb).size;
    const next = await run(
      "import os, time\ns = os.path.getsize('/workspace/hb-leader.txt')\ntime.sleep(1.5)\nprint(os.path.getsize('/workspace/hb-leader.txt') - s)",
    );
    expect(next.stdout).toBe('0\n');
    expect(statSync(hb).size).toBe(size);
  });

  it('nothing outlives the action: vfork child, a relay connection holder and a self-stopped process', async () => {
    const out = await run(
      [
        'import os, signal, socket, time',
        'if os.fork() == 0:',
        '    os.setsid()',
        '    s = socket.create_connection(("127.0.0.1", 8080))',
        '    s.send(b"POST /svc/x/y HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 100000000\\r\\n\\r\\n")',
        '    while True:',
        "        with open('/workspace/hb-relay.txt', 'a') as f: f.write('.')",
        '        try: s.send(b"a" * 1024)',
        '        except OSError: pass',
        '        time.sleep(0.05)',
        'if os.fork() == 0:',
        '    os.setsid()',
        '    os.kill(os.getpid(), signal.SIGSTOP)',
        "    open('/workspace/hb-stopped.txt', 'w').write('resumed')",
        '    os._exit(0)',
        "pid = os.posix_spawn('/bin/sh', ['sh', '-c', 'while :; do echo . >> /workspace/hb-vfork.txt; sleep 0.05; done'], os.environ, setsid=True)",
        'time.sleep(0.5)',
        "print('planted')",
      ].join('\n'),
    );
    expect(out.stdout).toBe('planted\n');
    const next = await run(
      [
        'import os, time',
        "names = ['hb-relay.txt', 'hb-vfork.txt']",
        "s = [os.path.getsize('/workspace/' + n) for n in names]",
        'time.sleep(1.5)',
        "print([os.path.getsize('/workspace/' + n) - a for n, a in zip(names, s)], os.path.exists('/workspace/hb-stopped.txt'))",
      ].join('\n'),
    );
    expect(next.stdout).toBe('[0, 0] False\n');
  });

  it('a flood of 2,000 connections to the relay: the relay and PID 1 survive and the gateway still answers', async () => {
    const out = await run(
      [
        'import os, socket, resource',
        'soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)',
        'resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))',
        'held = []',
        'for _ in range(2000):',
        '    try:',
        '        held.append(socket.create_connection(("127.0.0.1", 8080), timeout=5))',
        '    except OSError as e:',
        '        pass',
        'print("held", len(held) > 1000)',
      ].join('\n'),
      'python',
      60,
    );
    expect(out.stdout).toBe('held True\n');
    const after = await run(
      [
        'import os, urllib.request, urllib.error, json',
        'try:',
        '    urllib.request.urlopen(os.environ["POSTHOC_GATEWAY"] + "/svc/nothing/x", timeout=10)',
        'except urllib.error.HTTPError as e:',
        '    print("gateway", e.code, "error" in json.loads(e.read()))',
      ].join('\n'),
    );
    expect(after.stdout).toMatch(/^gateway 4\d\d True\n$/);
  });

  it('racing the runner\'s /tmp/.posthoc: a FIFO as the claim log: the host\'s guard ends the wedged runner and the next action still runs', async () => {
    const started = Date.now();
    const out = await run(
      [
        'import os',
        'try:',
        "    os.unlink('/run/posthoc-claims/log')",
        "    os.mkfifo('/run/posthoc-claims/log')",
        "    print('fifo planted')",
        'except OSError as e:',
        "    print('refused', e.errno)",
      ].join('\n'),
      'python',
      3,
    );
    expect(Date.now() - started).toBeLessThan(25_000);
    // refused 2: with the kernel's watch there is no claim log to replace (the runner never reads one).
    expect(out.stdout).toMatch(/fifo planted|refused 13|refused 2/);
    expect((await run('print("next")')).stdout).toBe('next\n');
  });

  it("racing the runner's work folders: a planted read-only folder with a link in it does not break the next action", async () => {
    const out = await run(
      [
        'import os',
        'try:',
        "    os.mkdir('/tmp/.posthoc-run-planted')",
        "    os.mkdir('/tmp/.posthoc-run-planted/sub')",
        "    open('/tmp/.posthoc-run-planted/sub/f', 'w').write('x')",
        "    os.symlink('/workspace/victim.txt', '/tmp/.posthoc-run-planted/action.py')",
        "    os.symlink('/workspace/victim.txt', '/run/posthoc-claims/log2')",
        "    os.chmod('/tmp/.posthoc-run-planted/sub', 0o555)",
        "    os.chmod('/tmp/.posthoc-run-planted', 0o555)",
        "    print('planted')",
        'except OSError as e:',
        "    print('refused', e.errno)",
      ].join('\n'),
    );
    expect(out.stdout).toMatch(/planted|refused (1|13)\n/);
    const next = await run('print("next")');
    expect(next.stdout, JSON.stringify(next)).toBe('next\n');
    expect(existsSync(join(workspace, 'victim.txt'))).toBe(false);
  });

  it('filling /tmp between actions does not stop the next action from running', async () => {
    const fill = await run("dd if=/dev/zero of=/tmp/fill bs=1M count=400 2>/dev/null; df -k /tmp | tail -1 | awk '{print $4}'", 'sh', 60);
    expect(fill.stdout.trim()).toBe('0');
    const next = await run('print("next")');
    expect(next.stdout, JSON.stringify(next)).toBe('next\n');
    await run('rm -f /tmp/fill', 'sh');
  });

  it('forged claim lines naming paths outside the folder (.., %2e%2e, other absolute paths) claim nothing (the claim library, where the kernel does not watch)', async () => {
    // The claim library is the record only where the kernel cannot watch: a sandbox of its own, told so.
    const library = createServices({ dataDir: dirs.make('posthoc-data-'), env: { POSTHOC_ATTRIBUTION: 'library' } });
    let claims: ActionClaims | null | undefined;
    try {
      await library.executor.run({
        taskId: `${task.id}-library`,
        workspaces: task.workspaces,
        seq: 1,
        language: 'python',
        timeoutSeconds: 30,
        onClaims: (c) => (claims = c),
        source: [
          "lines = ['W\\t1\\t1\\t1\\t0\\t' + p + '\\n' for p in ['/workspace/../etc/passwd', '/workspace/a/%2e%2e/%2e%2e/etc/x', '/etc/shadow',",
          "        '/workspace%2F..%2Fetc', '/workspace/./x', '/workspace//y', '/workspace/ok%2F..%2F..%2Fz', '/workspacex/evil']]",
          "open('/run/posthoc-claims/log', 'a').write(''.join(lines))",
        ].join('\n'),
      });
    } finally {
      await library.close();
    }
    // The claim library's log came back (the forged lines in it), and none of them claims a path outside.
    expect(claims && claims.kind !== 'kernel' && claims.folders.length).toBeTruthy();
    const paths = claims && claims.kind !== 'kernel' ? claims.folders.flatMap((f) => [...f.paths.keys()]) : [];
    for (const p of paths) {
      expect(p.split('/')).not.toContain('..');
      expect(p.startsWith('/')).toBe(false);
    }
  });

  it('set-user-ID and set-group-ID bits are refused to action code: chmod, creating a file or a folder with one', async () => {
    const out = await run(
      [
        'import errno, os, shutil',
        "shutil.copy('/bin/bash', '/workspace/suid-shell')",
        'def attempt(name, fn):',
        '    try:',
        '        fn()',
        "        print(name, 'allowed')",
        '    except OSError as e:',
        '        print(name, errno.errorcode[e.errno])',
        "attempt('chmod-4755', lambda: os.chmod('/workspace/suid-shell', 0o4755))",
        "attempt('chmod-2755', lambda: os.chmod('/workspace/suid-shell', 0o2755))",
        "attempt('open-creat-4755', lambda: os.close(os.open('/workspace/made-suid', os.O_WRONLY | os.O_CREAT, 0o4755)))",
        "attempt('mkdir-2777', lambda: os.mkdir('/workspace/sgid-dir', 0o2777))",
        "attempt('plain-open', lambda: os.close(os.open('/workspace/suid-shell', os.O_RDONLY)))",
      ].join('\n'),
    );
    expect(out.stdout, JSON.stringify(out)).toBe(
      'chmod-4755 EPERM\nchmod-2755 EPERM\nopen-creat-4755 EPERM\nmkdir-2777 EPERM\nplain-open allowed\n',
    );
    expect(lstatSync(join(workspace, 'suid-shell')).mode & 0o7000).toBe(0);
    expect(existsSync(join(workspace, 'made-suid'))).toBe(false);
    expect(existsSync(join(workspace, 'sgid-dir'))).toBe(false);
  });
});

// ------------------------------------------------------------------------------------------------------
// Full tasks with checkpoints and undo.
// ------------------------------------------------------------------------------------------------------
const py = (lines: string[]) => ['```python', ...lines, '```'].join('\n');

function allObjects(dataDir: string): string {
  // Every object of every shadow repository, inflated.
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\/objects\/[0-9a-f]{2}\/[0-9a-f]{38}$/.test(p)) {
        try {
          out.push(inflateSync(readFileSync(p)).toString('latin1'));
        } catch {
          // not a zlib object
        }
      } else if (p.endsWith('.pack')) {
        out.push(readFileSync(p).toString('latin1'));
      }
    }
  };
  walk(dataDir);
  return out.join('\n');
}

describe.each(owners)('red team, tasks with checkpoints and undo: $label', (owner) => {
  const dirs = tempDirs();
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  afterAll(() => dirs.cleanup());

  const folder = () => {
    const ws = dirs.make('posthoc-rt-ws-');
    writeFileSync(join(ws, 'notes.txt'), 'v0\n');
    chownTree(ws, owner.uid, owner.gid);
    return ws;
  };
  const fsEffect = (h: Harness, taskId: string, n = 0) => h.services.tasks.get(taskId).actions[n]!.effects.find((e): e is FsEffect => e.channel === 'fs');

  /**
   * The person edits notes.txt while the action runs `then` (after it has started, before it goes on), and
   * then undoes the action: returns what undo answered and what notes.txt holds afterwards.
   */
  async function personEditsDuring(prompt: string, then: string[]): Promise<{ outcome: string; notes: string }> {
    harness = await startHarness([
      py(['import os, time', "open('started.txt', 'w').write('s\\n')", "while not os.path.exists('person.txt'):", '    time.sleep(0.05)', ...then]),
      'Done.',
    ]);
    const ws = folder();
    const started = await harness.services.tasks.start({ prompt, workspaces: [ws] });
    while (!existsSync(join(ws, 'started.txt'))) await sleep(20);
    writeFileSync(join(ws, 'notes.txt'), 'the person edited this\n');
    writeFileSync(join(ws, 'person.txt'), 'p\n');
    chownTree(ws, owner.uid, owner.gid);
    const task = await harness.services.tasks.wait(started.id);
    const [action] = harness.services.tasks.get(task.id).actions;
    const result = await harness.services.undo.undo(action!.id);
    return { outcome: result.outcome, notes: readFileSync(join(ws, 'notes.txt'), 'utf8') };
  }

  it('special files (FIFO, socket, links to /proc and host paths) neither hang the checkpoint nor bring outside content into it; undo removes them', async () => {
    const secrets = dirs.make('posthoc-rt-secret-');
    writeFileSync(join(secrets, 'secret'), 'HOST-SECRET-c0ffee-REDTEAM\n');
    harness = await startHarness([
      py([
        'import os, socket',
        "os.mkfifo('fifo')",
        's = socket.socket(socket.AF_UNIX); s.bind("sock")',
        `os.symlink(${JSON.stringify(join(secrets, 'secret'))}, 'host-link')`,
        "os.symlink('/proc/1/root/etc/shadow', 'proc-link')",
        "os.symlink('/proc/self/environ', 'self-link')",
        "os.mkdir('d'); os.symlink(" + JSON.stringify(secrets) + ", 'd/dirlink')",
        "open('plain.txt', 'w').write('plain\\n')",
        "print('ok')",
      ]),
      'Done.',
    ]);
    const ws = folder();
    const started = await harness.services.tasks.start({ prompt: 'make special files', workspaces: [ws] });
    const task = await Promise.race([harness.services.tasks.wait(started.id), sleep(60_000).then(() => null)]);
    expect(task, 'the task hung').not.toBeNull();
    expect(task!.status, task!.error ?? '').toBe('done');
    expect(allObjects(harness.dataDir)).not.toContain('HOST-SECRET-c0ffee-REDTEAM');
    const [action] = harness.services.tasks.get(task!.id).actions;
    const result = await harness.services.undo.undo(action!.id);
    expect(result.outcome, JSON.stringify(result)).toBe('undone');
    // Pipes and sockets are "not covered by undo" (documented): they stay, and the card says so.
    expect(readdirSync(ws).sort()).toEqual(['fifo', 'notes.txt', 'sock']);
    expect(action!.effects.find((e): e is FsEffect => e.channel === 'fs')!.notCovered!.map((n) => n.path).sort()).toEqual(['fifo', 'sock']);
    expect(readFileSync(join(secrets, 'secret'), 'utf8')).toBe('HOST-SECRET-c0ffee-REDTEAM\n');
  });

  it('an action that fills /tmp and then writes the folder with ordinary code still has its write on the record and undone', async () => {
    harness = await startHarness([
      py([
        'import subprocess',
        "subprocess.run('dd if=/dev/zero of=/tmp/fill bs=1M count=400 2>/dev/null', shell=True)",
        "open('out.txt', 'w').write('written by the action\\n')",
        "open('notes.txt', 'w').write('changed by the action\\n')",
        "print('ok')",
      ]),
      'Done.',
    ]);
    const ws = folder();
    const started = await harness.services.tasks.start({ prompt: 'fill tmp', workspaces: [ws] });
    const task = await harness.services.tasks.wait(started.id);
    expect(task.status, task.error ?? '').toBe('done');
    const effect = fsEffect(harness, task.id)!;
    const [action] = harness.services.tasks.get(task.id).actions;
    const result = await harness.services.undo.undo(action!.id);
    // Safe: either the action's changes are the action's (undone), or the card says it could not tell.
    expect({ added: effect.added, modified: effect.modified, whileRunning: effect.whileRunning }).toEqual({
      added: ['out.txt'],
      modified: ['notes.txt'],
      whileRunning: undefined,
    });
    expect(result.outcome, JSON.stringify(result)).toBe('undone');
    expect(readdirSync(ws).sort()).toEqual(['notes.txt']);
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('v0\n');
  });

  // Documented limit ("action code can also write false claims into its own log"): how bad it is.
  it('a claim log pushed over its limit does not make undo revert the person\'s edit made during the action (undo refuses)', async () => {
    // 72 MB of junk lines: over the runner's 64 MiB, within the log's 80 MiB file system.
    const flood = ["line = 'G\\t0\\t0\\t0\\t0\\t/tmp/junk\\n' * 1000", "with open('/run/posthoc-claims/log', 'a') as f:", '    for _ in range(3600): f.write(line)'];
    expect(await personEditsDuring('flood', flood)).toEqual({ outcome: 'conflict', notes: 'the person edited this\n' });
  });

  it('an action that kills (or tries to kill) its runner mid-action and writes on: all its writes are on the record and undone, none land later', async () => {
    harness = await startHarness([
      py([
        'import os, signal, time',
        "open('a.txt', 'w').write('before the kill\\n')",
        'try:',
        '    os.kill(os.getppid(), signal.SIGKILL)',
        'except OSError:',
        '    pass',
        'for i in range(30):',
        "    open('b.txt', 'a').write('%d\\n' % i)",
        '    time.sleep(0.1)',
      ]),
      'Done.',
    ]);
    const ws = folder();
    const started = await harness.services.tasks.start({ prompt: 'kill the runner', workspaces: [ws] });
    const task = await harness.services.tasks.wait(started.id);
    const [action] = harness.services.tasks.get(task.id).actions;
    expect(['done', 'failed', 'interrupted']).toContain(action!.status);
    const bAtEnd = existsSync(join(ws, 'b.txt')) ? readFileSync(join(ws, 'b.txt'), 'utf8') : null;
    await sleep(2000);
    expect(existsSync(join(ws, 'b.txt')) ? readFileSync(join(ws, 'b.txt'), 'utf8') : null).toBe(bAtEnd);
    const result = await harness.services.undo.undo(action!.id);
    expect(result.outcome, JSON.stringify(result)).toBe('undone');
    expect(readdirSync(ws).sort()).toEqual(['notes.txt']);
  });

  it('a leader-exit daemon planted by an action neither writes after the card nor blocks its undo', async () => {
    harness = await startHarness([
      py([
        'import ctypes, os, threading, time',
        'libc = ctypes.CDLL(None)',
        'if os.fork() == 0:',
        '    os.setsid()',
        '    def beat():',
        '        while True:',
        "            with open('late.txt', 'a') as f: f.write('.')",
        '            time.sleep(0.05)',
        '    threading.Thread(target=beat).start()',
        '    time.sleep(0.2)',
        '    libc.syscall(60, 0)',
        'time.sleep(0.5)',
        "print('planted')",
      ]),
      'Done.',
    ]);
    const ws = folder();
    const started = await harness.services.tasks.start({ prompt: 'daemon', workspaces: [ws] });
    const task = await harness.services.tasks.wait(started.id);
    const size = statSync(join(ws, 'late.txt')).size;
    await sleep(1500);
    expect(statSync(join(ws, 'late.txt')).size).toBe(size);
    const [action] = harness.services.tasks.get(task.id).actions;
    const result = await harness.services.undo.undo(action!.id);
    expect(result.outcome, JSON.stringify(result)).toBe('undone');
    expect(readdirSync(ws).sort()).toEqual(['notes.txt']);
  });

  it('an action that fills /tmp and then writes many files with ordinary code (its claim lines no longer fit) has them all undone', async () => {
    harness = await startHarness([
      py([
        'import subprocess',
        "subprocess.run('dd if=/dev/zero of=/tmp/fill bs=1M count=400 2>/dev/null', shell=True)",
        'for i in range(300):',
        "    open('gen-%03d.txt' % i, 'w').write('generated\\n')",
        "print('ok')",
      ]),
      'Done.',
    ]);
    const ws = folder();
    const started = await harness.services.tasks.start({ prompt: 'fill tmp then build', workspaces: [ws] });
    const task = await harness.services.tasks.wait(started.id);
    expect(task.status, task.error ?? '').toBe('done');
    const effect = fsEffect(harness, task.id)!;
    const [action] = harness.services.tasks.get(task.id).actions;
    const result = await harness.services.undo.undo(action!.id);
    expect({ added: effect.added.length, whileRunning: effect.whileRunning?.added.length ?? 0 }).toEqual({ added: 300, whileRunning: 0 });
    expect(result.outcome, JSON.stringify(result)).toBe('undone');
    expect(readdirSync(ws).sort()).toEqual(['notes.txt']);
  });

  it('POSTHOC_CLAIMS_LOG pointed elsewhere for a child is ignored in the sandbox: its write is still undone', async () => {
    harness = await startHarness([
      py([
        'import os, subprocess',
        "env = dict(os.environ, POSTHOC_CLAIMS_LOG='/dev/null')",
        "subprocess.run(['sh', '-c', 'echo hidden > hidden.txt; echo changed > notes.txt'], env=env)",
        "print('ok')",
      ]),
      'Done.',
    ]);
    const ws = folder();
    const started = await harness.services.tasks.start({ prompt: 'hide', workspaces: [ws] });
    const task = await harness.services.tasks.wait(started.id);
    const [action] = harness.services.tasks.get(task.id).actions;
    const result = await harness.services.undo.undo(action!.id);
    expect(readdirSync(ws).sort(), JSON.stringify(result)).toEqual(['notes.txt']);
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('v0\n');
  });

  it('an action of a root-owned folder that tries to kill its runner: the person\'s edit made during it is not silently reverted by undo', async () => {
    const kill = ['import signal', 'try:', '    os.kill(os.getppid(), signal.SIGTERM)', 'except OSError:', '    pass', 'time.sleep(1)'];
    const { notes } = await personEditsDuring('kill runner', kill);
    expect(notes).toBe('the person edited this\n');
  });

  it('a set-user-ID bit the action puts on an existing executable is on the record and taken back by undo', async () => {
    harness = await startHarness([py(["import os, shutil", "shutil.copy('/bin/bash', 'tool')", "os.chmod('tool', 0o4755)", "print('ok')"]), 'Done.']);
    const ws = folder();
    writeFileSync(join(ws, 'tool'), '#!/bin/sh\necho tool\n', { mode: 0o755 });
    chownTree(ws, owner.uid, owner.gid);
    const started = await harness.services.tasks.start({ prompt: 'suid', workspaces: [ws] });
    const task = await harness.services.tasks.wait(started.id);
    const [action] = harness.services.tasks.get(task.id).actions;
    const result = await harness.services.undo.undo(action!.id);
    expect(result.outcome, JSON.stringify(result)).toBe('undone');
    expect((lstatSync(join(ws, 'tool')).mode & 0o7000).toString(8)).toBe('0');
    expect(readFileSync(join(ws, 'tool'), 'utf8')).toBe('#!/bin/sh\necho tool\n');
  });
});

