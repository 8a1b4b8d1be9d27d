// Runs actions in Docker: one container per task, started on the first action and reused through exec.
// Docker unreachable or the image missing is a SandboxError, never a silent run on the host.
import type Docker from 'dockerode';
import { Writable } from 'node:stream';
import type { ActionLanguage, ActionOutput, WorkspaceGrant } from '../../shared/domain';
import { actionCommand, containerSpec, OWNER_LABEL, SANDBOX_LABEL } from './container-policy';
import { explainDockerError, SandboxError } from './docker-client';
import { OutputCap } from './output-cap';

export type ExecRequest = {
  taskId: string;
  workspaces: WorkspaceGrant[];
  seq: number;
  language: ActionLanguage;
  source: string;
  timeoutSeconds: number;
  onOutput?: (stream: 'stdout' | 'stderr', chunk: string) => void;
};

export class SandboxExecutor {
  private readonly containers = new Map<string, Promise<Docker.Container>>();

  constructor(
    private readonly docker: Docker,
    readonly image: string,
  ) {}

  async run(req: ExecRequest): Promise<ActionOutput> {
    const container = await this.containerFor(req.taskId, req.workspaces);
    const stdout = new OutputCap();
    const stderr = new OutputCap();
    let timedOut = false;
    try {
      const exec = await container.exec({
        Cmd: actionCommand(req.language, req.seq, req.timeoutSeconds),
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
        WorkingDir: '/workspace',
      });
      const stream = await exec.start({ hijack: true, stdin: true });
      const sink = (cap: OutputCap, name: 'stdout' | 'stderr') =>
        new Writable({
          write(chunk: Buffer, _enc, done) {
            cap.push(chunk);
            req.onOutput?.(name, chunk.toString('utf8'));
            done();
          },
        });
      this.docker.modem.demuxStream(stream, sink(stdout, 'stdout'), sink(stderr, 'stderr'));
      const ended = new Promise<void>((resolve, reject) => {
        stream.on('end', resolve);
        stream.on('close', resolve);
        stream.on('error', reject);
      });
      stream.end(req.source);
      // The in-container `timeout` ends the action; this host-side deadline only guards a wedged exec.
      const guardMs = (req.timeoutSeconds + 15) * 1000;
      let guard: NodeJS.Timeout | undefined;
      const wedged = new Promise<'wedged'>((resolve) => {
        guard = setTimeout(() => resolve('wedged'), guardMs);
      });
      const outcome = await Promise.race([ended.then(() => 'ended' as const), wedged]);
      clearTimeout(guard);
      if (outcome === 'wedged') {
        stream.destroy();
        await this.stop(req.taskId);
        return { ...finish(stdout, stderr), exitCode: null, timedOut: true };
      }
      const info = await exec.inspect();
      const exitCode = info.ExitCode ?? null;
      // coreutils timeout exits 124 when it had to stop the command, 137 when it had to kill it.
      timedOut = exitCode === 124 || exitCode === 137;
      if (timedOut) stderr.push(Buffer.from(`\n[posthoc] action stopped after ${req.timeoutSeconds} s (action timeout)\n`));
      return { ...finish(stdout, stderr), exitCode, timedOut };
    } catch (error) {
      throw explainDockerError(error, this.image);
    }
  }

  /** Removes the task's container (the granted folders stay as they are). */
  async stop(taskId: string): Promise<void> {
    const pending = this.containers.get(taskId);
    this.containers.delete(taskId);
    if (!pending) return;
    try {
      const container = await pending;
      await container.remove({ force: true });
    } catch {
      // already gone
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.containers.keys()].map((id) => this.stop(id)));
  }

  /** Removes sandbox containers left behind by a Posthoc process that is no longer running (a crash). */
  async removeOrphans(): Promise<number> {
    const list = await this.docker.listContainers({ all: true, filters: { label: [SANDBOX_LABEL] } }).catch((e) => {
      throw explainDockerError(e, this.image);
    });
    let removed = 0;
    for (const info of list) {
      const owner = Number(info.Labels?.[OWNER_LABEL]);
      if (Number.isInteger(owner) && owner > 0 && processAlive(owner)) continue;
      await this.docker.getContainer(info.Id).remove({ force: true }).catch(() => undefined);
      removed++;
    }
    return removed;
  }

  private containerFor(taskId: string, workspaces: WorkspaceGrant[]): Promise<Docker.Container> {
    let pending = this.containers.get(taskId);
    if (!pending) {
      pending = this.start(taskId, workspaces);
      this.containers.set(taskId, pending);
      pending.catch(() => this.containers.delete(taskId));
    }
    return pending;
  }

  private async start(taskId: string, workspaces: WorkspaceGrant[]): Promise<Docker.Container> {
    try {
      await this.docker.getImage(this.image).inspect();
    } catch (error) {
      const explained = explainDockerError(error, this.image);
      if ((error as { statusCode?: number }).statusCode === 404) {
        throw new SandboxError('image-missing', `The sandbox image ${this.image} is missing. Build it once with "npx posthoc sandbox build".`, error);
      }
      throw explained;
    }
    const uid = process.getuid?.() ?? 1000;
    const gid = process.getgid?.() ?? 1000;
    try {
      const container = await this.docker.createContainer(
        containerSpec({ image: this.image, taskId, workspaces, user: `${uid}:${gid}`, ownerPid: process.pid }),
      );
      await container.start();
      return container;
    } catch (error) {
      throw explainDockerError(error, this.image);
    }
  }
}

function finish(stdout: OutputCap, stderr: OutputCap): Omit<ActionOutput, 'exitCode' | 'timedOut'> {
  return { stdout: stdout.text(), stderr: stderr.text(), truncated: stdout.truncated || stderr.truncated };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
