// $POSTHOC_GATEWAY/svc/NAME/PATH → service NAME, for services granted to the task. Each call is checked
// against the person's rules (refused, held for approval, or kept back for a send's window), sent with
// the service's credentials, redacted, and recorded as a RestEffect with the exact call that takes it back.
// A body that fits the gateway's window is handled whole; a larger one streams through in both directions
// (redacted in windows, summarized by its head and tail), and a mutating call with one gets no inverse.
import { pipeline, Readable } from 'node:stream';
import type { RestEffect } from '../../shared/domain';
import type { ApiSpec } from '../../shared/domain/connections';
import { BodyTap, summarize } from './body-summary';
import { parseBody } from './body-view';
import { judgeCall, type Verdict } from './call-rules';
import { readWindow, type GatewayReply, type RouteContext, type StreamingRequest, type StreamingRoute } from './gateway';
import { formatBytes } from './byte-size';
import { BODY_WINDOW, overBudgetMessage, responseCapMessage } from './gateway-limits';
import { Holds } from './holds';
import { callMatches } from './path-glob';
import { deriveInverse, INVERSE_BODY_LIMIT } from './rest-inverse';
import { CredentialMissing, ResponseTooLarge, ServiceCaller, type CredentialSource } from './service-caller';
import { readRequestBody } from './request-body';
import { RedactingStream } from './stream-redaction';
import { describeAuth, type ResolvedService, type ServiceRegistry } from './service-registry';

/** Headers that belong to one hop, or that the gateway sets itself. */
const HOP_HEADERS = new Set([
  'host', 'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'content-length', 'x-posthoc-gateway-token',
]);
const DROPPED_RESPONSE_HEADERS = new Set([...HOP_HEADERS, 'content-encoding']);

export type ServiceRouteOptions = {
  caller?: ServiceCaller;
  holds?: Holds;
  /** Provider data by API id (slack, github, …): inverse rules, sends, reads. */
  apiOf?: (api: string) => ApiSpec | undefined;
  send?: typeof fetch;
};

const NO_CREDENTIALS: CredentialSource = {
  secret: async () => null,
  oauthToken: async (provider) => {
    throw new CredentialMissing(`No OAuth connection "${provider}" is available here.`);
  },
};

