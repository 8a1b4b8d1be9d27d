// The device sign-in (RFC 8628) against a real authorization server that implements it (oidc-provider on
// 127.0.0.1), the person's part done in Chromium as a person does it: open the page, confirm the code, sign in,
// allow. No redirect URI and no listener on this machine; tokens in the real OS keychain. Also: a person who
// declines, a code never entered, a sign-in page that is not https, and --browser forcing the redirect flow.
import { randomUUID } from 'node:crypto';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionStore } from '../../main/oauth/connection-store';
import { OAuthFlowError } from '../../main/oauth/loopback-flow';
import { OAuthConnections, tokenSecret } from '../../main/oauth/oauth-connections';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { Vault } from '../../main/vault/vault';
import { startDeviceAuthServer, type DeviceAuthServer } from '../support/device-auth-server';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let auth: DeviceAuthServer;
let db: AppDatabase;
let vault: Vault;
let browser: Browser;
let sent: Array<{ url: string; body: string }>;
/** Rewrites an answer of the authorization server before Posthoc reads it (hostile cases). */
let rewrite: ((url: string, response: Response) => Promise<Response>) | null;

const send: typeof fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  sent.push({ url, body: init?.body instanceof URLSearchParams ? init.body.toString() : typeof init?.body === 'string' ? init.body : '' });
  const response = await fetch(input, init);
  return rewrite ? rewrite(url, response) : response;
};

function connections(): OAuthConnections {
  return new OAuthConnections(new ConnectionStore(db), vault, { send });
}

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: process.env.POSTHOC_CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
});
afterAll(async () => {
  await browser?.close();
});

beforeEach(async () => {
  auth = await startDeviceAuthServer();
  db = openDatabase(dirs.make('posthoc-device-'));
  vault = new Vault(`dev.posthoc.test-device-${randomUUID()}`);
  sent = [];
  rewrite = null;
  await connections().configure({ provider: 'local', clientId: auth.clientId, issuer: auth.issuer, displayName: 'Local ID' });
});

afterEach(async () => {
  for (const name of [tokenSecret.access('local'), tokenSecret.refresh('local')]) await vault.remove(name).catch(() => false);
  await auth.close();
  db.close();
  dirs.cleanup();
});

/** The person's part: the code's page, Continue, any login, Continue (allow) — or Abort on the code's page. */
async function enterCode(pageUrl: string, answer: 'allow' | 'decline'): Promise<string> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(pageUrl);
    if (answer === 'decline') {
      await page.getByRole('button', { name: /abort/i }).click();
      await page.waitForLoadState();
      return (await page.textContent('body')) ?? '';
    }
    await page.getByRole('button', { name: /continue/i }).click();
    await page.locator('input[name=login]').fill('ada');
    await page.locator('input[name=password]').fill('any password');
    await page.getByRole('button', { name: /sign-in/i }).click();
    await page.getByRole('button', { name: /continue/i }).click();
    await page.waitForLoadState();
    return (await page.textContent('body')) ?? '';
  } finally {
    await context.close();
  }
}

describe('the device sign-in', () => {
  it('connects with a code the person enters on the provider\'s page: no redirect URI, tokens in the keychain', async () => {
    const oauth = connections();
    const started = await oauth.connect('local');
    expect(started.device).toBeDefined();
    const device = started.device!;
    expect(device.userCode).toMatch(/^[A-Z-]{6,}$/);
    expect(device.verificationUri).toBe(`${auth.issuer}/device`);
    expect(started.authorizationUrl).toBe(device.verificationUriComplete);
    const shown = await enterCode(started.authorizationUrl, 'allow');
    expect(shown).toMatch(/success/i);
    const record = await started.done;
    expect(record.status).toBe('connected');
    expect(record.account).toBe('ada@example.test');
    expect(await vault.get(tokenSecret.access('local'))).toMatch(/.{20,}/);
    // Nothing asked the provider to redirect anywhere: the flow has no redirect URI and no loopback listener.
    expect(sent.some((s) => s.url.includes('redirect_uri') || s.body.includes('redirect_uri'))).toBe(false);
    const grants = sent.filter((s) => s.body.includes('grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code'));
    expect(grants.length).toBeGreaterThanOrEqual(1);
    expect(auth.requests.some((r) => r.method === 'POST' && r.path === '/device/auth')).toBe(true);
  });

  it('says plainly that access was not granted when the person declines, and connects nothing', async () => {
    const oauth = connections();
    const started = await oauth.connect('local');
    await enterCode(started.authorizationUrl, 'decline');
    const failure = await started.done.then(() => null, (e: unknown) => e);
    expect(failure).toBeInstanceOf(OAuthFlowError);
    expect((failure as OAuthFlowError).reason).toBe('denied');
    expect((failure as Error).message).toMatch(/not granted.*connect again/i);
    expect(await vault.get(tokenSecret.access('local'))).toBeNull();
    expect((await oauth.view('local', [])).status).toBe('error');
  });

  it('gives up when the code is never entered, naming the code', async () => {
    const oauth = connections();
    const started = await oauth.connect('local', { timeoutMs: 1500 });
    const failure = await started.done.then(() => null, (e: unknown) => e);
    expect((failure as OAuthFlowError).reason).toBe('timeout');
    expect((failure as Error).message).toContain(started.device!.userCode);
  });

  it.each([
    ['javascript:alert(1)', /not an https address or one on this machine/],
    // This machine's address as a user name: the page is evil.example's (it once passed a pattern).
    ['http://127.0.0.1:1@evil.example/device', /a user name or password before its host \(the page would be evil\.example's\)/],
  ])('refuses a sign-in page that is not an https address or this machine\'s, for a local provider: %s', async (page, why) => {
    rewrite = async (url, response) => {
      if (!url.endsWith('/device/auth')) return response;
      const body = (await response.json()) as Record<string, unknown>;
      return Response.json({ ...body, verification_uri: page, verification_uri_complete: undefined }, { status: response.status });
    };
    await expect(connections().connect('local')).rejects.toThrow(why);
    await expect(connections().connect('local')).rejects.toThrow(/Nothing was connected/);
  });

  it('falls back to the browser sign-in for a client the provider does not allow the device grant, unless the code was asked for', async () => {
    const oauth = connections();
    await oauth.configure({ provider: 'local', clientId: auth.browserClientId });
    const started = await oauth.connect('local');
    expect(started.device).toBeUndefined();
    expect(new URL(started.authorizationUrl).searchParams.get('client_id')).toBe(auth.browserClientId);
    expect(auth.requests.some((r) => r.method === 'POST' && r.path === '/device/auth')).toBe(true);
    oauth.cancelAll();
    await expect(started.done).rejects.toThrow(/cancelled/);
    await expect(oauth.connect('local', { flow: 'device' })).rejects.toThrow(/did not start a sign-in with a code for the app posthoc-browser-only: .*not allowed for this client.*Allow the sign-in with a code in the app's settings, then connect again\./);
  });

  it('signs in through the browser redirect instead when asked (--browser)', async () => {
    const oauth = connections();
    const started = await oauth.connect('local', { flow: 'browser' });
    expect(started.device).toBeUndefined();
    expect(new URL(started.authorizationUrl).searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    oauth.cancelAll();
    await expect(started.done).rejects.toThrow(/cancelled/);
  });
});
