// An OAuth authorization server for MCP on loopback, built from the SDK's own server-side auth (its
// mcpAuthRouter: RFC 8414 metadata, dynamic client registration, authorize, token with PKCE S256 checked)
// and its demo in-memory provider, which signs the person in at once (its authorize answers with the
// redirect). Every token request and registration is logged; access tokens it issued can be checked.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';

export type McpAuthServer = {
  issuer: string;
  /** Form bodies of the token requests, in order. */
  tokenRequests: Array<Record<string, string>>;
  registrations: Array<Record<string, unknown>>;
  authorizations: URL[];
  verify(token: string): Promise<boolean>;
  close(): Promise<void>;
};

export async function startMcpAuthServer(): Promise<McpAuthServer> {
  const provider = new DemoInMemoryAuthProvider();
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
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
