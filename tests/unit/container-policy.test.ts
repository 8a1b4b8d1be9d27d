import { spawnSync } from 'node:child_process';
// The container policy is everything a sandbox is allowed, in one pure function: read it here.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMITS,
  OWNER_LABEL,
  SANDBOX_LABEL,
  TASK_LABEL,
  CONTROL_MOUNT,
  FALLBACK_SANDBOX_UID,
  GATEWAY_MOUNT,
  INIT_PATH,
  SANDBOX_HOME,
  sandboxUser,
  containerSpec,
  mountPaths,
  writeRefusal,
} from '../../main/sandbox/container-policy';
import { sandboxSeccompProfile } from '../../main/sandbox/seccomp-profile';
import { initScript } from '../../main/sandbox/sandbox-image';

const INIT_SCRIPT = initScript();
import type { WorkspaceGrant } from '../../shared/domain';

const grants: WorkspaceGrant[] = [
  { name: 'project', hostPath: '/home/ada/project', mountPath: '/workspace/project', readOnly: false },
  { name: 'reference', hostPath: '/home/ada/reference', mountPath: '/workspace/reference', readOnly: true },
];

const spec = (workspaces = grants, limits?: typeof DEFAULT_LIMITS) =>
  containerSpec({ image: 'posthoc-sandbox:1', taskId: 'task-42', workspaces, user: '1000:1000', ownerPid: 4242, limits });

