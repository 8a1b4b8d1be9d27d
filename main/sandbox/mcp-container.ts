// A stdio MCP server run confined: its own container per task and server, made from the sandbox's own
// policy (container-policy.ts: no network, read-only root, every capability of the server gone, non-root,
// Posthoc's seccomp profile, limits, owner labels so a crashed Posthoc's containers go at the next start).
//
// - Folders: each granted folder at the sandbox's path (/workspace/NAME) and at its host path, so an entry
//   pasted from a desktop agent's config (`npx -y @modelcontextprotocol/server-filesystem /home/me/project`)
//   works unchanged; an absolute path in the args that the task was not granted is refused before start.
//   Listing tools outside a task (no folders): an empty tmpfs stands at each such path, so a server that
//   checks its folders at start can still say what it offers.
// - Packages: the gateway's door, so `npx -y …` installs through the gateway's npm route like an action's
//   `npm install`; into the server's own state folder (mcp-state.ts: DATA/mcp-state/NAME/UID at
//   /posthoc-state, its HOME, where npm's cache is ~/.npm and the memory server's graph is), which outlives
//   the task, or, without one, into the task's environment folder.
// - PID 1 is the image's init in `mcp` mode (image/posthoc_init.py): it relays the gateway and starts the
//   server as the action user exactly as the runner starts an action; the server's stdin and stdout are the
//   container's attached stdio (the MCP channel, demultiplexed here), its stderr is kept for messages.
// - Frozen between calls (docker pause), like the sandbox between actions: whatever the server does
//   happens inside a call, i.e. inside the action that made it. After each call PID 1 hands over the claim
//   log's new lines (what the server's processes wrote), kept here per task so the action runner can add
//   them to the action's claims (claimsSince): the server's writes are the action's and undo restores them.
//
// It implements the port McpConnector (main/ports/mcp-connection.ts) that the tools channel uses.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type Docker from 'dockerode';
import { createHash, randomBytes } from 'node:crypto';
import { chown, mkdir } from 'node:fs/promises';
import type { Server, Socket } from 'node:net';
import { join, posix } from 'node:path';
import type { Duplex } from 'node:stream';
import type { WorkspaceGrant } from '../../shared/domain';
import type { McpServerDefinition } from '../../shared/domain/mcp';
import type { McpConnection, McpConnector, McpTaskContext } from '../ports/mcp-connection';
import type { ActionClaims, FolderClaims, PathClaim } from './claims';
import { parseClaimsLog } from './claims-log';
import { closeControlSocket, frame, FrameReader, listenControlSocket } from './control-socket';
import { containerSpec, INIT_PATH, SANDBOX_HOME, sandboxUser, TASK_ENV_MOUNT, type SandboxLimits } from './container-policy';
import { explainDockerError, SandboxError } from './docker-client';
import { folderOwner, mountRefusal, taskEnvFolder } from './executor';
import { MCP_STATE_MOUNT, stateEnv, type McpStateFolders } from './mcp-state';
import { readyInfo, type RunnerReady } from './action-channel';

export type { McpConnection, McpConnector, McpTaskContext };

/** The label that tells an MCP server's container from the task's sandbox (both carry the sandbox labels). */
export const MCP_SERVER_LABEL = 'dev.posthoc.mcp-server';
/** npx installs on first use: the first start of a server may take this long. */
export const MCP_START_TIMEOUT_MS = 120_000;
/** One JSON-RPC message from a server may be at most this long; over it the server is stopped. */
export const MCP_MESSAGE_LIMIT = 64 * 1024 * 1024;
const STDERR_KEPT = 16 * 1024;
const CLAIMS_TIMEOUT_MS = 10_000;

export type McpContainersOptions = {
  image: string;
  /** Folder for the control sockets (one sub-folder per container); the executor's controlDir does. */
  controlDir: string;
  /** The tasks' own environments (DATA/task-env), shared with the task's sandbox; used only without `state`. */
  envDir?: string;
  /**
   * Each server's state across tasks (DATA/mcp-state), mounted in its containers only: its HOME, npm's cache,
   * its data. With it the task's environment is not mounted (no code of an action runs in the server).
   */
  state?: McpStateFolders;
  /** The task's gateway door: the folder holding its socket (mounted at /run/posthoc), for the npm route. */
  doors?: { open(taskId: string): Promise<string | null> };
  startTimeoutMs?: number;
  messageLimit?: number;
  limits?: SandboxLimits;
  /** Whether the kernel watches the granted folders (as the executor's option of that name; default true). */
  watch?: boolean;
};

