// A local stand-in for GitHub's sign-in with a code (its device flow, as an OAuth App with "Enable Device Flow"
// ticked and no client secret), on 127.0.0.1. It speaks GitHub's wire: form-encoded POSTs to /login/device/code
// and /login/oauth/access_token, JSON answers when asked for them, token errors (authorization_pending, slow_down,
// access_denied, expired_token, device_flow_disabled) with HTTP 200 as GitHub sends them, the verification page
// https://github.com/login/device (served here at /login/device: enter the code, then Authorize), and the API's
// GET /user. Tests send github.com and api.github.com here; nothing leaves the machine.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type Grant = { deviceCode: string; userCode: string; clientId: string; scope: string; state: 'pending' | 'authorized' | 'denied'; token: string | null };

export type FakeGitHubOAuth = {
  baseUrl: string;
  /** Client ids of OAuth Apps with the device flow enabled. */
  deviceClients: Set<string>;
  /** Every request: method, path and the form's fields (so tests see no client secret was sent). */
  requests: Array<{ method: string; path: string; form: Record<string, string> }>;
  /** Access tokens it issued; GET /user accepts these. */
  tokens: Set<string>;
  close(): Promise<void>;
};

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

export async function startFakeGitHubOAuth(deviceClients: string[]): Promise<FakeGitHubOAuth> {
  const grants: Grant[] = [];
  const state: FakeGitHubOAuth = { baseUrl: '', deviceClients: new Set(deviceClients), requests: [], tokens: new Set(), close: async () => undefined };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://github.local');
      const method = req.method ?? 'GET';
      const form = Object.fromEntries(new URLSearchParams(raw));
      state.requests.push({ method, path: url.pathname, form });
      const json = (value: object) => {
        // GitHub answers JSON only when asked (Accept: application/json); its errors too come with 200.
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(value));
      };
      const html = (status: number, title: string, body: string) => {
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
        res.end(page(title, body));
      };
      if (method === 'POST' && url.pathname === '/login/device/code') {
        if (!state.deviceClients.has(form.client_id ?? '')) return json({ error: 'device_flow_disabled', error_description: 'Device Flow must be explicitly enabled for this App', error_uri: 'https://docs.github.com' });
        const grant: Grant = {
          deviceCode: randomBytes(20).toString('hex'),
          userCode: `${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}`.toUpperCase(),
          clientId: form.client_id!,
          scope: form.scope ?? '',
          state: 'pending',
          token: null,
        };
        grants.push(grant);
        return json({ device_code: grant.deviceCode, user_code: grant.userCode, verification_uri: 'https://github.com/login/device', expires_in: 899, interval: 1 });
      }
      if (method === 'POST' && url.pathname === '/login/oauth/access_token') {
        const grant = grants.find((g) => g.deviceCode === form.device_code && g.clientId === form.client_id);
        if (form.grant_type !== 'urn:ietf:params:oauth:grant-type:device_code') return json({ error: 'unsupported_grant_type' });
        if (!grant) return json({ error: 'incorrect_device_code', error_description: 'The device_code provided is not valid.' });
        if (grant.state === 'pending') return json({ error: 'authorization_pending', error_description: 'The authorization request is still pending.' });
        if (grant.state === 'denied') return json({ error: 'access_denied', error_description: 'The authorization request was denied.' });
        grant.token ??= `gho_${randomBytes(18).toString('hex')}`;
        state.tokens.add(grant.token);
        return json({ access_token: grant.token, token_type: 'bearer', scope: grant.scope.split(' ').join(',') });
      }
      if (method === 'GET' && url.pathname === '/login/device') {
        return html(200, 'Device Activation', '<form method="post" action="/login/device"><label>Enter the code displayed on your device <input name="user-code" autocomplete="off"></label> <button type="submit">Continue</button></form>');
      }
      if (method === 'POST' && url.pathname === '/login/device') {
        const grant = grants.find((g) => g.userCode === (form['user-code'] ?? '').trim().toUpperCase() && g.state === 'pending');
        if (!grant) return html(404, 'Device Activation', '<p>That code is not valid.</p>');
        return html(
          200,
          'Authorize Posthoc',
          `<p>Posthoc by a distribution asks for: ${grant.scope}</p><form method="post" action="/login/device/authorize"><input type="hidden" name="user-code" value="${grant.userCode}"><button type="submit" name="authorize" value="1">Authorize</button> <button type="submit" name="authorize" value="0">Cancel</button></form>`,
        );
      }
      if (method === 'POST' && url.pathname === '/login/device/authorize') {
        const grant = grants.find((g) => g.userCode === form['user-code'] && g.state === 'pending');
        if (!grant) return html(404, 'Device Activation', '<p>That code is not valid.</p>');
        grant.state = form.authorize === '1' ? 'authorized' : 'denied';
        return html(200, grant.state === 'authorized' ? 'Congratulations, you’re all set!' : 'Access denied', '<p>You can close this page.</p>');
      }
      if (method === 'GET' && url.pathname === '/user') {
        const token = /^(?:Bearer|token) (.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
        if (!token || !state.tokens.has(token)) {
          res.writeHead(401, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ message: 'Bad credentials' }));
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ login: 'ada', id: 1 }));
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Not Found' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}

/** A fetch that sends GitHub's hosts (github.com, api.github.com) to the stand-in; every other URL as is. */
export function toFakeGitHub(fake: () => FakeGitHubOAuth): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    return fetch(url.replace(/^https:\/\/(?:api\.)?github\.com/, fake().baseUrl), init);
  };
}
