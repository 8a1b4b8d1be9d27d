// Provider and agent settings. Every setting declared in shared/settings (the model and base URL, the agent's
// limits, the gateway's caps, packages, protocol, budget) is read and written generically through
// DeclaredSettings, the prices and context windows keyed by model among them; what is here by hand is what
// is not a declared value: the API keys (the vault) and saved providers (a list whose keys live in the vault). The model provider comes from the environment (the openai
// SDK's own OPENAI_API_KEY and OPENAI_BASE_URL, plus POSTHOC_MODEL) or from settings, the key then from the
// vault. The environment wins, so one launch can point elsewhere without touching saved settings.
import type { CallInput } from '../../shared/contract';
import type { LlmProvider, ProviderSettings } from '../../shared/domain';
import { DEFAULT_NPM_REGISTRY_URL, DEFAULT_PIP_INDEX_URL, SETTINGS, type SettingName, type Settings, type SettingValue } from '../../shared/settings';
import type { LlmConfig, LlmProtocol } from '../agent/llm-client';
import { catalogProvider } from '../../shared/providers/catalog';
import { parseBudget, type Budget, type ModelPrice } from '../agent/usage';
import type { GatewayLimits } from '../gateway/gateway-limits';
import { DEFAULT_INDEX_MAX_AGE_MS, type PackagePolicy } from '../gateway/packages/package-policy';
import type { TaskStore } from '../store/task-store';
import { KNOWN_SECRETS, VaultUnavailable, type Vault } from '../vault/vault';
import { DeclaredSettings } from './declared-settings';
import { ServiceError } from './service-error';

const PROVIDERS_KEY = 'providers';

/** Local servers (Ollama, LM Studio, vLLM) take any key; the SDK insists on one. */
const PLACEHOLDER_KEY = 'posthoc-no-key';
const MIB = 1024 * 1024;

export class SettingsService {
  /** The declared settings (shared/settings), read and written generically. */
  private readonly declared: DeclaredSettings<typeof SETTINGS>;

  constructor(
    private readonly store: TaskStore,
    private readonly vault: Vault,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.declared = new DeclaredSettings(SETTINGS, store, env);
  }

  /** A declared setting's value now (the environment wins, then the saved value, then its default). */
  value<K extends SettingName>(name: K): SettingValue<Settings[K]> {
    return this.declared.value(name);
  }

  async get(): Promise<ProviderSettings> {
    const values = this.declared.view();
    const envKey = nonEmpty(this.env.OPENAI_API_KEY);
    const vaultKey = envKey ? false : await this.vaultHasKey();
    const model = values.model.value;
    const baseUrl = values.baseUrl.value;
    const apiKeySet = Boolean(envKey) || vaultKey;
    const providers = await this.providers();
    // A saved provider with its model (and its key, where its gallery entry needs one) is enough to start: the
    // new-task form then chooses it when the default one is not set up.
    const ready = providers.some((p) => p.model !== null && (p.apiKeySet || !catalogProvider(p.catalog)?.needsKey));
    const noneIfDefault = (source: 'env' | 'settings' | 'default') => (source === 'default' ? 'none' : source);
    return {
      model,
      baseUrl,
      apiKeySet,
      sources: {
        model: noneIfDefault(values.model.source),
        baseUrl: noneIfDefault(values.baseUrl.source),
        apiKey: envKey ? 'env' : vaultKey ? 'vault' : 'none',
      },
      configured: (Boolean(model) && (apiKeySet || Boolean(baseUrl))) || ready,
      values,
      providers,
    };
  }

  /** Saved providers besides the default one (setting "providers"); each one's key is the vault entry llm-api-key:ID. */
  async providers(): Promise<LlmProvider[]> {
    const saved = this.store.getSetting<SavedProvider[]>(PROVIDERS_KEY) ?? [];
    return Promise.all(saved.map(async (p) => ({ ...p, catalog: p.catalog ?? null, apiKeySet: await this.vault.has(providerKey(p.id)).catch(() => false) })));
  }

