// keytar, out of process. keytar's native code takes its host down with it when the keychain misbehaves
// (a locked GNOME login keyring makes findCredentials segfault: the web host died on vault:status and
// `posthoc secret list` exited 139). Two ways were open: ask the Secret Service over D-Bus whether the
// collection is unlocked before each call, or run keytar in a child. The child was chosen: it covers every
// platform and every crash (not only the one we know of), needs no D-Bus client in Node and no
// `secret-tool`/`gdbus` on the machine, and a hung keychain becomes a timeout instead of a frozen app.
//
// One long-lived helper (main/vault/keytar-child.mjs) is started on the first call and reused; requests
// and answers are JSON lines with ids. If it dies, every call in flight fails with why (a crash signal on
// Linux means a locked keyring) and the next call starts a new one. Idle, it keeps no event loop alive,
// so a CLI command ends when its work does.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { classifyHelperExit, classifyKeychainError, type KeychainProblem } from './keychain-messages';

export type Keytar = {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<Array<{ account: string; password: string }>>;
  /** Resolves once whatever answers for the keychain is up (a helper started and listening). */
  ready?(): Promise<void>;
};

/** A keychain call that failed, with which kind of problem it was (for the person's message). */
export class KeychainError extends Error {
  constructor(readonly problem: KeychainProblem, readonly detail: string) {
    super(detail);
  }
}

/** A started helper, however it was started (a Node child here; Electron may start a utility process). */
export type KeychainHelper = {
  readonly pid: number | undefined;
  send(request: object): void;
  onMessage(listener: (message: unknown) => void): void;
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  /** Whether an idle helper may hold the event loop open. */
  hold(held: boolean): void;
  kill(): void;
};

export type StartHelper = (script: string, env?: Record<string, string>) => KeychainHelper;

type Pending = { helper: KeychainHelper; resolve(value: unknown): void; reject(error: Error): void; timer: NodeJS.Timeout };

export const DEFAULT_KEYCHAIN_TIMEOUT_MS = 30_000;

// How helpers are started when the caller does not say: a Node child, unless the Electron app installs
// its utility-process starter (packaged builds turn off ELECTRON_RUN_AS_NODE with a fuse).
let defaultStart: StartHelper | undefined;

/** Called once by the Electron app before any vault call; the CLI and tests keep the Node child. */
export function setDefaultHelperStarter(start: StartHelper): void {
  defaultStart = start;
}