export function serviceRoute(registry: ServiceRegistry, options: ServiceRouteOptions = {}): StreamingRoute {
  const caller = options.caller ?? new ServiceCaller(NO_CREDENTIALS, options.send);
  const holds = options.holds ?? new Holds();
  const apiOf = options.apiOf ?? (() => undefined);

  const route = async (ctx: RouteContext, req: StreamingRequest): Promise<GatewayReply> => {
    const started = performance.now();
    const { head, whole } = req.body;
    const requestTap = new BodyTap();
    requestTap.see(head);
    const [, name = '', ...rest] = req.path.split('/');
    const subPath = `/${rest.join('/')}`;
    const method = req.method.toUpperCase();
    const effect: RestEffect = {
      channel: 'rest',
      service: name,
      method,
      path: ctx.redactor.text(subPath + req.search),
      status: 0,
      durationMs: 0,
      requestBytes: head.length,
      responseBytes: 0,
      mutating: !['GET', 'HEAD', 'OPTIONS'].includes(method),
      refused: null,
      auth: null,
      api: null,
      request: requestTap.summary(req.headers['content-type'], ctx.redactor),
      response: null,
      inverse: null,
      hold: null,
    };
    // Until the rest has streamed through, only its first window is known.
    if (!whole) effect.request = `${effect.request ?? ''} (over ${formatBytes(BODY_WINDOW)})`;
    let recorded = false;
    const finish = (status: number, patch: Partial<RestEffect> = {}): void => {
      Object.assign(effect, patch, { status, durationMs: Math.round(performance.now() - started) });
      if (recorded) ctx.changed();
      else ctx.recordEffect(effect);
      recorded = true;
    };
    const refuse = (status: number, message: string): GatewayReply => {
      finish(status, { refused: message });
      return { status, body: { error: message } };
    };

    const granted = ctx.task.services;
    if (!name) return refuse(403, `Say which service: $POSTHOC_GATEWAY/svc/NAME/PATH. Granted to this task: ${list(granted)}.`);
    if (!granted.includes(name)) {
      return refuse(
        403,
        `The service "${name}" is not granted to this task, so the call was not sent. Granted: ${list(granted)}. Only the person can grant a service (posthoc run --service ${name}, or in the app).`,
      );
    }
    const service = registry.get(name);
    if (!service) return refuse(403, `The service "${name}" is granted but no longer defined. Ask the person to add it again (posthoc service add ${name} --base-url URL).`);
    // The URL parser already folds plain '..' segments; encoded slashes ('..%2F') must not smuggle one through.
    if (rest.some((segment) => decodeSafely(segment).split(/[\\/]/).includes('..'))) {
      return refuse(400, 'Paths may not climb above the service\'s base URL ("..").');
    }
    const api = service.api ? apiOf(service.api) : undefined;
    effect.auth = describeAuth(service.auth);
    effect.api = api ? api.id : null;

    // The person's body rules read the body as the service will; a body too long to hold, or one the
    // gateway cannot read, cannot be checked, so it is not sent.
    const ruled = service.rules.body.some((rule) => callMatches(rule, method, subPath, true));
    if (!whole && ruled) {
      return refuse(
        413,
        `${method} ${subPath} on ${name} has a body over ${formatBytes(BODY_WINDOW)}, and the person's rules check fields of this call's body, which the gateway reads only from smaller bodies. The call was not sent; send a smaller body.`,
      );
    }
    const reading = whole ? await readRequestBody(head, req.headers, ruled, BODY_WINDOW) : { ok: true as const, value: null };
    if (!reading.ok) {
      return refuse(415, ctx.redactor.text(`${method} ${subPath} on ${name}: the person's rules check fields of this call's body, and the gateway cannot read this body: ${reading.why}. The call was not sent.`));
    }
    const requestValue = reading.value;
    const verdict = judgeCall(service.rules, api, { service: name, method, path: subPath, body: requestValue, search: req.search });
    if (verdict.kind === 'refuse') return refuse(403, verdict.message);
    effect.mutating = verdict.mutating;
    if (verdict.kind === 'approval' || verdict.kind === 'window') {
      const stopped = await keepBack(ctx, holds, verdict, effect, () => {
        if (!recorded) ctx.recordEffect(effect);
        else ctx.changed();
        recorded = true;
      });
      if (stopped) return refuse(409, stopped);
    }

    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_HEADERS.has(key.toLowerCase())) continue;
      headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    // A body held whole is sent whole (so an OAuth 401 can be retried); a longer one streams as it arrives.
    const outgoing = whole ? (head.length === 0 ? undefined : new Uint8Array(head)) : Readable.from(chunksOf(head, req.body.rest, requestTap), { objectMode: false });
    let answer;
    try {
      answer = await caller.open(service, { method, path: subPath, search: req.search, headers, body: outgoing }, ctx.redactor, ctx.signal);
    } catch (error) {
      if (error instanceof CredentialMissing) return refuse(403, ctx.redactor.text(error.message));
      const message = ctx.redactor.text(`The service "${name}" could not be reached: ${error instanceof Error ? error.message : String(error)}`);
      finish(502);
      return { status: 502, body: { error: message } };
    }

    const out: Record<string, string> = {};
    answer.headers.forEach((value, key) => {
      if (!DROPPED_RESPONSE_HEADERS.has(key)) out[key] = value;
    });
    const what = `${method} ${effect.path} on ${name}`;
    const cap = ctx.limits.responseBytes;
    const contentType = answer.headers.get('content-type') ?? undefined;
    const declared = Number(answer.headers.get('content-length') ?? NaN);
    const cut = (message: string, limit: 'response' | 'task'): GatewayReply => {
      answer.body?.destroy();
      finish(answer.status, { requestBytes: requestTap.total, request: requestTap.summary(req.headers['content-type'], ctx.redactor), response: `not passed on: ${message}` });
      return { status: 502, body: { error: message, limit } };
    };
    if (declared > cap) return cut(responseCapMessage(what, declared, cap), 'response');
    const first = answer.body ? await readWindow(answer.body, BODY_WINDOW, ctx.reserve) : { head: Buffer.alloc(0), whole: true };
    if (first === 'over-budget') return cut(overBudgetMessage(ctx.budget), 'task');
    if (first.head.length > cap) return cut(responseCapMessage(what, first.whole ? first.head.length : null, cap), 'response');

    if (first.whole) {
      const body = ctx.redactor.buffer(first.head);
      const responseValue = parseBody(body, contentType);
      const inverse = verdict.mutating
        ? deriveInverse(
            api,
            { service: name, method, path: subPath, query: new URLSearchParams(req.search), status: answer.status, request: requestValue, response: responseValue },
            (other) => registry.serviceOfApi(other, service.auth),
          )
        : null;
      finish(answer.status, {
        requestBytes: requestTap.total,
        responseBytes: body.length,
        request: requestTap.summary(req.headers['content-type'], ctx.redactor),
        response: summarize(body, contentType, ctx.redactor),
        inverse: inverse && { ...inverse, path: ctx.redactor.text(inverse.path), body: inverse.body && ctx.redactor.text(inverse.body) },
      });
      return { status: answer.status, headers: out, body };
    }

    // Too long to hold: redacted in windows on its way, summarized by its ends, no inverse.
    const responseTap = new BodyTap();
    const noInverse = verdict.mutating && verdict.inverseKnown ? ` (no inverse: the answer is over the ${formatBytes(INVERSE_BODY_LIMIT)} an inverse is read from)` : '';
    let raw = 0;
    const counted = async function* (): AsyncGenerator<Buffer> {
      raw = first.head.length;
      yield first.head;
      for await (const chunk of answer.body!) {
        raw += (chunk as Buffer).length;
        if (raw > cap) throw new ResponseTooLarge(responseCapMessage(what, null, cap));
        yield chunk as Buffer;
      }
    };
    // An HTTP/1.0 client reads an answer without a length up to the connection's end, so a cut answer would
    // pass for a whole one: it gets the answer whole (held up to the cap, within the task's budget) or an error.
    const closing = req.httpVersion === '1.0';
    let settled = false;
    const settle = (error: Error | null): void => {
      if (settled) return;
      settled = true;
      const summary = responseTap.summary(contentType, ctx.redactor) ?? '';
      const why = error && ctx.redactor.text(error.message);
      finish(answer.status, {
        requestBytes: requestTap.total,
        responseBytes: responseTap.total,
        request: requestTap.summary(req.headers['content-type'], ctx.redactor),
        response: !error
          ? `${summary}${noInverse}`
          : closing
            ? `not passed on: ${why}`
            : `cut after ${raw} bytes: ${why} (the code's connection was ended mid-answer, so it saw an incomplete answer) ${summary}`,
      });
    };
    // The effect is complete before the stream's end reaches the sandbox, so the action cannot end first.
    const tail = responseTap.stream(() => settle(null));
    const body = pipeline(Readable.from(counted(), { objectMode: false }), new RedactingStream(ctx.redactor), tail, (error) => {
      if (error) settle(error);
    });
    finish(answer.status, { response: '(streaming)' });
    if (!closing) return { status: answer.status, headers: out, body };
    const held = await holdWhole(body, ctx, settle);
    if (Buffer.isBuffer(held)) return { status: answer.status, headers: out, body: held };
    settle(held);
    const limit = held instanceof ResponseTooLarge ? 'response' : held instanceof OverBudget ? 'task' : null;
    const message = ctx.redactor.text(limit ? held.message : `The answer to ${what} broke off: ${held.message}`);
    return { status: 502, body: { error: message, ...(limit ? { limit } : {}) } };
  };
  return Object.assign(route, { streaming: true as const });
}

