// The sandbox's only door out: an HTTP server in the main process, one per task, reached from the
// container through a unix socket mounted at /run/posthoc (a relay inside the container exposes it on
// 127.0.0.1 as $POSTHOC_GATEWAY). It can also listen on 127.0.0.1 TCP with a token, for Docker Desktop
// where unix sockets cannot be mounted. Every request is attributed to the task's running action and
// recorded as an effect; everything that is not an allowed route answers 403 with a message the agent
// can act on. Bodies are bounded: a route reads at most a window of a request body before it decides,
// streaming routes pass the rest through, and what a task's calls hold in memory is capped.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pipeline, Readable } from 'node:stream';
import type { Effect, Task } from '../../shared/domain';
import { formatBytes } from './byte-size';
import { BODY_WINDOW, overBudgetMessage, resolveLimits, TaskBudget, type GatewayLimits } from './gateway-limits';
import { Holds } from './holds';
import { Redactor } from './redaction';

export type GatewayRequest = {
  method: string;
  /** The path below the route's prefix, starting with '/', without the query string. */
  path: string;
  search: string;
  headers: IncomingHttpHeaders;
  /** The client's HTTP version ('1.0', '1.1'): a 1.0 answer without a length ends with the connection, so a cut one cannot be told from a whole one. */
  httpVersion?: string;
  body: Buffer;
};
/** A streaming route's request body: its first bytes, and the rest as it arrives. */
export type GatewayBody = {
  /** Up to BODY_WINDOW bytes; the whole body when `whole`. */
  head: Buffer;
  whole: boolean;
  /** What follows `head` (null when whole); read it once, or not at all. */
  rest: Readable | null;
};
export type StreamingRequest = Omit<GatewayRequest, 'body'> & { body: GatewayBody };
/**
 * A Readable body is streamed to the sandbox as it comes (chunked, no length). `reason` replaces the status
 * line's standard reason phrase (printable ASCII; some clients print only that, pip and apt among them).
 */
export type GatewayReply = { status: number; reason?: string; headers?: Record<string, string>; body: Buffer | string | object | Readable };
export type RouteContext = {
  task: Task;
  actionId: string;
  recordEffect(effect: Effect): void;
  /** Say that a recorded effect changed (a hold's state): the running action's card shows it at once. */
  changed(): void;
  /** Aborts when the code stops waiting for the answer (it ended, or timed out). */
  signal: AbortSignal;
  /** Every secret the gateway used for this task: nothing it returns or records may hold one. */
  redactor: Redactor;
  /** Counts `bytes` more against the task's cap until this request closes; false (nothing counted) when over it. */
  reserve(bytes: number): boolean;
  /** The task's cap and what its calls hold now, for the message when `reserve` says no. */
  budget: TaskBudget;
  limits: GatewayLimits;
};
/** A route that gets the whole request body (up to MAX_BODY bytes). */
export type GatewayRoute = ((ctx: RouteContext, req: GatewayRequest) => Promise<GatewayReply>) & { streaming?: false };
/** A route that gets the body's first window and streams the rest. */
export type StreamingRoute = ((ctx: RouteContext, req: StreamingRequest) => Promise<GatewayReply>) & { streaming: true };

export type DoorTransport = { kind: 'unix' } | { kind: 'tcp'; port?: number };
export type Door = { taskId: string; dir: string | null; url: string | null; token: string | null };

export const TOKEN_HEADER = 'x-posthoc-gateway-token';
const MAX_BODY = 32 * 1024 * 1024;

type OpenDoor = Door & { server: Server };
type RunningAction = { id: string; effects: Effect[]; onEffects?: (effects: Effect[]) => void };

export class Gateway {
  private readonly routes = new Map<string, GatewayRoute | StreamingRoute>();
  private readonly doors = new Map<string, OpenDoor>();
  /** The action each task is running now; kept apart from the doors, which open with the container. */
  private readonly actions = new Map<string, RunningAction>();
  private readonly redactors = new Map<string, Redactor>();
  private readonly budgets = new Map<string, TaskBudget>();
  /** Calls kept back for a send window or the person's approval. */
  readonly holds = new Holds();

