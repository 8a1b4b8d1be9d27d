// A locked keychain on a desktop (issue 23): asked for a locked item, gnome-keyring shows its unlock prompt
// (gcr-prompter, here on a private Xvfb display) and every keychain call waits for the person. The vault's
// status no longer waits with it (it took the helper's 30 s timeout): it says the keyring is locked or
// waiting for its prompt, in the app's and the web host's status alike, while a real read still waits for
// the keychain's answer instead of being turned into "locked". A real keyring, a real prompt: nothing stubbed.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startWebHost } from '../../main/ipc/web-host';
import { createServices } from '../../main/services/app-services';
import { KeytarProcess } from '../../main/vault/keytar-process';
import { Vault } from '../../main/vault/vault';
import { startLockedKeyring } from '../support/private-keyring';
import { tempDirs } from '../support/temp-dir';
import { startVirtualDisplay, type VirtualDisplay } from '../support/virtual-display';

const SERVICE = 'dev.posthoc.vault';
const WAITING = /The login keyring \(Secret Service\) is locked, or waiting for you to unlock it in a prompt \(no answer within 2 s to the status check\).*Unlock it: /;

const dirs = tempDirs();
let display: VirtualDisplay;
let keyring: Awaited<ReturnType<typeof startLockedKeyring>>;

beforeAll(async () => {
  display = await startVirtualDisplay();
  keyring = await startLockedKeyring([{ service: SERVICE, account: 'github-token', value: `ghp-${randomUUID()}` }], { display: display.name });
});
afterAll(async () => {
  await keyring?.stop();
  await display?.stop();
  dirs.cleanup();
});

/** Whether a promise has settled, without waiting for it. */
function settled(p: Promise<unknown>): () => boolean {
  let done = false;
  void p.then(() => (done = true), () => (done = true));
  return () => done;
}

describe('a locked keyring whose unlock prompt is open', () => {
  it('status says locked or waiting for the prompt while a real read still waits for the keychain', async () => {
    const helper = new KeytarProcess({ env: keyring.env });
    const vault = new Vault(SERVICE, async () => helper);
    const read = vault.get('github-token');
    const readDone = settled(read);
    try {
      const status = await vault.status();
      expect(status).toMatchObject({ available: false, secrets: [] });
      expect(status.message).toMatch(WAITING);
      // The status answered while the keychain had not: the read is still waiting for the person, not failed.
      expect(readDone()).toBe(false);
      expect(await vault.status()).toEqual(status);
      expect(readDone()).toBe(false);
    } finally {
      helper.close();
      await read.catch(() => undefined);
    }
  });

  it('the web host answers vault:status with that message, and keeps answering', async () => {
    // The services' own vault (new Vault()), as `posthoc web` builds it, on the locked session.
    const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    process.env.DBUS_SESSION_BUS_ADDRESS = keyring.env.DBUS_SESSION_BUS_ADDRESS;
    const services = createServices({ dataDir: dirs.make('posthoc-data-'), env: {} });
    const rendererDir = dirs.make('posthoc-renderer-');
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Posthoc</title>');
    const host = await startWebHost(services, { rendererDir });
    try {
      const origin = `http://127.0.0.1:${host.port}`;
      const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`, { headers: { origin } });
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      const call = (id: number, name: string) =>
        new Promise<{ ok: boolean; value: { available: boolean; message: string | null } }>((resolve) => {
          ws.on('message', (data) => {
            const frame = JSON.parse(data.toString()) as { kind: string; id: number; result: never };
            if (frame.kind === 'result' && frame.id === id) resolve(frame.result);
          });
          ws.send(JSON.stringify({ id, call: name, input: {} }));
        });
      const first = await call(1, 'vault:status');
      expect(first).toMatchObject({ ok: true, value: { available: false } });
      expect(first.value.message).toMatch(WAITING);
      expect(await call(2, 'vault:status')).toEqual(first);
      ws.close();
    } finally {
      await host.close();
      await services.close();
      process.env.DBUS_SESSION_BUS_ADDRESS = saved;
    }
  });
});
