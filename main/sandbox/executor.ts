// Runs actions in Docker: one warm container per task, started on the first action and reused. Each
// action goes to the container's action runner over its control socket (action-channel.ts), so only the
// first action of a task pays for a container start. Docker unreachable or the image missing is a
// SandboxError, never a silent run on the host.
//
// Between actions the container is frozen (docker pause: the cgroup freezer), so nothing of the sandbox
// runs while the host checkpoints, undoes, redoes or rewinds a granted folder; where the freezer is not
// available the container is removed instead and the next action starts a new one.
import type Docker from 'dockerode';
import { createHash } from 'node:crypto';
import { chown, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ActionLanguage, ActionOutput, WorkspaceGrant } from '../../shared/domain';
import { processAlive } from '../platform/process-owner';
import { ActionChannel, ChannelLost, type RunnerReady, type RunnerResult } from './action-channel';
import type { ActionClaims } from './claims';
import { parseClaimsLog } from './claims-log';
import { containerSpec, OWNER_LABEL, SANDBOX_LABEL, sandboxUser } from './container-policy';
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
  /** Stop (the person's Stop, Cancel or Ctrl-C): the action's processes are killed at once. */
  signal?: AbortSignal;
  /** What the action's processes said they wrote (claims.ts); null when the image keeps no claim log. */
  onClaims?: (claims: ActionClaims | null) => void;
  /** The figures the action handed over (matplotlib's backend in the image), unchecked: the host checks them. */
  onFigures?: (figures: RunnerResult['figures']) => void;
};

/** Where a task's gateway socket lives on the host; the executor mounts it into the container. */
export type GatewayDoors = { open(taskId: string): Promise<string | null>; close(taskId: string): Promise<void> };

export type ExecutorOptions = {
  /** Folder for the action runners' control sockets (one sub-folder per task). */
  controlDir: string;
  doors?: GatewayDoors;
  idleMs?: number;
  /** Folder of the tasks' own environments (packages), one sub-folder per task, kept across container restarts. */
  envDir?: string;
  /**
   * Whether the kernel watches the granted folders for attribution (default true). Off where the host cannot
   * name paths by the kernel's file handles (no native addon): then the claim library's log is the record.
   */
  watch?: boolean;
};

type Sandbox = { container: Docker.Container; channel: ActionChannel; frozen: boolean };

/** A warm container stops after this long without an action; the next action starts it again. */
const DEFAULT_IDLE_MS = 10 * 60 * 1000;
const RUNNER_READY_MS = 20_000;
/** After Stop, how long the runner has to report before the container is removed instead. */
const STOP_GRACE_MS = 5_000;

export class SandboxExecutor {
  private readonly sandboxes = new Map<string, Promise<Sandbox>>();
  private readonly idleTimers = new Map<string, NodeJS.Timeout>();
  /** Stops under way, so a new container never starts while the old one's doors are being closed. */
  private readonly stopping = new Map<string, Promise<void>>();

  constructor(
    private readonly docker: Docker,
    readonly image: string,
    private readonly options: ExecutorOptions,
  ) {}

