// A real OpenID provider with the device authorization grant (RFC 8628) on 127.0.0.1: oidc-provider (panva),
// its device flow and its development sign-in pages (any login and password sign in). Posthoc's device sign-in
// is tested against it; a person's part (open the page, confirm the code, sign in, allow) is done in Chromium.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export type DeviceAuthServer = {
  issuer: string;
  clientId: string;
  /** A client the server does not allow the device grant (browser sign-in only). */
  browserClientId: string;
  /** Every request the server answered: method and path, for asserting what Posthoc sent. */
  requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
};

export async function startDeviceAuthServer(): Promise<DeviceAuthServer> {
  const requests: DeviceAuthServer['requests'] = [];
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'posthoc-device-test';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        token_endpoint_auth_method: 'none',
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
        response_types: [],
        redirect_uris: [],
      },
      {
        client_id: 'posthoc-browser-only',
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/callback'],
      },
    ],
    features: { deviceFlow: { enabled: true }, devInteractions: { enabled: true } },
    claims: { openid: ['sub'], email: ['email'], profile: ['name'] },
    async findAccount(_ctx, id) {
      return { accountId: id, claims: async () => ({ sub: id, email: `${id}@example.test`, name: id }) };
    },
    cookies: { keys: ['posthoc-device-test-cookie-key'] },
    ttl: { DeviceCode: 600 },
  });
  // Plain http on the loopback interface: the provider's cookies are not marked secure.
  provider.proxy = false;
  const callback = provider.callback();
  server.on('request', (req, res) => {
    requests.push({ method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0]! });
    callback(req, res);
  });
  return {
    issuer,
    clientId,
    browserClientId: 'posthoc-browser-only',
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
