// Confinement levels are derived from what the sandbox allowed and what the action actually did —
// never from anything the model says. Pure, so the rules can be read and tested in one place.
import { emptyLevelFacts, type AnyChannelSpec } from '../../shared/channels/channel-spec';
import { CHANNELS, channelOf } from '../../shared/channels/registry';
import type { Confinement, Effect, FsEffect } from '../../shared/domain';
import { NOT_COVERED_WHY } from '../../shared/undo/not-covered-words';

type NotCovered = NonNullable<FsEffect['notCovered']>[number];

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

export function confinementOf(facts: SandboxFacts, effects: readonly Effect[], channels: readonly AnyChannelSpec[] = CHANNELS): Confinement {
  if (facts.network === 'open') {
    return { level: 'unconfined', reason: 'The sandbox had open network access: effects outside the machine cannot be tracked or undone.' };
  }
  if (!facts.writableMountsCheckpointed || !facts.checkpointsTaken) {
    return { level: 'confined', reason: 'Ran without network, but a writable folder had no checkpoint, so its changes cannot be undone exactly.' };
  }
  // Each channel adds what its effects did (shared/channels/NAME/spec.ts `level`); the rules below read the facts.
  const seen = emptyLevelFacts();
  for (const effect of effects) channelOf(effect.channel, channels)?.level(effect, seen);
  const { fileChanges, rowChanges, heldOn, writes, compensable, reads, notCovered, untouched, notes, toolWrites } = seen;
  const granted = facts.grantedServices ?? [];
  const door = facts.network === 'gateway-only' && granted.length > 0 ? `No network but the gateway to ${granted.join(', ')}` : 'No network';
  if (writes.length > 0) {
    return {
      level: 'confined',
      reason: `${writes.length === 1 ? writes[0] : `${writes.length} calls (${writes[0]}, …)`} may have changed the service and has no known inverse; only the services granted to this task (${granted.join(', ') || 'none'}) were reachable.`,
    };
  }
  if (toolWrites.length > 0) {
    const named = toolWrites.length === 1 ? toolWrites[0] : `${toolWrites.length} tool calls (${toolWrites.slice(0, 3).join(', ')}${toolWrites.length > 3 ? ', …' : ''})`;
    const stdio = seen.stdioToolWrites;
    return {
      level: 'confined',
      reason: `${named} may have changed the server's state and has no known inverse; ${
        stdio ? 'a local server ran with no network, writing only the granted folders (restored by undo) and its own task environment' : 'only the servers granted to this task were reachable'
      }.`,
    };
  }
  if (notCovered.length > 0) return { level: 'confined', reason: notCoveredReason(notCovered) };
  const readNote = `${reads.size > 0 ? `; it only read from ${[...reads].join(', ')}` : ''}${untouchedNote(untouched)}`;
  if (compensable.length > 0) {
    const calls = compensable.length === 1 ? compensable[0] : `${compensable.length} calls (${compensable.join(', ')})`;
    const local = fileChanges + rowChanges > 0 ? '; its local changes are restored exactly' : '';
    return {
      level: 'compensable',
      reason: `${calls} changed the service; undo sends the recorded inverse call, which the provider may refuse (for example if the object changed since)${local}.`,
    };
  }
  if (rowChanges > 0 || heldOn.size > 0) {
    const changed = seen.changedRows;
    const how = heldOn.size > 0 ? `held in an open transaction on ${[...heldOn].join(', ')} until kept or undone (rolled back exactly)` : 'restored exactly by undo from before-images captured while the SQL ran';
    const files = fileChanges > 0 ? `, and ${fileChanges} ${fileChanges === 1 ? 'file change' : 'file changes'} in checkpointed folders` : '';
    return { level: 'reversible', reason: `Changed ${changed.join(', ')}${files}: ${how}${readNote}.` };
  }
  if (notes > 0) {
    const files = fileChanges > 0 ? ` and made ${fileChanges} ${fileChanges === 1 ? 'file change' : 'file changes'} in checkpointed folders, restored exactly by undo` : '';
    return { level: 'reversible', reason: `${door}; it wrote ${notes === 1 ? 'a note' : `${notes} notes`} to the agent's memory, which undo takes off unless the memory was edited since${files}${readNote}.` };
  }
  const databases = [...seen.databases];
  if (fileChanges === 0 && databases.length > 0) {
    return { level: 'reversible', reason: `Changed nothing in ${databases.join(', ')}${readNote}: there is nothing to undo.` };
  }
  if (fileChanges === 0) {
    return { level: 'reversible', reason: `${door}; nothing changed in the granted folders${readNote}: there is nothing to undo.` };
  }
  const files = fileChanges === 1 ? '1 file change' : `${fileChanges} file changes`;
  return { level: 'reversible', reason: `${door}; its only effects are ${files} in checkpointed folders, restored exactly by undo${readNote}.` };
}

/** The level's reason when undo does not cover everything: each path (a few, then a count) and why. */
function notCoveredReason(items: readonly NotCovered[]): string {
  const state = (n: NotCovered) => (n.changed ? 'changed by this action' : n.when === 'after' ? 'there after this action' : 'whether this action changed it is unknown');
  if (items.length === 1) {
    const n = items[0]!;
    const consequence = n.changed
      ? 'this action changed it, so undo cannot bring back what it held'
      : n.when === 'after'
        ? 'it is there after this action, so undo cannot take it back exactly'
        : 'Posthoc cannot tell whether this action changed it, so undo cannot promise to restore it';
    return `${n.path} is not covered by undo (${NOT_COVERED_WHY[n.reason]}): ${consequence}; only the granted folders were writable.`;
  }
  const shown = items.slice(0, 3).map((n) => `${n.path} (${NOT_COVERED_WHY[n.reason]}; ${state(n)})`);
  const more = items.length > 3 ? ` and ${items.length - 3} more` : '';
  return `${items.length} paths are not covered by undo, so undo cannot restore them exactly: ${shown.join(', ')}${more}; only the granted folders were writable.`;
}

/** Said beside a reversible level: the large files undo does not cover, which the action left as they were. */
function untouchedNote(items: readonly NotCovered[]): string {
  if (items.length === 0) return '';
  const named = items.length > 3 ? `${items.slice(0, 3).map((n) => n.path).join(', ')} and ${items.length - 3} more` : items.map((n) => n.path).join(', ');
  return `; ${named} (${NOT_COVERED_WHY.budget}, not covered by undo) ${items.length === 1 ? 'was' : 'were'} left untouched`;
}
