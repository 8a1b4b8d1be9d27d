// The sandbox's side of packages: pip and npm pointed at the gateway's routes, installing into the
// task's own environment (a host folder per task, mounted read-write), never into a granted folder.
import { describe, expect, it } from 'vitest';
import { containerSpec, TASK_ENV_MOUNT } from '../../main/sandbox/container-policy';
import { normalizePipName, refusal, type PackagePolicy } from '../../main/gateway/packages/package-policy';
import { versionOf } from '../../main/gateway/packages/pip-route';

const base = { image: 'img', taskId: 't', workspaces: [], user: '1000:1000', ownerPid: 1 };

describe('the container for packages', () => {
  it('points pip and npm at the gateway and installs into the task environment, mounted read-write', () => {
    const s = containerSpec({ ...base, envDir: '/data/task-env/t' });
    expect(s.HostConfig?.Mounts).toContainEqual({ Type: 'bind', Source: '/data/task-env/t', Target: TASK_ENV_MOUNT, ReadOnly: false });
    expect(s.Env).toEqual(
      expect.arrayContaining([
        'PIP_INDEX_URL=http://127.0.0.1:8080/pip/simple/',
        'NPM_CONFIG_REGISTRY=http://127.0.0.1:8080/npm/',
        'PIP_USER=1',
        'PIP_BREAK_SYSTEM_PACKAGES=1',
        `PYTHONUSERBASE=${TASK_ENV_MOUNT}/python`,
        `NPM_CONFIG_PREFIX=${TASK_ENV_MOUNT}/npm`,
        `NPM_CONFIG_CACHE=${TASK_ENV_MOUNT}/cache/npm`,
        'NPM_CONFIG_AUDIT=false',
      ]),
    );
    const path = s.Env!.find((e) => e.startsWith('PATH='))!;
    expect(path.split('=')[1]!.split(':').slice(0, 3)).toEqual([`${TASK_ENV_MOUNT}/python/bin`, `${TASK_ENV_MOUNT}/npm/bin`, '/usr/local/sbin']);
  });

  it('without a task environment, installs nowhere writable and mounts nothing more', () => {
    const s = containerSpec(base);
    expect(s.HostConfig?.Mounts).toEqual([]);
    expect(s.Env!.some((e) => e.startsWith('PIP_USER=') || e.startsWith('PYTHONUSERBASE='))).toBe(false);
    expect(s.Env).toContain('PIP_INDEX_URL=http://127.0.0.1:8080/pip/simple/');
  });
});

describe('package names and the person\'s list', () => {
  const policy: PackagePolicy = { fetching: 'allowed', allowed: ['Pillow', 'npm:left-pad', 'pip:python-dateutil'], pipIndexUrl: 'x', npmRegistryUrl: 'y', indexMaxAgeMs: 1 };
  it('matches pip names as PEP 503 normalizes them, npm names exactly, and a manager prefix only for its manager', () => {
    expect(normalizePipName('Python_Dateutil.x')).toBe('python-dateutil-x');
    expect(refusal(policy, 'pip', 'pillow')).toBeNull();
    expect(refusal(policy, 'npm', 'Pillow')).toBeNull();
    expect(refusal(policy, 'pip', 'python-dateutil')).toBeNull();
    expect(refusal(policy, 'npm', 'left-pad')).toBeNull();
    expect(refusal(policy, 'pip', 'left-pad')).toMatch(/not among the packages/);
    expect(refusal({ ...policy, fetching: 'off' }, 'pip', 'pillow')).toMatch(/turned off/);
    expect(refusal({ ...policy, fetching: 'on' }, 'npm', 'anything')).toBeNull();
  });
  it('reads the version from wheel and sdist names', () => {
    expect(versionOf('numpy', 'numpy-2.1.0-cp311-cp311-manylinux_2_17_x86_64.whl')).toBe('2.1.0');
    expect(versionOf('python-dateutil', 'python-dateutil-2.9.0.tar.gz')).toBe('2.9.0');
    expect(versionOf('zope-interface', 'zope.interface-6.0.zip')).toBe('6.0');
  });
});
