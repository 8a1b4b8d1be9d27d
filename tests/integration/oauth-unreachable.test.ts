// A provider this machine cannot reach is named as such through the contract ('unavailable', "GitHub cannot be
// reached from this machine: …"), whether the client is the one a distribution ships or the person's own — never
// masked by a fallback to the browser sign-in and its "needs the app's client secret". The provider's hosts are
// a port on 127.0.0.1 that nothing listens on; no traffic leaves the machine.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../main/ipc/register-contract';
import { Vault } from '../../main/vault/vault';
import { startHarness, type Harness } from '../support/services-harness';

let closedPort: number;
let harness: Harness;
let own: Harness;
const sent: string[] = [];

/** GitHub's hosts go to a port on this machine nothing listens on: what an offline machine sees, refused at once. */
const send: typeof fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  sent.push(url);
  const local = url.replace(/^https:\/\/(api\.)?github\.com/, `http://127.0.0.1:${closedPort}`);
  return fetch(local, init);
};

beforeAll(async () => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closedPort = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  harness = await startHarness([], {
    vault: new Vault(`dev.posthoc.test-unreachable-${randomUUID()}`),
    connections: { send, publicClients: { github: { clientId: 'Iv1.shipped', flow: 'device' } } },
  });
  own = await startHarness([], { vault: new Vault(`dev.posthoc.test-unreachable-own-${randomUUID()}`), connections: { send, publicClients: {} } });
});
afterAll(async () => {
  await harness?.close();
  await own?.close();
});

const CAUSE = 'GitHub cannot be reached from this machine: github.com refused the connection (https://github.com/login/device/code). Check the network connection (or the proxy), then connect again.';

describe('an unreachable provider', () => {
  it('is named when the shipped client connects in one click', async () => {
    const result = await dispatch('connection:connect', { provider: 'github' }, harness.services.handlers);
    expect(result).toEqual({ ok: false, error: { code: 'unavailable', message: CAUSE } });
    expect(sent).toContain('https://github.com/login/device/code');
  });

  it('is named with the person\'s own client, not blamed on a missing client secret', async () => {
    const configured = await dispatch('connection:configure', { provider: 'github', clientId: 'Iv1.own' }, own.services.handlers);
    expect(configured.ok).toBe(true);
    const result = await dispatch('connection:connect', { provider: 'github' }, own.services.handlers);
    expect(result).toEqual({ ok: false, error: { code: 'unavailable', message: CAUSE } });
    if (!result.ok) expect(result.error.message).not.toMatch(/client secret|Connections page/);
  });

  it('is named for a provider of the person\'s own whose issuer cannot be reached', async () => {
    const issuer = `http://127.0.0.1:${closedPort}`;
    const configured = await dispatch('connection:configure', { provider: 'acme', clientId: 'posthoc', issuer, displayName: 'Acme ID' }, own.services.handlers);
    expect(configured.ok).toBe(true);
    const result = await dispatch('connection:connect', { provider: 'acme' }, own.services.handlers);
    expect(result).toEqual({
      ok: false,
      error: { code: 'unavailable', message: `Acme ID cannot be reached from this machine: 127.0.0.1:${closedPort} refused the connection (${issuer}/). Check the network connection (or the proxy), then connect again.` },
    });
  });
});
