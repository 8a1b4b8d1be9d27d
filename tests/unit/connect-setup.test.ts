// What connecting a provider needs (provider-resolver's setupOf), the one truth the card, the form, the CLI and
// connect share: a shipped public client connects in one click; without one the form asks for exactly the
// provider's fields (a secret only where its token endpoint insists, never for the device sign-in); and connect's
// messages say what is missing or what the provider said, never "go to the page you are on".
import { afterAll, describe, expect, it } from 'vitest';
import { ConnectionStore } from '../../main/oauth/connection-store';
import { OAuthConnections, tokenSecret, type SecretStore } from '../../main/oauth/oauth-connections';
import { missingText, setupOf, specOf } from '../../main/oauth/provider-resolver';
import type { PublicClients } from '../../main/oauth/public-clients';
import { revokeToken } from '../../main/oauth/revocation';
import { unreachable, unreachableCause } from '../../main/oauth/unreachable';
import { openDatabase } from '../../main/store/database';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

const spec = (id: string) => specOf(id, undefined)!;

function memoryVault(): SecretStore & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return {
    values,
    get: async (n) => values.get(n) ?? null,
    set: async (n, v) => void values.set(n, v),
    remove: async (n) => values.delete(n),
  };
}

/** A fetch standing in for GitHub's device endpoint: it records what was sent and answers as GitHub does. */
function githubDevice(answer: 'start' | 'refuse') {
  const sent: Array<{ url: string; body: string }> = [];
  const send = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    sent.push({ url, body: String(init?.body ?? '') });
    if (url === 'https://github.com/login/device/code') {
      if (answer === 'refuse') return Response.json({ error: 'device_flow_disabled', error_description: 'Device Flow must be explicitly enabled for this App' }, { status: 400 });
      return Response.json({ device_code: 'dc-1', user_code: 'WDJB-MJHT', verification_uri: 'https://github.com/login/device', expires_in: 900, interval: 5 });
    }
    throw new Error(`unexpected request to ${url}`);
  }) as typeof fetch;
  return { sent, send };
}

function connections(options: { send?: typeof fetch; publicClients?: PublicClients; vault?: SecretStore } = {}) {
  const db = openDatabase(dirs.make('posthoc-setup-'));
  const store = new ConnectionStore(db);
  const vault = options.vault ?? memoryVault();
  return { store, oauth: new OAuthConnections(store, vault, { send: options.send, publicClients: options.publicClients ?? {} }) };
}

describe('setupOf', () => {
  it('with a shipped public client: nothing to fill in, no secret asked, the flow it is registered for', () => {
    expect(setupOf(spec('github'), undefined, { clientId: 'Iv1.pub', flow: 'device' }, false)).toEqual({ client: 'shipped', flow: 'device', clientSecret: 'none', missing: [] });
    expect(setupOf(spec('spotify'), undefined, { clientId: 'sp', flow: 'pkce', redirectPort: 53682 }, false)).toEqual({ client: 'shipped', flow: 'browser', clientSecret: 'none', missing: [] });
  });

  it('without one, asks for exactly what each provider needs', () => {
    // GitHub signs in with a code: a client id, no secret, no redirect address.
    expect(setupOf(spec('github'), undefined, undefined, false)).toEqual({ client: 'none', flow: 'device', clientSecret: 'none', missing: ['clientId'] });
    // Slack, Google and Discord insist on the secret; Spotify (PKCE) never needs one; Dropbox takes one optionally.
    for (const id of ['slack', 'google', 'discord']) expect(setupOf(spec(id), undefined, undefined, false)).toMatchObject({ flow: 'browser', clientSecret: 'required', missing: ['clientId', 'clientSecret'] });
    expect(setupOf(spec('spotify'), undefined, undefined, false)).toMatchObject({ clientSecret: 'optional', missing: ['clientId'] });
    expect(setupOf(spec('dropbox'), undefined, undefined, false)).toMatchObject({ clientSecret: 'optional', missing: ['clientId'] });
    // The person's own client (with its secret stored where required) is complete.
    expect(setupOf(spec('slack'), { clientId: 'own' }, undefined, true)).toEqual({ client: 'own', flow: 'browser', clientSecret: 'required', missing: [] });
    expect(setupOf(spec('slack'), { clientId: 'own' }, undefined, false).missing).toEqual(['clientSecret']);
  });

  it('prefers the person\'s own client to the shipped one', () => {
    expect(setupOf(spec('github'), { clientId: 'Iv1.own' }, { clientId: 'Iv1.pub', flow: 'device' }, false).client).toBe('own');
  });
});

describe('missingText', () => {
  it('says what is missing and where to register, naming no page or flag of a front end', () => {
    const github = missingText(spec('github'), setupOf(spec('github'), undefined, undefined, false));
    expect(github).toBe('Connecting to GitHub needs the client id of an app registered at https://github.com/settings/applications/new with “Enable Device Flow” ticked (no redirect address and no client secret).');
    const slack = missingText(spec('slack'), setupOf(spec('slack'), undefined, undefined, false));
    expect(slack).toBe('Connecting to Slack needs the client id and the client secret of an app registered at https://api.slack.com/apps with the redirect address http://127.0.0.1/callback.');
    const secret = missingText(spec('slack'), setupOf(spec('slack'), { clientId: 'own' }, undefined, false));
    expect(secret).toMatch(/^Slack's token endpoint also needs the app's client secret/);
    for (const text of [github, slack, secret]) expect(text).not.toMatch(/Connections page|posthoc connect|--client/);
  });
});

