// $POSTHOC_GATEWAY/svc/NAME/PATH → service NAME, for services granted to the task. Each call is checked
// against the person's rules (refused, held for approval, or kept back for a send's window), sent with
// the service's credentials, redacted, and recorded as a RestEffect with the exact call that takes it back.
import type { RestEffect } from '../../shared/domain';
import type { ApiSpec } from '../../shared/domain/connections';
import { parseBody } from './body-view';
import { judgeCall, type Verdict } from './call-rules';
import type { GatewayReply, GatewayRequest, GatewayRoute, RouteContext } from './gateway';
import { Holds } from './holds';
import { deriveInverse } from './rest-inverse';
import { CredentialMissing, ServiceCaller, type CredentialSource } from './service-caller';
import { describeAuth, type ResolvedService, type ServiceRegistry } from './service-registry';

/** Headers that belong to one hop, or that the gateway sets itself. */
const HOP_HEADERS = new Set([
  'host', 'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'content-length', 'x-posthoc-gateway-token',
]);
const DROPPED_RESPONSE_HEADERS = new Set([...HOP_HEADERS, 'content-encoding']);
const SUMMARY_CHARS = 400;

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

export function serviceRoute(registry: ServiceRegistry, options: ServiceRouteOptions = {}): GatewayRoute {
  const caller = options.caller ?? new ServiceCaller(NO_CREDENTIALS, options.send);
  const holds = options.holds ?? new Holds();
  const apiOf = options.apiOf ?? (() => undefined);

  return async (ctx: RouteContext, req: GatewayRequest): Promise<GatewayReply> => {
    const started = performance.now();
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
      requestBytes: req.body.length,
      responseBytes: 0,
      mutating: !['GET', 'HEAD', 'OPTIONS'].includes(method),
      refused: null,
      auth: null,
      api: null,
      request: summarize(req.body, req.headers['content-type'], ctx),
      response: null,
      inverse: null,
      hold: null,
    };
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

    const requestValue = parseBody(req.body, req.headers['content-type']);
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
    let answer;
    try {
      answer = await caller.call(
        service,
        { method, path: subPath, search: req.search, headers, body: req.body.length === 0 ? undefined : new Uint8Array(req.body) },
        ctx.redactor,
        ctx.signal,
      );
    } catch (error) {
      if (error instanceof CredentialMissing) return refuse(403, ctx.redactor.text(error.message));
      const message = ctx.redactor.text(`The service "${name}" could not be reached: ${error instanceof Error ? error.message : String(error)}`);
      finish(502);
      return { status: 502, body: { error: message } };
    }

    const responseValue = parseBody(answer.body, answer.headers.get('content-type') ?? undefined);
    const inverse = verdict.mutating
      ? deriveInverse(
          api,
          { service: name, method, path: subPath, query: new URLSearchParams(req.search), status: answer.status, request: requestValue, response: responseValue },
          (other) => registry.serviceOfApi(other, service.auth),
        )
      : null;
    finish(answer.status, {
      responseBytes: answer.body.length,
      request: summarize(req.body, req.headers['content-type'], ctx),
      response: summarize(answer.body, answer.headers.get('content-type') ?? undefined, ctx),
      inverse: inverse && { ...inverse, path: ctx.redactor.text(inverse.path), body: inverse.body && ctx.redactor.text(inverse.body) },
    });
    const out: Record<string, string> = {};
    answer.headers.forEach((value, key) => {
      if (!DROPPED_RESPONSE_HEADERS.has(key)) out[key] = value;
    });
    return { status: answer.status, headers: out, body: answer.body };
  };
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

/** A short, redacted view of a body for the card and the store. */
function summarize(body: Buffer, contentType: string | string[] | undefined, ctx: RouteContext): string | null {
  if (body.length === 0) return null;
  const type = String(contentType ?? '');
  const text = body.toString('utf8');
  const printable = !text.includes('\uFFFD') && !/[\x00-\x08\x0E-\x1F]/.test(text);
  if (!printable && !/json|text|form/.test(type)) return `${body.length} bytes`;
  const clean = ctx.redactor.text(text);
  return clean.length > SUMMARY_CHARS ? `${clean.slice(0, SUMMARY_CHARS)}… (${body.length} bytes)` : clean;
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
