// The sandbox's only door out: an HTTP server in the main process, one per task, reached from the
// container through a unix socket mounted at /run/posthoc (a relay inside the container exposes it on
// 127.0.0.1 as $POSTHOC_GATEWAY). It can also listen on 127.0.0.1 TCP with a token, for Docker Desktop
// where unix sockets cannot be mounted. Every request is attributed to the task's running action and
// recorded as an effect; everything that is not an allowed route answers 403 with a message the agent
// can act on.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Effect, Task } from '../../shared/domain';
import { Holds } from './holds';
import { Redactor } from './redaction';

export type GatewayRequest = {
  method: string;
  /** The path below the route's prefix, starting with '/', without the query string. */
  path: string;
  search: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
};
export type GatewayReply = { status: number; headers?: Record<string, string>; body: Buffer | string | object };
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
};
export type GatewayRoute = (ctx: RouteContext, req: GatewayRequest) => Promise<GatewayReply>;

export type DoorTransport = { kind: 'unix' } | { kind: 'tcp'; port?: number };
export type Door = { taskId: string; dir: string | null; url: string | null; token: string | null };

export const TOKEN_HEADER = 'x-posthoc-gateway-token';
const MAX_BODY = 32 * 1024 * 1024;

type OpenDoor = Door & { server: Server };
type RunningAction = { id: string; effects: Effect[]; onEffects?: (effects: Effect[]) => void };

export class Gateway {
  private readonly routes = new Map<string, GatewayRoute>();
  private readonly doors = new Map<string, OpenDoor>();
  /** The action each task is running now; kept apart from the doors, which open with the container. */
  private readonly actions = new Map<string, RunningAction>();
  private readonly redactors = new Map<string, Redactor>();
  /** Calls kept back for a send window or the person's approval. */
  readonly holds = new Holds();

  constructor(
    private readonly baseDir: string,
    private readonly taskOf: (taskId: string) => Task | undefined,
  ) {}

  /** Mounts a route at /PREFIX/… (for example 'svc' or 'db'). */
  route(prefix: string, handler: GatewayRoute): void {
    this.routes.set(prefix, handler);
  }

  /** Opens the task's door (idempotent). With unix, `dir` is the folder to mount into the container. */
  async open(taskId: string, transport: DoorTransport = { kind: 'unix' }): Promise<Door> {
    const existing = this.doors.get(taskId);
    if (existing) return existing;
    const door: OpenDoor = { taskId, dir: null, url: null, token: null, server: createServer() };
    door.server.on('request', (req, res) => {
      void this.handle(door, req, res).catch((error) =>
        reply(res, { status: 500, body: { error: this.redactor(taskId).text(String(error)) } }),
      );
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
    const body = await readBody(req);
    if (body === null) return reply(res, { status: 413, body: { error: `Request body over ${MAX_BODY} bytes.` } });
    const gone = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const changed = () => action.onEffects?.(structuredClone(action.effects));
    const result = await route(
      {
        task,
        actionId: action.id,
        recordEffect: (effect) => {
          action.effects.push(effect);
          changed();
        },
        changed,
        signal: gone.signal,
        redactor: this.redactor(door.taskId),
      },
      { method: req.method ?? 'GET', path: `/${rest.join('/')}`, search: url.search, headers: req.headers, body },
    );
    reply(res, result);
  }
}

function reply(res: ServerResponse, r: GatewayReply): void {
  if (res.headersSent) return;
  const isJson = !(Buffer.isBuffer(r.body) || typeof r.body === 'string');
  const payload = isJson ? Buffer.from(JSON.stringify(r.body)) : Buffer.from(r.body as Buffer | string);
  const headers: Record<string, string> = { ...(r.headers ?? {}) };
  if (isJson) headers['content-type'] = 'application/json';
  headers['content-length'] = String(payload.length);
  res.writeHead(r.status, headers).end(payload);
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) tooBig = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooBig ? null : Buffer.concat(chunks)));
    req.on('error', reject);
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
