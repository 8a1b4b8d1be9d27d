// The package routes' only way to an upstream index, registry or mirror: GETs over node:http(s),
// following a redirect only to an origin the route allows (the index's own, and PyPI's files host for
// PyPI), never anywhere else. Every wait is bounded, by the kind of request: the connection (name lookup
// included), the answer's status line, each pause in the body, and the whole. An upstream that cannot be
// reached or does not answer fails at once with a reason in words (UpstreamUnreachable), so the package
// manager in the sandbox gets an answer it prints instead of waiting out the action's timeout.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { pipeline, Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** The route does not fetch this (another origin, too many redirects, an answer too large). */
export class UpstreamRefused extends Error {}
/** The upstream could not be reached, or did not answer or finish in time; the message says which. */
export class UpstreamUnreachable extends Error {}
/** The sandbox's request is gone (the code ended or timed out): nothing to answer. */
class Gone extends Error {}

export type UpstreamKind = 'index' | 'file';
export type Deadlines = {
  /** From the request's start until the connection stands (TCP, and TLS for https; name lookup included). */
  connectMs: number;
  /** From the request's start until the status line and headers have arrived. */
  answerMs: number;
  /** The longest pause between two pieces of the body. */
  idleMs: number;
  /** From the first request's start (redirects included) until the body has been read to its end. */
  totalMs: number;
};

/**
 * An index page or packument is asked for while the package manager waits for it, and is parsed in
 * memory: a quick answer or none. A package file (up to 2 GiB, written to the cache as it comes) may take
 * long, but may never stall. The sandbox's pip and npm wait for the gateway at least as long
 * (container-policy.ts packageEnv: PIP_TIMEOUT, NPM_CONFIG_FETCH_TIMEOUT), so the gateway answers first.
 */
export const DEADLINES: Readonly<Record<UpstreamKind, Deadlines>> = {
  index: { connectMs: 5_000, answerMs: 15_000, idleMs: 15_000, totalMs: 45_000 },
  file: { connectMs: 5_000, answerMs: 30_000, idleMs: 30_000, totalMs: 30 * 60_000 },
};

/**
 * After an upstream did not connect or answer in time, a request to its origin within this long is
 * answered at once with that reason: a package manager's retry, or the agent's next try, does not wait
 * the deadline out again. A refused connection fails at once anyway and is not remembered.
 */
export const DOWN_MEMO_MS = 30_000;

const MAX_REDIRECTS = 5;
/** The largest index page or packument the gateway reads (they are parsed in memory). */
export const MAX_INDEX_BYTES = 64 * 1024 * 1024;

const down = new Map<string, { until: number; why: string }>();
/** When each origin last answered: one that answered within DOWN_MEMO_MS is not taken for down for one slow connection. */
const answered = new Map<string, number>();

/**
 * Connections are kept and used again (npm asks for hundreds of packuments in a burst: a TLS handshake
 * each, under load, missed the connect deadline and took the registry for down). No cap per origin, so no
 * request waits in a queue while its deadlines run; an idle connection is closed after a while and never
 * keeps the process alive.
 */
const AGENTS = {
  'http:': new HttpAgent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 16 }),
  'https:': new HttpsAgent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 16 }),
} as const;

export type UpstreamOptions = {
  accept?: string;
  /** Aborts when the sandbox's request is gone. */
  signal: AbortSignal;
  /** Which deadlines apply (default 'index'); `deadlines` overrides some of them. */
  kind?: UpstreamKind;
  deadlines?: Partial<Deadlines>;
  /** The name lookup (default: the system's). */
  lookup?: LookupFunction;
};

/**
 * The upstream's answer to a GET of `url` as a web Response (its `url` the last hop's), or
 * UpstreamRefused / UpstreamUnreachable. Its body errors with UpstreamUnreachable when it pauses or runs
 * past the deadlines. An index's compressed answer is decompressed; a file's bytes are passed as sent.
 */
