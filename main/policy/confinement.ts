// Confinement levels are derived from what the sandbox allowed and what the action actually did —
// never from anything the model says. Pure, so the rules can be read and tested in one place.
import { assertNever, type Confinement, type Effect } from '../../shared/domain';

/** What the sandbox allowed this action: the facts of its configuration. */
export type SandboxFacts = {
  network: 'none' | 'gateway-only' | 'open';
  /** Every writable mount is a granted folder with checkpoints before and after. */
  writableMountsCheckpointed: boolean;
  /** The checkpoints around the action were both taken. */
  checkpointsTaken: boolean;
};

export function confinementOf(facts: SandboxFacts, effects: readonly Effect[]): Confinement {
  if (facts.network === 'open') {
    return { level: 'unconfined', reason: 'The sandbox had open network access: effects outside the machine cannot be tracked or undone.' };
  }
  if (!facts.writableMountsCheckpointed || !facts.checkpointsTaken) {
    return { level: 'confined', reason: 'Ran without network, but a writable folder had no checkpoint, so its changes cannot be undone exactly.' };
  }
  const changed: string[] = [];
  for (const effect of effects) {
    switch (effect.channel) {
      case 'fs':
        changed.push(...effect.added, ...effect.modified, ...effect.deleted);
        break;
      default:
        assertNever(effect.channel, 'effect channel');
    }
  }
  if (changed.length === 0) {
    return { level: 'reversible', reason: 'No network and nothing changed in the granted folders: there is nothing to undo.' };
  }
  return {
    level: 'reversible',
    reason: `No network; its only effects are ${changed.length === 1 ? '1 file change' : `${changed.length} file changes`} in checkpointed folders, restored exactly by undo.`,
  };
}
