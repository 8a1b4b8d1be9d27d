// The executor against the real Docker daemon and the real sandbox image.
import { createServer } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { WorkspaceGrant } from '../../shared/domain';
import { createDocker, explainDockerError } from '../../main/sandbox/docker-client';
import { SandboxExecutor } from '../../main/sandbox/executor';
import { SANDBOX_IMAGE, sandboxStatus } from '../../main/sandbox/sandbox-image';
import { OWNER_LABEL, SANDBOX_LABEL, TASK_LABEL } from '../../main/sandbox/container-policy';
import { tempDirs } from '../support/temp-dir';

const docker = createDocker();
const dirs = tempDirs();
const controlRoot = tempDirs();
const executor = new SandboxExecutor(docker, SANDBOX_IMAGE, { controlDir: join(controlRoot.make('posthoc-control-'), 'sandbox') });
let n = 0;

afterEach(() => dirs.cleanup());
afterAll(async () => {
  await executor.stopAll();
  controlRoot.cleanup();
});

function grant(hostPath: string): WorkspaceGrant[] {
  return [{ name: 'ws', hostPath, mountPath: '/workspace', readOnly: false }];
}

function run(ws: string, source: string, language: 'python' | 'bash' | 'sh' = 'python', timeoutSeconds = 30, taskId = `exec-test-${++n}`) {
  return executor.run({ taskId, workspaces: grant(ws), seq: 1, language, source, timeoutSeconds });
}

