// Tokens and cost, as the provider counted them (or Posthoc estimated them, marked ≈ and "estimated"): in the task header (the task's totals) and on each action
// card (the reply that produced the action; the actions of one reply share it). Cost only when a price is known.
import type { Usage } from '../../../shared/domain';

/** Estimated figures (the provider reported no usage for some call) carry ≈ and say so. */
export function formatUsage(usage: Usage): string {
  const about = usage.estimated ? '≈' : '';
  const n = (value: number) => value.toLocaleString('en-US');
  const cost = usage.costUsd === null ? '' : ` · ${about}$${usage.costUsd < 0.01 ? usage.costUsd.toFixed(4) : usage.costUsd.toFixed(2)}`;
  const tokens = `${about}${n(usage.promptTokens)} in · ${about}${n(usage.completionTokens)} out tokens${usage.estimated ? ' (estimated)' : ''}`;
  return `${tokens} · ${n(usage.calls)} call${usage.calls === 1 ? '' : 's'}${cost}`;
}

export function UsageLine({ usage, testId, title }: { usage: Usage; testId: string; title: string }) {
  const notes = [
    usage.estimated ? 'estimated by Posthoc: the provider reported no usage for some calls' : null,
    usage.costUsd === null ? 'no price set for this model in Settings' : null,
  ].filter((x) => x !== null);
  return (
    <span className="usage-line muted" data-testid={testId} data-estimated={usage.estimated ? 'true' : undefined} title={notes.length ? `${title} (${notes.join('; ')})` : title}>
      {formatUsage(usage)}
    </span>
  );
}
