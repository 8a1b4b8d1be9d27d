// Tokens and cost, as the provider counted them: in the task header (the task's totals) and on each action
// card (the reply that produced the action; the actions of one reply share it). Cost only when a price is known.
import type { Usage } from '../../../shared/domain';

export function formatUsage(usage: Usage): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const cost = usage.costUsd === null ? '' : ` · $${usage.costUsd < 0.01 ? usage.costUsd.toFixed(4) : usage.costUsd.toFixed(2)}`;
  return `${n(usage.promptTokens)} in · ${n(usage.completionTokens)} out tokens · ${n(usage.calls)} call${usage.calls === 1 ? '' : 's'}${cost}`;
}

export function UsageLine({ usage, testId, title }: { usage: Usage; testId: string; title: string }) {
  return (
    <span className="usage-line muted" data-testid={testId} title={usage.costUsd === null ? `${title} (no price set for this model in Settings)` : title}>
      {formatUsage(usage)}
    </span>
  );
}