describe('containerSpec', () => {
  it('runs with no network at all', () => {
    const s = spec();
    expect(s.HostConfig?.NetworkMode).toBe('none');
    expect(s.NetworkDisabled).toBe(true);
    expect(s.HostConfig?.PortBindings).toBeUndefined();
    expect(s.ExposedPorts).toBeUndefined();
  });

  it('drops every capability but the runner\'s six, forbids new privileges and is not privileged', () => {
    const host = spec().HostConfig!;
    expect(host.CapDrop).toEqual(['ALL']);
    // PID 1 and the runner start each action as the action user and end what it leaves; a root-owned
    // folder's action keeps CHOWN and FOWNER (root in its container), any other action none.
    expect(host.CapAdd).toEqual(['SETUID', 'SETGID', 'SETPCAP', 'KILL', 'CHOWN', 'FOWNER']);
    expect(host.SecurityOpt).toContain('no-new-privileges');
    expect(host.Privileged ?? false).toBe(false);
  });

  it('replaces Docker\'s seccomp profile with one that refuses tracing, namespaces and io_uring', () => {
    const opt = spec().HostConfig!.SecurityOpt!.find((o: string) => o.startsWith('seccomp='))!;
    const profile = JSON.parse(opt.slice('seccomp='.length)) as ReturnType<typeof sandboxSeccompProfile>;
    expect(profile).toEqual(sandboxSeccompProfile());
    const refused = new Set(profile.syscalls.filter((r) => r.action === 'SCMP_ACT_ERRNO' && !r.args).flatMap((r) => r.names));
    for (const name of ['ptrace', 'process_vm_readv', 'process_vm_writev', 'unshare', 'setns', 'mount', 'bpf', 'io_uring_setup', 'keyctl', 'userfaultfd']) {
      expect(refused.has(name)).toBe(true);
    }
    // clone with CLONE_NEWUSER (0x10000000) matches a refusing rule; clone3 answers ENOSYS so libc falls back.
    expect(profile.syscalls.some((r) => r.names.includes('clone') && r.args?.[0]?.value === 0x10000000)).toBe(true);
    expect(profile.syscalls.find((r) => r.names.includes('clone3'))?.errnoRet).toBe(38);
    // Set-user-ID and set-group-ID bits: chmod with S_ISUID (04000) refused; open only when it creates.
    expect(profile.syscalls.some((r) => r.names.includes('chmod') && r.args?.[0]?.index === 1 && r.args[0].value === 0o4000)).toBe(true);
    const openRules = profile.syscalls.filter((r) => r.names.includes('openat'));
    expect(openRules.every((r) => r.args?.length === 2 && r.args[0]!.index === 2 && r.args[1]!.index === 3)).toBe(true);
  });

  it('has a read-only root file system with a bounded /tmp', () => {
    const host = spec().HostConfig!;
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.Tmpfs?.['/tmp']).toMatch(/size=\d+m/);
    expect(host.Tmpfs?.['/tmp']).toContain('nosuid');
    // Executable, as on a developer's machine (Docker's default for a tmpfs is noexec).
    expect(host.Tmpfs?.['/tmp']?.split(',')).toContain('exec');
    expect(host.Tmpfs?.[SANDBOX_HOME]?.split(',')).toContain('exec');
  });

  it('limits processes, memory (swap included) and CPU', () => {
    const host = spec().HostConfig!;
    expect(host.PidsLimit).toBe(DEFAULT_LIMITS.pids);
    expect(host.PidsLimit).toBeGreaterThan(0);
    expect(host.Memory).toBe(DEFAULT_LIMITS.memoryBytes);
    expect(host.MemorySwap).toBe(host.Memory);
    expect(host.NanoCpus).toBe(DEFAULT_LIMITS.nanoCpus);
  });

  it('uses the limits it is given', () => {
    const host = spec(grants, { memoryBytes: 256 * 1024 * 1024, nanoCpus: 500_000_000, pids: 64 }).HostConfig!;
    expect(host.Memory).toBe(256 * 1024 * 1024);
    expect(host.MemorySwap).toBe(256 * 1024 * 1024);
    expect(host.NanoCpus).toBe(500_000_000);
    expect(host.PidsLimit).toBe(64);
  });

  it('mounts exactly the granted folders, read-only grants read-only', () => {
    const host = spec().HostConfig!;
    expect(host.Mounts).toEqual([
      { Type: 'bind', Source: '/home/ada/project', Target: '/workspace/project', ReadOnly: false },
      { Type: 'bind', Source: '/home/ada/reference', Target: '/workspace/reference', ReadOnly: true },
    ]);
    expect(host.Binds ?? []).toEqual([]);
    expect(host.VolumesFrom ?? []).toEqual([]);
  });

  it('mounts a folder whose path holds a colon without splitting it', () => {
    const odd: WorkspaceGrant[] = [{ name: 'a', hostPath: '/home/ada/a:b', mountPath: '/workspace', readOnly: false }];
    expect(spec(odd).HostConfig?.Mounts?.[0]?.Source).toBe('/home/ada/a:b');
  });

  it('mounts nothing when no folder is granted', () => {
    expect(spec([]).HostConfig?.Mounts).toEqual([]);
  });

  it('never binds the Docker socket', () => {
    const sneaky: WorkspaceGrant[] = [{ name: 'w', hostPath: '/home/ada/w', mountPath: '/workspace', readOnly: false }];
    for (const s of [spec(), spec([]), spec(sneaky)]) {
      for (const mount of s.HostConfig?.Mounts ?? []) expect(mount.Source).not.toMatch(/docker\.sock/);
      expect(JSON.stringify(s)).not.toContain('docker.sock');
    }
  });

  it('does not share the host namespaces', () => {
    const host = spec().HostConfig!;
    expect(host.PidMode ?? '').not.toBe('host');
    expect(host.IpcMode ?? '').not.toBe('host');
    expect(host.UsernsMode ?? '').not.toBe('host');
  });

  it('labels the container as a Posthoc sandbox for its task and owner process', () => {
    expect(spec().Labels).toEqual({ [SANDBOX_LABEL]: '1', [TASK_LABEL]: 'task-42', [OWNER_LABEL]: '4242' });
  });

  it('starts PID 1 as the container\'s root and tells it the action user; HOME belongs to that user', () => {
    const s = spec();
    expect(s.Image).toBe('posthoc-sandbox:1');
    expect(s.User).toBe('0:0');
    expect(s.Env).toEqual(expect.arrayContaining(['POSTHOC_ACTION_UID=1000', 'POSTHOC_ACTION_GID=1000']));
    expect(s.HostConfig?.Tmpfs?.[SANDBOX_HOME]).toContain('uid=1000,gid=1000');
    expect(s.HostConfig?.Tmpfs?.[SANDBOX_HOME]).toContain('mode=0700');
    expect(s.WorkingDir).toBe('/workspace');
  });
});

