// Which fix a keychain failure's message gives, from keytar's own words (collected on Linux with
// libsecret and gnome-keyring 42): a locked keyring and a missing Secret Service need different fixes.
import { describe, expect, it } from 'vitest';
import { classifyKeychainError, keychainMessage } from '../../main/vault/keychain-messages';
import { unavailableMessage } from '../../main/vault/vault';
import { KeychainError } from '../../main/vault/keytar-process';

describe('keychain messages', () => {
  it('reads keytar errors as locked or as no Secret Service', () => {
    expect(classifyKeychainError('Cannot create an item in a locked collection')).toBe('locked');
    expect(classifyKeychainError('Cannot autolaunch D-Bus without X11 $DISPLAY')).toBe('no-service');
    expect(classifyKeychainError('The name org.freedesktop.secrets was not provided by any .service files')).toBe('no-service');
    expect(classifyKeychainError('keytar could not load: libsecret-1.so.0: cannot open shared object file')).toBe('no-service');
    expect(classifyKeychainError('Something else')).toBe('other');
  });

  it('says how to unlock a locked keychain on each platform, and how to set one up when there is none', () => {
    expect(keychainMessage('locked', 'd', 'linux')).toMatch(/login keyring .* is locked \(d\).*seahorse.*gnome-keyring-daemon --unlock/);
    expect(keychainMessage('locked', 'd', 'darwin')).toMatch(/macOS login keychain is locked.*security unlock-keychain/);
    expect(keychainMessage('locked', 'd', 'win32')).toMatch(/Windows Credential Manager is locked/);
    expect(keychainMessage('no-service', 'd', 'linux')).toMatch(/No OS keychain answered \(d\).*apt-get install gnome-keyring/);
    expect(keychainMessage('no-service', 'd', 'linux')).not.toMatch(/locked/);
    for (const problem of ['locked', 'waiting', 'no-service', 'timeout', 'stopped', 'other'] as const) {
      expect(keychainMessage(problem, 'd', 'linux')).not.toMatch(/plain ?text file/i);
    }
  });

  it('a helper error keeps its kind; any other error is classified from its text', () => {
    expect(unavailableMessage(new KeychainError('timeout', 'no answer within 30 s to getPassword'))).toMatch(/^The keychain did not answer \(no answer within 30 s/);
    expect(unavailableMessage(new Error('Cannot create an item in a locked collection'))).toMatch(/is locked \(Cannot create an item in a locked collection\)/);
  });
});
