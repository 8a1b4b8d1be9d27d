// Tokens, prices and budgets. The provider counts the tokens (LlmClient reports its usage, or its estimate,
// marked estimated, when the provider reports none); a price per
// model turns them into dollars when one is known: a small built-in table for well-known models, which
// the person may edit or extend in Settings (setting "agent.prices"). Without a price the cost is null,
// never a guess. A per-task budget (tokens or dollars) stops the task once its totals reach it.
import type { Usage } from '../../shared/domain';
import { parseBudget, type Budget, type ModelPrice } from '../../shared/domain/budget';
import { catalogPrices, undatedModel } from '../../shared/providers/catalog';
import type { LlmUsage } from './llm-client';

export type { ModelPrice };

/** List prices of the gallery's well-known models (USD per 1M tokens), from shared/providers/catalog.ts, where each is cited. */
export const BUILT_IN_PRICES: Readonly<Record<string, ModelPrice>> = catalogPrices();

/**
 * The price of a model: its own entry, else that of its name without a prefix or a dated snapshot suffix
 * (gpt-4o-2024-08-06 → gpt-4o, claude-sonnet-4-5-20250929 → claude-sonnet-4-5, models/gemini-2.5-pro → gemini-2.5-pro).
 */
export function priceOf(model: string, table: Readonly<Record<string, ModelPrice>>): ModelPrice | null {
  if (Object.hasOwn(table, model)) return table[model]!;
  const undated = undatedModel(model);
  return undated !== model && Object.hasOwn(table, undated) ? table[undated]! : null;
}

/** A provider usage priced: costUsd null without a price. */
export function priced(usage: LlmUsage, price: ModelPrice | null): Usage {
  const costUsd = price ? (usage.promptTokens * price.promptPerMTok + usage.completionTokens * price.completionPerMTok) / 1_000_000 : null;
  return { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens, calls: usage.calls, costUsd, ...(usage.estimated ? { estimated: true } : {}) };
}

/** A per-task budget (total tokens, prompt and completion, or US dollars), read as people write it (shared/domain/budget.ts). */
export { parseBudget, type Budget };

export function describeBudget(budget: Budget): string {
  return 'tokens' in budget ? `${budget.tokens.toLocaleString('en-US')} tokens` : `$${budget.usd.toFixed(2)}`;
}

/**
 * Why the task must stop, when its totals reached the budget; null while under it. A dollar budget for a
 * model without a price cannot be kept: that stops the task too, saying so.
 */
export function budgetReached(usage: Usage, budget: Budget | null): string | null {
  if (!budget) return null;
  if ('tokens' in budget) {
    const used = usage.promptTokens + usage.completionTokens;
    if (used < budget.tokens) return null;
    return `Stopped: the task's budget of ${describeBudget(budget)} is reached (${used.toLocaleString('en-US')} tokens used over ${usage.calls} model calls). Continue the task with a larger --budget (or raise it in Settings) to go on.`;
  }
  if (usage.calls > 0 && usage.costUsd === null) {
    return `Stopped: the task has a budget of ${describeBudget(budget)} but the model has no price in Settings, so its cost is unknown. Set the model's price in Settings, or give a token budget (--budget 50000), then continue the task.`;
  }
  if ((usage.costUsd ?? 0) < budget.usd) return null;
  return `Stopped: the task's budget of ${describeBudget(budget)} is reached ($${(usage.costUsd ?? 0).toFixed(4)} spent over ${usage.calls} model calls). Continue the task with a larger --budget (or raise it in Settings) to go on.`;
}

export function formatUsage(usage: Usage): string {
  const about = usage.estimated ? '~' : '';
  const tokens = `${about}${usage.promptTokens.toLocaleString('en-US')} in / ${about}${usage.completionTokens.toLocaleString('en-US')} out`;
  const cost = usage.costUsd === null ? '' : ` · ${about}$${usage.costUsd < 0.01 ? usage.costUsd.toFixed(4) : usage.costUsd.toFixed(2)}`;
  const estimated = usage.estimated ? ' (estimated: the provider reported no usage)' : '';
  return `${tokens} tokens${estimated} · ${usage.calls} call${usage.calls === 1 ? '' : 's'}${cost}`;
}
