// Provider and agent settings. The model provider comes from the environment (the openai SDK's own
// OPENAI_API_KEY and OPENAI_BASE_URL, plus POSTHOC_MODEL) or from settings, the key then from the vault.
// The environment wins, so one launch can point elsewhere without touching saved settings.
import type { CallInput } from '../../shared/contract';
import type { LlmProvider, ProviderSettings } from '../../shared/domain';
import type { LlmConfig, LlmProtocol } from '../agent/llm-client';
import { catalogProvider } from '../../shared/providers/catalog';
import { BUILT_IN_PRICES, parseBudget, type Budget, type ModelPrice } from '../agent/usage';
import { LIMIT_SETTINGS, resolveLimits, type GatewayLimits } from '../gateway/gateway-limits';
import {
  DEFAULT_INDEX_MAX_AGE_MS,
  DEFAULT_NPM_REGISTRY_URL,
  DEFAULT_PIP_INDEX_URL,
  PACKAGE_ENV,
  type PackagePolicy,
} from '../gateway/packages/package-policy';
import type { TaskStore } from '../store/task-store';
import { KNOWN_SECRETS, VaultUnavailable, type Vault } from '../vault/vault';
import { ServiceError } from './service-error';

const KEYS = {
  model: 'provider.model',
  baseUrl: 'provider.baseUrl',
  maxSteps: 'agent.maxSteps',
  actionTimeoutSeconds: 'agent.actionTimeoutSeconds',
  packageFetching: 'packages.fetching',
  packagesAllowed: 'packages.allowed',
  pipIndexUrl: 'packages.pipIndexUrl',
  npmRegistryUrl: 'packages.npmRegistryUrl',
  providers: 'providers',
} as const;

export const DEFAULT_MAX_STEPS = 20;
export const DEFAULT_ACTION_TIMEOUT_SECONDS = 120;
/** Local servers (Ollama, LM Studio, vLLM) take any key; the SDK insists on one. */
const PLACEHOLDER_KEY = 'posthoc-no-key';

