// The host's end of a container's action runner (see image/posthoc_init.py). The host listens on a unix
// socket in a folder mounted read-only into the container; the runner, forked by the container's PID 1
// before any action runs, connects once. Only that first connection is ever accepted, so code in the
// sandbox cannot take the runner's place. Actions then cost a round trip on this socket instead of a
// `docker exec`.
//
// Frames, both ways: one byte of kind, four bytes of big-endian length, the payload.
//   host → runner   A  {"language", "timeout", "source"}    K  stop the running action now
//   runner → host   R  ready (once): {"watch": "kernel" | "library", "why", "roots": [{path, dev, ino}]}
//                   O stdout bytes   E stderr bytes
//                   C  what the action changed: one byte (0 the claim log whole, 1 cut at its limit, 2 missing,
//                      3 the kernel watcher's collection, image/posthoc-watch.c), then the log
//                   G  one figure's bytes (a PNG by its name; checked on the host, main/effects/figures/)
//                   X  {"exitCode", "timedOut", "stopped", "leftovers", "figuresRefused"}
import type { Server, Socket } from 'node:net';
import type { ActionLanguage } from '../../shared/domain';
import { closeControlSocket, frame, FrameReader, listenControlSocket } from './control-socket';
/** The host's own limits on an action's figures, whatever the runner sends (it applies the same ones). */
export const FIGURE_LIMITS = { count: 20, bytes: 8 * 1024 * 1024, totalBytes: 64 * 1024 * 1024 } as const;

export class ChannelLost extends Error {}

export type ClaimState = 'whole' | 'cut' | 'missing' | 'kernel';

/** What the runner says when it is ready: how changes are recorded, and each granted folder as mounted. */
export type RunnerReady = {
  watch: 'kernel' | 'library';
  /** Why the kernel does not watch, when it does not. */
  why: string | null;
  roots: Array<{ path: string; dev?: string; ino?: string; error?: string }>;
};

const STATES: readonly ClaimState[] = ['whole', 'cut', 'missing', 'kernel'];

function claimState(byte: number | undefined): ClaimState {
  return STATES[byte ?? 2] ?? 'missing';
}

/** How an action ended, as the runner saw it. `leftovers`: processes still alive after its cleanup. */
export type RunnerResult = {
  exitCode: number;
  timedOut: boolean;
  stopped: boolean;
  leftovers: number;
  claims: { log: Buffer; state: ClaimState };
  /** The figures the runner handed over (unchecked bytes), and why others were not. */
  figures: { files: Buffer[]; refused: string[] };
};

type Pending = {
  onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  resolve: (result: RunnerResult) => void;
  reject: (error: Error) => void;
  claims: RunnerResult['claims'];
  figures: RunnerResult['figures'];
  figureBytes: number;
};

export class ActionChannel {
  private socket: Socket | null = null;
  private readonly frames = new FrameReader();
  private pending: Pending | null = null;
  private lost: Error | null = null;
  private readyWaiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  private ready = false;
  private readyInfo: RunnerReady = { watch: 'library', why: 'the runner said nothing', roots: [] };

  private server: Server | null = null;

  private constructor(readonly dir: string) {}

  /** Listens in `dir` (created, emptied, world-readable so the sandbox user can connect). */
  static async listen(dir: string): Promise<ActionChannel> {
    const channel = new ActionChannel(dir);
    channel.server = await listenControlSocket(dir, (socket) => channel.accept(socket));
    return channel;
  }

  /** False once the runner's connection is gone: the container must be started again. */
  get alive(): boolean {
    return this.lost === null;
  }