  async run(req: ExecRequest): Promise<ActionOutput> {
    clearTimeout(this.idleTimers.get(req.taskId));
    const stdout = new OutputCap();
    const stderr = new OutputCap();
    const finish = (exitCode: number | null, timedOut: boolean, note?: string): ActionOutput => {
      if (note) {
        // On a line of its own, without an empty line before it when the action printed nothing.
        const before = stderr.text();
        stderr.push(Buffer.from(`${before === '' || before.endsWith('\n') ? '' : '\n'}[posthoc] ${note}\n`));
      }
      return { stdout: stdout.text(), stderr: stderr.text(), exitCode, timedOut, truncated: stdout.truncated || stderr.truncated };
    };
    let wedged = false;
    let guard: NodeJS.Timeout | undefined;
    let stopGuard: NodeJS.Timeout | undefined;
    let sandbox: Sandbox | undefined;
    const onAbort = () => {
      sandbox?.channel.stop();
      // A runner that does not answer Stop loses its container: every process in it ends.
      stopGuard = setTimeout(() => void this.stop(req.taskId), STOP_GRACE_MS);
    };
    try {
      if (req.signal?.aborted) return finish(137, false, 'stopped before it started; nothing ran.');
      sandbox = await this.sandboxFor(req.taskId, req.workspaces);
      await this.thaw(sandbox);
      // The runner enforces the timeout; this host-side deadline only guards a runner that stopped answering.
      guard = setTimeout(() => {
        wedged = true;
        void this.stop(req.taskId);
      }, (req.timeoutSeconds + 15) * 1000);
      const running = sandbox.channel.run(
        { language: req.language, timeoutSeconds: req.timeoutSeconds, source: req.source },
        (stream, chunk) => {
          (stream === 'stdout' ? stdout : stderr).push(chunk);
          req.onOutput?.(stream, chunk.toString('utf8'));
        },
      );
      // Stop may have come while the container started or thawed: the action was just sent, stop it now.
      if (req.signal?.aborted) onAbort();
      else req.signal?.addEventListener('abort', onAbort, { once: true });
      const result = await running;
      req.onClaims?.(this.claimsOf(result, req.workspaces));
      req.onFigures?.(result.figures);
      if (result.leftovers > 0) {
        // The runner could not end everything the action started: the container goes with it.
        await this.stop(req.taskId);
      } else {
        await this.freeze(req.taskId, sandbox);
      }
      const leftoverNote = result.leftovers > 0 ? ` ${result.leftovers} process(es) outlived the action's cleanup, so the sandbox was removed.` : '';
      if (result.stopped || req.signal?.aborted) return finish(137, false, `stopped: the action's processes were ended.${leftoverNote}`);
      if (result.timedOut) return finish(124, true, `action stopped after ${req.timeoutSeconds} s (action timeout); its processes were ended.${leftoverNote}`);
      if (result.exitCode === 137) return finish(137, false, `action killed (SIGKILL): most likely it ran out of memory (the sandbox limit).${leftoverNote}`);
      return finish(result.exitCode, false, leftoverNote.trim() || undefined);
    } catch (error) {
      if (error instanceof ChannelLost) {
        // Whatever the action did to its runner, removing the container ends every process it started.
        await this.stop(req.taskId);
        req.onClaims?.(null);
        if (req.signal?.aborted) return finish(137, false, 'stopped: the sandbox was removed with every process in it.');
        return finish(null, wedged, `${wedged ? 'the action stopped answering' : error.message}; the sandbox was restarted.`);
      }
      throw explainDockerError(error, this.image);
    } finally {
      req.signal?.removeEventListener('abort', onAbort);
      clearTimeout(guard);
      clearTimeout(stopGuard);
      this.armIdleTimer(req.taskId);
    }
  }

  /** The action's claims mapped to the granted folders; null when the image keeps no claim log. */
  private claimsOf(result: RunnerResult, workspaces: WorkspaceGrant[]): ActionClaims | null {
    if (result.claims.state === 'kernel') return { kind: 'kernel', logs: [result.claims.log], servers: [] };
    if (result.claims.state === 'missing') return null;
    const mounts = workspaces.filter((w) => !w.readOnly).map((w) => ({ mountPath: w.mountPath, workspace: w.name }));
    return parseClaimsLog(result.claims.log, mounts, result.claims.state === 'cut');
  }

  /** Freezes the container between actions; where that fails, removes it (the next action starts anew). */
  private async freeze(taskId: string, sandbox: Sandbox): Promise<void> {
    try {
      await sandbox.container.pause();
      sandbox.frozen = true;
    } catch {
      await this.stop(taskId);
    }
  }

  private async thaw(sandbox: Sandbox): Promise<void> {
    if (!sandbox.frozen) return;
    await sandbox.container.unpause();
    sandbox.frozen = false;
  }