/**
 * Paths inside the container that belong to the image or to Posthoc: a granted folder is never mounted over
 * them at its host path (it would hide the init, the claim library or the system), and an argument naming one
 * needs no grant (it names the image's own files).
 */
const IMAGE_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];
const RESERVED_PATHS = [...IMAGE_PATHS, '/proc', '/sys', '/dev', '/run', '/boot', '/tmp', '/workspace', TASK_ENV_MOUNT, SANDBOX_HOME, MCP_STATE_MOUNT];
/** Commands a desktop config names by their host path (an nvm or Homebrew install): the image's own is used. */
const KNOWN_COMMANDS = new Set(['node', 'npx', 'npm', 'python', 'python3', 'uv', 'uvx', 'bash', 'sh']);

const inside = (path: string, base: string) => path === base || path.startsWith(base === '/' ? '/' : `${base}/`);

type ClaimBatch = { seq: number; log: Buffer; state: 'whole' | 'cut' | 'missing' | 'kernel'; mounts: Array<{ from: string; to: string }> };

/** The stdio connector: one container per task and server. Also the source of the servers' claims. */
export class McpContainers implements McpConnector {
  private readonly open = new Set<ContainerConnection>();
  private readonly batches = new Map<string, ClaimBatch[]>();
  private readonly busy = new Map<string, number>();
  private seq = 0;

  constructor(
    private readonly docker: Docker,
    private readonly options: McpContainersOptions,
  ) {}