export async function fetchUpstream(url: string, allowedOrigins: readonly string[], options: UpstreamOptions): Promise<Response> {
  const kind = options.kind ?? 'index';
  const d: Deadlines = { ...DEADLINES[kind], ...options.deadlines };
  const deadline = Date.now() + d.totalMs;
  let current = new URL(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (!allowedOrigins.includes(current.origin)) {
      throw new UpstreamRefused(`${current.origin} is not the package index's own origin (${allowedOrigins.join(', ')}); the gateway does not fetch from it.`);
    }
    const memo = down.get(current.origin);
    if (memo && memo.until > Date.now()) {
      throw new UpstreamUnreachable(`${memo.why}, when the gateway last asked it; it asks again in ${Math.ceil((memo.until - Date.now()) / 1000)} s`);
    }
    down.delete(current.origin);
    const res = await answerOf(current, kind, d, deadline, options);
    const location = res.headers.location;
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location) {
      res.destroy();
      current = new URL(location, current);
      continue;
    }
    return toResponse(res, current, kind, d, deadline, options.signal);
  }
  throw new UpstreamRefused(`more than ${MAX_REDIRECTS} redirects from ${url}`);
}

async function answerOf(target: URL, kind: UpstreamKind, d: Deadlines, deadline: number, options: UpstreamOptions): Promise<IncomingMessage> {
  try {
    return await askOnce(target, kind, d, deadline, options, true);
  } catch (error) {
    // A kept connection the upstream had just closed: asked again once on a new one, as a browser does.
    if (!(error instanceof ReusedSocketReset)) throw error;
    return askOnce(target, kind, d, deadline, options, false);
  }
}

class ReusedSocketReset extends Error {}

function askOnce(target: URL, kind: UpstreamKind, d: Deadlines, deadline: number, options: UpstreamOptions, reuse: boolean): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const origin = target.origin;
    if (options.signal.aborted) return reject(new Gone('the sandbox stopped waiting for the answer'));
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, {
      method: 'GET',
      // A kept connection when one is free (the connect deadline then does not apply: it is connected).
      agent: reuse && !options.lookup ? AGENTS[target.protocol as 'http:' | 'https:'] : false,
      lookup: options.lookup,
      headers: {
        accept: options.accept ?? '*/*',
        'accept-encoding': kind === 'index' ? 'gzip, deflate, br' : 'identity',
        'user-agent': 'posthoc-gateway',
      },
    });
    const timers: NodeJS.Timeout[] = [];
    const settle = () => {
      for (const t of timers) clearTimeout(t);
      options.signal.removeEventListener('abort', onAbort);
    };
    // A deadline missed before the answer: remembered for DOWN_MEMO_MS, unless the origin answered another
    // request within that time (then this one connection was slow, and fails alone).
    const giveUp = (why: string) => {
      if (Date.now() - (answered.get(origin) ?? -Infinity) > DOWN_MEMO_MS) down.set(origin, { until: Date.now() + DOWN_MEMO_MS, why });
      req.destroy(new UpstreamUnreachable(why));
    };
    const left = Math.max(0, deadline - Date.now());
    const late = `${origin} did not answer within ${seconds(d.totalMs)} (redirects included)`;
    const connectTimer = setTimeout(() => giveUp(d.connectMs <= left ? `no connection to ${origin} within ${seconds(d.connectMs)}` : late), Math.min(d.connectMs, left));
    timers.push(
      connectTimer,
      setTimeout(() => giveUp(d.answerMs <= left ? `${origin} accepted the connection but sent no answer within ${seconds(d.answerMs)}` : late), Math.min(d.answerMs, left)),
    );
    const onAbort = () => req.destroy(new Gone('the sandbox stopped waiting for the answer'));
    options.signal.addEventListener('abort', onAbort, { once: true });
    req.on('socket', (socket) => {
      if (!socket.connecting) return clearTimeout(connectTimer);
      socket.once(target.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    req.on('response', (res) => {
      settle();
      answered.set(origin, Date.now());
      resolve(res);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      settle();
      if (req.reusedSocket && error.code === 'ECONNRESET') return reject(new ReusedSocketReset());
      reject(error instanceof UpstreamUnreachable || error instanceof Gone ? error : new UpstreamUnreachable(`${origin} could not be reached: ${inWords(error, target.hostname)}`));
    });
    req.end();
  });
}