  /** Resolves when the container's runner has connected and said it is ready. */
  waitReady(timeoutMs: number): Promise<void> {
    if (this.ready) return Promise.resolve();
    if (this.lost) return Promise.reject(this.lost);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new ChannelLost(`The sandbox's action runner did not start within ${timeoutMs / 1000} s. Rebuild the image with "npx posthoc sandbox build".`)),
        timeoutMs,
      );
      this.readyWaiters.push({
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
    });
  }

  /** What the runner said when it connected (meaningful once waitReady resolved). */
  get info(): RunnerReady {
    return this.readyInfo;
  }

  run(
    request: { language: ActionLanguage; timeoutSeconds: number; source: string },
    onOutput: Pending['onOutput'],
  ): Promise<RunnerResult> {
    if (this.lost) return Promise.reject(this.lost);
    if (!this.socket || !this.ready) return Promise.reject(new ChannelLost('The sandbox\'s action runner is not connected.'));
    if (this.pending) return Promise.reject(new Error('An action is already running in this sandbox.'));
    return new Promise((resolve, reject) => {
      // An image from before claim logs sends no C frame: the claims stay "missing".
      this.pending = { onOutput, resolve, reject, claims: { log: Buffer.alloc(0), state: 'missing' }, figures: { files: [], refused: [] }, figureBytes: 0 };
      const payload = Buffer.from(JSON.stringify({ language: request.language, timeout: request.timeoutSeconds, source: request.source }));
      this.socket!.write(frame('A', payload));
    });
  }

  /** Asks the runner to SIGKILL the running action's processes now; its X frame follows. */
  stop(): void {
    if (this.pending && this.socket && !this.lost) this.socket.write(frame('K', Buffer.alloc(0)));
  }

  async close(): Promise<void> {
    this.fail(new ChannelLost('The sandbox was stopped.'));
    this.socket?.destroy();
    if (this.server) await closeControlSocket(this.server, this.dir);
  }

  /** The runner's connection: the first one (listenControlSocket destroys any later one). */
  private accept(socket: Socket): void {
    if (this.lost) {
      socket.destroy();
      return;
    }
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.fail(new ChannelLost('The sandbox\'s action runner went away (it was killed, or the container stopped).')));
    socket.on('error', () => undefined);
  }

  private receive(chunk: Buffer): void {
    for (const { kind, payload } of this.frames.push(chunk)) this.handle(kind, payload);
  }

  private handle(kind: string, payload: Buffer): void {
    switch (kind) {
      case 'R':
        this.readyInfo = readyInfo(payload);
        this.ready = true;
        for (const w of this.readyWaiters.splice(0)) w.resolve();
        return;
      case 'O':
        this.pending?.onOutput('stdout', Buffer.from(payload));
        return;
      case 'E':
        this.pending?.onOutput('stderr', Buffer.from(payload));
        return;
      case 'C':
        if (this.pending) this.pending.claims = { log: Buffer.from(payload.subarray(1)), state: claimState(payload[0]) };
        return;

      case 'G':
        if (this.pending) this.takeFigure(this.pending, payload);
        return;
      case 'X': {
        const pending = this.pending;
        this.pending = null;
        const end = JSON.parse(payload.toString('utf8')) as Partial<RunnerResult> & { exitCode: number; timedOut: boolean; figuresRefused?: unknown };
        if (pending && Array.isArray(end.figuresRefused)) {
          for (const r of end.figuresRefused.slice(0, FIGURE_LIMITS.count)) if (typeof r === 'string') pending.figures.refused.push(r.slice(0, 200));
        }
        pending?.resolve({
          exitCode: end.exitCode,
          timedOut: end.timedOut,
          stopped: end.stopped ?? false,
          leftovers: end.leftovers ?? 0,
          claims: pending.claims,
          figures: pending.figures,
        });
        return;
      }
      default:
        this.fail(new ChannelLost(`The sandbox's action runner sent an unknown frame "${kind}".`));
        this.socket?.destroy();
    }
  }

  /** Keeps a figure within the host's limits; past them it is dropped and the card says why. */
  private takeFigure(pending: Pending, payload: Buffer): void {
    const { files, refused } = pending.figures;
    if (files.length >= FIGURE_LIMITS.count) {
      refused.push(`more than ${FIGURE_LIMITS.count} figures: the rest were not kept`);
    } else if (payload.length > FIGURE_LIMITS.bytes) {
      refused.push(`a figure over ${FIGURE_LIMITS.bytes / 1024 / 1024} MiB`);
    } else if (pending.figureBytes + payload.length > FIGURE_LIMITS.totalBytes) {
      refused.push(`figures over ${FIGURE_LIMITS.totalBytes / 1024 / 1024} MiB together: the rest were not kept`);
    } else {
      files.push(Buffer.from(payload));
      pending.figureBytes += payload.length;
    }
  }

  private fail(error: Error): void {
    if (this.lost) return;
    this.lost = error;
    for (const w of this.readyWaiters.splice(0)) w.reject(error);
    const pending = this.pending;
    this.pending = null;
    pending?.reject(error);
  }
}

/** The R frame's payload, read defensively (an image from before it sends "{}"). */
export function readyInfo(payload: Buffer): RunnerReady {
  try {
    const raw = JSON.parse(payload.toString('utf8')) as Partial<RunnerReady>;
    const roots = Array.isArray(raw.roots)
      ? raw.roots.filter((r): r is RunnerReady['roots'][number] => typeof r === 'object' && r !== null && typeof r.path === 'string')
      : [];
    return { watch: raw.watch === 'kernel' ? 'kernel' : 'library', why: typeof raw.why === 'string' ? raw.why : null, roots };
  } catch {
    return { watch: 'library', why: 'the runner said nothing', roots: [] };
  }
}