  async connect(server: McpServerDefinition, task: McpTaskContext, signal?: AbortSignal): Promise<McpConnection> {
    const transport = server.transport;
    if (transport.kind !== 'stdio') throw new Error(`The MCP server ${server.name} is not a stdio server; it is reached over HTTP, not in a container.`);
    // Outside an action's window the server sees every granted folder read-only (McpTaskContext.writable).
    const workspaces = task.writable === false ? task.workspaces.map((w) => ({ ...w, readOnly: true })) : [...task.workspaces];
    const plan = planMounts(server.name, transport.command, transport.args, workspaces);
    if (signal?.aborted) throw new Error(`Starting the MCP server ${server.name} was stopped.`);
    try {
      await this.docker.getImage(this.options.image).inspect();
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) {
        throw new SandboxError('image-missing', `The sandbox image ${this.options.image} is missing. Build it once with "npx posthoc sandbox build".`, error);
      }
      throw explainDockerError(error, this.options.image);
    }
    const user = sandboxUser(process.getuid?.() ?? 1000, process.getgid?.() ?? 1000, await folderOwner(task.workspaces));
    const gatewayDir = (await this.options.doors?.open(task.taskId)) ?? undefined;
    const stateDir = this.options.state ? await this.options.state.forUser(server.name, user) : undefined;
    const envDir = !stateDir && this.options.envDir ? await taskEnvFolder(this.options.envDir, task.taskId, user) : undefined;
    // npx wants npm's global prefix to exist (an action's `npm install -g` would have made it).
    if (envDir) for (const sub of ['npm', 'npm/lib', 'npm/bin']) await ownedFolder(join(envDir, sub), user);
    const control = await ClaimsControl.listen(
      join(this.options.controlDir, `mcp-${createHash('sha256').update(`${task.taskId}\0${server.name}\0${randomBytes(8).toString('hex')}`).digest('hex').slice(0, 16)}`),
      (roots) => mountRefusal(task.workspaces, roots),
    );
    const spec = containerSpec({
      image: this.options.image,
      taskId: task.taskId,
      workspaces,
      user,
      ownerPid: process.pid,
      gatewayDir,
      controlDir: control.dir,
      envDir,
      limits: this.options.limits,
      watch: this.options.watch !== false,
    });
    const env = new Map<string, string>();
    for (const [k, v] of Object.entries(transport.env)) env.set(k, v);
    // Posthoc's own settings win: HOME, PATH, the package routes, the gateway.
    for (const entry of spec.Env ?? []) {
      const at = entry.indexOf('=');
      env.set(entry.slice(0, at), entry.slice(at + 1));
    }
    if (stateDir) for (const [k, v] of Object.entries(stateEnv(server.api, transport.env))) env.set(k, v);
    const options: Docker.ContainerCreateOptions = {
      ...spec,
      Cmd: [INIT_PATH, 'mcp', plan.command, ...transport.args],
      Env: [...env].map(([k, v]) => `${k}=${v}`),
      Labels: { ...spec.Labels, [MCP_SERVER_LABEL]: server.name },
      WorkingDir: task.workspaces[0]?.mountPath ?? '/',
      OpenStdin: true,
      StdinOnce: false,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      HostConfig: {
        ...spec.HostConfig,
        Mounts: [
          ...(spec.HostConfig?.Mounts ?? []),
          ...plan.mounts,
          ...(stateDir ? [{ Type: 'bind' as const, Source: stateDir, Target: MCP_STATE_MOUNT, ReadOnly: false }] : []),
        ],
        Tmpfs: { ...spec.HostConfig?.Tmpfs, ...Object.fromEntries(plan.tmpfs.map((p) => [p, 'ro,nosuid,nodev,noexec,size=64k,mode=0755'])) },
      },
    };
    const claimMounts = task.workspaces
      .filter((w) => !w.readOnly)
      .flatMap((w) => [{ from: w.mountPath, to: w.mountPath }, ...(plan.hostMounted.has(w.hostPath) ? [{ from: w.hostPath, to: w.mountPath }] : [])]);
    let container: Docker.Container | undefined;
    let stream: Duplex | undefined;
    try {
      const sdk = await stdioSdk();
      container = await this.docker.createContainer(options);
      stream = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as Duplex;
      const connection = new ContainerConnection(this, sdk, server.name, task.taskId, container, stream, control, claimMounts, this.options.messageLimit ?? MCP_MESSAGE_LIMIT);
      await container.start();
      await connection.initialize(this.options.startTimeoutMs ?? MCP_START_TIMEOUT_MS, signal);
      this.open.add(connection);
      return connection;
    } catch (error) {
      stream?.destroy();
      if (container) await removeContainer(container);
      await control.close();
      if (error instanceof McpStartError) throw new Error(error.message);
      if (error instanceof SandboxError) throw error;
      throw explainDockerError(error, this.options.image);
    }
  }

  /** Closes every connection of the task (its run ended), or all. */
  async closeAll(taskId?: string): Promise<void> {
    await Promise.all([...this.open].filter((c) => taskId === undefined || c.taskId === taskId).map((c) => c.close()));
    if (taskId === undefined) this.batches.clear();
    else this.batches.delete(taskId);
  }

  /** A mark to pass to claimsSince: taken when an action begins. */
  mark(taskId: string): number {
    void taskId;
    return this.seq;
  }

  /**
   * What the task's MCP servers wrote since `mark` (claims read after each call), as claims of the granted
   * folders; null when no call happened since. Incomplete when a call is still under way, a log was cut or
   * missing, or a server's claims could not be read: then every change is taken for the action's.
   */
  claimsSince(taskId: string, mark: number, workspaces: readonly WorkspaceGrant[]): ActionClaims | null {
    const all = this.batches.get(taskId) ?? [];
    const batches = all.filter((b) => b.seq > mark);
    this.batches.set(taskId, batches);
    const running = (this.busy.get(taskId) ?? 0) > 0;
    if (batches.length === 0 && !running) return null;
    if (batches.some((b) => b.state === 'kernel')) {
      // The kernel's account names entries by file handle, not path: nothing to rewrite.
      const lost = running ? 'a tool call was still under way' : batches.some((b) => b.state !== 'kernel') ? "an MCP server's changes could not be read" : undefined;
      return { kind: 'kernel', logs: [], servers: batches.filter((b) => b.state === 'kernel').map((b) => b.log), ...(lost ? { lost } : {}) };
    }
    const mounts = workspaces.filter((w) => !w.readOnly).map((w) => ({ mountPath: w.mountPath, workspace: w.name }));
    const log = Buffer.concat(batches.map((b) => rewriteLog(b.log, b.mounts)));
    const parsed = parseClaimsLog(log, mounts, false);
    return { complete: !running && batches.every((b) => b.state === 'whole'), folders: parsed.folders };
  }

  /** @internal */
  record(taskId: string, batch: Omit<ClaimBatch, 'seq'>): void {
    const list = this.batches.get(taskId) ?? [];
    list.push({ ...batch, seq: ++this.seq });
    this.batches.set(taskId, list);
  }

  /** @internal */
  setBusy(taskId: string, delta: number): void {
    this.busy.set(taskId, (this.busy.get(taskId) ?? 0) + delta);
  }

  /** @internal */
  forget(connection: ContainerConnection): void {
    this.open.delete(connection);
  }
}