describe('mountPaths', () => {
  it('mounts a lone folder under its own name, so a project named after its folder keeps that name', () => {
    expect(mountPaths(['project'])).toEqual(['/workspace/project']);
  });

  it('mounts several folders at /workspace/NAME', () => {
    expect(mountPaths(['x', 'y', 'z'])).toEqual(['/workspace/x', '/workspace/y', '/workspace/z']);
  });

  it('mounts nothing when nothing is granted', () => {
    expect(mountPaths([])).toEqual([]);
  });
});

describe('the working directory', () => {
  it('is inside a lone folder, above several, /workspace with none', () => {
    const one: WorkspaceGrant[] = [{ name: 'project', hostPath: '/home/ada/project', mountPath: '/workspace/project', readOnly: false }];
    expect(spec(one).WorkingDir).toBe('/workspace/project');
    expect(spec([...one, { name: 'data', hostPath: '/srv/data', mountPath: '/workspace/data', readOnly: true }]).WorkingDir).toBe('/workspace');
    expect(spec([]).WorkingDir).toBe('/workspace');
  });

  it('keeps /workspace for a lone folder a task recorded before kept there', () => {
    expect(spec([{ name: 'ws', hostPath: '/home/ada/ws', mountPath: '/workspace', readOnly: false }]).WorkingDir).toBe('/workspace');
  });
});

describe('the sandbox user and its process', () => {
  it('is the person\'s own uid; as root, the folder\'s owner (root for a root-owned folder) or an unprivileged uid', () => {
    expect(sandboxUser(1000, 1000)).toBe('1000:1000');
    expect(sandboxUser(1000, 1000, { uid: 0, gid: 0 })).toBe('1000:1000');
    expect(sandboxUser(0, 0, { uid: 1001, gid: 1002 })).toBe('1001:1002');
    expect(sandboxUser(0, 0, { uid: 0, gid: 0 })).toBe('0:0');
    expect(sandboxUser(0, 0)).toBe(`${FALLBACK_SANDBOX_UID}:${FALLBACK_SANDBOX_UID}`);
  });

  it('starts the image\'s own init as PID 1, with a tmpfs home and the gateway in the environment', () => {
    const s = spec();
    expect(s.Cmd).toEqual([INIT_PATH]);
    expect(s.HostConfig?.Init).toBe(false);
    expect(s.HostConfig?.Tmpfs?.[SANDBOX_HOME]).toContain('nosuid');
    expect(s.Env).toContain(`HOME=${SANDBOX_HOME}`);
    expect(s.Env).toContain('POSTHOC_GATEWAY=http://127.0.0.1:8080');
  });
});

