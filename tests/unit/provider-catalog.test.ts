// The provider gallery's one data file: every provider has where it answers, where its key is made, which
// API it speaks, and prices that say where they come from and when; the price table and the context budget
// read it; usage the provider did not report is estimated, marked so, and the calls still count.
import { describe, expect, it } from 'vitest';
import { estimatedUsage, addUsage } from '../../main/agent/llm-client';
import { estimateRequestTokens, estimateTokens } from '../../main/agent/token-estimate';
import { BUILT_IN_PRICES, formatUsage, priceOf, priced } from '../../main/agent/usage';
import { sumUsage } from '../../main/store/task-store';
import { modelLabel } from '../../renderer/src/components/provider-gallery';
import { formatUsage as formatUsageOnScreen } from '../../renderer/src/components/usage-line';
import { catalogModel, catalogProvider, formatWindow, PROVIDER_CATALOG, undatedModel } from '../../shared/providers/catalog';

describe('the provider catalog', () => {
  it('holds the providers people bring, each once', () => {
    expect(PROVIDER_CATALOG.map((p) => p.name)).toEqual([
      'OpenAI',
      'Anthropic',
      'Google Gemini',
      'OpenRouter',
      'Groq',
      'DeepSeek',
      'Mistral',
      'Ollama',
      'LM Studio',
      'Any OpenAI-compatible URL',
    ]);
    expect(new Set(PROVIDER_CATALOG.map((p) => p.id)).size).toBe(PROVIDER_CATALOG.length);
  });

  it.each(PROVIDER_CATALOG.map((p) => [p.name, p] as const))('%s: base URL, key link, API and cited prices', (_name, p) => {
    if (p.id === 'openai-compatible') expect(p.baseUrl).toBeNull();
    else expect(new URL(p.baseUrl!).protocol).toBe(p.local ? 'http:' : 'https:');
    if (p.local) expect(new URL(p.baseUrl!).hostname).toBe('localhost');
    const key = new URL(p.keyUrl);
    expect(key.protocol).toBe('https:');
    expect(key.username + key.password).toBe('');
    expect(p.needsKey).toBe(!p.local && p.id !== 'openai-compatible');
    expect(['openai', 'anthropic']).toContain(p.api);
    expect(new URL(p.pricing.url).protocol).toBe('https:');
    expect(p.pricing.asOf).toMatch(/^20\d\d-\d\d-\d\d$/);
    expect(Number.isNaN(Date.parse(p.pricing.asOf))).toBe(false);
    expect(p.blurb.length).toBeGreaterThan(10);
    // A remote provider with a fixed model family lists its well-known models, each with a window and a price.
    if (!p.local && p.id !== 'openai-compatible') expect(p.models.length).toBeGreaterThan(0);
    for (const m of p.models) {
      expect(m.contextWindow).toBeGreaterThanOrEqual(8192);
      expect(m.promptPerMTok).toBeGreaterThan(0);
      expect(m.completionPerMTok).toBeGreaterThanOrEqual(m.promptPerMTok);
    }
    expect(new Set(p.models.map((m) => m.id)).size).toBe(p.models.length);
  });

  it('only Anthropic speaks its own API; Gemini goes through its OpenAI-compatible endpoint', () => {
    expect(PROVIDER_CATALOG.filter((p) => p.api === 'anthropic').map((p) => p.id)).toEqual(['anthropic']);
    expect(catalogProvider('gemini')!.baseUrl).toBe('https://generativelanguage.googleapis.com/v1beta/openai');
    expect(catalogProvider('nope')).toBeNull();
  });

  it('prices every listed model from the table, dated snapshots and prefixed names included', () => {
    for (const p of PROVIDER_CATALOG) for (const m of p.models) expect(priceOf(m.id, BUILT_IN_PRICES)).toEqual({ promptPerMTok: m.promptPerMTok, completionPerMTok: m.completionPerMTok });
    expect(undatedModel('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
    expect(undatedModel('gpt-4o-2024-08-06')).toBe('gpt-4o');
    expect(undatedModel('models/gemini-2.5-pro')).toBe('gemini-2.5-pro');
    expect(priceOf('claude-sonnet-4-5-20250929', BUILT_IN_PRICES)).toEqual({ promptPerMTok: 3, completionPerMTok: 15 });
    expect(priceOf('models/gemini-2.5-flash', BUILT_IN_PRICES)).toEqual({ promptPerMTok: 0.3, completionPerMTok: 2.5 });
    expect(priceOf('qwen2.5-coder:7b', BUILT_IN_PRICES)).toBeNull();
  });

  it('labels the model menu with what the gallery knows: window and price, free for a local server', () => {
    expect(modelLabel('claude-sonnet-4-5-20250929', 'anthropic')).toBe('claude-sonnet-4-5-20250929 · 200k context · $3 / $15 per 1M tokens');
    // Gemini's OpenAI-compatible model list names them models/…
    expect(modelLabel('models/gemini-2.5-flash', 'gemini')).toBe('models/gemini-2.5-flash · 1M context · $0.3 / $2.5 per 1M tokens');
    expect(modelLabel('qwen2.5-coder:7b', 'ollama')).toBe('qwen2.5-coder:7b');
    expect(modelLabel('some-new-model', null)).toBe('some-new-model');
  });

  it('gives context windows to the budget and the menu', () => {
    expect(catalogModel('claude-haiku-4-5-20251001')?.contextWindow).toBe(200_000);
    expect(catalogModel('gemini-2.5-pro', 'gemini')?.contextWindow).toBe(1_048_576);
    expect(catalogModel('gpt-4o', 'anthropic')).toBeNull();
    expect([formatWindow(200_000), formatWindow(1_048_576), formatWindow(131_072)]).toEqual(['200k', '1M', '131k']);
  });
});

describe('usage the provider did not report', () => {
  const request = [
    { role: 'system' as const, content: 'You act by writing code in fenced blocks.' },
    { role: 'user' as const, content: 'Count the files in the folder, please.' },
  ];

  it('is estimated from the request and the reply, one call, marked estimated', () => {
    const usage = estimatedUsage(request, { text: 'There are 3 files.', reasoning: 'Look first.', toolCalls: [] });
    expect(usage).toEqual({
      promptTokens: estimateRequestTokens(request),
      completionTokens: estimateTokens('There are 3 files.') + estimateTokens('Look first.'),
      calls: 1,
      estimated: true,
    });
    expect(usage.promptTokens).toBeGreaterThan(20);
  });

  it('stays marked once summed with reported usage, and its calls count', () => {
    const reported = { promptTokens: 100, completionTokens: 10, calls: 1 };
    const estimate = { promptTokens: 50, completionTokens: 5, calls: 1, estimated: true };
    expect(addUsage(reported, estimate)).toEqual({ promptTokens: 150, completionTokens: 15, calls: 2, estimated: true });
    expect(addUsage(reported, reported)).toEqual({ promptTokens: 200, completionTokens: 20, calls: 2 });
    const task = sumUsage(priced(reported, null), priced(estimate, { promptPerMTok: 1, completionPerMTok: 2 }));
    expect(task).toEqual({ promptTokens: 150, completionTokens: 15, calls: 2, costUsd: null, estimated: true });
  });

  it('says so in the CLI and on screen', () => {
    const usage = { promptTokens: 1234, completionTokens: 56, calls: 2, costUsd: 0.0015, estimated: true };
    expect(formatUsage(usage)).toBe('~1,234 in / ~56 out tokens (estimated: the provider reported no usage) · 2 calls · ~$0.0015');
    expect(formatUsage({ ...usage, estimated: undefined })).toBe('1,234 in / 56 out tokens · 2 calls · $0.0015');
    expect(formatUsageOnScreen(usage)).toBe('≈1,234 in · ≈56 out tokens (estimated) · 2 calls · ≈$0.0015');
    expect(formatUsageOnScreen({ ...usage, estimated: undefined })).toBe('1,234 in · 56 out tokens · 2 calls · $0.0015');
  });
});