/** What the action runner asks of the stdio servers: their claims since the action began. */
export type McpClaimsSource = Pick<McpContainers, 'mark' | 'claimsSince'>;

/** Adds the MCP servers' claims to the action's own (null = the action's log was missing: stays null). */
export function mergeClaims(action: ActionClaims | null, servers: ActionClaims | null): ActionClaims | null {
  if (!action || !servers) return action;
  if (action.kind === 'kernel' && servers.kind === 'kernel') {
    const lost = action.lost ?? servers.lost;
    return { kind: 'kernel', logs: action.logs, servers: [...action.servers, ...servers.servers], ...(lost ? { lost } : {}) };
  }
  // One recorded by the kernel, the other by the claim library: they cannot be matched to each other.
  if (action.kind === 'kernel') return { ...action, lost: 'an MCP server recorded its changes another way' };
  if (servers.kind === 'kernel') return { complete: false, folders: action.folders };
  const folders = new Map<string, FolderClaims>(action.folders.map((f) => [f.workspace, { workspace: f.workspace, paths: new Map(f.paths) }]));
  for (const f of servers.folders) {
    const into = folders.get(f.workspace) ?? { workspace: f.workspace, paths: new Map<string, PathClaim>() };
    folders.set(f.workspace, into);
    for (const [path, claim] of f.paths) {
      const had = into.paths.get(path);
      // Which of the two wrote last is not known: what it finally held is unknown too (the action's either way).
      into.paths.set(path, had && JSON.stringify(had.final) !== JSON.stringify(claim.final) ? { final: null, dir: had.dir || claim.dir } : claim);
    }
  }
  return { complete: action.complete && servers.complete, folders: [...folders.values()] };
}

class McpStartError extends Error {}

/** Removes the container and returns once it is gone (a removal already under way elsewhere is waited for). */
async function removeContainer(container: Docker.Container): Promise<void> {
  for (let i = 0; i < 100; i++) {
    await container.remove({ force: true }).catch(() => undefined);
    try {
      await container.inspect();
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return;
    }
    await delay(100, undefined);
  }
}

async function ownedFolder(path: string, user: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o755 });
  const [uid, gid] = user.split(':').map(Number);
  if (process.getuid?.() === 0) await chown(path, uid!, gid!);
}

const delay = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms).unref());
const exitPhrase = (code: number | null) => (code === null ? 'exited' : `exited (exit code ${code})`);

type MountPlan = {
  command: string;
  mounts: Array<{ Type: 'bind'; Source: string; Target: string; ReadOnly: boolean }>;
  tmpfs: string[];
  hostMounted: Set<string>;
};

/**
 * The extra mounts of a server's container, or an Error in plain words when its args name a folder the
 * task was not granted.
 */
