// The device authorization grant (RFC 8628) with oauth4webapi: no redirect URI and no loopback server. Posthoc
// asks the provider for a device code, shows the person a short user code and the page to enter it on, and
// polls the token endpoint at the interval the provider asks for (slower when it says slow_down) until the
// person allows or denies access, the code expires, or the sign-in is cancelled.
import * as oauth from 'oauth4webapi';
import { describe, OAuthFlowError } from './loopback-flow';
import { isLoopback } from './provider-resolver';
import { unreachable } from './unreachable';

/** The provider would not start a device sign-in for this client (not enabled for it): the browser sign-in may still work. */
export class DeviceFlowRefused extends OAuthFlowError {}

export type DeviceFlowClient = {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  insecureLoopback: boolean;
  providerName: string;
  scopes: string[];
  scopeSeparator?: string;
  normalize?: (response: Response) => Promise<Response>;
  send?: typeof fetch;
  /** For tests: how to wait between polls (default: a timer). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
};

export type DeviceFlowStarted = {
  userCode: string;
  /** Where the person enters the code. */
  verificationUri: string;
  /** The same page with the code filled in, when the provider offers it. */
  verificationUriComplete: string | null;
  expiresAt: string;
  tokens: Promise<oauth.TokenEndpointResponse>;
  cancel(): void;
};

/** RFC 8628 §3.5: without an interval, 5 s; slow_down adds 5 s. */
const DEFAULT_INTERVAL_S = 5;

export async function startDeviceFlow(c: DeviceFlowClient, options: { timeoutMs?: number } = {}): Promise<DeviceFlowStarted> {
  const opts = { [oauth.allowInsecureRequests]: c.insecureLoopback, [oauth.customFetch]: c.send ?? fetch };
  const params = new URLSearchParams();
  if (c.scopes.length > 0) params.set('scope', c.scopes.join(c.scopeSeparator ?? ' '));
  let started: oauth.DeviceAuthorizationResponse;
  try {
    const response = await errorWith200AsError(await oauth.deviceAuthorizationRequest(c.as, c.client, c.clientAuth, params, opts));
    started = await oauth.processDeviceAuthorizationResponse(c.as, c.client, response);
  } catch (error) {
    // Offline is not a refusal: say so, rather than fall back to a sign-in that cannot reach the provider either.
    throw unreachable(c.providerName, error, String(c.as.device_authorization_endpoint)) ?? new DeviceFlowRefused('exchange', `${c.providerName} did not start a sign-in with a code for the app ${c.client.client_id}: ${describe(error)}.`);
  }
  const verificationUri = signInPage(started.verification_uri, c);
  const verificationUriComplete = started.verification_uri_complete === undefined ? null : signInPage(started.verification_uri_complete, c);
  const lifetimeMs = Math.min((started.expires_in ?? 900) * 1000, options.timeoutMs ?? Number.POSITIVE_INFINITY);
  const expiresAt = new Date(Date.now() + (started.expires_in ?? 900) * 1000).toISOString();
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new OAuthFlowError('timeout', `The code ${started.user_code} was not entered at ${started.verification_uri} in time. Connect again for a new code.`)), lifetimeMs);
  const sleep = c.sleep ?? defaultSleep;

  const poll = async (): Promise<oauth.TokenEndpointResponse> => {
    let interval = Math.max(1, started.interval ?? DEFAULT_INTERVAL_S);
    for (;;) {
      await sleep(interval * 1000, stop.signal);
      if (stop.signal.aborted) throw stop.signal.reason as Error;
      let response: Response;
      try {
        response = await oauth.deviceCodeGrantRequest(c.as, c.client, c.clientAuth, started.device_code, { ...opts, signal: stop.signal });
        if (c.normalize) response = await c.normalize(response);
        return await oauth.processDeviceCodeResponse(c.as, c.client, response, { recognizedTokenTypes: { bot: () => undefined, user: () => undefined } });
      } catch (error) {
        if (stop.signal.aborted) throw stop.signal.reason as Error;
        if (error instanceof oauth.ResponseBodyError) {
          if (error.error === 'authorization_pending') continue;
          if (error.error === 'slow_down') {
            interval += 5;
            continue;
          }
          if (error.error === 'access_denied') throw new OAuthFlowError('denied', `Access was not granted at ${c.providerName} (the request was declined). Nothing was connected; connect again and allow access.`);
          if (error.error === 'expired_token') throw new OAuthFlowError('timeout', `The code ${started.user_code} expired before it was entered. Connect again for a new code.`);
        }
        throw unreachable(c.providerName, error, String(c.as.token_endpoint)) ?? new OAuthFlowError('exchange', `${c.providerName} did not give a token for the device sign-in: ${describe(error)}. Connect again.`);
      }
    }
  };
  const tokens = poll().finally(() => clearTimeout(timer));
  // The caller may never await it (cancelled before anyone listens): no unhandled rejection.
  tokens.catch(() => undefined);
  return {
    userCode: started.user_code,
    verificationUri,
    verificationUriComplete,
    expiresAt,
    tokens,
    cancel: () => stop.abort(new OAuthFlowError('cancelled', 'The sign-in was cancelled.')),
  };
}

/**
 * The sign-in page the provider named, as Posthoc shows and opens it: parsed as the browser will parse it
 * (WHATWG `URL`), https — or plain http on this machine (127.0.0.1, localhost, [::1]) for a local provider
 * whose every endpoint is there —, no user name or password before the host (`http://127.0.0.1:1@evil.example`
 * is evil.example's page), and no backslash, space or control character (a browser reads `\` as `/`, a
 * person reads it as part of the name). Returns the parsed address, so a look-alike host is shown in punycode.
 */
export function signInPage(page: string, c: Pick<DeviceFlowClient, 'insecureLoopback' | 'providerName'>): string {
  const refuse = (why: string) =>
    new OAuthFlowError('exchange', `${c.providerName} named a sign-in page ${why} (${JSON.stringify(page.slice(0, 80))}), so Posthoc will not open it. Nothing was connected.`);
  if (/[\\\s\u0000-\u001f\u007f-\u009f]/u.test(page)) throw refuse('with a backslash, space or control character in it');
  let url: URL;
  try {
    url = new URL(page);
  } catch {
    throw refuse('that is not a web address');
  }
  if (url.username !== '' || url.password !== '') throw refuse(`with a user name or password before its host (the page would be ${url.host}'s)`);
  const local = c.insecureLoopback && url.protocol === 'http:' && isLoopback(url);
  if (url.protocol !== 'https:' && !local) throw refuse(c.insecureLoopback ? 'that is not an https address or one on this machine' : 'that is not an https address');
  return url.href;
}

/** An `error` answered with HTTP 200 (GitHub does) is an error, so the provider's own words reach the person. */
async function errorWith200AsError(response: Response): Promise<Response> {
  if (response.status !== 200 || !(response.headers.get('content-type') ?? '').includes('json')) return response;
  const json = (await response.clone().json().catch(() => null)) as Record<string, unknown> | null;
  return json && typeof json.error === 'string' ? Response.json(json, { status: 400 }) : response;
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