describe('writeRefusal: the action user must be able to write every granted folder', () => {
  const folder = (path: string, uid: number, gid: number, mode: number) => ({ path, uid, gid, mode });

  it('as the person: their own folder passes; a root-owned 0755 folder is refused, naming their uid and the fix', () => {
    expect(writeRefusal(1000, 1000, [folder('/home/p/work', 1000, 1000, 0o755)])).toBeNull();
    const why = writeRefusal(1000, 1000, [folder('/home/p/work', 1000, 1000, 0o755), folder('/srv/data', 0, 0, 0o755)]);
    expect(why).toBe('Actions run as you (uid 1000) and could not write /srv/data (owner uid 0). Grant a folder you can write, or make it yours: sudo chown -R 1000:1000 FOLDER.');
  });

  it('group and other write bits count; a folder of the owner without its own write bit does not', () => {
    expect(writeRefusal(1000, 1000, [folder('/srv/shared', 0, 1000, 0o775)])).toBeNull();
    expect(writeRefusal(1000, 1000, [folder('/tmp/open', 0, 0, 0o1777)])).toBeNull();
    expect(writeRefusal(1000, 1000, [folder('/home/p/ro', 1000, 1000, 0o555)])).toMatch(/could not write \/home\/p\/ro \(owner uid 1000\)/);
  });

  it('as root: a root-owned folder is the work of root and passes; two owners cannot both be the action user', () => {
    expect(writeRefusal(0, 0, [folder('/srv/app', 0, 0, 0o700)])).toBeNull();
    expect(writeRefusal(0, 0, [folder('/home/p', 1000, 1000, 0o700)])).toBeNull();
    expect(writeRefusal(0, 0, [folder('/srv/app', 0, 0, 0o755), folder('/home/p', 1000, 1000, 0o700)])).toBe(
      'Posthoc runs as root, so actions run as the owner of the first granted folder (uid 0), with no capabilities; they could not write /home/p (owner uid 1000). Grant folders of one owner in a task, or give them one owner: sudo chown -R 0:0 FOLDER.',
    );
  });
});

describe('gateway and control mounts', () => {
  it('mounts the gateway and control folders read-only, only when given', () => {
    const base = spec();
    const withDoors = containerSpec({ image: 'img', taskId: 't', workspaces: [], user: '1000:1000', ownerPid: 1, gatewayDir: '/data/gw/x', controlDir: '/data/sb/x' });
    expect(withDoors.HostConfig?.Mounts).toEqual([
      { Type: 'bind', Source: '/data/gw/x', Target: GATEWAY_MOUNT, ReadOnly: true },
      { Type: 'bind', Source: '/data/sb/x', Target: CONTROL_MOUNT, ReadOnly: true },
    ]);
    expect(base.HostConfig?.Mounts?.some((m) => m.Target === GATEWAY_MOUNT || m.Target === CONTROL_MOUNT)).toBe(false);
  });
});

describe('the init script in the image', () => {
  it('is valid Python with an action runner, and ignores every signal it can instead of handling one', () => {
    const check = spawnSync('python3', ['-c', 'import ast, sys; ast.parse(sys.stdin.read())'], { input: INIT_SCRIPT });
    expect(check.stderr.toString()).toBe('');
    expect(check.status).toBe(0);
    // -s: the user site (the task's environment, which actions write) is never read at PID 1's start.
    expect(INIT_SCRIPT.startsWith('#!/usr/bin/python3 -s\n')).toBe(true);
    expect(INIT_SCRIPT).toContain(`CONTROL_PATH = '${CONTROL_MOUNT}/control.sock'`);
    expect(INIT_SCRIPT).toContain("SOCKET_PATH = os.environ.get('POSTHOC_GATEWAY_SOCKET', '/run/posthoc/gateway.sock')");
    // The runner is forked before the relay thread starts (fork in a threaded process is unsafe), and in the
    // MCP mode the server is forked before that mode's relay thread.
    expect(INIT_SCRIPT.indexOf('runner()\n')).toBeLessThan(INIT_SCRIPT.lastIndexOf('threading.Thread(target=relay'));
    const mcp = INIT_SCRIPT.slice(INIT_SCRIPT.indexOf('def mcp_main('));
    expect(mcp.indexOf('os.fork()')).toBeGreaterThan(0);
    expect(mcp.indexOf('os.fork()')).toBeLessThan(mcp.indexOf('threading.Thread(target=relay'));
    // No handler a signal could run (a root-owned folder's action shares the runner's uid): ignored, and
    // defaults given back to the action.
    expect(INIT_SCRIPT).toContain('signal.signal(sig, signal.SIG_IGN)');
    expect(INIT_SCRIPT).not.toMatch(/signal\.signal\(signal\.SIG(TERM|KILL|HUP|USR1|ALRM), (?!signal\.SIG_)/);
  });
});
