// Runs actions in Docker: one container per task, started on the first action and reused through exec.
// Docker unreachable or the image missing is a SandboxError, never a silent run on the host.
import type Docker from 'dockerode';
import { stat } from 'node:fs/promises';
import { Writable } from 'node:stream';
import type { ActionLanguage, ActionOutput, WorkspaceGrant } from '../../shared/domain';
import { actionCommand, CLEANUP_COMMAND, containerSpec, OWNER_LABEL, SANDBOX_LABEL, sandboxUser } from './container-policy';
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

/** Where a task's gateway socket lives on the host; the executor mounts it into the container. */
export type GatewayDoors = { open(taskId: string): Promise<string | null>; close(taskId: string): Promise<void> };

export type ExecutorOptions = { doors?: GatewayDoors; idleMs?: number };

/** A warm container stops after this long without an action; the next action starts it again. */
const DEFAULT_IDLE_MS = 10 * 60 * 1000;

export class SandboxExecutor {
  private readonly containers = new Map<string, Promise<Docker.Container>>();
  private readonly idleTimers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly docker: Docker,
    readonly image: string,
    private readonly options: ExecutorOptions = {},
  ) {}

  async run(req: ExecRequest): Promise<ActionOutput> {
    clearTimeout(this.idleTimers.get(req.taskId));
    try {
      return await this.runOnce(req);
    } catch (error) {
      // The warm container may have been stopped or removed behind our back: start a new one once.
      if (!isContainerGone(error)) throw explainDockerError(error, this.image);
      await this.stop(req.taskId);
      return await this.runOnce(req);
    } finally {
      this.armIdleTimer(req.taskId);
    }
  }

  private async runOnce(req: ExecRequest): Promise<ActionOutput> {
    const container = await this.containerFor(req.taskId, req.workspaces);
    const stdout = new OutputCap();
    const stderr = new OutputCap();
    const started = Date.now();
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
    // Whatever the action started and left behind (background jobs, a fork bomb's children) ends with it.
    await this.cleanup(container);
    const exitCode = info.ExitCode ?? null;
    const elapsed = (Date.now() - started) / 1000;
    // coreutils timeout exits 124 when it stopped the command, 137 when it had to kill it.
    const timedOut = (exitCode === 124 || exitCode === 137) && elapsed >= req.timeoutSeconds;
    if (timedOut) stderr.push(Buffer.from(`\n[posthoc] action stopped after ${req.timeoutSeconds} s (action timeout); its processes were ended.\n`));
    else if (exitCode === 137) stderr.push(Buffer.from('\n[posthoc] action killed (SIGKILL): most likely it ran out of memory (the sandbox limit).\n'));
    return { ...finish(stdout, stderr), exitCode, timedOut };
  }

  private async cleanup(container: Docker.Container): Promise<void> {
    const exec = await container.exec({ Cmd: CLEANUP_COMMAND, AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({});
    stream.resume();
    await new Promise<void>((resolve) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', () => resolve());
    });
  }

  private armIdleTimer(taskId: string): void {
    const ms = this.options.idleMs ?? DEFAULT_IDLE_MS;
    const timer = setTimeout(() => void this.stop(taskId), ms);
    timer.unref();
    this.idleTimers.set(taskId, timer);
  }

  /** Removes the task's container (the granted folders stay as they are) and closes its gateway door. */
  async stop(taskId: string): Promise<void> {
    clearTimeout(this.idleTimers.get(taskId));
    this.idleTimers.delete(taskId);
    const pending = this.containers.get(taskId);
    this.containers.delete(taskId);
    if (!pending) return;
    try {
      const container = await pending;
      await container.remove({ force: true });
    } catch {
      // already gone
    }
    await this.options.doors?.close(taskId);
  }

  /** Whether the task has a warm container right now. */
  isWarm(taskId: string): boolean {
    return this.containers.has(taskId);
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
    const user = sandboxUser(process.getuid?.() ?? 1000, process.getgid?.() ?? 1000, await folderOwner(workspaces));
    const gatewayDir = (await this.options.doors?.open(taskId)) ?? undefined;
    try {
      const container = await this.docker.createContainer(
        containerSpec({ image: this.image, taskId, workspaces, user, ownerPid: process.pid, gatewayDir }),
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

/** The owner of the first writable granted folder: who the sandbox runs as when Posthoc runs as root. */
async function folderOwner(workspaces: WorkspaceGrant[]): Promise<{ uid: number; gid: number } | undefined> {
  const first = workspaces.find((w) => !w.readOnly) ?? workspaces[0];
  if (!first) return undefined;
  const st = await stat(first.hostPath).catch(() => undefined);
  return st && { uid: st.uid, gid: st.gid };
}

function isContainerGone(error: unknown): boolean {
  const e = error as { statusCode?: number; json?: { message?: string }; message?: string };
  const text = e.json?.message ?? e.message ?? '';
  return (e.statusCode === 404 && /container/i.test(text)) || (e.statusCode === 409 && /not running|is paused|restarting/i.test(text));
}
