// The container policy is everything a sandbox is allowed, in one pure function: read it here.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMITS,
  OWNER_LABEL,
  SANDBOX_LABEL,
  TASK_LABEL,
  actionCommand,
  containerSpec,
  mountPaths,
} from '../../main/sandbox/container-policy';
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

  it('drops every capability, forbids new privileges and is not privileged', () => {
    const host = spec().HostConfig!;
    expect(host.CapDrop).toEqual(['ALL']);
    expect(host.CapAdd ?? []).toEqual([]);
    expect(host.SecurityOpt).toContain('no-new-privileges');
    expect(host.Privileged ?? false).toBe(false);
  });

  it('has a read-only root file system with a bounded /tmp', () => {
    const host = spec().HostConfig!;
    expect(host.ReadonlyRootfs).toBe(true);
    expect(host.Tmpfs?.['/tmp']).toMatch(/size=\d+m/);
    expect(host.Tmpfs?.['/tmp']).toContain('nosuid');
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

  it('runs as the given user in /workspace from the given image', () => {
    const s = spec();
    expect(s.Image).toBe('posthoc-sandbox:1');
    expect(s.User).toBe('1000:1000');
    expect(s.WorkingDir).toBe('/workspace');
  });
});

describe('mountPaths', () => {
  it('mounts a single folder at /workspace', () => {
    expect(mountPaths(['/home/ada/project'], ['project'])).toEqual(['/workspace']);
  });

  it('mounts several folders at /workspace/NAME', () => {
    expect(mountPaths(['/a/x', '/b/y', '/c/z'], ['x', 'y', 'z'])).toEqual(['/workspace/x', '/workspace/y', '/workspace/z']);
  });

  it('mounts nothing when nothing is granted', () => {
    expect(mountPaths([], [])).toEqual([]);
  });
});

describe('actionCommand', () => {
  it.each([
    ['python', 'python3', 'py'],
    ['bash', 'bash', 'sh'],
    ['sh', 'sh', 'sh'],
  ] as const)('runs %s with %s under a timeout, reading the code from stdin', (language, interpreter, ext) => {
    const cmd = actionCommand(language, 7, 90);
    expect(cmd.slice(0, 2)).toEqual(['sh', '-c']);
    expect(cmd).toHaveLength(3);
    const script = cmd[2]!;
    const file = `/tmp/.posthoc/action-7.${ext}`;
    // The code arrives on stdin and is saved to the file before anything runs.
    expect(script).toContain(`cat > ${file}`);
    expect(script.indexOf(`cat > ${file}`)).toBeLessThan(script.indexOf('timeout'));
    // The interpreter runs under timeout, with the action's seconds, and an empty stdin.
    expect(script).toMatch(new RegExp(`exec timeout (--kill-after=\\d+ )?90 ${interpreter} ${file.replace(/\./g, '\\.')} </dev/null$`));
  });

  it('puts each action in its own file', () => {
    expect(actionCommand('python', 1, 10)[2]).not.toBe(actionCommand('python', 2, 10)[2]);
  });
});