  /** Adds a provider, or changes one (by id); an apiKey goes to the vault ("" removes it). */
  async saveProvider(input: { id?: string; name: string; baseUrl: string | null; model?: string | null; apiKey?: string; catalog?: string | null }): Promise<LlmProvider[]> {
    const saved = this.store.getSetting<SavedProvider[]>(PROVIDERS_KEY) ?? [];
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
    this.store.setSetting(PROVIDERS_KEY, existing ? saved.map((p) => (p.id === id ? next : p)) : [...saved, next]);
    return this.providers();
  }

  async removeProvider(id: string): Promise<LlmProvider[]> {
    const saved = this.store.getSetting<SavedProvider[]>(PROVIDERS_KEY) ?? [];
    if (!saved.some((p) => p.id === id)) throw new ServiceError('not-found', `No saved provider ${id}.`);
    await this.vault.remove(providerKey(id)).catch(() => undefined);
    this.store.setSetting(PROVIDERS_KEY, saved.filter((p) => p.id !== id));
    return this.providers();
  }

  async update(input: CallInput<'settings:update'>): Promise<ProviderSettings> {
    const { apiKey, ...declared } = input;
    // Checked before the key goes to the vault, so a refused value changes nothing.
    this.declared.check(declared);
    if (apiKey !== undefined) {
      try {
        if (apiKey === '') await this.vault.remove(KNOWN_SECRETS.llmApiKey);
        else await this.vault.set(KNOWN_SECRETS.llmApiKey, apiKey);
      } catch (error) {
        if (error instanceof VaultUnavailable) throw new ServiceError('unavailable', error.message);
        throw error;
      }
    }
    // Every declared setting the input names, checked first and written together (shared/settings).
    this.declared.write(declared);
    return this.get();
  }

  maxSteps(): number {
    return this.value('maxSteps');
  }

  /** The context window the person set for this model (declared setting contextWindows), or null. */
  contextWindow(model: string): number | null {
    return this.value('contextWindows')[model] ?? null;
  }

  /** Prices per model (USD per 1M tokens): the built-in table with the person's entries over it (declared setting prices). */
  prices(): Record<string, ModelPrice> {
    return this.value('prices');
  }

  /** The per-task budget when a run gives none (setting "budget", written as for --budget), or null. */
  budget(): Budget | null {
    const saved = this.value('budget');
    return saved ? parseBudget(saved) : null;
  }

  /** How the model acts: fenced code in its reply (default), the run_code tool, or auto (tools when the provider takes them); POSTHOC_PROTOCOL wins. */
  protocol(): LlmProtocol {
    return this.value('protocol');
  }

  actionTimeoutSeconds(): number {
    return this.value('actionTimeoutSeconds');
  }

  /** The gateway's caps (one response; what a task's calls hold at once), declared in MiB; the environment wins. */
  gatewayLimits(): GatewayLimits {
    return { responseBytes: Math.round(this.value('gatewayMaxResponseMiB') * MIB), taskBytes: Math.round(this.value('gatewayTaskMiB') * MIB) };
  }

  /** What the gateway's package routes may fetch and from where, read at each request (the environment's upstreams win). */
  packagePolicy(): PackagePolicy {
    return {
      fetching: this.value('packageFetching'),
      allowed: this.value('packagesAllowed'),
      pipIndexUrl: this.value('pipIndexUrl') ?? DEFAULT_PIP_INDEX_URL,
      npmRegistryUrl: this.value('npmRegistryUrl') ?? DEFAULT_NPM_REGISTRY_URL,
      indexMaxAgeMs: DEFAULT_INDEX_MAX_AGE_MS,
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
    const provider = (this.store.getSetting<SavedProvider[]>(PROVIDERS_KEY) ?? []).find((p) => p.id === id);
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