export function planMounts(name: string, command: string, args: readonly string[], workspaces: readonly WorkspaceGrant[]): MountPlan {
  let cmd = command;
  if (command.startsWith('/') && !IMAGE_PATHS.some((p) => inside(command, p))) {
    const base = posix.basename(command);
    if (!KNOWN_COMMANDS.has(base)) {
      throw new Error(`The MCP server ${name} runs ${command}, which is not in the sandbox image. Use a command the image has (npx, uvx, node, python3) or one inside a granted folder at /workspace.`);
    }
    cmd = base;
  }
  const mounts: MountPlan['mounts'] = [];
  const hostMounted = new Set<string>();
  for (const w of workspaces) {
    const host = posix.normalize(w.hostPath);
    const clash = RESERVED_PATHS.some((r) => inside(host, r) || inside(r, host)) && !(inside(host, '/tmp') && host !== '/tmp');
    if (clash || host === w.mountPath) continue;
    mounts.push({ Type: 'bind', Source: w.hostPath, Target: host, ReadOnly: w.readOnly });
    hostMounted.add(w.hostPath);
  }
  const tmpfs: string[] = [];
  for (const arg of args) {
    const eq = arg.indexOf('=');
    const value = arg.startsWith('/') ? arg : arg.startsWith('-') && eq > 0 && arg[eq + 1] === '/' ? arg.slice(eq + 1) : null;
    if (value === null) continue;
    const path = posix.normalize(value).replace(/\/+$/, '') || '/';
    if (IMAGE_PATHS.some((p) => inside(path, p)) || inside(path, TASK_ENV_MOUNT) || inside(path, MCP_STATE_MOUNT)) continue;
    if (workspaces.length === 0) {
      // Listing tools outside a task: an empty, read-only stand-in at the path.
      const reserved = RESERVED_PATHS.some((r) => inside(path, r) || inside(r, path)) && !(inside(path, '/tmp') && path !== '/tmp');
      if (!reserved && !tmpfs.some((t) => inside(path, t) || inside(t, path))) tmpfs.push(path);
      continue;
    }
    const granted = workspaces.some((w) => inside(path, w.mountPath) || (hostMounted.has(w.hostPath) && inside(path, posix.normalize(w.hostPath))));
    if (!granted) {
      throw new Error(`The MCP server ${name} names ${value}, which this task was not granted: run with --workspace ${value} (or leave the folder out of the server's arguments).`);
    }
  }
  return { command: cmd, mounts, tmpfs, hostMounted };
}

/** The claim log with host paths of granted folders rewritten to their /workspace paths, line by line. */
function rewriteLog(log: Buffer, mounts: ClaimBatch['mounts']): Buffer {
  const pairs = mounts.filter((m) => m.from !== m.to).map((m) => ({ from: encodeClaimPath(m.from), to: encodeClaimPath(m.to) }));
  if (pairs.length === 0) return log;
  const lines = log.toString('latin1').split('\n');
  const out = lines.map((line) => {
    const tab = line.lastIndexOf('\t');
    if (tab < 0) return line;
    const path = line.slice(tab + 1);
    for (const p of pairs) {
      if (path === p.from || path.startsWith(`${p.from}/`)) return `${line.slice(0, tab + 1)}${p.to}${path.slice(p.from.length)}`;
    }
    return line;
  });
  return Buffer.from(out.join('\n'), 'latin1');
}

/** A path as the claim library writes it: its UTF-8 bytes, with '%', TAB, LF and CR percent-encoded. */
function encodeClaimPath(path: string): string {
  return Buffer.from(path, 'utf8').toString('latin1').replace(/%/g, '%25').replace(/\t/g, '%09').replace(/\n/g, '%0A').replace(/\r/g, '%0D');
}

/** What a container's connection takes of the MCP SDK: its client and its stdio framing. */
type StdioSdk = {
  Client: typeof Client;
  serializeMessage: (typeof import('@modelcontextprotocol/sdk/shared/stdio.js'))['serializeMessage'];
  deserializeMessage: (typeof import('@modelcontextprotocol/sdk/shared/stdio.js'))['deserializeMessage'];
};

/** The SDK, loaded when a task first starts an MCP server, not with the services (most runs start none). */
async function stdioSdk(): Promise<StdioSdk> {
  const [{ Client }, { serializeMessage, deserializeMessage }] = await Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/shared/stdio.js')]);
  return { Client, serializeMessage, deserializeMessage };
}

/** One server's container: the SDK client over its attached stdio, frozen between calls. */
class ContainerConnection implements McpConnection {
  private readonly client: Client;
  private readonly transport: AttachedStdio;
  private chain: Promise<unknown> = Promise.resolve();
  private frozen = false;
  private closed = false;
  /** Why the connection ended, in plain words, once it has. */
  private ended: string | null = null;
  private readonly exited: Promise<number | null>;

