// The services channel: HTTP calls an action made through the gateway to a granted service (main/gateway).
// Undo sends each mutating call's recorded inverse, newest first, last of all (it leaves the machine).
import type { ChannelSpec } from '../channel-spec';
import { RestEffect, ServicesStep } from './effect';

/** Calls that may have changed a service: mutating, and not refused or cancelled at the gateway. */
export function sentWrites(effects: readonly { channel: string }[]): RestEffect[] {
  return effects.filter((c): c is RestEffect => c.channel === 'rest' && (c as RestEffect).mutating && !(c as RestEffect).refused);
}

/** A call whose inverse went through in an undo that did not finish (the provider refused a later one). */
export function isTakenBack(c: RestEffect): boolean {
  return c.undone !== null && c.undone !== undefined && c.undone.error === null;
}

/** A call as the card and the CLI name it: `POST svc/slack/chat.delete`. */
export const restCallName = (c: { method: string; service: string; path: string }): string => `${c.method} svc/${c.service}${c.path}`;

export const services: ChannelSpec<typeof RestEffect, typeof ServicesStep> = {
  id: 'rest',
  label: 'services',
  heading: 'Service calls',
  effect: RestEffect,
  step: ServicesStep,
  undo: 'remote',
  checkpointed: false,
  plan(effects) {
    const writes = sentWrites(effects);
    return {
      steps: writes
        .filter((c) => c.inverse && !isTakenBack(c))
        .reverse()
        .map((c): ServicesStep => ({ channel: 'rest', ...c.inverse! })),
      irreversible: writes.filter((c) => !c.inverse).map((c) => ({ channel: 'rest', name: restCallName(c) })),
      takenBack: writes.filter(isTakenBack).map((c) => ({ channel: 'rest', name: restCallName(c), summary: c.inverse?.summary ?? '' })),
    };
  },
  words: () => [],
  call: (step) => ({ name: restCallName(step), summary: step.summary }),
  observe: (effect) =>
    effect.refused ? `gateway refused ${effect.method} svc/${effect.service}${effect.path}: ${effect.refused}` : `called ${effect.method} svc/${effect.service}${effect.path} → HTTP ${effect.status}`,
  lines: (effect) => [
    `  → ${effect.method} svc/${effect.service}${effect.path}  ${effect.refused ? `refused (${effect.status}): ${effect.refused}` : effect.status}`,
    ...(effect.hold ? [`    held (${effect.hold.kind === 'window' ? 'send window' : 'approval'}): ${effect.hold.state}`] : []),
    ...(effect.inverse ? [`    ↶ ${effect.inverse.method} svc/${effect.inverse.service}${effect.inverse.path} — ${effect.inverse.summary}`] : []),
    ...(effect.undone ? [`    ↶ ${effect.undone.error ? `failed: ${effect.undone.error}` : `sent (HTTP ${effect.undone.status})`}`] : []),
  ],
  level(effect, facts) {
    if (effect.refused) return; // refused at the gateway: nothing left the machine
    if (effect.mutating) (effect.inverse ? facts.compensable : facts.writes).push(restCallName(effect));
    else facts.reads.add(effect.service);
  },
  tally: { noun: 'call', always: false, of: () => 1 },
};
