// A keychain that cannot crash Posthoc (issue 12). A gnome-keyring whose login keyring is LOCKED runs in
// a private D-Bus session started by this test (tests/support/private-keyring.ts); keytar segfaults
// listing a locked collection, which used to kill the web host on vault:status and make
// `posthoc secret list` exit 139. Now keytar runs in a helper process: the vault says the keyring is
// locked and how to unlock it, the web host and the CLI answer with that message, tasks that need no
// secret still run, and a helper killed mid-call is replaced for the next call.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyHelperExit } from '../../main/vault/keychain-messages';
import { KeytarProcess } from '../../main/vault/keytar-process';
import { Vault, VaultUnavailable } from '../../main/vault/vault';
import { startLockedKeyring, startSessionWithoutKeyring, type PrivateKeyring } from '../support/private-keyring';

const SERVICE = 'dev.posthoc.vault';
const LOCKED_MESSAGE = /The login keyring \(Secret Service\) is locked .*Unlock it: .*gnome-keyring-daemon --replace --unlock/;

describe('a locked keychain', () => {
  let keyring: PrivateKeyring;
  let vault: Vault;
  let helper: KeytarProcess;

  beforeAll(async () => {
    keyring = await startLockedKeyring([{ service: SERVICE, account: 'github-token', value: `ghp-${randomUUID()}` }]);
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
  it('a crash signal is read as a locked keyring on Linux only; other endings as a stopped helper', () => {
    expect(classifyHelperExit('SIGSEGV', 'linux')).toBe('locked');
    expect(classifyHelperExit('SIGSEGV', 'darwin')).toBe('stopped');
    expect(classifyHelperExit('SIGKILL', 'linux')).toBe('stopped');
    expect(classifyHelperExit(null, 'linux')).toBe('stopped');
  });
});
