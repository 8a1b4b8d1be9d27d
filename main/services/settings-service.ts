// Provider and agent settings. The model provider comes from the environment (the openai SDK's own
// OPENAI_API_KEY and OPENAI_BASE_URL, plus POSTHOC_MODEL) or from settings, the key then from the vault.
// The environment wins, so one launch can point elsewhere without touching saved settings.
import type { CallInput } from '../../shared/contract';
import type { ProviderSettings } from '../../shared/domain';
import type { LlmConfig, LlmProtocol } from '../agent/llm-client';
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
    return {
      model,
      baseUrl,
      apiKeySet,
      sources: {
        model: envModel ? 'env' : savedModel ? 'settings' : 'none',
        baseUrl: envBase ? 'env' : savedBase ? 'settings' : 'none',
        apiKey: envKey ? 'env' : vaultKey ? 'vault' : 'none',
      },
      configured: Boolean(model) && (apiKeySet || Boolean(baseUrl)),
      maxSteps: this.maxSteps(),
      actionTimeoutSeconds: this.actionTimeoutSeconds(),
      gateway: { maxResponseMiB: toMiB(limits.responseBytes), taskMiB: toMiB(limits.taskBytes) },
      packages: this.packageSettings(),
    };
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
  async llmConfig(override: { model?: string } = {}): Promise<LlmConfig> {
    const s = await this.get();
    const model = override.model ?? s.model;
    if (!model) {
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

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() ? value.trim() : undefined;
}