  constructor(
    private readonly baseDir: string,
    private readonly taskOf: (taskId: string) => Task | undefined,
    /** Read at each request, so a changed setting applies to the next call. */
    private readonly limits: () => GatewayLimits = () => resolveLimits(process.env),
  ) {}

  /** Mounts a route at /PREFIX/… (for example 'svc' or 'db'). */
  route(prefix: string, handler: GatewayRoute | StreamingRoute): void {
    this.routes.set(prefix, handler);
  }

  /** Opens the task's door (idempotent). With unix, `dir` is the folder to mount into the container. */
  async open(taskId: string, transport: DoorTransport = { kind: 'unix' }): Promise<Door> {
    const existing = this.doors.get(taskId);
    if (existing) return existing;
    const door: OpenDoor = { taskId, dir: null, url: null, token: null, server: createServer() };
    door.server.on('request', (req, res) => {
      void this.handle(door, req, res).catch((error) => {
        // Once a streamed answer has begun, cutting the connection is the only way left to say it failed.
        if (res.headersSent) res.destroy();
        else reply(res, { status: 500, body: { error: this.redactor(taskId).text(String(error)) } });
      });
    });
    if (transport.kind === 'unix') {
      // Short, fixed-length names: unix socket paths are limited to about 100 bytes.
      const dir = join(this.baseDir, createHash('sha256').update(taskId).digest('hex').slice(0, 16));
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true, mode: 0o755 });
      await chmod(dir, 0o755);
      const socketPath = join(dir, 'gateway.sock');
      await listen(door.server, socketPath);
      // The sandbox user is not the host user when Posthoc runs as root: let it connect.
      await chmod(socketPath, 0o666);
      door.dir = dir;
    } else {
      door.token = randomBytes(24).toString('base64url');
      await listen(door.server, { host: '127.0.0.1', port: transport.port ?? 0 });
      door.url = `http://127.0.0.1:${(door.server.address() as { port: number }).port}`;
    }
    this.doors.set(taskId, door);
    return door;
  }

  /** From now until endAction, requests of this task are effects of this action. */
  beginAction(taskId: string, actionId: string, onEffects?: (effects: Effect[]) => void): void {
    this.actions.set(taskId, { id: actionId, effects: [], onEffects });
  }

  endAction(taskId: string): Effect[] {
    this.holds.abandonTask(taskId);
    const effects = this.actions.get(taskId)?.effects ?? [];
    this.actions.delete(taskId);
    return effects;
  }

  /** The task's redactor: every secret its calls used, to remove from action output too. */
  redactor(taskId: string): Redactor {
    let r = this.redactors.get(taskId);
    if (!r) {
      r = new Redactor();
      this.redactors.set(taskId, r);
    }
    return r;
  }

  async close(taskId: string): Promise<void> {
    const door = this.doors.get(taskId);
    if (!door) return;
    this.doors.delete(taskId);
    this.redactors.delete(taskId);
    this.budgets.delete(taskId);
    door.server.closeAllConnections();
    await new Promise<void>((resolve) => door.server.close(() => resolve()));
    if (door.dir) await rm(door.dir, { recursive: true, force: true });
  }

  async closeAll(): Promise<void> {
    this.holds.abandonAll();
    await Promise.all([...this.doors.keys()].map((id) => this.close(id)));
  }

  private async handle(door: OpenDoor, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (door.token !== null && !tokenMatches(req.headers[TOKEN_HEADER], door.token)) {
      return reply(res, { status: 401, body: { error: 'Missing or wrong gateway token.' } });
    }
    const url = new URL(req.url ?? '/', 'http://gateway');
    const [, prefix = '', ...rest] = url.pathname.split('/');
    const route = this.routes.get(prefix);
    if (!route) {
      return reply(res, {
        status: 403,
        body: {
          error: `The gateway has no route ${url.pathname}. The sandbox has no network; it reaches granted services at $POSTHOC_GATEWAY/svc/NAME/PATH${this.routes.has('db') ? ' and granted databases at $POSTHOC_GATEWAY/db/NAME/query' : ''}.`,
        },
      });
    }
    const task = this.taskOf(door.taskId);
    const action = this.actions.get(door.taskId);
    if (!task || !action) {
      return reply(res, { status: 409, body: { error: 'No action of this task is running; the gateway only answers code while it runs.' } });
    }
    const limits = this.limits();
    const budget = this.budget(door.taskId);
    let held = 0;
    let closed = false;
    // After the close nothing could give bytes back, so nothing more is taken: the call is over anyway.
    const reserve = (bytes: number): boolean => {
      if (closed || !budget.take(bytes)) return false;
      held += bytes;
      return true;
    };
    const gone = new AbortController();
    res.on('close', () => {
      closed = true;
      budget.give(held);
      held = 0;
      if (!res.writableFinished) gone.abort();
    });
    const streaming = route.streaming === true;
    const read = await readWindow(req, streaming ? BODY_WINDOW : MAX_BODY, reserve);
    if (read === 'over-budget' || !(streaming || read.whole)) {
      // Read the rest into nothing, so the client is not cut off mid-upload and gets the answer.
      req.resume();
      const error = read === 'over-budget' ? overBudgetMessage(budget) : `The request body is over ${formatBytes(MAX_BODY)}, more than this route reads. Send a smaller body.`;
      return reply(res, { status: 413, body: { error } });
    }
    const changed = () => action.onEffects?.(structuredClone(action.effects));
    const ctx: RouteContext = {
      task,
      actionId: action.id,
      recordEffect: (effect) => {
        action.effects.push(effect);
        changed();
      },
      changed,
      signal: gone.signal,
      redactor: this.redactor(door.taskId),
      reserve,
      budget,
      limits,
    };
    const base = { method: req.method ?? 'GET', path: `/${rest.join('/')}`, search: url.search, headers: req.headers, httpVersion: req.httpVersion };
    const result = route.streaming
      ? await route(ctx, { ...base, body: { head: read.head, whole: read.whole, rest: read.whole ? null : req } })
      : await route(ctx, { ...base, body: read.head });
    // A refused call leaves the rest of a long body unread: drain it, so the client can read its answer.
    if (!read.whole && req.listenerCount('data') === 0 && req.listenerCount('readable') === 0) req.resume();
    reply(res, result);
  }

  private budget(taskId: string): TaskBudget {
    let b = this.budgets.get(taskId);
    if (!b) {
      b = new TaskBudget(() => this.limits().taskBytes);
      this.budgets.set(taskId, b);
    }
    return b;
  }
}

