// The OAuth loopback flow against a real authorization server on 127.0.0.1 (oauth2-mock-server), with
// the tokens in the real OS keychain: success with PKCE S256, stray callbacks ignored, denied consent, a second
// use of the same callback, the timeout, refresh before expiry, refresh on 401, and revocation.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Events } from 'oauth2-mock-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../main/gateway/redaction';
import { ServiceCaller } from '../../main/gateway/service-caller';
import { ServiceRegistry } from '../../main/gateway/service-registry';
import { ConnectionStore } from '../../main/oauth/connection-store';
import { OAuthFlowError } from '../../main/oauth/loopback-flow';
import { OAuthConnections, OAuthError, tokenSecret } from '../../main/oauth/oauth-connections';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { Vault } from '../../main/vault/vault';
import { startFakeGitHub } from '../support/fake-github';
import { followSignIn, s256, startAuthServer, type AuthServer } from '../support/oauth-server';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let auth: AuthServer;
let db: AppDatabase;
let dataDir: string;
let vault: Vault;
let oauth: OAuthConnections;
let clock: number;
let wire: Array<{ url: string; method: string; body: string }>;
/** Runs before the token request leaves, while the callback that caused it is still being answered. */
let beforeTokenRequest: (() => Promise<void>) | null;

const send: typeof fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  const body = init?.body instanceof URLSearchParams ? init.body.toString() : typeof init?.body === 'string' ? init.body : '';
  wire.push({ url, method: init?.method ?? 'GET', body });
  if (url.endsWith('/token') && beforeTokenRequest) {
    const hook = beforeTokenRequest;
    beforeTokenRequest = null;
    await hook();
  }
  return fetch(input, init);
};

beforeEach(async () => {
  auth = await startAuthServer();
  dataDir = dirs.make('posthoc-oauth-');
  db = openDatabase(dataDir);
  vault = new Vault(`dev.posthoc.test-oauth-${randomUUID()}`);
  clock = Date.parse('2026-03-01T10:00:00Z');
  wire = [];
  beforeTokenRequest = null;
  oauth = new OAuthConnections(new ConnectionStore(db), vault, { send, now: () => clock });
  await oauth.configure({ provider: 'acme', clientId: 'posthoc-desktop', issuer: auth.issuer, displayName: 'Acme ID' });
});

afterEach(async () => {
  oauth.cancelAll();
  for (const name of [tokenSecret.access('acme'), tokenSecret.refresh('acme'), tokenSecret.client('acme')]) await vault.remove(name).catch(() => false);
  await auth.close();
  db.close();
  dirs.cleanup();
});

async function connectAcme(): Promise<string> {
  const { authorizationUrl, done } = await oauth.connect('acme');
  const page = await followSignIn(authorizationUrl);
  expect(page.status).toBe(200);
  await done;
  return authorizationUrl;
}

