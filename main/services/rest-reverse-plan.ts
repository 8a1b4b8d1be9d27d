// The services' part of an action's reverse plan: the exact inverse call of each call that has one, in
// the order undo sends them (newest first), and a plain statement about the calls nothing can take back.
import type { Effect, ReversePlan, RestEffect } from '../../shared/domain';

/** Calls that may have changed a service: mutating, and not refused or cancelled at the gateway. */
export function sentWrites(calls: readonly Effect[]): RestEffect[] {
  return calls.filter((c): c is RestEffect => c.channel === 'rest' && c.mutating && !c.refused);
}

export function reversePlanOf(files: ReversePlan, calls: readonly Effect[]): ReversePlan {
  const writes = sentWrites(calls);
  if (writes.length === 0) return files;
  const undoable = writes.filter((c) => c.inverse).reverse();
  const stuck = writes.filter((c) => !c.inverse);
  const steps: ReversePlan['steps'] = undoable.map((c) => ({ channel: 'rest', ...c.inverse! }));
  const parts: string[] = [];
  if (files.steps.length > 0) parts.push(files.summary);
  if (undoable.length > 0) {
    parts.push(`Send ${undoable.map((c) => `${c.inverse!.method} svc/${c.inverse!.service}${c.inverse!.path} (${c.inverse!.summary})`).join(', then ')}.`);
  }
  if (stuck.length > 0) {
    parts.push(`${stuck.map((c) => `${c.method} svc/${c.service}${c.path}`).join(', ')} cannot be undone (no known inverse).`);
  }
  if (files.steps.length === 0 && undoable.length === 0) parts.push('Nothing else to undo.');
  return { summary: parts.join(' '), steps: [...files.steps, ...steps], verified: files.verified };
}
