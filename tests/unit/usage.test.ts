// Tokens, prices and budgets (main/agent/usage.ts), and how the app shows them and a retry.
import { describe, expect, it } from 'vitest';
import { BUILT_IN_PRICES, budgetReached, parseBudget, priceOf, priced } from '../../main/agent/usage';
import { retryAfterMs, toolCall } from '../../main/agent/llm-client';
import { formatUsage } from '../../renderer/src/components/usage-line';
import { applyMessageDelta, getEmptyState } from '../../renderer/src/state/tasks-state';

describe('budgets', () => {
  it.each([
    ['50000', { tokens: 50_000 }],
    ['50k', { tokens: 50_000 }],
    ['1.5M', { tokens: 1_500_000 }],
    ['12,000 tokens', { tokens: 12_000 }],
    ['$0.50', { usd: 0.5 }],
    ['0.5$', { usd: 0.5 }],
    ['2 usd', { usd: 2 }],
  ])('reads %s', (text, budget) => expect(parseBudget(text)).toEqual(budget));

  it.each(['', 'lots', '-5', '0', '$0', '$', '5 euros'])('refuses %j', (text) => expect(parseBudget(text)).toBeNull());

  it('stops at the token budget, counting prompt and completion', () => {
    const used = { promptTokens: 900, completionTokens: 99, calls: 3, costUsd: null };
    expect(budgetReached(used, { tokens: 1000 })).toBeNull();
    expect(budgetReached({ ...used, completionTokens: 100 }, { tokens: 1000 })).toMatch(/budget of 1,000 tokens is reached \(1,000 tokens used over 3 model calls\)/);
    expect(budgetReached(used, null)).toBeNull();
  });

  it('stops at the dollar budget, and at once when the model has no price', () => {
    expect(budgetReached({ promptTokens: 1, completionTokens: 1, calls: 1, costUsd: 0.49 }, { usd: 0.5 })).toBeNull();
    expect(budgetReached({ promptTokens: 1, completionTokens: 1, calls: 1, costUsd: 0.5 }, { usd: 0.5 })).toMatch(/budget of \$0\.50 is reached \(\$0\.5000 spent/);
    expect(budgetReached({ promptTokens: 1, completionTokens: 1, calls: 1, costUsd: null }, { usd: 0.5 })).toMatch(/no price/);
    expect(budgetReached({ promptTokens: 0, completionTokens: 0, calls: 0, costUsd: null }, { usd: 0.5 })).toBeNull();
  });
});

describe('prices', () => {
  it('finds a model by its name or its dated snapshot, else none', () => {
    expect(priceOf('gpt-4o-mini', BUILT_IN_PRICES)).toEqual({ promptPerMTok: 0.15, completionPerMTok: 0.6 });
    expect(priceOf('gpt-4o-2024-08-06', BUILT_IN_PRICES)).toEqual(BUILT_IN_PRICES['gpt-4o']);
    expect(priceOf('llama3.1:8b', BUILT_IN_PRICES)).toBeNull();
    expect(priceOf('llama3.1:8b', { ...BUILT_IN_PRICES, 'llama3.1:8b': { promptPerMTok: 0, completionPerMTok: 0 } })).toEqual({ promptPerMTok: 0, completionPerMTok: 0 });
  });

  it('prices usage, null without a price', () => {
    const usage = { promptTokens: 1_000_000, completionTokens: 500_000, calls: 2 };
    expect(priced(usage, { promptPerMTok: 2, completionPerMTok: 8 })).toEqual({ ...usage, costUsd: 6 });
    expect(priced(usage, null).costUsd).toBeNull();
  });

  it('is shown with the cost only when known', () => {
    expect(formatUsage({ promptTokens: 12_345, completionTokens: 678, calls: 3, costUsd: 0.0123 })).toBe('12,345 in · 678 out tokens · 3 calls · $0.01');
    expect(formatUsage({ promptTokens: 10, completionTokens: 2, calls: 1, costUsd: 0.000012 })).toBe('10 in · 2 out tokens · 1 call · $0.0000');
    expect(formatUsage({ promptTokens: 10, completionTokens: 2, calls: 1, costUsd: null })).toBe('10 in · 2 out tokens · 1 call');
  });
});

describe('provider details', () => {
  it('reads Retry-After as seconds, an HTTP date, or retry-after-ms', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '7' }))).toBe(7000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 25 Nov 2026 14:00:10 GMT' }), Date.parse('Wed, 25 Nov 2026 14:00:00 GMT'))).toBe(10_000);
    expect(retryAfterMs(new Headers({}))).toBeUndefined();
  });

  it('turns run_code calls into actions, and others into errors to send back', () => {
    expect(toolCall('a', 'run_code', '{"language":"sh","code":"ls"}').block).toEqual({ language: 'sh', source: 'ls' });
    expect(toolCall('a', 'run_code', '{"code":"print(1)"}').block).toEqual({ language: 'python', source: 'print(1)' });
    expect(toolCall('a', 'run_code', '{"language":"python"').error).toMatch(/not valid JSON/);
    expect(toolCall('a', 'shell', '{}').error).toMatch(/no tool named "shell"/);
    expect(toolCall('a', 'run_code', '{"language":"python","code":"  "}').error).toMatch(/no code/);
  });

  it('a retry drops the streamed text and says so, until the next delta', () => {
    let state = applyMessageDelta(getEmptyState(), { taskId: 't', streamId: 's', delta: 'half a rep' });
    state = applyMessageDelta(state, { taskId: 't', streamId: 's', delta: '', retrying: 'retrying in 1 s' });
    expect(state.streamingByTask.t).toEqual({ streamId: 's', text: '', retrying: 'retrying in 1 s' });
    state = applyMessageDelta(state, { taskId: 't', streamId: 's', delta: 'Whole' });
    expect(state.streamingByTask.t).toEqual({ streamId: 's', text: 'Whole' });
  });
});