describe('connecting through the loopback flow', () => {
  it('signs in with PKCE S256 and state, keeps tokens in the keychain and only names and expiry in the store', async () => {
    const authorizing: URL[] = [];
    auth.server.service.on(Events.BeforeAuthorizeRedirect, (_redirect: unknown, req: { url?: string }) => authorizing.push(new URL(req.url ?? '/', auth.issuer)));
    const { authorizationUrl, done } = await oauth.connect('acme');
    const url = new URL(authorizationUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(url.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);

    const page = await followSignIn(authorizationUrl);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Connected to Acme ID');
    const record = await done;

    // The server saw the challenge at /authorize and a verifier that hashes to it at /token.
    const challenge = authorizing[0]!.searchParams.get('code_challenge')!;
    const exchange = auth.grants.find((g) => g.grantType === 'authorization_code')!;
    expect(s256(exchange.body.code_verifier!)).toBe(challenge);
    expect(record).toMatchObject({ status: 'connected', account: 'johndoe', hasRefreshToken: true, expiresAt: new Date(clock + 3600_000).toISOString() });
    // What was asked for, and what the server says it granted (the mock grants "dummy"): the record keeps the latter.
    expect(url.searchParams.get('scope')).toBe('openid profile email');
    expect(record.scopes).toEqual(['dummy']);
    expect(await vault.get(tokenSecret.access('acme'))).toBe(auth.issued[0]);
    expect(await vault.get(tokenSecret.refresh('acme'))).toMatch(/^posthoc-canary-rt-1-/);

    const view = await oauth.view('acme', []);
    expect(view).toMatchObject({ status: 'connected', account: 'johndoe', clientId: 'posthoc-desktop', revocable: true });
    expect(JSON.stringify(view)).not.toContain(auth.issued[0]);
    const files = ['app.db', 'app.db-wal'].map((f) => { try { return readFileSync(join(dataDir, f)).toString('latin1'); } catch { return ''; } }).join('');
    expect(files).not.toContain(auth.issued[0]);
    expect(files).not.toContain('posthoc-canary-rt');
  });

  it('ignores stray callbacks (wrong path, missing or wrong state) and completes when the right answer comes', async () => {
    const { authorizationUrl, done } = await oauth.connect('acme');
    let settled = false;
    done.then(() => (settled = true), () => (settled = true));
    const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
    const callback = new URL(authorize.headers.get('location')!);
    const stray = async (tamper: (u: URL) => void) => {
      const u = new URL(callback);
      tamper(u);
      const res = await fetch(u);
      return { status: res.status, html: await res.text() };
    };
    expect((await stray((u) => (u.pathname = '/favicon.ico'))).status).toBe(404);
    const forged = await stray((u) => u.searchParams.set('state', 'forged-state-value'));
    expect(forged.status).toBe(400);
    expect(forged.html).toContain('does not match the sign-in Posthoc started');
    expect((await stray((u) => u.searchParams.delete('state'))).status).toBe(400);
    // A denial carrying a wrong state is a stray too: it must not end the sign-in.
    expect((await stray((u) => { u.search = '?error=access_denied&state=nope'; })).status).toBe(400);
    expect(settled).toBe(false);
    expect(auth.grants).toEqual([]);

    const page = await fetch(callback);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Connected to Acme ID');
    expect(await done).toMatchObject({ status: 'connected', account: 'johndoe' });
    expect(auth.grants.filter((g) => g.grantType === 'authorization_code')).toHaveLength(1);
    expect(await vault.get(tokenSecret.access('acme'))).toBe(auth.issued[0]);
  });

  it('says so when the person denies consent', async () => {
    auth.server.service.once(Events.BeforeAuthorizeRedirect, (redirect: { url: URL }) => {
      redirect.url.searchParams.delete('code');
      redirect.url.searchParams.set('error', 'access_denied');
      redirect.url.searchParams.set('error_description', 'The user denied the request');
    });
    const { authorizationUrl, done } = await oauth.connect('acme');
    const failed = expect(done).rejects.toThrow(/did not grant access \(access_denied: The user denied the request\)/);
    const page = await followSignIn(authorizationUrl);
    expect(page.status).toBe(403);
    await failed;
    expect(auth.grants).toEqual([]);
    expect((await oauth.view('acme', [])).status).toBe('error');
  });

  it('answers a second use of the same callback with "already used" and exchanges the code once', async () => {
    const { authorizationUrl, done } = await oauth.connect('acme');
    let second: { status: number; html: string } | null = null;
    let callbackUrl: URL | null = null;
    beforeTokenRequest = async () => {
      const res = await fetch(callbackUrl!);
      second = { status: res.status, html: await res.text() };
    };
    const first = await followSignIn(authorizationUrl, (cb) => (callbackUrl = new URL(cb)));
    expect(first.status).toBe(200);
    await done;
    expect(second).toMatchObject({ status: 400, html: expect.stringContaining('already used') });
    expect(auth.grants.filter((g) => g.grantType === 'authorization_code')).toHaveLength(1);
    // After the flow, nothing listens on that port any more.
    await expect(fetch(callbackUrl!)).rejects.toThrow();
  });

  it('gives up after the timeout and stops listening', async () => {
    const { authorizationUrl, done } = await oauth.connect('acme', { timeoutMs: 50 });
    await expect(done).rejects.toSatisfy((e: unknown) => e instanceof OAuthFlowError && e.reason === 'timeout');
    const redirect = new URL(authorizationUrl).searchParams.get('redirect_uri')!;
    await expect(fetch(`${redirect}?code=x&state=y`)).rejects.toThrow();
  });

  it('says what to do when no client id was configured', async () => {
    // GitHub offers the device sign-in: an app with its device flow enabled, and no redirect URI to register.
    await expect(oauth.connect('github')).rejects.toThrow('Connecting to GitHub needs the client id of an app registered at https://github.com/settings/applications/new with “Enable Device Flow” ticked (no redirect address and no client secret).');
    // Asked for the browser sign-in, the redirect URI to register is named, and GitHub's secret with it.
    await expect(oauth.connect('github', { flow: 'browser' })).rejects.toThrow('Connecting to GitHub needs the client id and the client secret of an app registered at https://github.com/settings/applications/new with the redirect address http://127.0.0.1/callback.');
  });
});

describe('tokens after connecting', () => {
  it('refreshes before the token expires', async () => {
    await connectAcme();
    expect(await oauth.accessToken('acme')).toBe(auth.issued[0]);
    clock += 3600_000 - 30_000; // within a minute of expiry
    const fresh = await oauth.accessToken('acme');
    expect(fresh).toBe(auth.issued[1]);
    expect(auth.grants.at(-1)).toMatchObject({ grantType: 'refresh_token', body: { refresh_token: expect.stringMatching(/^posthoc-canary-rt-1-/) } });
    expect(await vault.get(tokenSecret.access('acme'))).toBe(fresh);
    expect((await oauth.view('acme', [])).expiresAt).toBe(new Date(clock + 3600_000).toISOString());
  });

  it('refreshes when a service answers 401 and the call goes through with the new token', async () => {
    await connectAcme();
    const github = await startFakeGitHub([]);
    try {
      const registry = new ServiceRegistry(db);
      registry.add({ name: 'github', baseUrl: github.baseUrl, auth: { kind: 'oauth', provider: 'acme' }, api: 'github' });
      const caller = new ServiceCaller({ secret: async () => null, oauthToken: (p, o) => oauth.accessToken(p, o) });
      // The service no longer accepts the first token (revoked on its side): only a refreshed one works.
      const accept = new Proxy(github.tokens, { get: (t, k) => (k === 'has' ? (v: string) => v !== auth.issued[0] && auth.issued.includes(v) : Reflect.get(t, k)) });
      github.tokens = accept;
      const redactor = new Redactor();
      const answer = await caller.call(registry.get('github')!, { method: 'GET', path: '/user', search: '', headers: new Headers(), body: undefined }, redactor);
      expect(answer.status).toBe(200);
      expect(github.calls.map((c) => c.headers.authorization)).toEqual([`Bearer ${auth.issued[0]}`, `Bearer ${auth.issued[1]}`]);
      expect(auth.grants.at(-1)!.grantType).toBe('refresh_token');
      expect(redactor.finds(auth.issued[1]!)).toBe(true);
    } finally {
      await github.close();
    }
  });

  it('says to reconnect when the refresh token is refused', async () => {
    await connectAcme();
    auth.server.service.once(Events.BeforeResponse, (response: { body: unknown; statusCode: number }) => {
      response.body = { error: 'invalid_grant' };
      response.statusCode = 400;
    });
    await expect(oauth.accessToken('acme', { refresh: true })).rejects.toThrow(OAuthError);
    expect((await oauth.view('acme', [])).status).toBe('expired');
  });

  it('revokes on disconnect and forgets the tokens', async () => {
    await connectAcme();
    const refresh = (await vault.get(tokenSecret.refresh('acme')))!;
    const outcome = await oauth.disconnect('acme');
    expect(outcome).toEqual({ revoked: true, note: null });
    const revocations = wire.filter((w) => w.url.endsWith('/revoke'));
    expect(revocations.map((r) => new URLSearchParams(r.body).get('token'))).toEqual([refresh, auth.issued[0]]);
    expect(await vault.get(tokenSecret.access('acme'))).toBeNull();
    expect(await vault.get(tokenSecret.refresh('acme'))).toBeNull();
    expect((await oauth.view('acme', [])).status).toBe('not-connected');
    await expect(oauth.accessToken('acme')).rejects.toThrow(/not connected.*posthoc connect acme/);
  });
});
