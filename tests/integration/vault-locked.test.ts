// A keychain that cannot crash Posthoc (issue 12). A gnome-keyring whose login keyring is LOCKED runs in
// a private D-Bus session started by this test (tests/support/private-keyring.ts); keytar segfaults
// listing a locked collection, which used to kill the web host on vault:status and make
// `posthoc secret list` exit 139. Now keytar runs in a helper process: the vault says the keyring is
// locked and how to unlock it, the web host and the CLI answer with that message, tasks that need no
// secret still run, and a helper killed mid-call is replaced for the next call.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startWebHost } from '../../main/ipc/web-host';
import { createServices } from '../../main/services/app-services';
import { classifyHelperExit } from '../../main/vault/keychain-messages';
import { KeytarProcess } from '../../main/vault/keytar-process';
import { Vault, VaultUnavailable } from '../../main/vault/vault';
import { cliTestbed, jsonLines, runPosthoc } from '../support/posthoc-cli';
import { startLockedKeyring, startSessionWithoutKeyring, startUnlockedKeyring, type PrivateKeyring } from '../support/private-keyring';

const { dirs, model } = cliTestbed();

const SERVICE = 'dev.posthoc.vault';
const TOKEN = `ghp-${randomUUID()}`;
const LOCKED_MESSAGE = /The login keyring \(Secret Service\) is locked .*Unlock it: .*gnome-keyring-daemon --unlock --components=secrets/;

