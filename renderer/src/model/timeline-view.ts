// What the undo timeline says: an undo, redo or rewind's outcome in words, why a path blocks, and how
// much an action changed. Pure; no React.
import type { Result } from '../../../shared/contract';
import type { Action, UndoResult } from '../../../shared/domain';
import type { ChangeLists, RedoResult, RewindResult } from '../../../shared/domain/undo';
import type { Operation, OperationOutcome } from '../state/timeline-state';
import { listChanges } from './action-summary';
import { describeBlocker } from '../../../shared/undo/blocker-words';

export { describeBlocker };

const verbs: Record<Operation, string> = { undo: 'Undone', redo: 'Redone', rewind: 'Rewound' };

export function describeOutcome(operation: Operation, result: Result<UndoResult | RedoResult | RewindResult>): OperationOutcome {
  if (!result.ok) return { operation, tone: 'error', text: result.error.message, paths: [], canRewind: false };
  const r = result.value;
  if (r.outcome === 'partial') {
    return { operation, tone: 'warn', text: r.message, paths: [...r.calls.map((c) => `taken back: ${c}`), `refused: ${r.refused.what} — ${r.refused.why}`], canRewind: false };
  }
  if (r.outcome === 'conflict') {
    const canRewind = 'canRewind' in r && r.canRewind === true;
    const onlyFiles = (r.blockers ?? []).every((b) => b.channel === undefined || b.channel === 'files');
    if (!onlyFiles) {
      // A database or a service stands in the way (or refused): main's message names every conflict.
      const paths = (r.blockers ?? []).map((b) => `${b.path} — ${describeBlocker(b)}`);
      return { operation, tone: 'warn', text: r.message, paths, canRewind };
    }
    const lead = `${operation === 'undo' ? 'Undo' : operation === 'redo' ? 'Redo' : 'Rewind'} refused: ${r.paths.length === 1 ? 'this path changed' : `${r.paths.length} paths changed`} since, and it would overwrite ${r.paths.length === 1 ? 'it' : 'them'}.`;
    const blockers = r.blockers ?? [];
    const paths = blockers.length > 0 ? blockers.map((b) => `${b.path} — ${describeBlocker(b)}`) : r.paths;
    return { operation, tone: 'warn', text: canRewind ? `${lead} Rewind to before this action to undo the later actions too.` : lead, paths, canRewind };
  }
  const parts: string[] = [];
  if (r.removed.length > 0) parts.push(`removed ${joinShort(r.removed)}`);
  if (r.restored.length > 0) parts.push(`restored ${joinShort(r.restored)}`);
  const notRestored = r.notRestored ?? [];
  if (notRestored.length > 0) parts.push(`left ${joinShort(notRestored)} as it is (not covered by undo)`);
  const which = r.outcome === 'rewound' ? ` actions ${r.undone.map((a) => a.seq).join(', ')}` : '';
  return { operation, tone: 'ok', text: `${verbs[operation]}${which}: ${parts.length > 0 ? parts.join('; ') : 'no file needed changing'}.`, paths: [], canRewind: false };
}

function joinShort(paths: readonly string[]): string {
  return paths.length <= 4 ? paths.join(', ') : `${paths.slice(0, 4).join(', ')} and ${paths.length - 4} more`;
}

/**
 * What a row says the action changed: "3 file changes (+1 ~1 −1)", "8 rows in shop", "2 calls to slack",
 * joined; `total` counts the files (they open diffs).
 */
export function changeCount(action: Action): { total: number; text: string } {
  const changes = listChanges(action.effects);
  const count = (mark: string) => changes.filter((c) => c.mark === mark).length;
  const marks = [
    count('added') && `+${count('added')}`,
    count('modified') && `~${count('modified')}`,
    count('deleted') && `\u2212${count('deleted')}`,
    count('renamed') && `\u2192${count('renamed')}`,
  ].filter(Boolean);
  const parts: string[] = [];
  if (changes.length > 0) parts.push(`${changes.length} file change${changes.length === 1 ? '' : 's'} (${marks.join(' ')})`);
  const rows = new Map<string, number>();
  const calls = new Map<string, number>();
  for (const e of action.effects) {
    if (e.channel === 'db' && e.refused === null && e.rowsAffected > 0) rows.set(e.database, (rows.get(e.database) ?? 0) + e.rowsAffected);
    if (e.channel === 'rest' && e.refused === null && e.mutating) calls.set(e.service, (calls.get(e.service) ?? 0) + 1);
  }
  for (const [db, n] of rows) parts.push(`${n} row${n === 1 ? '' : 's'} in ${db}`);
  for (const [service, n] of calls) parts.push(`${n} call${n === 1 ? '' : 's'} to ${service}`);
  const notes = action.effects.filter((e) => e.channel === 'memory' && e.refused === null).length;
  if (notes > 0) parts.push(`${notes} note${notes === 1 ? '' : 's'} to memory`);
  return { total: changes.length, text: parts.length === 0 ? 'no changes' : parts.join(', ') };
}

/** The paths an outside edit touched, for its row. */
export function externalPaths(changes: ChangeLists): string[] {
  return [...changes.added, ...changes.modified, ...changes.deleted, ...changes.renamed.map((r) => `${r.from} \u2192 ${r.to}`)];
}

export const statusWords: Record<Action['status'], string> = {
  running: 'running',
  done: 'done',
  failed: 'failed',
  'awaiting-approval': 'awaiting approval',
  undone: 'undone',
  kept: 'kept',
  interrupted: 'stopped',
};
