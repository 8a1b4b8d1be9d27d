// OAuth 2 for native apps (RFC 8252) with oauth4webapi: a loopback server on 127.0.0.1 (a random port
// unless the provider fixes one), PKCE S256, a `state` that is good for one answer only (requests without
// it are refused while the flow keeps waiting), a timeout, and a small result page.
// The browser is opened by the caller; this module only listens and exchanges.
import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import * as oauth from 'oauth4webapi';
import { REDIRECT_PATH } from './provider-spec';
import { resultPage } from './result-page';
import { unreachable } from './unreachable';

export class OAuthFlowError extends Error {
  constructor(
    readonly reason: 'state' | 'denied' | 'timeout' | 'exchange' | 'cancelled' | 'port',
    message: string,
  ) {
    super(message);
  }
}

export type FlowClient = {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  insecureLoopback: boolean;
  providerName: string;
  scopes: string[];
  scopeParam?: string;
  scopeSeparator?: string;
  pkce: boolean;
  authParams?: Record<string, string>;
  /** Rewrites a token answer that is not plain RFC 6749 (Slack's nested user token). */
  normalize?: (response: Response) => Promise<Response>;
  send?: typeof fetch;
};

export type FlowOptions = { port?: number; timeoutMs?: number };
export type FlowStarted = { authorizationUrl: string; redirectUri: string; tokens: Promise<oauth.TokenEndpointResponse>; cancel(): void };

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

export async function startLoopbackFlow(c: FlowClient, options: FlowOptions = {}): Promise<FlowStarted> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
  } catch (error) {
    throw new OAuthFlowError('port', `Could not listen on 127.0.0.1:${options.port ?? 0} for the sign-in answer (${(error as Error).message}). Close what uses that port, or connect with another --port.`);
  }
  const port = (server.address() as { port: number }).port;
  const redirectUri = `http://127.0.0.1:${port}${REDIRECT_PATH}`;

  const url = new URL(c.as.authorization_endpoint!);
  url.searchParams.set('client_id', c.client.client_id);
  url.searchParams.set('redirect_uri', redirectUri);
  url.searchParams.set('response_type', 'code');
  if (c.scopes.length > 0) url.searchParams.set(c.scopeParam ?? 'scope', c.scopes.join(c.scopeSeparator ?? ' '));
  url.searchParams.set('state', state);
  if (c.pkce) {
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  for (const [k, v] of Object.entries(c.authParams ?? {})) url.searchParams.set(k, v);

  let settle!: { resolve(t: oauth.TokenEndpointResponse): void; reject(e: Error): void };
  const tokens = new Promise<oauth.TokenEndpointResponse>((resolve, reject) => (settle = { resolve, reject }));
  let used = false;
  let done = false;
  const finish = (error: Error | null, result?: oauth.TokenEndpointResponse) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    server.closeAllConnections?.();
    server.close();
    if (error) settle.reject(error);
    else settle.resolve(result!);
  };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timer = setTimeout(
    () => finish(new OAuthFlowError('timeout', `No answer came back from ${c.providerName} within ${Math.round(timeoutMs / 1000)} s. Start the connection again and finish signing in in the browser.`)),
    timeoutMs,
  );

  server.on('request', (req, res) => {
    const page = (status: number, ok: boolean, text: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" });
      res.end(resultPage(ok, c.providerName, text));
    };
    const here = new URL(req.url ?? '/', redirectUri);
    // Anything that is not the answer to this sign-in (another path, a favicon, a forged or stale state from
    // another page or program) is refused and the flow keeps waiting: a stray request must not cancel it.
    if (here.pathname !== REDIRECT_PATH) return page(404, false, 'Nothing here.');
    // One answer per sign-in: a second use of the callback (a replay, a reload) is refused.
    if (used) return page(400, false, 'This sign-in answer was already used. Start the connection again from Posthoc if it did not finish.');
    if (!sameState(here.searchParams.get('state'), state)) {
      return page(400, false, `This answer does not match the sign-in Posthoc started (its state is wrong or missing), so it was ignored. Finish signing in to ${c.providerName} in the tab Posthoc opened.`);
    }
    used = true;
    void (async () => {
      let params: URLSearchParams;
      try {
        params = oauth.validateAuthResponse(c.as, c.client, here.searchParams, state);
      } catch (error) {
        const denied = error instanceof oauth.AuthorizationResponseError;
        const problem = denied
          ? new OAuthFlowError('denied', `${c.providerName} did not grant access (${error.error}${error.error_description ? `: ${error.error_description}` : ''}). Nothing was connected; try again and allow access.`)
          : new OAuthFlowError('state', `The answer from the browser did not match the sign-in Posthoc started (${(error as Error).message}). Nothing was connected; start again.`);
        page(problem.reason === 'denied' ? 403 : 400, false, problem.message);
        return finish(problem);
      }
      try {
        const opts = { [oauth.allowInsecureRequests]: c.insecureLoopback, [oauth.customFetch]: c.send ?? fetch };
        let response = await oauth.authorizationCodeGrantRequest(c.as, c.client, c.clientAuth, params, redirectUri, c.pkce ? verifier : oauth.nopkce, opts);
        if (c.normalize) response = await c.normalize(response);
        const result = await oauth.processAuthorizationCodeResponse(c.as, c.client, response, { recognizedTokenTypes: { bot: () => undefined, user: () => undefined } });
        page(200, true, `Posthoc is connected to ${c.providerName}. You can close this tab.`);
        finish(null, result);
      } catch (error) {
        const problem = unreachable(c.providerName, error, String(c.as.token_endpoint)) ?? new OAuthFlowError('exchange', `${c.providerName} did not exchange the sign-in code for a token: ${describe(error)}. Check the client id and secret, and that the redirect URI is registered; then connect again.`);
        page(502, false, problem.message);
        finish(problem);
      }
    })();
  });

  return {
    authorizationUrl: url.href,
    redirectUri,
    tokens,
    cancel: () => finish(new OAuthFlowError('cancelled', 'The sign-in was cancelled.')),
  };
}

function sameState(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function describe(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) return `${error.error}${error.error_description ? ` (${error.error_description})` : ''}`;
  return error instanceof Error ? error.message : String(error);
}
