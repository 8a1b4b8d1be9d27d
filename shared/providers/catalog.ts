// The model providers people bring, as data: the one place that says where each provider answers, which
// protocol it speaks, where a person gets a key, and what its well-known models hold (context window) and
// cost (US dollars per 1M tokens, standard tier, uncached input, the shortest-prompt tier where a
// provider prices by prompt length). Settings' gallery, the price table and the context budget read it.
//
// Prices are the published list prices on each provider's own pricing page (`pricing.url`) as they were
// known around `pricing.asOf`. They were written down where that page could not be reached (no network on
// the machine they were entered on), so they are not yet checked against the page itself: check each
// against `pricing.url` before relying on it. Nothing is fetched at run time. A provider changes its prices
// without notice: when one changes, change the figure and the date together. The person's own entries in Settings win over these.
// Local servers (Ollama, LM Studio) cost nothing per token: their price is 0, cited as such.

/** How Posthoc talks to it: the OpenAI Chat Completions API, or Anthropic's native Messages API. */
export type ProviderApi = 'openai' | 'anthropic';

export type CatalogModel = {
  id: string;
  /** Tokens of prompt and reply together. */
  contextWindow: number;
  promptPerMTok: number;
  completionPerMTok: number;
};

export type CatalogProvider = {
  id: string;
  name: string;
  api: ProviderApi;
  /** Where its API answers (null for "any OpenAI-compatible URL": the person gives it). */
  baseUrl: string | null;
  /** Where the person gets a key (or, for a local server, the program). */
  keyUrl: string;
  needsKey: boolean;
  local: boolean;
  /** One line for the gallery: what it is. */
  blurb: string;
  /** Where the prices below come from, and the day they were read there. */
  pricing: { url: string; asOf: string };
  models: readonly CatalogModel[];
};

const m = (id: string, contextWindow: number, promptPerMTok: number, completionPerMTok: number): CatalogModel => ({ id, contextWindow, promptPerMTok, completionPerMTok });

