// The page a provider names for the device sign-in (RFC 8628 verification_uri) is parsed as the browser will
// parse it, not matched by a pattern: https, or plain http on this machine for a local provider, never a user
// name or password before the host, no backslash, space or control character; what the person is shown and
// what is opened is the parsed address. The provider's answer comes through a stand-in fetch (no network).
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { startDeviceFlow, type DeviceFlowStarted } from '../../main/oauth/device-flow';
import { OAuthFlowError } from '../../main/oauth/loopback-flow';

const AS: oauth.AuthorizationServer = {
  issuer: 'https://id.example.test',
  device_authorization_endpoint: 'https://id.example.test/device/auth',
  token_endpoint: 'https://id.example.test/token',
};

/** Starts a device sign-in whose provider names `page` (and `complete`, when given) as its sign-in page. */
async function start(page: string, options: { loopbackHttp?: boolean; complete?: string } = {}): Promise<DeviceFlowStarted> {
  const send = (async (input: RequestInfo | URL) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url !== AS.device_authorization_endpoint) throw new Error(`unexpected request to ${url}`);
    return Response.json({ device_code: 'dc', user_code: 'WDJB-MJHT', verification_uri: page, verification_uri_complete: options.complete, expires_in: 600, interval: 5 });
  }) as typeof fetch;
  const started = await startDeviceFlow({
    as: AS,
    client: { client_id: 'posthoc' },
    clientAuth: oauth.None(),
    insecureLoopback: options.loopbackHttp ?? false,
    providerName: 'Acme ID',
    scopes: [],
    send,
    // Never polls: the test only looks at the page, then cancels.
    sleep: (_ms, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
  });
  started.cancel();
  return started;
}

async function refusal(page: string, options: { loopbackHttp?: boolean; complete?: string } = {}): Promise<string> {
  const failure = await start(page, options).then(() => null, (e: unknown) => e);
  expect(failure, `${page} should be refused`).toBeInstanceOf(OAuthFlowError);
  expect((failure as OAuthFlowError).reason).toBe('exchange');
  expect((failure as Error).message).toMatch(/^Acme ID named a sign-in page .*so Posthoc will not open it\. Nothing was connected\.$/);
  return (failure as Error).message;
}

describe('the device sign-in page', () => {
  it.each([
    ['https://github.com/login/device', false, 'https://github.com/login/device'],
    ['https://www.google.com/device', false, 'https://www.google.com/device'],
    ['https://login.example.com:8443/device?user_code=WDJB-MJHT', false, 'https://login.example.com:8443/device?user_code=WDJB-MJHT'],
    ['HTTPS://Login.Example.COM/device', false, 'https://login.example.com/device'],
    ['http://127.0.0.1:43123/device', true, 'http://127.0.0.1:43123/device'],
    ['http://localhost:43123/device', true, 'http://localhost:43123/device'],
    ['http://[::1]:43123/device', true, 'http://[::1]:43123/device'],
    ['http://[0:0:0:0:0:0:0:1]:43123/device', true, 'http://[::1]:43123/device'],
    // Encoded or short forms of this machine's address are this machine; the person sees the plain form.
    ['http://127.1:43123/device', true, 'http://127.0.0.1:43123/device'],
    ['http://0x7f000001:43123/device', true, 'http://127.0.0.1:43123/device'],
    ['http://%6c%6f%63%61%6c%68%6f%73%74:43123/device', true, 'http://localhost:43123/device'],
  ])('accepts %s (local provider: %s) and shows it as %s', async (page, loopbackHttp, shown) => {
    const started = await start(page, { loopbackHttp });
    expect(started.verificationUri).toBe(shown);
  });

  it('checks the page with the code filled in too, and shows its parsed form', async () => {
    const started = await start('https://github.com/login/device', { complete: 'https://GitHub.com/login/device?user_code=WDJB-MJHT' });
    expect(started.verificationUriComplete).toBe('https://github.com/login/device?user_code=WDJB-MJHT');
    await refusal('https://github.com/login/device', { complete: 'https://github.com@evil.example/login/device?user_code=WDJB-MJHT' });
  });

  it('shows a look-alike host in punycode, so the person sees it is not the name it imitates', async () => {
    const started = await start('https://g\u0456thub.com/login/device');
    expect(started.verificationUri).toBe('https://xn--gthub-n2e.com/login/device');
  });

  describe('refuses', () => {
    it.each([
      // A user name (or password) before the host: the page is the host after the @.
      ['http://127.0.0.1:1@evil.example/device', true],
      ['http://localhost@evil.example/device', true],
      ['http://127.0.0.1:80@evil.example:8080/device', true],
      ['http://[::1]@evil.example/device', true],
      ['https://github.com@evil.example/login/device', false],
      ['https://user:password@github.com/login/device', false],
      ['https://:password@github.com/login/device', false],
    ])('%s: a user name or password before the host', async (page, loopbackHttp) => {
      expect(await refusal(page, { loopbackHttp })).toMatch(/a user name or password before its host/);
    });

    it.each([
      // Browsers read a backslash as a slash; a person reads it as part of the name.
      ['http://127.0.0.1\\@evil.example/device', true],
      ['http://evil.example\\@127.0.0.1/device', true],
      ['https://github.com\\@evil.example/login/device', false],
      [' https://github.com/login/device', false],
      ['https://github.com/login/device\n', false],
      ['https://github.com/login/de\tvice', false],
      ['https://github.com/login/device\u0000', false],
    ])('%j: a backslash, space or control character', async (page, loopbackHttp) => {
      expect(await refusal(page, { loopbackHttp })).toMatch(/a backslash, space or control character in it/);
    });

    it.each([
      ['http://127.0.0.1%40evil.example/device', true],
      ['http://127.0.0.1:99999/device', true],
      ['http://localhost%00.evil.example/device', true],
      ['not-a-page', false],
      ['/device', false],
    ])('%s: not a web address', async (page, loopbackHttp) => {
      expect(await refusal(page, { loopbackHttp })).toMatch(/that is not a web address/);
    });

    it.each([
      ['javascript:alert(1)', true],
      ['data:text/html,<h1>sign-in</h1>', true],
      ['file:///etc/passwd', true],
      ['ftp://github.com/login/device', false],
      // Plain http only for a local provider, and only on this machine.
      ['http://github.com/login/device', false],
      ['http://127.0.0.1:43123/device', false],
      ['http://evil.example/device', true],
      ['http://%65vil.example/device', true],
      ['http://127.0.0.1.evil.example/device', true],
      ['http://127.0.0.1%2eevil.example/device', true],
      ['http://localhost.evil.example/device', true],
      ['http://localhost./device', true],
      ['http://[::ffff:127.0.0.1]/device', true],
      ['http://127.0.0.2/device', true],
    ])('%s: not https (or this machine, for a local provider)', async (page, loopbackHttp) => {
      const message = await refusal(page, { loopbackHttp });
      expect(message).toMatch(loopbackHttp ? /not an https address or one on this machine/ : /not an https address/);
    });
  });
});