class OverBudget extends Error {}

/**
 * A streamed answer held whole, each chunk counted against the task's budget; or the error that cut it
 * (told to `cut` before the stream is ended, so the effect says why rather than that it was closed).
 */
async function holdWhole(body: Readable, ctx: RouteContext, cut: (error: Error) => void): Promise<Buffer | Error> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of body) {
      if (!ctx.reserve((chunk as Buffer).length)) {
        const error = new OverBudget(overBudgetMessage(ctx.budget));
        cut(error);
        return error;
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    return error as Error;
  }
  return Buffer.concat(chunks);
}

/** The request body as it goes out: the window already read, then the rest, each chunk shown to the tap. */
async function* chunksOf(head: Buffer, rest: Readable | null, tap: BodyTap): AsyncGenerator<Buffer> {
  if (head.length > 0) yield head;
  if (!rest) return;
  for await (const chunk of rest) {
    tap.see(chunk as Buffer);
    yield chunk as Buffer;
  }
}

/** Waits out a hold; returns why the call must not leave, or null when it may. */
async function keepBack(
  ctx: RouteContext,
  holds: Holds,
  verdict: Extract<Verdict, { kind: 'approval' | 'window' }>,
  effect: RestEffect,
  show: () => void,
): Promise<string | null> {
  const outcome = await holds.wait(
    ctx.task.id,
    { kind: verdict.kind, reason: verdict.reason, seconds: verdict.kind === 'window' ? verdict.seconds : undefined },
    (hold) => {
      effect.hold = hold;
      show();
    },
    ctx.signal,
  );
  switch (outcome) {
    case 'release':
      return null;
    case 'cancel':
      return verdict.kind === 'window'
        ? `The person cancelled ${effect.method} ${effect.path} on ${effect.service} before it left; it was not sent. Do not send it again unless the person asks.`
        : `The person did not approve ${effect.method} ${effect.path} on ${effect.service}; it was not sent.`;
    case 'abandon':
      return `${effect.method} ${effect.path} was still held when the action ended, so it was not sent.`;
  }
}

function list(names: string[]): string {
  return names.length ? names.join(', ') : 'none';
}

function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export type { ResolvedService };
