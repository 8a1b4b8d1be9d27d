// Secrets live in the OS keychain (keytar), owned by the main process. Only names and status leave this
// module; values are read by main-side code that needs them (the LLM client, the gateway adding a
// service's credentials, OAuth) and nowhere else.
// keytar itself runs in a helper process (keytar-process.ts says why): a keychain that crashes, hangs or
// is locked becomes a VaultUnavailable with a message saying how to unlock or set one up — never a crash
// of Posthoc, and never a fallback to plaintext.
import type { VaultStatus } from '../../shared/domain';
import { classifyKeychainError, keychainMessage } from './keychain-messages';
import { KeychainError, KeytarProcess, type Keytar } from './keytar-process';

const SERVICE = 'dev.posthoc.vault';

export class VaultUnavailable extends Error {}

export const KNOWN_SECRETS = { llmApiKey: 'llm-api-key' } as const;

/** The person's message for a keychain failure: locked, missing, hung or crashed, each with its fix. */
export function unavailableMessage(error: unknown): string {
  if (error instanceof KeychainError) return keychainMessage(error.problem, error.detail);
  const detail = describe(error);
  return keychainMessage(classifyKeychainError(detail), detail);
}

/**
 * How long a status check waits for the keychain once its helper is up. A locked keyring with an unlock
 * prompt open holds every call until the person answers the prompt (the helper's own timeout, 30 s): the
 * status says so after this instead. Real reads and writes still wait for the keychain's answer.
 */
export const STATUS_WAIT_MS = 2_000;

export class Vault {
  private keytar: Promise<Keytar> | undefined;
  /** The status question still out to the keychain (one at a time), and whether it outlasted a status's wait. */
  private probe: { answer: Promise<VaultStatus>; late: boolean } | undefined;
  private readonly statusWaitMs: number;

  constructor(
    private readonly service = SERVICE,
    private readonly load: () => Promise<Keytar> = loadKeytar,
    options: { statusWaitMs?: number } = {},
  ) {
    this.statusWaitMs = options.statusWaitMs ?? STATUS_WAIT_MS;
  }

  /**
   * Whether the keychain answers, and the names of the secrets in it. Answers within a short wait once the
   * helper is up (`waitForAnswer`: as long as the keychain takes, for listing the secrets): a keychain
   * that has not answered by then is said to be locked or waiting for its unlock prompt, and while that
   * question is still out, later status checks answer so at once instead of asking again. The keychain's
   * answer, when it comes, ends that: the next check asks anew.
   */
  async status(options: { waitForAnswer?: boolean } = {}): Promise<VaultStatus> {
    const probe = this.probe ?? this.ask();
    if (options.waitForAnswer) return probe.answer;
    if (probe.late) return this.notAnswering();
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    const late = new Promise<'late'>((resolve) => {
      // The wait starts once the helper is up: starting one is not the keychain's slowness.
      void this.backend()
        .then((k) => k.ready?.())
        .catch(() => undefined)
        .then(() => {
          if (finished) return;
          timer = setTimeout(() => resolve('late'), this.statusWaitMs);
          timer.unref();
        });
    });
    try {
      const first = await Promise.race([probe.answer, late]);
      if (first !== 'late') return first;
      probe.late = true;
      return this.notAnswering();
    } finally {
      finished = true;
      clearTimeout(timer);
    }
  }

  /** Asks the keychain for the status; the question is remembered until its answer comes. */
  private ask(): { answer: Promise<VaultStatus>; late: boolean } {
    const probe = { answer: this.listed(), late: false };
    this.probe = probe;
    void probe.answer.finally(() => {
      if (this.probe === probe) this.probe = undefined;
    });
    return probe;
  }

  private async listed(): Promise<VaultStatus> {
    try {
      const creds = await (await this.backend()).findCredentials(this.service);
      return { available: true, message: null, secrets: creds.map((c) => ({ name: c.account, kind: kindOf(c.account) })) };
    } catch (error) {
      return { available: false, message: error instanceof VaultUnavailable ? error.message : unavailableMessage(error), secrets: [] };
    }
  }

  private notAnswering(): VaultStatus {
    const waited = `no answer within ${Math.max(1, Math.round(this.statusWaitMs / 1000))} s to the status check`;
    return { available: false, message: keychainMessage('waiting', waited), secrets: [] };
  }

  async has(name: string): Promise<boolean> {
    return (await this.get(name)) !== null;
  }

  /** Main-process only: never send the result across the contract. */
  async get(name: string): Promise<string | null> {
    return this.call((k) => k.getPassword(this.service, name));
  }

  async set(name: string, value: string): Promise<void> {
    if (value.length === 0) throw new Error('A secret cannot be empty; remove it instead.');
    await this.call((k) => k.setPassword(this.service, name, value));
  }

  async remove(name: string): Promise<boolean> {
    return this.call((k) => k.deletePassword(this.service, name));
  }

  private async call<T>(fn: (k: Keytar) => Promise<T>): Promise<T> {
    try {
      return await fn(await this.backend());
    } catch (error) {
      if (error instanceof VaultUnavailable) throw error;
      throw new VaultUnavailable(unavailableMessage(error));
    }
  }

  private backend(): Promise<Keytar> {
    this.keytar ??= this.load().catch((error) => {
      this.keytar = undefined;
      throw new VaultUnavailable(error instanceof KeychainError ? unavailableMessage(error) : keychainMessage('no-service', `keytar could not load: ${describe(error)}`));
    });
    return this.keytar;
  }
}

/** keytar in its helper process (the default). */
async function loadKeytar(): Promise<Keytar> {
  return new KeytarProcess();
}

/** keytar loaded into this process: only for measuring what the helper costs (bench/vault.ts). */
export async function loadKeytarDirect(): Promise<Keytar> {
  const mod = (await import('keytar')) as unknown as Keytar & { default?: Keytar };
  return mod.default ?? mod;
}

/** What a vault entry is, from its name alone (the value is never read for this). */
export function kindOf(name: string): string {
  // The default provider's key, and each saved provider's (llm-api-key:ID).
  if (name === KNOWN_SECRETS.llmApiKey || name.startsWith(`${KNOWN_SECRETS.llmApiKey}:`)) return 'llm-api-key';
  const oauth = /^oauth:[^:]+:(access|refresh|client-secret)$/.exec(name);
  if (oauth) return oauth[1] === 'access' ? 'oauth-access-token' : oauth[1] === 'refresh' ? 'oauth-refresh-token' : 'oauth-client-secret';
  if (name.startsWith('db-password')) return 'database-password';
  // A remote Docker engine's TLS client key (main/services/engines-service.ts).
  if (name.startsWith('engine-tls-key:')) return 'engine-tls-key';
  return 'secret';
}

/** Names a person may give a secret (posthoc secret set NAME): the colon is kept for Posthoc's own entries. */
export const SECRET_NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/;

export function checkSecretName(name: string): string {
  if (!SECRET_NAME.test(name)) {
    throw new Error(`"${name}" is not a secret name: use lower-case letters, digits, ".", "-" and "_" (at most 63), for example github-token.`);
  }
  return name;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
