// The keychain helper (main/vault/keytar-child.mjs) as an Electron utility process. Packaged builds turn
// the runAsNode fuse off, so the Node-child way (the app binary with ELECTRON_RUN_AS_NODE=1) would start a
// second Posthoc instead of the helper; a utility process is Electron's own way to run Node code apart,
// and a keytar crash in it ends only it. Messages travel through process.parentPort.
import { utilityProcess } from 'electron';
import { setDefaultHelperStarter, type KeychainHelper } from '../vault/keytar-process';

// Chromium reports a child ended by a signal with the signal's number as its exit code; 128+n is the
// shell's spelling of the same. Only the ones the vault reads meaning into are named.
const SIGNALS: Record<number, string> = { 6: 'SIGABRT', 7: 'SIGBUS', 9: 'SIGKILL', 11: 'SIGSEGV', 134: 'SIGABRT', 135: 'SIGBUS', 137: 'SIGKILL', 139: 'SIGSEGV' };

export function useUtilityProcessForKeychain(): void {
  setDefaultHelperStarter((script, env): KeychainHelper => {
    const child = utilityProcess.fork(script, [], { serviceName: 'Posthoc keychain', stdio: 'ignore', env: { ...process.env, ...env } });
    return {
      get pid() {
        return child.pid;
      },
      send: (request) => child.postMessage(request),
      onMessage: (listener) => void child.on('message', listener),
      onExit: (listener) => void child.on('exit', (code) => listener(SIGNALS[code] ? null : code, SIGNALS[code] ?? null)),
      // The app's lifetime is not tied to its event loop: nothing to hold or release.
      hold: () => {},
      kill: () => void child.kill(),
    };
  });
}