export class SettingsService {
  constructor(
    private readonly store: TaskStore,
    private readonly vault: Vault,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  async get(): Promise<ProviderSettings> {
    const envModel = nonEmpty(this.env.POSTHOC_MODEL);
    const envBase = nonEmpty(this.env.OPENAI_BASE_URL);
    const envKey = nonEmpty(this.env.OPENAI_API_KEY);
    const savedModel = this.store.getSetting<string>(KEYS.model) ?? null;
    const savedBase = this.store.getSetting<string>(KEYS.baseUrl) ?? null;
    const vaultKey = envKey ? false : await this.vaultHasKey();
    const model = envModel ?? savedModel;
    const baseUrl = envBase ?? savedBase;
    const apiKeySet = Boolean(envKey) || vaultKey;
    const limits = this.gatewayLimits();
    const providers = await this.providers();
    // A saved provider with its model (and its key, where its gallery entry needs one) is enough to start: the
    // new-task form then chooses it when the default one is not set up.
    const ready = providers.some((p) => p.model !== null && (p.apiKeySet || !catalogProvider(p.catalog)?.needsKey));
    return {
      model,
      baseUrl,
      apiKeySet,
      sources: {
        model: envModel ? 'env' : savedModel ? 'settings' : 'none',
        baseUrl: envBase ? 'env' : savedBase ? 'settings' : 'none',
        apiKey: envKey ? 'env' : vaultKey ? 'vault' : 'none',
      },
      configured: (Boolean(model) && (apiKeySet || Boolean(baseUrl))) || ready,
      maxSteps: this.maxSteps(),
      actionTimeoutSeconds: this.actionTimeoutSeconds(),
      gateway: { maxResponseMiB: toMiB(limits.responseBytes), taskMiB: toMiB(limits.taskBytes) },
      packages: this.packageSettings(),
      providers,
      agent: { protocol: this.protocol(), budget: this.store.getSetting<string>('agent.budget') ?? null, prices: this.prices() },
    };
  }

  /** Saved providers besides the default one (setting "providers"); each one's key is the vault entry llm-api-key:ID. */
  async providers(): Promise<LlmProvider[]> {
    const saved = this.store.getSetting<SavedProvider[]>(KEYS.providers) ?? [];
    return Promise.all(saved.map(async (p) => ({ ...p, catalog: p.catalog ?? null, apiKeySet: await this.vault.has(providerKey(p.id)).catch(() => false) })));
  }

  /** Adds a provider, or changes one (by id); an apiKey goes to the vault ("" removes it). */
  async saveProvider(input: { id?: string; name: string; baseUrl: string | null; model?: string | null; apiKey?: string; catalog?: string | null }): Promise<LlmProvider[]> {
    const saved = this.store.getSetting<SavedProvider[]>(KEYS.providers) ?? [];
    const id = input.id ?? providerId(input.name, saved);
    if (id === DEFAULT_PROVIDER) throw new ServiceError('invalid-input', `"${DEFAULT_PROVIDER}" names the provider set above (base URL, model, key); give this one another name.`);
    const existing = saved.find((p) => p.id === id);
    if (input.id !== undefined && !existing) throw new ServiceError('not-found', `No saved provider ${input.id}.`);
    const catalog = input.catalog !== undefined ? input.catalog : (existing?.catalog ?? null);
    if (catalog !== null && !catalogProvider(catalog)) throw new ServiceError('invalid-input', `No provider "${catalog}" in the gallery; leave it out for any OpenAI-compatible URL.`);
    const next: SavedProvider = { id, name: input.name.trim(), baseUrl: input.baseUrl, model: input.model ?? existing?.model ?? null, catalog };
    if (input.apiKey !== undefined) {
      try {
        if (input.apiKey === '') await this.vault.remove(providerKey(id));
        else await this.vault.set(providerKey(id), input.apiKey);
      } catch (error) {
        if (error instanceof VaultUnavailable) throw new ServiceError('unavailable', error.message);
        throw error;
      }
    }
    this.store.setSetting(KEYS.providers, existing ? saved.map((p) => (p.id === id ? next : p)) : [...saved, next]);
    return this.providers();
  }

  async removeProvider(id: string): Promise<LlmProvider[]> {
    const saved = this.store.getSetting<SavedProvider[]>(KEYS.providers) ?? [];
    if (!saved.some((p) => p.id === id)) throw new ServiceError('not-found', `No saved provider ${id}.`);
    await this.vault.remove(providerKey(id)).catch(() => undefined);
    this.store.setSetting(KEYS.providers, saved.filter((p) => p.id !== id));
    return this.providers();
  }

  async update(input: CallInput<'settings:update'>): Promise<ProviderSettings> {
    if (input.apiKey !== undefined) {
      try {
        if (input.apiKey === '') await this.vault.remove(KNOWN_SECRETS.llmApiKey);
        else await this.vault.set(KNOWN_SECRETS.llmApiKey, input.apiKey);
      } catch (error) {
        if (error instanceof VaultUnavailable) throw new ServiceError('unavailable', error.message);
        throw error;
      }
    }
    if (input.model !== undefined) this.store.setSetting(KEYS.model, input.model);
    if (input.baseUrl !== undefined) this.store.setSetting(KEYS.baseUrl, input.baseUrl);
    if (input.maxSteps !== undefined) this.store.setSetting(KEYS.maxSteps, input.maxSteps);
    if (input.actionTimeoutSeconds !== undefined) this.store.setSetting(KEYS.actionTimeoutSeconds, input.actionTimeoutSeconds);
    if (input.gatewayMaxResponseMiB !== undefined) this.store.setSetting(LIMIT_SETTINGS.responseBytes, input.gatewayMaxResponseMiB);
    if (input.gatewayTaskMiB !== undefined) this.store.setSetting(LIMIT_SETTINGS.taskBytes, input.gatewayTaskMiB);
    if (input.packageFetching !== undefined) this.store.setSetting(KEYS.packageFetching, input.packageFetching);
    if (input.packagesAllowed !== undefined) this.store.setSetting(KEYS.packagesAllowed, input.packagesAllowed);
    if (input.pipIndexUrl !== undefined) this.store.setSetting(KEYS.pipIndexUrl, input.pipIndexUrl);
    if (input.npmRegistryUrl !== undefined) this.store.setSetting(KEYS.npmRegistryUrl, input.npmRegistryUrl);
    if (input.protocol !== undefined) this.store.setSetting('agent.protocol', input.protocol);
    if (input.budget !== undefined) {
      if (input.budget !== null && !parseBudget(input.budget)) throw new ServiceError('invalid-input', `The budget ${input.budget} is neither tokens (50000, 50k) nor dollars ($0.50).`);
      this.store.setSetting('agent.budget', input.budget);
    }
    if (input.prices !== undefined) {
      const saved = { ...(this.store.getSetting<Record<string, ModelPrice>>('agent.prices') ?? {}) };
      for (const [model, price] of Object.entries(input.prices)) {
        if (price === null) delete saved[model];
        else saved[model] = price;
      }
      this.store.setSetting('agent.prices', saved);
    }
    for (const [model, tokens] of Object.entries(input.contextWindows ?? {})) this.store.setSetting(`agent.contextWindow.${model}`, tokens);
    return this.get();
  }

  maxSteps(): number {
    return this.store.getSetting<number>(KEYS.maxSteps) ?? DEFAULT_MAX_STEPS;
  }

  /** The context window the person set for this model (setting "agent.contextWindow.MODEL"), or null. */
  contextWindow(model: string): number | null {
    return this.store.getSetting<number>(`agent.contextWindow.${model}`) ?? null;
  }

  /** Prices per model (USD per 1M tokens): the built-in table with the person's entries over it (setting "agent.prices"). */
  prices(): Record<string, ModelPrice> {
    return { ...BUILT_IN_PRICES, ...(this.store.getSetting<Record<string, ModelPrice>>('agent.prices') ?? {}) };
  }

  /** The per-task budget when a run gives none (setting "agent.budget", written as for --budget), or null. */
  budget(): Budget | null {
    const saved = this.store.getSetting<string>('agent.budget');
    return saved ? parseBudget(saved) : null;
  }

  /** How the model acts: fenced code in its reply (default), the run_code tool, or auto (tools when the provider takes them); POSTHOC_PROTOCOL wins over setting "agent.protocol". */
  protocol(): LlmProtocol {
    const value = nonEmpty(this.env.POSTHOC_PROTOCOL) ?? this.store.getSetting<string>('agent.protocol');
    return value === 'tools' || value === 'auto' ? value : 'fenced';
  }

  actionTimeoutSeconds(): number {
    return this.store.getSetting<number>(KEYS.actionTimeoutSeconds) ?? DEFAULT_ACTION_TIMEOUT_SECONDS;
  }

  /**
   * The gateway's caps (one response; what a task's calls hold at once), in MiB: the environment
   * (POSTHOC_GATEWAY_MAX_RESPONSE_MIB, POSTHOC_GATEWAY_TASK_MIB) wins over saved settings, then the defaults.
   */
  gatewayLimits(): GatewayLimits {
    return resolveLimits(this.env, (key) => this.store.getSetting<number>(key));
  }

  /**
   * What the gateway's package routes may fetch and from where, read at each request: the environment's
   * POSTHOC_PIP_INDEX_URL / POSTHOC_NPM_REGISTRY_URL win over saved upstreams, then PyPI and npm's registry.
   */
  packagePolicy(): PackagePolicy {
    const s = this.packageSettings();
    return { fetching: s.fetching, allowed: s.allowed, pipIndexUrl: s.pipIndexUrl, npmRegistryUrl: s.npmRegistryUrl, indexMaxAgeMs: DEFAULT_INDEX_MAX_AGE_MS };
  }

  private packageSettings(): NonNullable<ProviderSettings['packages']> {
    const upstream = (envName: string, key: string, fallback: string) => {
      const fromEnv = nonEmpty(this.env[envName]);
      const saved = this.store.getSetting<string | null>(key) ?? null;
      return fromEnv ? { url: fromEnv, source: 'env' as const } : saved ? { url: saved, source: 'settings' as const } : { url: fallback, source: 'default' as const };
    };
    const pip = upstream(PACKAGE_ENV.pipIndexUrl, KEYS.pipIndexUrl, DEFAULT_PIP_INDEX_URL);
    const npm = upstream(PACKAGE_ENV.npmRegistryUrl, KEYS.npmRegistryUrl, DEFAULT_NPM_REGISTRY_URL);
    return {
      fetching: this.store.getSetting<'on' | 'off' | 'allowed'>(KEYS.packageFetching) ?? 'on',
      allowed: this.store.getSetting<string[]>(KEYS.packagesAllowed) ?? [],
      pipIndexUrl: pip.url,
      npmRegistryUrl: npm.url,
      sources: { pipIndexUrl: pip.source, npmRegistryUrl: npm.source },
    };
  }

  /** The provider configuration for a run; the key stays in the main process. */
  async llmConfig(override: { model?: string; provider?: string | null; requireModel?: boolean } = {}): Promise<LlmConfig> {
    const requireModel = override.requireModel ?? true;
    if (override.provider && override.provider !== DEFAULT_PROVIDER) return this.savedProviderConfig(override.provider, override.model, requireModel);
    const s = await this.get();
    const model = override.model ?? s.model ?? (requireModel ? null : '');
    if (model === null) {
      throw new ServiceError(
        'unavailable',
        'No model is configured. Set POSTHOC_MODEL (and OPENAI_BASE_URL for a local server such as Ollama, LM Studio or vLLM), pass --model, or choose one in Settings.',
      );
    }
    let apiKey = nonEmpty(this.env.OPENAI_API_KEY) ?? null;
    if (!apiKey && s.sources.apiKey === 'vault') apiKey = await this.vault.get(KNOWN_SECRETS.llmApiKey);
    if (!apiKey && !s.baseUrl) {
      throw new ServiceError(
        'unavailable',
        'No API key for the OpenAI API. Set OPENAI_API_KEY, save a key in Settings (kept in the OS keychain), or set OPENAI_BASE_URL to a local OpenAI-compatible server.',
      );
    }
    return { apiKey: apiKey ?? PLACEHOLDER_KEY, baseUrl: s.baseUrl, model, stream: this.env.POSTHOC_STREAM !== '0', protocol: this.protocol() };
  }

  private async savedProviderConfig(id: string, modelOverride: string | undefined, requireModel: boolean): Promise<LlmConfig> {
    const provider = (this.store.getSetting<SavedProvider[]>(KEYS.providers) ?? []).find((p) => p.id === id);
    if (!provider) throw new ServiceError('not-found', `No saved provider ${id}. Add it in Settings, or leave it out to use the default provider.`);
    // Model names differ between providers: a saved provider's model is its own, never the default one's.
    const model = modelOverride ?? provider.model ?? (requireModel ? undefined : '');
    if (model === undefined) throw new ServiceError('unavailable', `No model is set for provider ${provider.name}. Choose one in Settings (Test connection lists them), or pass --model.`);
    let apiKey: string | null = null;
    try {
      apiKey = await this.vault.get(providerKey(id));
    } catch (error) {
      if (error instanceof VaultUnavailable) throw new ServiceError('unavailable', error.message);
      throw error;
    }
    // Its gallery entry says how to talk to it (OpenAI's API or Anthropic's) and where its keys are made.
    const entry = catalogProvider(provider.catalog);
    if (!apiKey && entry?.needsKey) {
      throw new ServiceError('unavailable', `Provider ${provider.name} has no key. Get one at ${entry.keyUrl} and save it for this provider in Settings → Model providers.`);
    }
    if (!apiKey && !provider.baseUrl) {
      throw new ServiceError('unavailable', `Provider ${provider.name} is the OpenAI API but has no key. Save its key in Settings.`);
    }
    return {
      apiKey: apiKey ?? PLACEHOLDER_KEY,
      baseUrl: provider.baseUrl,
      model,
      stream: this.env.POSTHOC_STREAM !== '0',
      protocol: this.protocol(),
      api: entry?.api ?? 'openai',
      providerName: provider.name,
      ...(entry?.needsKey ? { keyUrl: entry.keyUrl } : {}),
    };
  }

  private async vaultHasKey(): Promise<boolean> {
    try {
      return await this.vault.has(KNOWN_SECRETS.llmApiKey);
    } catch {
      return false;
    }
  }
}

function toMiB(bytes: number): number {
  return Math.round((bytes / (1024 * 1024)) * 100) / 100;
}

/** `catalog`: its entry in the gallery (shared/providers/catalog.ts); absent on providers saved before the gallery. */
type SavedProvider = { id: string; name: string; baseUrl: string | null; model: string | null; catalog?: string | null };

/** The provider set with base URL, model and key in Settings (and the environment). */
export const DEFAULT_PROVIDER = 'default';

const providerKey = (id: string) => `${KNOWN_SECRETS.llmApiKey}:${id}`;

function providerId(name: string, saved: SavedProvider[]): string {
  const base = name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'provider';
  let id = base;
  if (base === DEFAULT_PROVIDER) throw new ServiceError('invalid-input', `"${DEFAULT_PROVIDER}" names the provider set above (base URL, model, key); give this one another name.`);
  for (let n = 2; saved.some((p) => p.id === id); n++) id = `${base}-${n}`;
  return id;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() ? value.trim() : undefined;
}
