// What to tell a person whose keychain did not answer: a locked keychain and a missing one need different
// fixes, so the message names which it is and the command or click that fixes it. Secrets are never
// kept anywhere else, so the message never suggests a plaintext fallback.

/** `waiting`: the keychain has not answered a status check in its short wait (locked, its unlock prompt open). */
export type KeychainProblem = 'locked' | 'waiting' | 'no-service' | 'timeout' | 'stopped' | 'other';

const LOCKED = /\blocked\b|is locked|unlock/i;
// libsecret/GLib's words for "there is no Secret Service to talk to" (no D-Bus session, no keyring daemon).
const NO_SERVICE = /org\.freedesktop\.secrets|not provided by any \.service|autolaunch D-Bus|DBUS_SESSION_BUS_ADDRESS|\$DISPLAY|ServiceUnknown|could not connect|keytar could not load/i;
// Signals native code dies of; keytar on Linux segfaults when it lists a locked collection.
const CRASH_SIGNALS = new Set(['SIGSEGV', 'SIGBUS', 'SIGABRT', 'SIGILL']);

export function classifyKeychainError(detail: string): KeychainProblem {
  if (LOCKED.test(detail)) return 'locked';
  if (NO_SERVICE.test(detail)) return 'no-service';
  return 'other';
}

/** The problem behind a helper that died mid-call, from how it died. */
export function classifyHelperExit(signal: string | null, platform: NodeJS.Platform = process.platform): KeychainProblem {
  return signal && CRASH_SIGNALS.has(signal) && platform === 'linux' ? 'locked' : 'stopped';
}

export function keychainMessage(problem: KeychainProblem, detail: string, platform: NodeJS.Platform = process.platform): string {
  const never = 'Posthoc keeps secrets only in the keychain, never in plain files.';
  const envKey = 'For the model key alone, OPENAI_API_KEY in the environment also works.';
  switch (problem) {
    case 'locked':
      return `${lockedWhat(platform)} is locked (${detail}), so Posthoc can neither read nor store secrets. ${unlockHow(platform)} ${never} ${envKey}`;
    case 'waiting':
      return `${lockedWhat(platform)} is locked, or waiting for you to unlock it in a prompt (${detail}), so Posthoc can neither read nor store secrets until it answers. ${unlockHow(platform)} ${never} ${envKey}`;
    case 'no-service':
      return `No OS keychain answered (${detail}). ${never} ${setupHow(platform)} ${envKey}`;
    case 'timeout':
      return `The keychain did not answer (${detail}). It may be waiting for you to unlock it in a prompt: ${unlockHow(platform)} Then try again.`;
    case 'stopped':
      return `The keychain helper stopped during the call (${detail}); nothing was changed by Posthoc and the next call starts a new helper. Try again; if it keeps happening, check that the keychain works (${platform === 'linux' ? '"secret-tool search --all service dev.posthoc.vault"' : 'open the system keychain app'}).`;
    case 'other':
      return `The keychain refused the call (${detail}). ${unlockHow(platform)} ${never}`;
  }
}

function lockedWhat(platform: NodeJS.Platform): string {
  if (platform === 'linux') return 'The login keyring (Secret Service)';
  if (platform === 'darwin') return 'The macOS login keychain';
  return 'The Windows Credential Manager';
}

function unlockHow(platform: NodeJS.Platform): string {
  if (platform === 'linux') {
    return 'Unlock it: on a desktop, open "Passwords and Keys" (seahorse) and unlock "Login" (or log out and in again); headless, restart the keyring daemon unlocked, in the same D-Bus session: "pkill -u "$USER" gnome-keyring-d; echo YOUR-KEYRING-PASSWORD | gnome-keyring-daemon --unlock --components=secrets" (a running daemon cannot be unlocked from the command line).';
  }
  if (platform === 'darwin') return 'Unlock it in Keychain Access (File → Unlock Keychain "login") or with "security unlock-keychain login.keychain-db".';
  return 'Sign in to your Windows account again so Credential Manager is available.';
}

function setupHow(platform: NodeJS.Platform): string {
  if (platform === 'linux') {
    return 'On Linux, install a Secret Service and run Posthoc inside a D-Bus session: "sudo apt-get install gnome-keyring libsecret-1-0 dbus-x11", then (headless) "dbus-run-session -- sh -c \'echo PASSWORD | gnome-keyring-daemon --unlock --components=secrets; npx posthoc …\'". Desktop sessions (GNOME, KDE) already have one.';
  }
  return 'Make sure the system keychain (macOS Keychain / Windows Credential Manager) is available to your account.';
}