/** The answer as a web Response whose body is bounded by the idle and total deadlines. */
function toResponse(res: IncomingMessage, url: URL, kind: UpstreamKind, d: Deadlines, deadline: number, signal: AbortSignal): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    res.destroy();
    throw new UpstreamRefused(`${url.origin} answered with status ${status}, which is not HTTP.`);
  }
  const encoding = String(res.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decoder = kind === 'index' ? decoderFor(encoding) : null;
  if (decoder === undefined) {
    res.destroy();
    throw new UpstreamRefused(`${url.origin} answered in an encoding the gateway does not read (${encoding}).`);
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined || (decoder && (name === 'content-encoding' || name === 'content-length'))) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      try {
        headers.append(name, v);
      } catch {
        // A value Headers will not hold (no route reads such a header): left out.
      }
    }
  }
  if (status === 204 || status === 205 || status === 304) {
    res.destroy();
    return withUrl(new Response(null, { status, headers }), url);
  }
  // Each piece of the body restarts the idle timer; the whole must be read by the deadline.
  const stop = (why: string) => res.destroy(new UpstreamUnreachable(why));
  const idle = setTimeout(() => stop(`the answer from ${url.origin} stalled: nothing came for ${seconds(d.idleMs)}`), d.idleMs).unref();
  const total = setTimeout(() => stop(`the answer from ${url.origin} was not complete within ${seconds(d.totalMs)}`), Math.max(0, deadline - Date.now())).unref();
  const watch = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      idle.refresh();
      done(null, chunk);
    },
  });
  // The sandbox gone, the download stops (what was read is not cached: the hash was never checked).
  const onAbort = () => res.destroy(new Gone('the sandbox stopped waiting for the answer'));
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  const stages: Array<Readable | Transform> = decoder ? [res, decoder, watch] : [res, watch];
  pipeline(stages, () => {
    clearTimeout(idle);
    clearTimeout(total);
    signal.removeEventListener('abort', onAbort);
  });
  return withUrl(new Response(Readable.toWeb(watch) as ReadableStream<Uint8Array>, { status, headers }), url);
}

function decoderFor(encoding: string): Transform | null | undefined {
  if (encoding === 'identity' || encoding === '') return null;
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === 'br') return createBrotliDecompress();
  return undefined;
}

function withUrl(response: Response, url: URL): Response {
  Object.defineProperty(response, 'url', { value: url.toString() });
  return response;
}

function inWords(error: NodeJS.ErrnoException, host: string): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused (nothing listens there)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `the name ${host} could not be resolved`;
    case 'ECONNRESET':
    case 'EPIPE':
      return 'it closed the connection';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'no route to it';
    default:
      return error.code ? `${error.message} (${error.code})` : error.message;
  }
}

const seconds = (ms: number): string => `${ms / 1000} s`;

/** The origins files may come from: the index's, and files.pythonhosted.org when the index is PyPI's. */
export function pipFileOrigins(indexRoot: string): string[] {
  const index = new URL(indexRoot);
  return index.hostname === 'pypi.org' ? [index.origin, 'https://files.pythonhosted.org'] : [index.origin];
}

/** The body as text, refused (UpstreamRefused) past MAX_INDEX_BYTES without reading the rest. */
export async function readIndexText(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > MAX_INDEX_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw new UpstreamRefused(`the index answered ${declared} bytes, more than the ${MAX_INDEX_BYTES / 1024 / 1024} MiB the gateway reads.`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (;;) {
    const next = reader ? await reader.read() : { done: true as const, value: undefined };
    if (next.done) break;
    size += next.value.length;
    if (size > MAX_INDEX_BYTES) {
      await reader?.cancel().catch(() => undefined);
      throw new UpstreamRefused(`the index's answer is over the ${MAX_INDEX_BYTES / 1024 / 1024} MiB the gateway reads.`);
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