describe('SandboxExecutor (real Docker)', () => {
  it('runs Python in /workspace and the files it writes land in the granted folder', async () => {
    const ws = dirs.workspace();
    writeFileSync(join(ws, 'in.txt'), 'from the host');
    const out = await run(ws, "import os\nprint(os.getcwd())\nprint(open('in.txt').read())\nopen('out.txt','w').write('from the sandbox')");
    expect(out).toMatchObject({ exitCode: 0, timedOut: false, stderr: '' });
    expect(out.stdout).toBe('/workspace\nfrom the host\n');
    expect(readFileSync(join(ws, 'out.txt'), 'utf8')).toBe('from the sandbox');
  });

  it('runs bash and sh, with stdout and stderr apart and the exit code kept', async () => {
    const ws = dirs.workspace();
    const out = await run(ws, 'echo out; echo err >&2; exit 7', 'bash');
    expect(out).toMatchObject({ stdout: 'out\n', stderr: 'err\n', exitCode: 7 });
    const sh = await run(ws, '[ -z "$BASH_VERSION" ] && echo plain-sh', 'sh');
    expect(sh.stdout).toBe('plain-sh\n');
  });

  it('gives shells default signal dispositions and Python its own: `yes | head` ends, a closed pipe is BrokenPipeError', async () => {
    const ws = dirs.workspace();
    const shell = await run(ws, 'yes | head -n 2', 'bash', 10);
    expect(shell).toMatchObject({ stdout: 'y\ny\n', exitCode: 0, timedOut: false });
    const py = await run(ws, "import os\nr, w = os.pipe()\nos.close(r)\ntry:\n    os.write(w, b'x')\nexcept BrokenPipeError:\n    print('broken pipe')");
    expect(py).toMatchObject({ stdout: 'broken pipe\n', exitCode: 0 });
  });

  it('has git, so an agent can commit in a granted folder', async () => {
    const ws = dirs.workspace();
    const out = await run(ws, 'git init -q && git -c user.email=agent@posthoc.invalid -c user.name=agent commit -q --allow-empty -m first && git log --format=%s', 'sh');
    expect(out).toMatchObject({ stdout: 'first\n', exitCode: 0 });
    expect(readFileSync(join(ws, '.git', 'HEAD'), 'utf8')).toMatch(/^ref: refs\/heads\//);
  });

  it('builds and runs a program in /tmp and in HOME, as go test and configure scripts do', async () => {
    const ws = dirs.workspace();
    const out = await run(ws, 'for d in /tmp "$HOME"; do printf "int main(void){return 0;}" > "$d/t.c" && cc -o "$d/t" "$d/t.c" && "$d/t" && echo "ran in $d"; done', 'bash');
    expect(out).toMatchObject({ exitCode: 0, stderr: '' });
    expect(out.stdout).toMatch(/^ran in \/tmp\nran in \/\S+\n$/);
  });

  it('reuses one container per task across actions', async () => {
    const ws = dirs.workspace();
    await run(ws, 'open("/tmp/marker","w").write("1")', 'python', 30, 'exec-test-reuse');
    const second = await run(ws, 'print(open("/tmp/marker").read())', 'python', 30, 'exec-test-reuse');
    expect(second.stdout).toBe('1\n');
    const list = await docker.listContainers({ all: true, filters: { label: [`${TASK_LABEL}=exec-test-reuse`] } });
    expect(list).toHaveLength(1);
    expect(list[0]!.Labels[SANDBOX_LABEL]).toBe('1');
  });

  it('has no network: connecting to a server on the host loopback fails', async () => {
    const server = createServer((s) => s.end('hello'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    try {
      const ws = dirs.workspace();
      const out = await run(
        ws,
        `import socket\ntry:\n    socket.create_connection(('127.0.0.1', ${port}), timeout=3)\n    print('connected')\nexcept OSError as e:\n    print('refused', type(e).__name__)\nprint(sorted(socket.if_nameindex()))`,
      );
      expect(out.stdout).toContain('refused');
      expect(out.stdout).not.toContain('connected');
      expect(out.stdout).toContain("[(1, 'lo')]");
    } finally {
      server.close();
    }
  });

  it('stops an action at its timeout, and the task can run the next one', async () => {
    const ws = dirs.workspace();
    const taskId = 'exec-test-timeout';
    const slow = await run(ws, 'import time\nwhile True: time.sleep(0.1)', 'python', 2, taskId);
    expect(slow.timedOut).toBe(true);
    expect(slow.stderr).toContain('action timeout');
    const next = await run(ws, 'print("still usable")', 'python', 30, taskId);
    expect(next).toMatchObject({ exitCode: 0, stdout: 'still usable\n' });
  });

  it('gives the code an empty stdin, so input() does not hang', async () => {
    const ws = dirs.workspace();
    const out = await run(ws, 'try:\n    input()\nexcept EOFError:\n    print("eof")');
    expect(out.stdout).toBe('eof\n');
  });

  it('cannot write outside /workspace and /tmp (read-only root, non-root user)', async () => {
    const ws = dirs.workspace();
    const out = await run(ws, 'touch /etc/x 2>&1 || echo blocked; id -u', 'sh');
    expect(out.stdout).toContain('blocked');
    expect(existsSync('/etc/x')).toBe(false);
  });

  it('explains an unreachable daemon as an error that says what to do', async () => {
    const status = await sandboxStatus(createDockerAt('/nonexistent/docker.sock'));
    expect(status.dockerAvailable).toBe(false);
    expect(status.message).toMatch(/Docker is not running.*Start Docker/);
    const err = explainDockerError(Object.assign(new Error('connect EACCES /var/run/docker.sock'), { code: 'EACCES' }));
    expect(err.code).toBe('docker-permission');
    expect(err.message).toMatch(/docker" group/);
  });
});

function createDockerAt(socketPath: string) {
  const saved = process.env.DOCKER_HOST;
  process.env.DOCKER_HOST = `unix://${socketPath}`;
  try {
    return createDocker();
  } finally {
    if (saved === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = saved;
  }
}

describe('container lifecycle', () => {
  it('stops an idle container and starts it again transparently for the next action', async () => {
    const idleRoot = tempDirs();
    const idle = new SandboxExecutor(docker, SANDBOX_IMAGE, { controlDir: join(idleRoot.make(), 'sandbox'), idleMs: 300 });
    try {
      const ws = dirs.workspace();
      const req = { taskId: 'exec-test-idle', workspaces: grant(ws), seq: 1, language: 'python' as const, source: 'print("hi")', timeoutSeconds: 30 };
      expect((await idle.run(req)).stdout).toBe('hi\n');
      expect(idle.isWarm('exec-test-idle')).toBe(true);
      await new Promise((r) => setTimeout(r, 1500));
      expect(idle.isWarm('exec-test-idle')).toBe(false);
      expect(await docker.listContainers({ all: true, filters: { label: [`${TASK_LABEL}=exec-test-idle`] } })).toEqual([]);
      expect((await idle.run({ ...req, seq: 2 })).stdout).toBe('hi\n');
    } finally {
      await idle.stopAll();
      idleRoot.cleanup();
    }
  });

  it('starts again when the container was removed behind its back', async () => {
    const ws = dirs.workspace();
    const taskId = 'exec-test-removed';
    await run(ws, 'print(1)', 'python', 30, taskId);
    const [info] = await docker.listContainers({ all: true, filters: { label: [`${TASK_LABEL}=${taskId}`] } });
    await docker.getContainer(info!.Id).remove({ force: true });
    await new Promise((r) => setTimeout(r, 200));
    expect((await run(ws, 'print(2)', 'python', 30, taskId)).stdout).toBe('2\n');
  });

  it('removes containers left by a Posthoc process that is gone, and keeps those of live ones', async () => {
    const make = (owner: string, name: string) =>
      docker.createContainer({ Image: SANDBOX_IMAGE, Cmd: ['true'], Labels: { [SANDBOX_LABEL]: '1', [TASK_LABEL]: name, [OWNER_LABEL]: owner } });
    const orphan = await make('999999999', 'exec-test-orphan');
    const alive = await make(String(process.pid), 'exec-test-alive');
    try {
      expect(await executor.removeOrphans()).toBeGreaterThanOrEqual(1);
      await expect(orphan.inspect()).rejects.toMatchObject({ statusCode: 404 });
      expect((await alive.inspect()).Id).toBe(alive.id);
    } finally {
      await alive.remove({ force: true }).catch(() => undefined);
      await orphan.remove({ force: true }).catch(() => undefined);
    }
  });
});