describe('a locked keychain', () => {
  let keyring: Awaited<ReturnType<typeof startLockedKeyring>>;
  let vault: Vault;
  let helper: KeytarProcess;

  beforeAll(async () => {
    keyring = await startLockedKeyring([{ service: SERVICE, account: 'github-token', value: TOKEN }]);
    helper = new KeytarProcess({ env: keyring.env });
    vault = new Vault(SERVICE, async () => helper);
  });
  afterAll(async () => {
    helper?.close();
    await keyring?.stop();
  });

  it('status says locked and how to unlock it; every call rejects with that message; this process lives on', async () => {
    const status = await vault.status();
    expect(status).toMatchObject({ available: false, secrets: [] });
    expect(status.message).toMatch(LOCKED_MESSAGE);
    await expect(vault.get('github-token')).rejects.toThrow(VaultUnavailable);
    await expect(vault.get('github-token')).rejects.toThrow(LOCKED_MESSAGE);
    await expect(vault.set('other', 'x')).rejects.toThrow(LOCKED_MESSAGE);
    await expect(vault.remove('github-token')).rejects.toThrow(LOCKED_MESSAGE);
  });

  it('the web host answers vault:status with the message and keeps answering', async () => {
    // The services' own vault (new Vault()), as the app and `posthoc web` build it, on the locked session.
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
      const answers = new Map<number, any>();
      const call = (id: number, name: string, input: unknown) =>
        new Promise<any>((resolve) => {
          ws.on('message', (data) => {
            const frame = JSON.parse(data.toString());
            if (frame.kind === 'result' && frame.id === id && !answers.has(id)) {
              answers.set(id, frame.result);
              resolve(frame.result);
            }
          });
          ws.send(JSON.stringify({ id, call: name, input }));
        });
      const status = await call(1, 'vault:status', {});
      expect(status).toMatchObject({ ok: true, value: { available: false, secrets: [] } });
      expect(status.value.message).toMatch(LOCKED_MESSAGE);
      expect(await call(2, 'vault:status', {})).toMatchObject({ ok: true, value: { available: false } });
      expect(await call(3, 'task:list', {})).toEqual({ ok: true, value: [] });
      ws.close();
    } finally {
      await host.close();
      await services.close();
      process.env.DBUS_SESSION_BUS_ADDRESS = saved;
    }
  });

  it('`posthoc secret list` exits 2 (the environment is not ready) with the message, not 139; a task that needs no secret still runs', async () => {
    const env = { DBUS_SESSION_BUS_ADDRESS: keyring.env.DBUS_SESSION_BUS_ADDRESS };
    const list = await runPosthoc(['secret', 'list', '--data-dir', dirs.make('posthoc-data-')], env);
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(LOCKED_MESSAGE);

    // The person's folder owned by an ordinary user (1000) and by root: the keychain has no say in either.
    for (const ws of [dirs.workspace(), dirs.make('posthoc-ws-root-')]) {
      const llm = await model(["```python\nprint('no secret needed')\n```", 'Done.']);
      const run = await runPosthoc(['run', 'say hello', '--workspace', ws, '--data-dir', dirs.make('posthoc-data-'), '--json'], {
        ...env,
        OPENAI_BASE_URL: llm.baseUrl,
        POSTHOC_MODEL: 'scripted',
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const lines = jsonLines(run.stdout);
      expect(lines[0]!.action).toMatchObject({ status: 'done', output: { stdout: 'no secret needed\n', exitCode: 0 } });
      expect(lines.at(-1)!.task).toMatchObject({ status: 'done', answer: 'Done.' });
    }
  });

  // Last: it unlocks the keyring the tests above need locked.
  it('the unlock command the message gives works: the next call reads the secret', async () => {
    await keyring.unlock();
    expect(await vault.status()).toMatchObject({ available: true, message: null, secrets: [{ name: 'github-token', kind: 'secret' }] });
    expect(await vault.get('github-token')).toBe(TOKEN);
  });
});

describe('no Secret Service on the session bus', () => {
  it('says none answered and how to set one up (not "locked")', async () => {
    const session = await startSessionWithoutKeyring();
    const helper = new KeytarProcess({ env: session.env });
    try {
      const status = await new Vault(SERVICE, async () => helper).status();
      expect(status.available).toBe(false);
      expect(status.message).toMatch(/No OS keychain answered .*sudo apt-get install gnome-keyring/);
      expect(status.message).not.toMatch(/locked/);
    } finally {
      helper.close();
      await session.stop();
    }
  });
});

describe('the keychain helper', () => {
  let keyring: PrivateKeyring;
  beforeAll(async () => {
    keyring = await startUnlockedKeyring();
  });
  afterAll(async () => {
    await keyring?.stop();
  });

  it('killed mid-call (SIGKILL): the call fails saying so, the next call starts a new helper and works', async () => {
    const helper = new KeytarProcess({ env: keyring.env });
    const vault = new Vault(`dev.posthoc.test-${randomUUID()}`, async () => helper);
    try {
      await vault.set('a-token', 'first');
      const pid = helper.pid!;
      // Frozen first, so the call is certainly in flight (unanswered) when the kill lands.
      process.kill(pid, 'SIGSTOP');
      const inFlight = vault.get('a-token');
      process.kill(pid, 'SIGKILL');
      await expect(inFlight).rejects.toThrow(VaultUnavailable);
      await expect(inFlight).rejects.toThrow(/The keychain helper stopped during the call \(the keychain helper was ended by SIGKILL\).*next call starts a new helper/);
      expect(await vault.get('a-token')).toBe('first');
      expect(helper.pid).not.toBe(pid);
      expect(await vault.remove('a-token')).toBe(true);
    } finally {
      helper.close();
    }
  });

  it('a helper that does not answer times out with a message, and is replaced', async () => {
    const helper = new KeytarProcess({ env: keyring.env, timeoutMs: 500 });
    const vault = new Vault(`dev.posthoc.test-${randomUUID()}`, async () => helper);
    try {
      expect((await vault.status()).available).toBe(true);
      const pid = helper.pid!;
      process.kill(pid, 'SIGSTOP');
      await expect(vault.get('anything')).rejects.toThrow(/The keychain did not answer \(no answer within 1 s to getPassword\)\. It may be waiting for you to unlock it/);
      expect(await vault.get('anything')).toBeNull();
      expect(helper.pid).not.toBe(pid);
    } finally {
      helper.close();
    }
  });


  it('a crash signal is read as a locked keyring on Linux only; other endings as a stopped helper', () => {
    expect(classifyHelperExit('SIGSEGV', 'linux')).toBe('locked');
    expect(classifyHelperExit('SIGSEGV', 'darwin')).toBe('stopped');
    expect(classifyHelperExit('SIGKILL', 'linux')).toBe('stopped');
    expect(classifyHelperExit(null, 'linux')).toBe('stopped');
  });
});
