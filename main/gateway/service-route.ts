// $POSTHOC_GATEWAY/svc/NAME/PATH → the base URL of service NAME, for services granted to the task.
// Every call, forwarded or refused, becomes a RestEffect on the running action.
import type { RestEffect } from '../../shared/domain';
import type { GatewayReply, GatewayRequest, GatewayRoute, RouteContext } from './gateway';
import type { ServiceRegistry } from './service-registry';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Headers that belong to one hop, or that the gateway sets itself. */
const HOP_HEADERS = new Set([
  'host', 'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'content-length', 'x-posthoc-gateway-token',
]);
const DROPPED_RESPONSE_HEADERS = new Set([...HOP_HEADERS, 'content-encoding']);

export function serviceRoute(registry: ServiceRegistry, send: typeof fetch = fetch): GatewayRoute {
  return async (ctx: RouteContext, req: GatewayRequest): Promise<GatewayReply> => {
    const started = performance.now();
    const [, name = '', ...rest] = req.path.split('/');
    const subPath = `/${rest.join('/')}`;
    const method = req.method.toUpperCase();
    const effect = (status: number, responseBytes: number, refused: string | null): RestEffect => ({
      channel: 'rest',
      service: name,
      method,
      path: subPath + req.search,
      status,
      durationMs: Math.round(performance.now() - started),
      requestBytes: req.body.length,
      responseBytes,
      mutating: !READ_METHODS.has(method),
      refused,
    });
    const refuse = (status: number, message: string): GatewayReply => {
      ctx.recordEffect(effect(status, 0, message));
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

    const target = `${service.baseUrl}${subPath}${req.search}`;
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_HEADERS.has(key.toLowerCase())) continue;
      headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    let res: Response;
    try {
      res = await send(target, {
        method,
        headers,
        body: READ_METHODS.has(method) || req.body.length === 0 ? undefined : new Uint8Array(req.body),
        redirect: 'manual',
        signal: AbortSignal.timeout(60_000),
      });
    } catch (error) {
      const message = `The service "${name}" could not be reached: ${error instanceof Error ? error.message : String(error)}`;
      ctx.recordEffect(effect(502, 0, null));
      return { status: 502, body: { error: message } };
    }
    const body = Buffer.from(await res.arrayBuffer());
    const out: Record<string, string> = {};
    res.headers.forEach((value, key) => {
      if (!DROPPED_RESPONSE_HEADERS.has(key)) out[key] = value;
    });
    ctx.recordEffect(effect(res.status, body.length, null));
    return { status: res.status, headers: out, body };
  };
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