  /** Removes the task's container (the granted folders stay as they are) and closes its doors. */
  async stop(taskId: string): Promise<void> {
    clearTimeout(this.idleTimers.get(taskId));
    this.idleTimers.delete(taskId);
    const pending = this.sandboxes.get(taskId);
    this.sandboxes.delete(taskId);
    if (!pending) {
      // Another caller (the wedge guard, the idle timer) may be stopping it: done when that is done.
      await this.stopping.get(taskId);
      return;
    }
    const stopped = (async () => {
      try {
        const sandbox = await pending;
        await sandbox.container.remove({ force: true }).catch(() => undefined);
        await sandbox.channel.close();
      } catch {
        // it never started
      }
      await this.options.doors?.close(taskId);
    })();
    this.stopping.set(taskId, stopped);
    try {
      await stopped;
    } finally {
      if (this.stopping.get(taskId) === stopped) this.stopping.delete(taskId);
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.sandboxes.keys()].map((id) => this.stop(id)));
  }

  /** Removes the task's own environment (its installed packages) with the task; its container goes first. */
  async removeEnv(taskId: string): Promise<void> {
    await this.stop(taskId);
    if (this.options.envDir) await rm(join(this.options.envDir, envName(taskId)), { recursive: true, force: true });
  }

  /** Removes the environments of tasks that no longer exist; returns how many. */
  async pruneEnvs(exists: (taskId: string) => boolean): Promise<number> {
    if (!this.options.envDir) return 0;
    const names = await readdir(this.options.envDir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      if (exists(name)) continue;
      await rm(join(this.options.envDir, name), { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  /** Whether the task has a warm container right now. */
  isWarm(taskId: string): boolean {
    return this.sandboxes.has(taskId);
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

  private async sandboxFor(taskId: string, workspaces: WorkspaceGrant[]): Promise<Sandbox> {
    // A stop still closing the task's doors would remove the new container's gateway folder.
    await this.stopping.get(taskId);
    const existing = this.sandboxes.get(taskId);
    if (existing) {
      const sandbox = await existing.catch(() => undefined);
      if (sandbox?.channel.alive) return sandbox;
      // Stopped behind our back, or its runner is gone: start it again, transparently.
      await this.stop(taskId);
    }
    const pending = this.start(taskId, workspaces);
    this.sandboxes.set(taskId, pending);
    pending.catch(() => this.sandboxes.delete(taskId));
    return pending;
  }

  private async start(taskId: string, workspaces: WorkspaceGrant[]): Promise<Sandbox> {
    try {
      await this.docker.getImage(this.image).inspect();
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) {
        throw new SandboxError('image-missing', `The sandbox image ${this.image} is missing. Build it once with "npx posthoc sandbox build".`, error);
      }
      throw explainDockerError(error, this.image);
    }
    const user = sandboxUser(process.getuid?.() ?? 1000, process.getgid?.() ?? 1000, await folderOwner(workspaces));
    const gatewayDir = (await this.options.doors?.open(taskId)) ?? undefined;
    const envDir = this.options.envDir ? await taskEnvFolder(this.options.envDir, taskId, user) : undefined;
    const channel = await ActionChannel.listen(join(this.options.controlDir, createHash('sha256').update(taskId).digest('hex').slice(0, 16)));
    let container: Docker.Container | undefined;
    try {
      container = await this.docker.createContainer(
        containerSpec({ image: this.image, taskId, workspaces, user, ownerPid: process.pid, gatewayDir, controlDir: channel.dir, envDir, watch: this.options.watch !== false }),
      );
      await container.start();
      await channel.waitReady(RUNNER_READY_MS);
      // Docker mounted each folder by its path, following links: the runner said what it mounted, and a
      // folder that is not the one granted (a link swapped in since) ends the container before any action.
      const moved = mountRefusal(workspaces, channel.info.roots);
      if (moved) throw new SandboxError('grant-moved', moved);
      return { container, channel, frozen: false };
    } catch (error) {
      await container?.remove({ force: true }).catch(() => undefined);
      await channel.close();
      if (error instanceof SandboxError) throw error;
      throw error instanceof ChannelLost ? new SandboxError('docker-failed', error.message, error) : explainDockerError(error, this.image);
    }
  }

  private armIdleTimer(taskId: string): void {
    const timer = setTimeout(() => void this.stop(taskId), this.options.idleMs ?? DEFAULT_IDLE_MS);
    timer.unref();
    this.idleTimers.set(taskId, timer);
  }
}

/**
 * Why the mounted folders are not the granted ones, or null: each granted folder with a recorded identity
 * must be mounted as that device and inode (the runner stats each mount root before anything runs).
 */
export function mountRefusal(workspaces: readonly WorkspaceGrant[], roots: RunnerReady['roots']): string | null {
  for (const w of workspaces) {
    if (!w.identity) continue;
    const root = roots.find((r) => r.path === w.mountPath);
    if (!root || root.dev !== w.identity.dev || root.ino !== w.identity.ino) {
      const seen = root?.error ? `it could not be read there (${root.error})` : root ? `another folder was mounted there (device ${root.dev}, inode ${root.ino})` : 'the sandbox did not report it';
      return `The granted folder ${w.hostPath} is no longer the folder granted to this task (device ${w.identity.dev}, inode ${w.identity.ino}): ${seen}. It was moved or replaced, perhaps by a link, so Posthoc started nothing in it. Start a new task granting the folder where it is now.`;
    }
  }
  return null;
}

/** A task id as a folder name: task ids are UUIDs; anything else is hashed. */
function envName(taskId: string): string {
  return /^[A-Za-z0-9_-]{1,64}$/.test(taskId) ? taskId : createHash('sha256').update(taskId).digest('hex').slice(0, 32);
}

/** The task's environment folder, made once and owned by the action user (who installs into it). */
export async function taskEnvFolder(base: string, taskId: string, user: string): Promise<string> {
  const dir = join(base, envName(taskId));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const [uid, gid] = user.split(':').map(Number);
  if (process.getuid?.() === 0) await chown(dir, uid!, gid!);
  return dir;
}

/**
 * The owner of the first writable granted folder: who the sandbox runs as when Posthoc runs as root. Read
 * without following a link: a folder swapped for one is refused when the container reports its mounts.
 */
export async function folderOwner(workspaces: readonly WorkspaceGrant[]): Promise<{ uid: number; gid: number } | undefined> {
  const first = workspaces.find((w) => !w.readOnly) ?? workspaces[0];
  if (!first) return undefined;
  const st = await lstat(first.hostPath).catch(() => undefined);
  return st && { uid: st.uid, gid: st.gid };
}