  constructor(
    private readonly owner: McpContainers,
    sdk: StdioSdk,
    private readonly name: string,
    readonly taskId: string,
    private readonly container: Docker.Container,
    stream: Duplex,
    private readonly control: ClaimsControl,
    private readonly claimMounts: ClaimBatch['mounts'],
    messageLimit: number,
  ) {
    this.client = new sdk.Client({ name: 'posthoc', version: '1' });
    this.transport = new AttachedStdio(stream, sdk, messageLimit, (why) => {
      // The stream ends just before Docker reports the exit: wait a moment for its code.
      if (why === 'exited') void Promise.race([this.exited, delay(3000, null)]).then((code) => this.end(exitPhrase(code)));
      else this.end(why);
    });
    // next-exit: registered before the container starts (the default answers at once for one not yet started).
    this.exited = container.wait({ condition: 'next-exit' }).then(
      (r: { StatusCode?: number }) => r.StatusCode ?? null,
      () => null,
    );
    void this.exited.then((code) => this.end(exitPhrase(code)));
  }

  async initialize(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new McpStartError(this.message(`did not answer within ${Math.round(timeoutMs / 1000)} s of starting (npx installs a package on first use; a server that never answers "initialize" is not an MCP server)`))), timeoutMs);
      onAbort = () => reject(new McpStartError(`Starting the MCP server ${this.name} was stopped.`));
      if (signal?.aborted) onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    const ended = this.endedPromise();
    try {
      await Promise.race([this.client.connect(this.transport, { timeout: timeoutMs }), stopped, ended]);
      await this.control.waitReady(10_000).catch((error: unknown) => {
        throw this.control.refused ? new McpStartError(this.control.refused) : error;
      });
      await this.harvest();
      await this.freeze();
      if (this.ended) throw new McpStartError(this.message(this.ended));
    } catch (error) {
      if (error instanceof McpStartError) throw error;
      if (this.transport.isDone) await Promise.race([this.endSettled, delay(4000, undefined)]);
      if (this.ended) throw new McpStartError(this.message(`${this.ended} before it was ready`));
      throw new McpStartError(this.message(`could not start: ${(error as Error).message}`));
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  use<T>(fn: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const run = async (): Promise<T> => {
      if (this.ended) throw new Error(this.message(this.ended));
      if (signal?.aborted) throw new Error(`The call to the MCP server ${this.name} was stopped before it started.`);
      this.owner.setBusy(this.taskId, 1);
      try {
        try {
          await this.thaw();
        } catch (error) {
          this.end(`could not be resumed (${(error as Error).message}): its container was stopped or removed outside Posthoc`);
          throw new Error(this.message(this.ended!));
        }
        let result: T;
        try {
          result = await Promise.race([fn(this.client), this.endedPromise()]);
        } catch (error) {
          if (this.transport.isDone) await Promise.race([this.endSettled, delay(4000, undefined)]);
          if (this.ended) throw new Error(this.message(`${this.ended} during the call`));
          throw error;
        } finally {
          if (!this.ended) await this.harvest();
          else this.owner.record(this.taskId, { log: Buffer.alloc(0), state: 'missing', mounts: [] });
        }
        await this.freeze();
        return result;
      } finally {
        this.owner.setBusy(this.taskId, -1);
      }
    };
    const next = this.chain.then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ended ??= 'was closed';
    this.owner.forget(this);
    await this.client.close().catch(() => undefined);
    await removeContainer(this.container);
    await this.control.close();
  }

  /** The claim log's new lines, recorded for the task; unreadable claims are recorded as missing. */
  private async harvest(): Promise<void> {
    try {
      const { log, state } = await this.control.claims(CLAIMS_TIMEOUT_MS);
      this.owner.record(this.taskId, { log, state, mounts: this.claimMounts });
    } catch {
      this.owner.record(this.taskId, { log: Buffer.alloc(0), state: 'missing', mounts: [] });
    }
  }

  private async freeze(): Promise<void> {
    if (this.frozen || this.ended) return;
    try {
      await this.container.pause();
      this.frozen = true;
    } catch (error) {
      // A server that cannot be frozen would run outside calls: it is stopped instead.
      this.end(`could not be frozen between calls (${(error as Error).message}), so Posthoc stopped it`);
      await this.close();
    }
  }

  private async thaw(): Promise<void> {
    if (!this.frozen) return;
    await this.container.unpause();
    this.frozen = false;
  }

  private end(why: string): void {
    if (this.ended) return;
    this.ended = why;
    this.settle();
    if (!this.closed) void this.close();
  }

  private settle: () => void = () => undefined;
  /** Resolves once `ended` is set. */
  private readonly endSettled = new Promise<void>((resolve) => {
    this.settle = resolve;
  });

  /** Rejects once the connection has ended (never unhandled: a race that settled first ignores it). */
  private endedPromise(): Promise<never> {
    const p = this.endSettled.then(() => {
      throw new Error(this.ended ?? 'stopped');
    });
    p.catch(() => undefined);
    return p;
  }

  /** "The MCP server NAME WHAT." with the last lines the server wrote to stderr, if any. */
  private message(what: string): string {
    const tail = this.transport.stderrTail();
    return `The MCP server ${this.name} ${what}.${tail ? ` Its last output: ${tail}` : ''}`;
  }
}

