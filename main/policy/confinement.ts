// Confinement levels are derived from what the sandbox allowed and what the action actually did —
// never from anything the model says. Pure, so the rules can be read and tested in one place.
import { assertNever, type Confinement, type Effect, type FsEffect } from '../../shared/domain';
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

export function confinementOf(facts: SandboxFacts, effects: readonly Effect[]): Confinement {
  if (facts.network === 'open') {
    return { level: 'unconfined', reason: 'The sandbox had open network access: effects outside the machine cannot be tracked or undone.' };
  }
  if (!facts.writableMountsCheckpointed || !facts.checkpointsTaken) {
    return { level: 'confined', reason: 'Ran without network, but a writable folder had no checkpoint, so its changes cannot be undone exactly.' };
  }
  let fileChanges = 0;
  let rowChanges = 0;
  const heldOn = new Set<string>();
  const writes: string[] = [];
  /** Service calls with a recorded inverse: undo sends it, but the provider may refuse it. */
  const compensable: string[] = [];
  const reads = new Set<string>();
  /**
   * Paths undo does not cover that keep the action from being reversible: changed by it, not covered only
   * after it (made or written in its window, unreadable then, the disk full), or never looked into (a
   * special file, an unreadable one, an undecodable name: whether the action changed it is unknown).
   */
  const notCovered: NotCovered[] = [];
  /** Large files over the budget the action left untouched: their size, times and inode vouch for them. */
  const untouched: NotCovered[] = [];
  /** Notes written to the agent's memory. */
  let notes = 0;
  /** MCP tool calls whose changes no inverse and no checkpoint covers. */
  const toolWrites: string[] = [];
  for (const effect of effects) {
    switch (effect.channel) {
      case 'fs':
        fileChanges += effect.added.length + effect.modified.length + effect.deleted.length + (effect.renamed?.length ?? 0);
        for (const n of effect.notCovered ?? []) (n.changed || n.when === 'after' || n.reason !== 'budget' ? notCovered : untouched).push(n);
        break;
      case 'rest':
        if (effect.refused) break; // refused at the gateway: nothing left the machine
        if (effect.mutating) (effect.inverse ? compensable : writes).push(`${effect.method} svc/${effect.service}${effect.path}`);
        else reads.add(effect.service);
        break;
      case 'db':
        // Captured before-images, a snapshot or a held transaction: every kind of db effect is undone exactly.
        if (effect.refused) break;
        rowChanges += effect.rowsAffected + (effect.undo.kind === 'snapshot' ? 1 : 0);
        if (effect.undo.kind === 'held') heldOn.add(effect.database);
        break;
      case 'packages':
        // A GET of a public index file into the task's own environment: changes nothing anyone else sees.
        break;
      case 'memory':
        // A note appended to Posthoc's own memory file: undo takes it off (effects/memory).
        if (effect.refused === null) notes++;
        break;
      case 'mcp': {
        if (effect.refused !== null) break; // refused at the gateway: it never reached the server
        const name = `${effect.server}.${effect.tool}`;
        if (!effect.mutating) reads.add(`the ${effect.server} tools`);
        else if (effect.inverse) compensable.push(name);
        // A confined server that keeps nothing but the granted folders: its changes are the checkpoint's.
        else if (effect.transport === 'stdio' && effect.folderOnly) break;
        else if (effect.transport === 'stdio' && effect.annotations?.destructiveHint === false) break;
        else toolWrites.push(name);
        break;
      }
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
  if (toolWrites.length > 0) {
    const named = toolWrites.length === 1 ? toolWrites[0] : `${toolWrites.length} tool calls (${toolWrites.slice(0, 3).join(', ')}${toolWrites.length > 3 ? ', …' : ''})`;
    const stdio = effects.some((e) => e.channel === 'mcp' && e.transport === 'stdio' && !e.refused && e.mutating && !e.inverse);
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
    const changed = effects.flatMap((e) =>
      e.channel === 'db' && !e.refused && e.undo.kind !== 'none' ? [`${e.rowsAffected} ${e.rowsAffected === 1 ? 'row' : 'rows'}${e.undo.kind === 'snapshot' ? ' and the schema' : ''} of ${e.database}`] : [],
    );
    const how = heldOn.size > 0 ? `held in an open transaction on ${[...heldOn].join(', ')} until kept or undone (rolled back exactly)` : 'restored exactly by undo from before-images captured while the SQL ran';
    const files = fileChanges > 0 ? `, and ${fileChanges} ${fileChanges === 1 ? 'file change' : 'file changes'} in checkpointed folders` : '';
    return { level: 'reversible', reason: `Changed ${changed.join(', ')}${files}: ${how}${readNote}.` };
  }
  if (notes > 0) {
    const files = fileChanges > 0 ? ` and made ${fileChanges} ${fileChanges === 1 ? 'file change' : 'file changes'} in checkpointed folders, restored exactly by undo` : '';
    return { level: 'reversible', reason: `${door}; it wrote ${notes === 1 ? 'a note' : `${notes} notes`} to the agent's memory, which undo takes off unless the memory was edited since${files}${readNote}.` };
  }
  const databases = [...new Set(effects.flatMap((e) => (e.channel === 'db' ? [e.database] : [])))];
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
