// Every setting Posthoc keeps, declared once: its key on disk, what it may be, its default, the environment
// variable that wins over it and where it shows. Adding one is adding an entry here (and its field, if it
// shows: an entry with `ui` shows in its section by itself). Read in main with `settings.value(NAME)`
// (main/services/settings-service.ts), written through settings:update's field NAME, shown by settings:get's
// `values.NAME` with its source. docs/ARCHITECTURE.md, "Settings".
//
// Maps keyed by model (prices, context windows) are declared the same way with defineEntriesSetting: written
// entry by entry, the person's entries over the built-in ones.
//
// Not here: the model provider's API key (the OS keychain) and saved providers (a list whose keys live in the
// vault, with its own add, change and remove: settings-service.ts).
import { z } from 'zod';
import { ModelPrice, parseBudget } from '../domain/budget';
import { catalogPrices } from '../providers/catalog';
import { defineEntriesSetting, defineSetting, settingsInputShape, settingsViewSchema, type SettingValue } from './declare';

export * from './declare';

export const DEFAULT_PIP_INDEX_URL = 'https://pypi.org/simple';
export const DEFAULT_NPM_REGISTRY_URL = 'https://registry.npmjs.org';

/** The text of the variable as written (a URL or a model's name is not checked here: the request that uses it says what is wrong). */
const asWritten = (text: string) => text;
/** A positive number of MiB; anything else is ignored. */
const positiveNumber = (text: string) => {
  const n = Number(text);
  return Number.isFinite(n) && n > 0 ? n : undefined;
};

export const SETTINGS = {
  /** The default provider's model (saved providers keep their own). */
  model: defineSetting({ key: 'provider.model', schema: z.string().trim().min(1).nullable(), default: null, env: 'POSTHOC_MODEL', fromEnv: asWritten }),
  /** The default provider's OpenAI-compatible base URL; null: the OpenAI API. */
  baseUrl: defineSetting({ key: 'provider.baseUrl', schema: z.url().nullable(), default: null, env: 'OPENAI_BASE_URL', fromEnv: asWritten }),
  maxSteps: defineSetting({
    key: 'agent.maxSteps',
    schema: z.number().int().min(1).max(200),
    default: 20,
    ui: { section: 'limits', label: 'Max steps', hint: 'Model replies per task turn before the agent stops.', testId: 'settings-max-steps' },
  }),
  actionTimeoutSeconds: defineSetting({
    key: 'agent.actionTimeoutSeconds',
    schema: z.number().int().min(1).max(3600),
    default: 120,
    ui: { section: 'limits', label: 'Action timeout (seconds)', noun: 'Action timeout', hint: 'Each code block is stopped after this long.', testId: 'settings-action-timeout' },
  }),
  /** How the model acts: fenced code (default), the run_code tool, or auto. An unknown POSTHOC_PROTOCOL means fenced. */
  protocol: defineSetting({
    key: 'agent.protocol',
    schema: z.enum(['fenced', 'tools', 'auto']),
    default: 'fenced',
    env: 'POSTHOC_PROTOCOL',
    fromEnv: (text) => (text === 'tools' || text === 'auto' ? text : 'fenced'),
  }),
  /** The default per-task budget as --budget takes it ("50000", "$0.50"); null: none. */
  budget: defineSetting({
    key: 'agent.budget',
    schema: z
      .string()
      .trim()
      .min(1)
      .max(40)
      .refine((text) => parseBudget(text) !== null, { error: (issue) => `The budget ${String(issue.input)} is neither tokens (50000, 50k) nor dollars ($0.50).` })
      .nullable(),
    default: null,
  }),
  /** The gateway's caps in MiB: one response, and the bodies a task's calls hold at once. */
  gatewayMaxResponseMiB: defineSetting({ key: 'gateway.maxResponseMiB', schema: z.number().positive().max(16384), default: 64, env: 'POSTHOC_GATEWAY_MAX_RESPONSE_MIB', fromEnv: positiveNumber }),
  gatewayTaskMiB: defineSetting({ key: 'gateway.taskMiB', schema: z.number().positive().max(65536), default: 128, env: 'POSTHOC_GATEWAY_TASK_MIB', fromEnv: positiveNumber }),
  /** Packages through the gateway: on, off, or only the names in packagesAllowed ("x", "pip:x", "npm:x"). */
  packageFetching: defineSetting({ key: 'packages.fetching', schema: z.enum(['on', 'off', 'allowed']), default: 'on' }),
  packagesAllowed: defineSetting({ key: 'packages.allowed', schema: z.array(z.string().trim().min(1).max(220)).max(1000), default: [] }),
  /** Upstreams (null writes the default back); the environment's wins. */
  pipIndexUrl: defineSetting({ key: 'packages.pipIndexUrl', schema: z.url().nullable(), default: DEFAULT_PIP_INDEX_URL, env: 'POSTHOC_PIP_INDEX_URL', fromEnv: asWritten }),
  /** Prices per model (USD per 1M tokens): the gallery's list prices (shared/providers/catalog.ts), the person's over them. */
  prices: defineEntriesSetting({ key: 'agent.prices', entry: ModelPrice, builtIn: catalogPrices() }),
  /** Context windows per model, in tokens (a run's --context-window wins; then this; then the provider's /models; then the gallery's). */
  contextWindows: defineEntriesSetting({ key: 'agent.contextWindows', entry: z.number().int().min(2048).max(10_000_000) }),
  npmRegistryUrl: defineSetting({ key: 'packages.npmRegistryUrl', schema: z.url().nullable(), default: DEFAULT_NPM_REGISTRY_URL, env: 'POSTHOC_NPM_REGISTRY_URL', fromEnv: asWritten }),
};

export type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
export type SettingValues = { [K in SettingName]: SettingValue<Settings[K]> };

/** settings:update's fields for the declared settings. */
export const SETTINGS_INPUT = settingsInputShape(SETTINGS);
/** settings:get's `values`: each declared setting's value and source. */
export const SettingsValues = settingsViewSchema(SETTINGS);
export type SettingsValues = z.infer<typeof SettingsValues>;