/**
 * An SDK Transport over a container's attached stdio: Docker's multiplexed stream (8-byte frame headers:
 * stream, 0, 0, 0, length), stdout read as newline-delimited JSON-RPC, stderr kept (its tail) for messages.
 * A message longer than `limit` ends the connection with a plain error instead of filling Posthoc's memory.
 */
class AttachedStdio implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private header = Buffer.alloc(0);
  private frameLeft = 0;
  private frameStream = 0;
  private line: Buffer[] = [];
  private lineBytes = 0;
  private stderr = Buffer.alloc(0);
  private done = false;

  get isDone(): boolean {
    return this.done;
  }

  constructor(
    private readonly stream: Duplex,
    private readonly sdk: Pick<StdioSdk, 'serializeMessage' | 'deserializeMessage'>,
    private readonly limit: number,
    private readonly onEnd: (why: string) => void,
  ) {
    stream.on('data', (chunk: Buffer) => this.receive(chunk));
    stream.on('end', () => this.finish('exited'));
    stream.on('close', () => this.finish('exited'));
    stream.on('error', (e: Error) => this.finish(`lost its stdio (${e.message})`));
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.done) return Promise.reject(new Error('The MCP server is gone.'));
    return new Promise((resolve, reject) => {
      this.stream.write(this.sdk.serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  close(): Promise<void> {
    this.finish('was closed');
    return Promise.resolve();
  }

  stderrTail(): string {
    const text = this.stderr.toString('utf8').replace(/^[^\n]*\uFFFD/, '');
    const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
    return lines.slice(-8).join(' | ').slice(-2000);
  }

  private finish(why: string): void {
    if (this.done) return;
    this.done = true;
    this.line = [];
    this.stream.destroy();
    this.onEnd(why);
    this.onclose?.();
  }

  private receive(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && !this.done) {
      if (this.frameLeft === 0) {
        const need = 8 - this.header.length;
        this.header = Buffer.concat([this.header, chunk.subarray(at, at + need)]);
        at += Math.min(need, chunk.length - at);
        if (this.header.length < 8) return;
        this.frameStream = this.header[0]!;
        this.frameLeft = this.header.readUInt32BE(4);
        this.header = Buffer.alloc(0);
        continue;
      }
      const take = Math.min(this.frameLeft, chunk.length - at);
      const part = chunk.subarray(at, at + take);
      at += take;
      this.frameLeft -= take;
      if (this.frameStream === 2) this.keepStderr(part);
      else if (this.frameStream === 1) this.stdout(part);
    }
  }

  private keepStderr(part: Buffer): void {
    this.stderr = Buffer.concat([this.stderr, part]);
    if (this.stderr.length > STDERR_KEPT) this.stderr = this.stderr.subarray(this.stderr.length - STDERR_KEPT);
  }

  private stdout(part: Buffer): void {
    let from = 0;
    for (let nl = part.indexOf(10, from); nl >= 0 && !this.done; nl = part.indexOf(10, from)) {
      this.line.push(part.subarray(from, nl));
      this.lineBytes += nl - from;
      from = nl + 1;
      if (this.lineBytes > this.limit) return this.tooLong();
      const text = Buffer.concat(this.line).toString('utf8').replace(/\r$/, '');
      this.line = [];
      this.lineBytes = 0;
      if (text.trim() === '') continue;
      let message: JSONRPCMessage;
      try {
        message = this.sdk.deserializeMessage(text);
      } catch (error) {
        this.onerror?.(new Error(`The MCP server wrote a line that is not a JSON-RPC message: ${(error as Error).message.slice(0, 200)}`));
        continue;
      }
      this.onmessage?.(message);
    }
    if (this.done || from >= part.length) return;
    this.line.push(Buffer.from(part.subarray(from)));
    this.lineBytes += part.length - from;
    if (this.lineBytes > this.limit) this.tooLong();
  }

  private tooLong(): void {
    const mib = this.limit / 1024 / 1024;
    this.finish(`sent a message over ${mib >= 1 ? `${Math.round(mib)} MiB` : `${this.limit} bytes`} (the limit on one message), so Posthoc stopped it; nothing more of it was kept`);
  }
}

/**
 * The host's end of PID 1's control connection in an MCP container: only the first connection is taken
 * (PID 1 connects before the server starts); C asks for the claim log's new lines, C answers.
 */
class ClaimsControl {
  private socket: Socket | null = null;
  private readonly frames = new FrameReader();
  private server: Server | null = null;
  private ready = false;
  private lost = false;
  private readyWaiters: Array<() => void> = [];
  private waiting: { resolve: (c: { log: Buffer; state: ClaimBatch['state'] }) => void; reject: (e: Error) => void } | null = null;

  /** Why the container's mounts are not the granted folders (checked before the server may start), once R came. */
  refused: string | null = null;

  private constructor(
    readonly dir: string,
    private readonly verify: (roots: RunnerReady['roots']) => string | null,
  ) {}

  /**
   * `verify` reads the folders the container mounted (PID 1's R frame) before the server starts: null lets it
   * start (G), a reason keeps it from ever starting (the connection is cut, PID 1 exits).
   */
  static async listen(dir: string, verify: (roots: RunnerReady['roots']) => string | null): Promise<ClaimsControl> {
    const control = new ClaimsControl(dir, verify);
    control.server = await listenControlSocket(dir, (socket) => control.accept(socket));
    return control;
  }

  waitReady(timeoutMs: number): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the container\'s init did not connect to Posthoc (rebuild the image: npx posthoc sandbox build)')), timeoutMs);
      this.readyWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  claims(timeoutMs: number): Promise<{ log: Buffer; state: ClaimBatch['state'] }> {
    if (!this.socket || !this.ready || this.lost || this.waiting) return Promise.reject(new Error('no claims'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        reject(new Error('claims timed out'));
      }, timeoutMs);
      this.waiting = {
        resolve: (c) => {
          clearTimeout(timer);
          resolve(c);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.socket!.write(frame('C', Buffer.alloc(0)));
    });
  }

  async close(): Promise<void> {
    this.lost = true;
    this.waiting?.reject(new Error('closed'));
    this.waiting = null;
    this.socket?.destroy();
    if (this.server) await closeControlSocket(this.server, this.dir);
  }

  /** PID 1's connection: the first one (listenControlSocket destroys any later one). */
  private accept(socket: Socket): void {
    if (this.lost) {
      socket.destroy();
      return;
    }
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => {
      this.lost = true;
      this.waiting?.reject(new Error('closed'));
      this.waiting = null;
    });
    socket.on('error', () => undefined);
  }

  private receive(chunk: Buffer): void {
    for (const { kind, payload } of this.frames.push(chunk)) {
      if (kind === 'R') {
        this.refused = this.verify(readyInfo(payload).roots);
        if (this.refused) {
          this.lost = true;
          this.socket?.destroy();
          return;
        }
        this.socket?.write(frame('G', Buffer.alloc(0)));
        this.ready = true;
        for (const w of this.readyWaiters.splice(0)) w();
      } else if (kind === 'C' && this.waiting) {
        const w = this.waiting;
        this.waiting = null;
        w.resolve({ log: Buffer.from(payload.subarray(1)), state: payload[0] === 0 ? 'whole' : payload[0] === 1 ? 'cut' : payload[0] === 3 ? 'kernel' : 'missing' });
      }
    }
  }
}
