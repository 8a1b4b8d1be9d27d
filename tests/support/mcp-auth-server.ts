// An OAuth authorization server for MCP on loopback, built from the SDK's own server-side auth (its
// mcpAuthRouter: RFC 8414 metadata, dynamic client registration, authorize, token with PKCE S256 checked)
// and its demo in-memory provider, which signs the person in at once (its authorize answers with the
// redirect). Every token request and registration is logged; access tokens it issued can be checked.
// With `refresh`, the provider is this file's RefreshingProvider instead: the same sign-in, and the
// refresh_token grant the demo lacks (a new access token and a rotated refresh token, each refresh token
// good once), so a test can expire an access token or revoke a refresh token.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { DemoInMemoryAuthProvider, DemoInMemoryClientsStore } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export type McpAuthServer = {
  issuer: string;
  /** Form bodies of the token requests, in order. */
  tokenRequests: Array<Record<string, string>>;
  registrations: Array<Record<string, unknown>>;
  authorizations: URL[];
  verify(token: string): Promise<boolean>;
  /** With `refresh`: the access token stops being accepted (as when it expires). */
  expire(token: string): void;
  /** With `refresh`: the refresh token is refused from now on (the person revoked the app). */
  revokeRefresh(token: string): void;
  close(): Promise<void>;
};

type Grant = { clientId: string; resource: string | undefined; scopes: string[] };

/** The demo provider's sign-in, with the refresh_token grant: each refresh token works once and is rotated. */
class RefreshingProvider implements OAuthServerProvider {
  readonly clientsStore = new DemoInMemoryClientsStore();
  private readonly codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();
  readonly access = new Map<string, Grant>();
  readonly refresh = new Map<string, Grant>();

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: express.Response): Promise<void> {
    if (!client.redirect_uris.includes(params.redirectUri)) throw new Error('Unregistered redirect_uri');
    const code = randomUUID();
    this.codes.set(code, { client, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const found = this.codes.get(code);
    if (!found) throw new Error('Invalid authorization code');
    return found.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const found = this.codes.get(code);
    if (!found || found.client.client_id !== client.client_id) throw new Error('Invalid authorization code');
    this.codes.delete(code);
    return this.issue({ clientId: client.client_id, resource: found.params.resource?.href, scopes: found.params.scopes ?? [] });
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, _scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    const grant = this.refresh.get(refreshToken);
    if (!grant || grant.clientId !== client.client_id) throw new Error('Invalid refresh token');
    if (resource && grant.resource && resource.href !== grant.resource) throw new Error('Invalid resource');
    this.refresh.delete(refreshToken);
    return this.issue(grant);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const grant = this.access.get(token);
    if (!grant) throw new Error('Invalid or expired token');
    return { token, clientId: grant.clientId, scopes: grant.scopes, expiresAt: Math.floor(Date.now() / 1000) + 3600 };
  }

  private issue(grant: Grant): OAuthTokens {
    const access = `at-${randomUUID()}`;
    const refresh = `rt-${randomUUID()}`;
    this.access.set(access, grant);
    this.refresh.set(refresh, grant);
    return { access_token: access, token_type: 'bearer', expires_in: 3600, refresh_token: refresh, scope: grant.scopes.join(' ') };
  }
}

export async function startMcpAuthServer(options: { refresh?: boolean } = {}): Promise<McpAuthServer> {
  const refreshing = options.refresh ? new RefreshingProvider() : null;
  const provider: OAuthServerProvider = refreshing ?? new DemoInMemoryAuthProvider();
  const app = express();
  const tokenRequests: Array<Record<string, string>> = [];
  const registrations: Array<Record<string, unknown>> = [];
  const authorizations: URL[] = [];
  app.use(express.urlencoded({ extended: false }));
  app.use(express.json());
  app.use((req, _res, next) => {
    if (req.path === '/token') tokenRequests.push({ ...(req.body as Record<string, string>) });
    if (req.path === '/register') registrations.push({ ...(req.body as Record<string, unknown>) });
    if (req.path === '/authorize') authorizations.push(new URL(req.originalUrl, 'http://127.0.0.1'));
    next();
  });
  // The issuer is known once listening: the router is mounted then.
  let router: express.RequestHandler | null = null;
  app.use((req, res, next) => (router ? router(req, res, next) : next()));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  router = mcpAuthRouter({ provider, issuerUrl: new URL(issuer), scopesSupported: ['mcp:tools'] });
  return {
    issuer,
    tokenRequests,
    registrations,
    authorizations,
    verify: async (token) => {
      try {
        await provider.verifyAccessToken(token);
        return true;
      } catch {
        return false;
      }
    },
    expire: (token) => {
      if (!refreshing) throw new Error('expire needs startMcpAuthServer({ refresh: true })');
      refreshing.access.delete(token);
    },
    revokeRefresh: (token) => {
      if (!refreshing) throw new Error('revokeRefresh needs startMcpAuthServer({ refresh: true })');
      refreshing.refresh.delete(token);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
