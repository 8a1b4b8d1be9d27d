// Confinement levels are derived from what the sandbox allowed and what the action actually did —
// never from anything the model says. Pure, so the rules can be read and tested in one place.
import { assertNever, type Confinement, type Effect } from '../../shared/domain';

/** What the sandbox allowed this action: the facts of its configuration. */
export type SandboxFacts = {
  /** 'gateway-only': no network, but the gateway's door to the granted services was mounted. */
  network: 'none' | 'gateway-only' | 'open';
  /** Every writable mount is a granted folder with checkpoints before and after. */
  writableMountsCheckpointed: boolean;
  /** The checkpoints around the action were both taken. */
  checkpointsTaken: boolean;
  /** Services the gateway would forward to for this task. */
  grantedServices?: readonly string[];
};

export function confinementOf(facts: SandboxFacts, effects: readonly Effect[]): Confinement {
  if (facts.network === 'open') {
    return { level: 'unconfined', reason: 'The sandbox had open network access: effects outside the machine cannot be tracked or undone.' };
  }
  if (!facts.writableMountsCheckpointed || !facts.checkpointsTaken) {
    return { level: 'confined', reason: 'Ran without network, but a writable folder had no checkpoint, so its changes cannot be undone exactly.' };
  }
  let fileChanges = 0;
  const writes: string[] = [];
  const reads = new Set<string>();
  for (const effect of effects) {
    switch (effect.channel) {
      case 'fs':
        fileChanges += effect.added.length + effect.modified.length + effect.deleted.length;
        break;
      case 'rest':
        if (effect.refused) break; // refused at the gateway: nothing left the machine
        if (effect.mutating) writes.push(`${effect.method} svc/${effect.service}${effect.path}`);
        else reads.add(effect.service);
        break;
      default:
        assertNever(effect, 'effect');
    }
  }
  const granted = facts.grantedServices ?? [];
  const door = facts.network === 'gateway-only' && granted.length > 0 ? `No network but the gateway to ${granted.join(', ')}` : 'No network';
  if (writes.length > 0) {
    return {
      level: 'confined',
      reason: `${writes.length === 1 ? writes[0] : `${writes.length} calls (${writes[0]}, …)`} may have changed the service and has no known inverse; only the services granted to this task (${granted.join(', ') || 'none'}) were reachable.`,
    };
  }
  const readNote = reads.size > 0 ? `; it only read from ${[...reads].join(', ')}` : '';
  if (fileChanges === 0) {
    return { level: 'reversible', reason: `${door}; nothing changed in the granted folders${readNote}: there is nothing to undo.` };
  }
  const files = fileChanges === 1 ? '1 file change' : `${fileChanges} file changes`;
  return { level: 'reversible', reason: `${door}; its only effects are ${files} in checkpointed folders, restored exactly by undo${readNote}.` };
}
