// The Docker engines a task may run on (issue 30). The local engine is the default and is not saved; each remote
// engine is saved by name in the settings table ("engines": its address and, for tcp, the CA and the client
// certificate, which are not secrets) with the client's private key in the keychain (vault entry
// engine-tls-key:NAME), never in the settings table. A Docker context is saved by its name only and read from
// the Docker CLI's configuration when used.
import type Docker from 'dockerode';
import { createDocker } from '../sandbox/docker-client';
import { contextDockerOptions } from '../sandbox/engines/docker-context';
import { checkEngine, type EngineCheck } from '../sandbox/engines/engine-check';
import { sendImage } from '../sandbox/engines/image-transfer';
import { SandboxError } from '../sandbox/sandbox-error';
import { SANDBOX_IMAGE } from '../sandbox/sandbox-image-name';
import { dockerOptions, engineAddress, engineKeySecret, EngineSpecError, LOCAL_ENGINE, parseEngine, type SavedEngine } from '../sandbox/engines/engine-spec';
import type { TaskStore } from '../store/task-store';
import { VaultUnavailable, type Vault } from '../vault/vault';
import { ServiceError } from './service-error';

const ENGINES_KEY = 'engines';

export type EngineView = { name: string; kind: SavedEngine['kind'] | 'local'; address: string; keySet: boolean };

export class EnginesService {
  constructor(
    private readonly store: TaskStore,
    private readonly vault: Vault,
    private readonly options: { env?: NodeJS.ProcessEnv; local?: Docker; image?: string } = {},
  ) {}

  private get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  /** The sandbox image tasks run (the executor's). */
  private get image(): string {
    return this.options.image ?? SANDBOX_IMAGE;
  }

  private saved(): SavedEngine[] {
    return this.store.getSetting<SavedEngine[]>(ENGINES_KEY) ?? [];
  }

  async list(): Promise<EngineView[]> {
    const local: EngineView = { name: LOCAL_ENGINE, kind: 'local', address: this.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock', keySet: false };
    const remote = await Promise.all(
      this.saved().map(async (e) => ({
        name: e.name,
        kind: e.kind,
        address: engineAddress(e),
        keySet: e.kind === 'tcp' ? await this.vault.has(engineKeySecret(e.name)).catch(() => false) : false,
      })),
    );
    return [local, ...remote];
  }

  /** Adds an engine; a name already saved is refused (remove it first), so a typo never replaces a working engine. */
  async add(input: Parameters<typeof parseEngine>[0]): Promise<EngineView[]> {
    let parsed: ReturnType<typeof parseEngine>;
    try {
      parsed = parseEngine(input);
    } catch (error) {
      if (error instanceof EngineSpecError) throw new ServiceError('invalid-input', error.message);
      throw error;
    }
    const saved = this.saved();
    const { name } = parsed.engine;
    if (saved.some((e) => e.name === name)) {
      throw new ServiceError('invalid-input', `An engine named ${name} exists already; remove it first ("posthoc engines remove ${name}").`);
    }
    if (parsed.key !== null) {
      try {
        await this.vault.set(engineKeySecret(name), parsed.key);
      } catch (error) {
        if (error instanceof VaultUnavailable) throw new ServiceError('unavailable', error.message);
        throw error;
      }
    }
    this.store.setSetting(ENGINES_KEY, [...saved, parsed.engine]);
    return this.list();
  }

  async remove(name: string): Promise<EngineView[]> {
    const saved = this.saved();
    if (!saved.some((e) => e.name === name)) throw new ServiceError('not-found', `No engine ${name} (see "posthoc engines list").`);
    await this.vault.remove(engineKeySecret(name)).catch(() => undefined);
    this.store.setSetting(ENGINES_KEY, saved.filter((e) => e.name !== name));
    return this.list();
  }

  /** A dockerode client of the named engine ("local": this machine's). */
  async connect(name: string): Promise<Docker> {
    if (name === LOCAL_ENGINE) return this.options.local ?? createDocker();
    const engine = this.saved().find((e) => e.name === name);
    if (!engine) throw new ServiceError('not-found', `No engine ${name}; add it with "posthoc engines add ${name} tcp://HOST:PORT --tls-ca … --tls-cert … --tls-key …" (see "posthoc engines list").`);
    try {
      if (engine.kind === 'context') return createDocker(contextDockerOptions(engine.context, this.env));
      const key = engine.kind === 'tcp' ? await this.vault.get(engineKeySecret(name)) : null;
      return createDocker(dockerOptions(engine, key, this.env));
    } catch (error) {
      if (error instanceof EngineSpecError) throw new ServiceError('invalid-input', error.message);
      if (error instanceof VaultUnavailable) throw new ServiceError('unavailable', error.message);
      throw error;
    }
  }

  async check(name: string): Promise<EngineCheck & { name: string }> {
    return { name, ...(await checkEngine(await this.connect(name), this.image)) };
  }

  /** The sandbox image sent from this machine's engine, unless the engine has the same image (its id) already. */
  async sendImage(name: string): Promise<{ name: string; image: string; imageId: string; sent: boolean; bytes: number }> {
    if (name === LOCAL_ENGINE) throw new ServiceError('invalid-input', 'The image is built on this machine ("posthoc sandbox build"); send-image is for a remote engine.');
    const before = await this.check(name);
    if (!before.reachable) throw new ServiceError('unavailable', before.problem ?? `Engine ${name} does not answer.`);
    const local = this.options.local ?? createDocker();
    const localId = (await local.getImage(this.image).inspect().catch(() => null))?.Id;
    if (before.imagePresent && before.imageId === localId) return { name, image: this.image, imageId: before.imageId, sent: false, bytes: 0 };
    try {
      const sent = await sendImage(local, await this.connect(name), this.image);
      return { name, image: this.image, imageId: sent.imageId, sent: true, bytes: sent.bytes };
    } catch (error) {
      if (error instanceof SandboxError) throw new ServiceError(error.code === 'image-missing' ? 'unavailable' : 'internal', error.message);
      throw error;
    }
  }
}