function reply(res: ServerResponse, r: GatewayReply): void {
  if (res.headersSent) return;
  if (r.body instanceof Readable) {
    const headers = { ...(r.headers ?? {}) };
    delete headers['content-length'];
    res.writeHead(r.status, r.reason, headers);
    // pipeline destroys both ends on an error: the client sees a cut answer, the service's side is closed.
    pipeline(r.body, res, () => undefined);
    return;
  }
  const isJson = !(Buffer.isBuffer(r.body) || typeof r.body === 'string');
  const payload = isJson ? Buffer.from(JSON.stringify(r.body)) : Buffer.from(r.body as Buffer | string);
  const headers: Record<string, string> = { ...(r.headers ?? {}) };
  if (isJson) headers['content-type'] = 'application/json';
  headers['content-length'] = String(payload.length);
  res.writeHead(r.status, r.reason, headers).end(payload);
}

/**
 * Reads a body's first `window` bytes, each counted against the task's cap; the rest stays in the
 * stream (paused) for the route to pass on. 'over-budget' when the cap said no.
 */
export function readWindow(req: Readable, window: number, reserve: (bytes: number) => boolean): Promise<{ head: Buffer; whole: boolean } | 'over-budget'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.pause();
    };
    const onData = (chunk: Buffer) => {
      const part = chunk.subarray(0, window - size);
      if (!reserve(part.length)) {
        stop();
        return resolve('over-budget');
      }
      chunks.push(part);
      size += part.length;
      if (part.length < chunk.length || size >= window) {
        stop();
        if (part.length < chunk.length) req.unshift(chunk.subarray(part.length));
        resolve({ head: Buffer.concat(chunks), whole: false });
      }
    };
    const onEnd = () => {
      stop();
      resolve({ head: Buffer.concat(chunks), whole: true });
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
  });
}

function listen(server: Server, target: string | { host: string; port: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    if (typeof target === 'string') server.listen(target, () => resolve());
    else server.listen(target.port, target.host, () => resolve());
  });
}

function tokenMatches(given: string | string[] | undefined, token: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