export class KeytarProcess implements Keytar {
  private helper: KeychainHelper | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly options: { timeoutMs?: number; start?: StartHelper; script?: string; env?: Record<string, string> } = {},
  ) {}

  /** The running helper's process id (tests kill it to prove a crash is survived). */
  get pid(): number | undefined {
    return this.helper?.pid;
  }

  getPassword(service: string, account: string): Promise<string | null> {
    return this.request('getPassword', [service, account]) as Promise<string | null>;
  }

  async setPassword(service: string, account: string, password: string): Promise<void> {
    await this.request('setPassword', [service, account, password]);
  }

  deletePassword(service: string, account: string): Promise<boolean> {
    return this.request('deletePassword', [service, account]) as Promise<boolean>;
  }

  findCredentials(service: string): Promise<Array<{ account: string; password: string }>> {
    return this.request('findCredentials', [service]) as Promise<Array<{ account: string; password: string }>>;
  }

  /** Resolves once the helper is started and listening (it asks the keychain nothing). */
  async ready(): Promise<void> {
    await this.request('ping', []);
  }

  /** Stops the helper; a later call starts a new one. */
  close(): void {
    if (this.helper) this.retire(this.helper);
  }

  private retire(helper: KeychainHelper): void {
    if (this.helper === helper) this.helper = undefined;
    helper.kill();
  }

  private request(op: string, args: unknown[]): Promise<unknown> {
    const helper = this.running();
    const id = this.nextId++;
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settle(id, new KeychainError('timeout', `no answer within ${Math.round(timeoutMs / 1000)} s to ${op}`));
        // Its state is unknown: a fresh helper answers the next call, even one made before this one dies.
        this.retire(helper);
      }, timeoutMs);
      this.pending.set(id, { helper, resolve, reject, timer });
      helper.hold(true);
      helper.send({ id, op, args });
    });
  }

  private running(): KeychainHelper {
    if (this.helper) return this.helper;
    const helper = (this.options.start ?? defaultStart ?? startNodeHelper)(this.options.script ?? helperScript(), this.options.env);
    this.helper = helper;
    helper.onMessage((message) => {
      const answer = message as { id?: unknown; ok?: unknown; value?: unknown; error?: unknown };
      if (typeof answer?.id !== 'number') return;
      if (answer.ok === true) this.settle(answer.id, null, answer.value);
      else {
        const detail = String(answer.error ?? 'the keychain failed');
        this.settle(answer.id, new KeychainError(classifyKeychainError(detail), detail));
      }
    });
    helper.onExit((code, signal) => {
      if (this.helper === helper) this.helper = undefined;
      const how = signal
        ? `the keychain helper was ended by ${signal}`
        : code === null
          ? 'the keychain helper could not start'
          : `the keychain helper exited with code ${code}`;
      const problem = classifyHelperExit(signal);
      const detail = problem === 'locked' ? `${how}, which keytar does when the login keyring is locked` : how;
      for (const [id, entry] of [...this.pending]) if (entry.helper === helper) this.settle(id, new KeychainError(problem, detail));
    });
    return helper;
  }

  private settle(id: number, error: Error | null, value?: unknown): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    if (![...this.pending.values()].some((p) => p.helper === entry.helper)) entry.helper.hold(false);
    if (error) entry.reject(error);
    else entry.resolve(value);
  }
}

/**
 * The helper script: beside this module when run from source, and built to out/main/keytar-child.js
 * (this module is then in out/main/ or one of its chunks/).
 */
export function helperScript(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, 'keytar-child.mjs'), join(here, 'keytar-child.js'), join(here, '..', 'keytar-child.js')];
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new KeychainError('no-service', `keytar could not load: the keychain helper is missing (looked for ${candidates.join(', ')}); run "npm run build"`);
  return found;
}

/** The helper as a Node child of this process (under Electron, its binary in Node mode). */
export function startNodeHelper(script: string, env?: Record<string, string>): KeychainHelper {
  const child = spawn(process.execPath, [script], {
    // `env` replaces the session's keychain variables (tests point it at a private D-Bus session).
    env: { ...process.env, ...env, ...(process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}) },
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  // Its stderr is read and dropped: a library's warnings must not fill a pipe nobody empties.
  child.stderr.resume();
  // A helper that cannot be started at all is reported like one that died at once.
  const exitListeners: Array<(code: number | null, signal: string | null) => void> = [];
  child.on('error', () => {
    for (const l of exitListeners) l(null, null);
  });
  child.on('exit', (code, signal) => {
    for (const l of exitListeners) l(code, signal);
  });
  // Writing to a helper that just died must not throw out of the parent.
  child.stdin.on('error', () => {});
  const lines = createInterface({ input: child.stdout });
  return {
    pid: child.pid,
    send: (request) => child.stdin.write(`${JSON.stringify(request)}\n`),
    onMessage(listener) {
      lines.on('line', (line) => {
        try {
          listener(JSON.parse(line));
        } catch {
          // Not an answer (a library printing to stdout): ignored, the call times out if none comes.
        }
      });
    },
    onExit: (listener) => exitListeners.push(listener),
    hold(held) {
      const method = held ? 'ref' : 'unref';
      child[method]();
      for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { ref?(): void; unref?(): void })[method]?.();
    },
    kill: () => child.kill('SIGKILL'),
  };
}
