// A real OAuth 2 / OpenID authorization server on loopback (oauth2-mock-server: discovery, PKCE checked
// at the token endpoint, refresh tokens, revocation), with recognisable tokens, and a stand-in for the
// person's browser: follow the sign-in link to the app's loopback callback.
import { createHash } from 'node:crypto';
import { Events, OAuth2Server } from 'oauth2-mock-server';

export type TokenGrant = { grantType: string; body: Record<string, string> };
export type AuthServer = {
  issuer: string;
  server: OAuth2Server;
  /** Every token request (form body), in order. */
  grants: TokenGrant[];
  /** Access tokens it issued, in order. */
  issued: string[];
  close(): Promise<void>;
};

/** Tokens start with `prefix` so a test can look for them anywhere. */
export async function startAuthServer(prefix = 'posthoc-canary-at'): Promise<AuthServer> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  // It names itself "localhost"; every URL it hands out stays on 127.0.0.1.
  server.issuer.url = `http://127.0.0.1:${server.address().port}`;
  const grants: TokenGrant[] = [];
  const issued: string[] = [];
  server.service.on(Events.BeforeResponse, (response: { body: Record<string, unknown>; statusCode: number }, req: { body?: Record<string, string> }) => {
    const body = req.body ?? {};
    grants.push({ grantType: body.grant_type ?? '', body });
    if (response.statusCode === 200 && typeof response.body.access_token === 'string') {
      const token = `${prefix}-${issued.length + 1}-${createHash('sha256').update(String(response.body.access_token)).digest('hex').slice(0, 24)}`;
      response.body.access_token = token;
      response.body.refresh_token = `posthoc-canary-rt-${issued.length + 1}-${token.slice(-12)}`;
      issued.push(token);
    }
  });
  return {
    issuer: server.issuer.url!,
    server,
    grants,
    issued,
    close: () => server.stop(),
  };
}

/** Does what the browser does: open the sign-in URL, follow the provider's redirect to the app's callback. */
export async function followSignIn(authorizationUrl: string, tamper?: (callback: URL) => void): Promise<{ status: number; html: string; callback: URL }> {
  const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = authorize.headers.get('location');
  if (!location) throw new Error(`The authorization server did not redirect (HTTP ${authorize.status}): ${await authorize.text()}`);
  const callback = new URL(location);
  tamper?.(callback);
  const page = await fetch(callback);
  return { status: page.status, html: await page.text(), callback };
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