describe('connect', () => {
  it('with a shipped public client, starts GitHub\'s sign-in with a code at once: its client id, no secret', async () => {
    const github = githubDevice('start');
    const vault = memoryVault();
    await vault.set(tokenSecret.client('github'), 'a-stale-secret');
    const { oauth } = connections({ send: github.send, vault, publicClients: { github: { clientId: 'Iv1.pub', flow: 'device' } } });
    const view = await oauth.view('github', []);
    expect(view).toMatchObject({ clientId: null, needsClientSecret: false, deviceFlow: true, setup: { client: 'shipped', missing: [] } });
    const started = await oauth.connect('github');
    expect(started.device?.userCode).toBe('WDJB-MJHT');
    expect(started.authorizationUrl).toBe('https://github.com/login/device');
    const body = new URLSearchParams(github.sent[0]!.body);
    expect(body.get('client_id')).toBe('Iv1.pub');
    expect(body.has('client_secret')).toBe(false);
    oauth.cancelAll();
    await started.done.catch(() => undefined);
  });

  it('without a client id, says what is needed and asks nothing of the network', async () => {
    const github = githubDevice('start');
    const { oauth } = connections({ send: github.send });
    await expect(oauth.connect('github')).rejects.toThrow('Connecting to GitHub needs the client id of an app registered at https://github.com/settings/applications/new with “Enable Device Flow” ticked');
    expect(github.sent).toEqual([]);
  });

  it('when GitHub refuses the code for the person\'s app, names that refusal, not a missing secret', async () => {
    const github = githubDevice('refuse');
    const { oauth } = connections({ send: github.send });
    await oauth.configure({ provider: 'github', clientId: 'Iv1.own' });
    const error = await oauth.connect('github').then(() => null, (e: Error) => e);
    expect(error?.message).toBe(
      'GitHub did not start a sign-in with a code for the app Iv1.own: device_flow_disabled (Device Flow must be explicitly enabled for this App). Tick “Enable Device Flow” in the app\'s settings (https://github.com/settings/developers), then connect again.',
    );
    expect(error?.message).not.toMatch(/client secret|Connections page/);
  });

  it('offers a personal access token where the provider issues one, and none where it does not', async () => {
    const { oauth } = connections();
    expect((await oauth.view('github', [])).personalToken).toMatchObject({ label: 'fine-grained personal access token', secretName: 'github-token', auth: { kind: 'bearer' } });
    expect((await oauth.view('slack', [])).personalToken?.services).toEqual([{ name: 'slack', baseUrl: 'https://slack.com/api', api: 'slack' }]);
    expect((await oauth.view('discord', [])).personalToken?.auth).toEqual({ kind: 'header', header: 'Authorization', prefix: 'Bot ' });
    expect((await oauth.view('google', [])).personalToken).toBeNull();
  });
});

describe('unreachableCause', () => {
  const failed = (code: string) => new TypeError('fetch failed', { cause: Object.assign(new Error(`getaddrinfo ${code} github.com`), { code }) });

  it('says in words why the provider could not be reached, naming its host', () => {
    expect(unreachableCause(failed('ENOTFOUND'), 'https://github.com/login/device/code')).toBe('the name github.com does not resolve (no network, or no DNS)');
    expect(unreachableCause(failed('ECONNREFUSED'), 'https://github.com/login/device/code')).toBe('github.com refused the connection');
    expect(unreachableCause(failed('UND_ERR_CONNECT_TIMEOUT'), 'https://slack.com/api/oauth.v2.access')).toBe('the connection to slack.com timed out');
    expect(unreachableCause(failed('SELF_SIGNED_CERT_IN_CHAIN'), 'https://github.com/x')).toBe('github.com\'s certificate chain is self-signed (a proxy in the way?)');
    expect(unreachable('GitHub', failed('ENETUNREACH'), 'https://github.com/login/device/code')?.message).toBe(
      'GitHub cannot be reached from this machine: there is no route to the network (offline?) (https://github.com/login/device/code). Check the network connection (or the proxy), then connect again.',
    );
  });

  it('leaves an answer of the provider its own error', () => {
    expect(unreachableCause(new Error('server responded with an error in the response body'), 'https://github.com/x')).toBeNull();
    expect(unreachable('GitHub', new SyntaxError('Unexpected token'), 'https://github.com/x')).toBeNull();
  });
});

describe('disconnecting a public client', () => {
  it('says where to revoke GitHub\'s grant when there is no client secret to revoke it with, and asks nothing of GitHub', async () => {
    const sent: string[] = [];
    const send = (async (input: RequestInfo | URL) => {
      sent.push(String(input));
      throw new Error('no request expected');
    }) as typeof fetch;
    const outcome = await revokeToken(spec('github'), { clientId: 'Iv1.pub', clientSecret: null, access: 'gho_x', refresh: null }, send);
    expect(outcome).toEqual({
      revoked: false,
      note: 'Posthoc forgot the token; GitHub revokes a grant only for an app\'s client secret, which this sign-in has none of. Revoke its access at https://github.com/settings/applications (Authorized OAuth Apps).',
    });
    expect(sent).toEqual([]);
  });
});