export const PROVIDER_CATALOG: readonly CatalogProvider[] = [
  {
    id: 'openai',
    name: 'OpenAI',
    api: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    keyUrl: 'https://platform.openai.com/api-keys',
    needsKey: true,
    local: false,
    blurb: 'GPT-5, GPT-4.1, GPT-4o and the o-series.',
    pricing: { url: 'https://platform.openai.com/docs/pricing', asOf: '2025-10-01' },
    models: [
      m('gpt-5', 400_000, 1.25, 10),
      m('gpt-5-mini', 400_000, 0.25, 2),
      m('gpt-5-nano', 400_000, 0.05, 0.4),
      m('gpt-4.1', 1_047_576, 2, 8),
      m('gpt-4.1-mini', 1_047_576, 0.4, 1.6),
      m('gpt-4.1-nano', 1_047_576, 0.1, 0.4),
      m('gpt-4o', 128_000, 2.5, 10),
      m('gpt-4o-mini', 128_000, 0.15, 0.6),
      m('o3', 200_000, 2, 8),
      m('o3-mini', 200_000, 1.1, 4.4),
      m('o4-mini', 200_000, 1.1, 4.4),
    ],
  },
  {
    id: 'anthropic',
    name: 'Anthropic',
    api: 'anthropic',
    baseUrl: 'https://api.anthropic.com',
    keyUrl: 'https://console.anthropic.com/settings/keys',
    needsKey: true,
    local: false,
    blurb: 'Claude, through Anthropic’s own Messages API.',
    pricing: { url: 'https://docs.anthropic.com/en/docs/about-claude/pricing', asOf: '2025-11-25' },
    models: [
      m('claude-opus-4-5', 200_000, 5, 25),
      m('claude-sonnet-4-5', 200_000, 3, 15),
      m('claude-haiku-4-5', 200_000, 1, 5),
      m('claude-opus-4-1', 200_000, 15, 75),
      m('claude-sonnet-4-0', 200_000, 3, 15),
      m('claude-3-5-haiku-latest', 200_000, 0.8, 4),
    ],
  },
  {
    id: 'gemini',
    name: 'Google Gemini',
    api: 'openai',
    // Gemini's OpenAI-compatible endpoint: chat completions with streaming, usage and tools, and /models.
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
    keyUrl: 'https://aistudio.google.com/apikey',
    needsKey: true,
    local: false,
    blurb: 'Gemini 2.5 through Google’s OpenAI-compatible endpoint.',
    pricing: { url: 'https://ai.google.dev/gemini-api/docs/pricing', asOf: '2025-10-01' },
    models: [
      m('gemini-2.5-pro', 1_048_576, 1.25, 10),
      m('gemini-2.5-flash', 1_048_576, 0.3, 2.5),
      m('gemini-2.5-flash-lite', 1_048_576, 0.1, 0.4),
      m('gemini-2.0-flash', 1_048_576, 0.1, 0.4),
    ],
  },
  {
    id: 'openrouter',
    name: 'OpenRouter',
    api: 'openai',
    baseUrl: 'https://openrouter.ai/api/v1',
    keyUrl: 'https://openrouter.ai/settings/keys',
    needsKey: true,
    local: false,
    blurb: 'Hundreds of models from many providers behind one key.',
    pricing: { url: 'https://openrouter.ai/models', asOf: '2025-10-01' },
    models: [
      m('anthropic/claude-sonnet-4.5', 200_000, 3, 15),
      m('openai/gpt-4o-mini', 128_000, 0.15, 0.6),
      m('google/gemini-2.5-flash', 1_048_576, 0.3, 2.5),
    ],
  },
  {
    id: 'groq',
    name: 'Groq',
    api: 'openai',
    baseUrl: 'https://api.groq.com/openai/v1',
    keyUrl: 'https://console.groq.com/keys',
    needsKey: true,
    local: false,
    blurb: 'Open models (Llama, gpt-oss) served fast.',
    pricing: { url: 'https://groq.com/pricing', asOf: '2025-10-01' },
    models: [m('llama-3.3-70b-versatile', 131_072, 0.59, 0.79), m('llama-3.1-8b-instant', 131_072, 0.05, 0.08), m('openai/gpt-oss-120b', 131_072, 0.15, 0.75)],
  },
  {
    id: 'deepseek',
    name: 'DeepSeek',
    api: 'openai',
    baseUrl: 'https://api.deepseek.com/v1',
    keyUrl: 'https://platform.deepseek.com/api_keys',
    needsKey: true,
    local: false,
    blurb: 'DeepSeek-V3.2 chat and reasoner.',
    pricing: { url: 'https://api-docs.deepseek.com/quick_start/pricing', asOf: '2025-10-01' },
    models: [m('deepseek-chat', 131_072, 0.28, 0.42), m('deepseek-reasoner', 131_072, 0.28, 0.42)],
  },
  {
    id: 'mistral',
    name: 'Mistral',
    api: 'openai',
    baseUrl: 'https://api.mistral.ai/v1',
    keyUrl: 'https://console.mistral.ai/api-keys',
    needsKey: true,
    local: false,
    blurb: 'Mistral Large, Medium, Small and Codestral.',
    pricing: { url: 'https://mistral.ai/pricing#api-pricing', asOf: '2025-10-01' },
    models: [
      m('mistral-large-latest', 131_072, 2, 6),
      m('mistral-medium-latest', 131_072, 0.4, 2),
      m('mistral-small-latest', 131_072, 0.1, 0.3),
      m('codestral-latest', 256_000, 0.3, 0.9),
    ],
  },
  {
    id: 'ollama',
    name: 'Ollama',
    api: 'openai',
    baseUrl: 'http://localhost:11434/v1',
    keyUrl: 'https://ollama.com/download',
    needsKey: false,
    local: true,
    blurb: 'Models on this computer (ollama serve); no key, no cost per token.',
    pricing: { url: 'https://ollama.com/download', asOf: '2025-10-01' },
    models: [],
  },
  {
    id: 'lm-studio',
    name: 'LM Studio',
    api: 'openai',
    baseUrl: 'http://localhost:1234/v1',
    keyUrl: 'https://lmstudio.ai/download',
    needsKey: false,
    local: true,
    blurb: 'Models on this computer (LM Studio’s server); no key, no cost per token.',
    pricing: { url: 'https://lmstudio.ai/download', asOf: '2025-10-01' },
    models: [],
  },
  {
    id: 'openai-compatible',
    name: 'Any OpenAI-compatible URL',
    api: 'openai',
    baseUrl: null,
    keyUrl: 'https://platform.openai.com/docs/api-reference/chat',
    needsKey: false,
    local: false,
    blurb: 'vLLM, llama.cpp, LiteLLM, a company gateway: give its base URL (and a key if it asks for one).',
    pricing: { url: 'https://platform.openai.com/docs/api-reference/chat', asOf: '2025-10-01' },
    models: [],
  },
];

export function catalogProvider(id: string | null | undefined): CatalogProvider | null {
  return PROVIDER_CATALOG.find((p) => p.id === id) ?? null;
}

/**
 * A model's name as the table keys it: a provider's model list may prefix it ("models/gemini-2.5-flash") or
 * give a dated snapshot ("gpt-4o-2024-08-06", "claude-sonnet-4-5-20250929"), which takes its base model's entry.
 */
export function undatedModel(model: string): string {
  return model.replace(/^models\//, '').replace(/-(\d{4}-\d{2}-\d{2}|\d{8})$/, '');
}

/** A model's entry, looked up in one provider (when given) or in all of them (the first that has it). */
export function catalogModel(model: string, providerId?: string | null): CatalogModel | null {
  const providers = providerId ? PROVIDER_CATALOG.filter((p) => p.id === providerId) : PROVIDER_CATALOG;
  for (const name of [model, undatedModel(model)]) {
    for (const p of providers) {
      const found = p.models.find((x) => x.id === name);
      if (found) return found;
    }
  }
  return null;
}

/** Every priced model of every provider, by id (the first provider's entry when two share a name). */
export function catalogPrices(): Record<string, { promptPerMTok: number; completionPerMTok: number }> {
  const out: Record<string, { promptPerMTok: number; completionPerMTok: number }> = {};
  for (const p of PROVIDER_CATALOG) {
    for (const x of p.models) if (!Object.hasOwn(out, x.id)) out[x.id] = { promptPerMTok: x.promptPerMTok, completionPerMTok: x.completionPerMTok };
  }
  return out;
}

/** "200k", "1M", "131k": a context window in few characters. */
export function formatWindow(tokens: number): string {
  if (tokens >= 1_000_000) return `${Math.round(tokens / 100_000) / 10}M`;
  return `${Math.round(tokens / 1000)}k`;
}
