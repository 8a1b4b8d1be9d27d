// What the undo timeline says: an undo, redo or rewind's outcome in words, why a path blocks, and how
// much an action changed. Pure; no React.
import type { Result } from '../../../shared/contract';
import type { Action, KeptCopy, UndoBlocker, UndoResult } from '../../../shared/domain';
import type { ChangeLists, RedoResult, RewindResult, TimelineEntry } from '../../../shared/domain/undo';
import type { Operation, OperationOutcome } from '../state/timeline-state';
import { listChanges } from './action-summary';
import { describeBlocker } from '../../../shared/undo/blocker-words';
import { foldGitLines, foldGitPaths, gitEvents } from '../../../shared/undo/git-internals';
import { mcpWrites } from '../../../shared/undo/reverse-plan';
import { dbChangeWords } from './db-summary';
import { foldGitChanges } from './git-view';

export { describeBlocker };

const verbs: Record<Operation, string> = { undo: 'Undone', redo: 'Redone', rewind: 'Rewound' };

export function describeOutcome(
  operation: Operation,
  result: Result<UndoResult | RedoResult | RewindResult>,
  options: { keepCopies?: boolean } = {},
): OperationOutcome {
  const outcome = outcomeOf(operation, result, options);
  return result.ok ? { ...outcome, status: result.value.action.status } : outcome;
}

function outcomeOf(operation: Operation, result: Result<UndoResult | RedoResult | RewindResult>, options: { keepCopies?: boolean }): OperationOutcome {
  if (!result.ok) return { operation, tone: 'error', text: result.error.message, paths: [], canRewind: false };
  const r = result.value;
  if (r.outcome === 'partial') {
    return { operation, tone: 'warn', text: r.message, paths: [...r.calls.map((c) => `taken back: ${c}`), `refused: ${r.refused.what} — ${r.refused.why}`], canRewind: false };
  }
  if (r.outcome === 'conflict') {
    const canRewind = 'canRewind' in r && r.canRewind === true;
    const canKeepCopies = operation !== 'redo' && 'canKeepCopies' in r && r.canKeepCopies === true;
    const onlyFiles = (r.blockers ?? []).every(isFileBlocker);
    if (!onlyFiles) {
      // A database or a service stands in the way (or refused): main's message names every conflict.
      const paths = (r.blockers ?? []).map((b) => `${b.path} — ${describeBlocker(b)}`);
      return { operation, tone: 'warn', text: r.message, paths, canRewind, canKeepCopies };
    }
    const blockers = r.blockers ?? [];
    const name = operation === 'undo' ? 'Undo' : operation === 'redo' ? 'Redo' : 'Rewind';
    if (options.keepCopies === true && blockers.length > 0) {
      // Asked to keep copies and still refused: say, path by path, why a copy does not get past it (in the
      // engine's words when it gave them).
      const stuck = blockers.filter((b) => b.copyable !== true);
      const shown = stuck.length > 0 ? stuck : blockers;
      const next = canRewind ? ' Rewind to before this action to undo the later actions too.' : '';
      return {
        operation,
        tone: 'warn',
        text: `${name} refused, nothing was changed: keeping a copy does not get past ${shown.length === 1 ? 'this path' : `these ${shown.length} paths`}.${next}`,
        paths: shown.map((b) => `${b.path} — ${noCopyWords(b)}`),
        canRewind,
        canKeepCopies: false,
      };
    }
    const lead = `${name} refused: ${r.paths.length === 1 ? 'this path changed' : `${r.paths.length} paths changed`} since, and it would overwrite ${r.paths.length === 1 ? 'it' : 'them'}.`;
    const paths = blockers.length > 0 ? blockers.map((b) => `${b.path} — ${describeBlocker(b)}`) : r.paths;
    const text = canRewind
      ? `${lead} Rewind to before this action to undo the later actions too.`
      : canKeepCopies
        ? `${lead} Keep a copy of your edit, and ${operation === 'undo' ? 'undo' : 'rewind'} goes through.`
        : lead;
    return canKeepCopies
      ? { operation, tone: 'warn', text, paths, canRewind, canKeepCopies, keepCopyPaths: blockers.filter(isPersonsEdit).map((b) => b.path) }
      : { operation, tone: 'warn', text, paths, canRewind, canKeepCopies };
  }
  const parts: string[] = [];
  // A git repository's internals are named as the repository: "restored the git repository (41 files in .git)".
  if (r.removed.length > 0) parts.push(`removed ${joinShort(foldGitPaths(r.removed))}`);
  if (r.restored.length > 0) parts.push(`restored ${joinShort(foldGitPaths(r.restored))}`);
  const notRestored = r.notRestored ?? [];
  if (notRestored.length > 0) parts.push(`left ${joinShort(foldGitPaths(notRestored))} as it is (not covered by undo)`);
  const which = r.outcome === 'rewound' ? ` actions ${r.undone.map((a) => a.seq).join(', ')}` : '';
  const copies = r.outcome === 'redone' ? [] : (r.copies ?? []);
  const text = `${verbs[operation]}${which}: ${parts.length > 0 ? parts.join('; ') : 'no file needed changing'}.`;
  // The copies are shown one per line after the text, their names as code (outcomeWords: all of it in words).
  return copies.length > 0 ? { operation, tone: 'ok', text, paths: [], canRewind: false, copies } : { operation, tone: 'ok', text, paths: [], canRewind: false };
}

/** Where one of the person's edits was kept: "Your edit of notes.txt is kept in notes (your edit).txt." */
export function describeCopy(copy: KeptCopy): string {
  return `Your edit of ${copy.path} is kept in ${copy.copy}.`;
}

/** An outcome in words, the copies it kept included, as the outcome box shows it. */
export function outcomeWords(outcome: OperationOutcome): string {
  return [outcome.text, ...(outcome.copies ?? []).map(describeCopy)].join(' ');
}

const isFileBlocker = (b: UndoBlocker): boolean => b.channel === undefined || b.channel === 'fs';

/** Why no copy gets a blocker out of the way: the engine's words, or what the blocker itself says. */
function noCopyWords(b: UndoBlocker): string {
  if (b.noCopy) return b.noCopy;
  if (isEditedFile(b)) return `${describeBlocker(b)}: no copy of it can be kept`;
  return `${describeBlocker(b)}: a copy only keeps a file you changed`;
}

/** A path the person changed after the action (outside Posthoc), whatever it holds now. */
const isEditedFile = (b: UndoBlocker): boolean => isFileBlocker(b) && (b.by === 'external' || b.by === 'content');

/** A file the person changed after the action, not known to be uncopyable: what an undo with keepCopies keeps as a copy. */
export function isPersonsEdit(b: UndoBlocker): boolean {
  return isEditedFile(b) && b.copyable !== false;
}

/**
 * The copy's name the engine gives a path's edit, without the number it adds when that name is taken:
 * "docs/notes.txt" → "docs/notes (your edit).txt", "Makefile" → "Makefile (your edit)".
 */
export function copyNameOf(path: string): string {
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash + 1);
  const base = path.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? `${dir}${base.slice(0, dot)} (your edit)${base.slice(dot)}` : `${dir}${base} (your edit)`;
}

/**
 * The way out a refused undo offers with a copy, from the timeline's answer (it reads the history only, so
 * its blockers say nothing of `copyable`; the operation checks the folder again): 'undo' when every blocker
 * is a file the person changed; 'rewind' when later actions stand in the way too, a rewind exists, and all
 * that stops it is the person's edits; null otherwise.
 */
export function keepCopyOffer(entry: {
  undo: { possible: boolean; blockers: readonly UndoBlocker[] };
  /** `count`: how many actions the rewind undoes, this one included (0: none starts here). */
  rewind: { possible: boolean; blockers: readonly UndoBlocker[]; count: number };
  action: { seq: number };
}): 'undo' | 'rewind' | null {
  const { undo, rewind } = entry;
  if (undo.possible || undo.blockers.length === 0) return null;
  if (undo.blockers.every(isPersonsEdit)) return 'undo';
  // The rewind's set holds this action (it is applied) and, beyond it, the later ones.
  const later = rewind.count > 1;
  const laterActions = undo.blockers.some((b) => isFileBlocker(b) && b.by === 'action');
  if (laterActions && later && !rewind.possible && rewind.blockers.length > 0 && rewind.blockers.every(isPersonsEdit)) return 'rewind';
  return null;
}

/** What the keep-a-copy button does, exactly: the copy's name, then the operation. */
export function keepCopyTitle(operation: 'undo' | 'rewind', paths: readonly string[], seq: number, rewindSeqs: readonly number[] = []): string {
  const unique = [...new Set(paths)];
  const what =
    unique.length === 1
      ? `Copies your edit of ${unique[0]} to "${copyNameOf(unique[0]!)}" beside it`
      : `Copies each file you edited (${joinShort(unique)}) to "NAME (your edit).ext" beside it`;
  const then =
    operation === 'undo'
      ? `then undoes action ${seq}`
      : rewindSeqs.length > 0
        ? `then undoes actions ${rewindSeqs.join(', ')}, newest first`
        : `then undoes action ${seq} and the later ones, newest first`;
  return `${what} (numbered "(your edit 2)" if that name is taken), ${then}. Your edit stays in the copy.`;
}

function joinShort(paths: readonly string[]): string {
  return paths.length <= 4 ? paths.join(', ') : `${paths.slice(0, 4).join(', ')} and ${paths.length - 4} more`;
}

/**
 * What a row says the action changed: "3 file changes (+1 ~1 −1)", "8 rows in shop", "2 calls to slack",
 * joined; `total` counts the files (they open diffs).
 */
export function changeCount(action: Action): { total: number; text: string } {
  // A git repository's internals count as the repository, said by what happened to it.
  const { files: changes, repos } = foldGitChanges(listChanges(action.effects));
  const count = (mark: string) => changes.filter((c) => c.mark === mark).length;
  const marks = [
    count('added') && `+${count('added')}`,
    count('modified') && `~${count('modified')}`,
    count('deleted') && `\u2212${count('deleted')}`,
    count('renamed') && `\u2192${count('renamed')}`,
  ].filter(Boolean);
  const parts: string[] = [];
  if (changes.length > 0) parts.push(`${changes.length} file change${changes.length === 1 ? '' : 's'} (${marks.join(' ')})`);
  for (const repo of repos) parts.push(`git: ${gitEventsShort(repo.summary)}`);
  const rows = new Map<string, number>();
  const schema: string[] = [];
  const calls = new Map<string, number>();
  for (const e of action.effects) {
    if (e.channel === 'db' && e.refused === null) {
      // A schema change is said by what it changed, not by the row count the database reports for it.
      const words = dbChangeWords(e);
      if (words.rows > 0) rows.set(e.database, (rows.get(e.database) ?? 0) + words.rows);
      for (const w of words.schema) schema.push(`${w} in ${e.database}`);
    }
    if (e.channel === 'rest' && e.refused === null && e.mutating) calls.set(e.service, (calls.get(e.service) ?? 0) + 1);
  }
  for (const [db, n] of rows) parts.push(`${n} row${n === 1 ? '' : 's'} in ${db}`);
  parts.push(...schema.slice(0, 3));
  if (schema.length > 3) parts.push(`${schema.length - 3} more schema changes`);
  for (const [service, n] of calls) parts.push(`${n} call${n === 1 ? '' : 's'} to ${service}`);
  // A tool call that may have changed its service (not read-only, not refused, no error) is a change too.
  const tools = new Map<string, number>();
  for (const c of mcpWrites(action.effects)) tools.set(c.server, (tools.get(c.server) ?? 0) + 1);
  for (const [server, n] of tools) parts.push(`${n} tool call${n === 1 ? '' : 's'} to ${server}`);
  const notes = action.effects.filter((e) => e.channel === 'memory' && e.refused === null).length;
  if (notes > 0) parts.push(`${notes} note${notes === 1 ? '' : 's'} to memory`);
  return { total: changes.length + repos.length, text: parts.length === 0 ? 'no changes' : parts.join(', ') };
}

/** A repository's news in a few words, for a count: "committed to main, HEAD moved". */
function gitEventsShort(summary: Parameters<typeof gitEvents>[0]): string {
  return gitEvents(summary).join(', ');
}

/** Timeline step lines with each repository's internals folded into one line. */
export function foldStepItems(items: readonly string[]): string[] {
  return foldGitLines(items);
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

type Entry = TimelineEntry;

/**
 * What an outside edit's row says about it: kept as the person left it — unless an undo, redo or rewind that
 * came after it replaced some of its paths (a rewind with "keep a copy" puts the file back and keeps the
 * edit beside it): then it names them, so the timeline never says a file was kept that the rewind just replaced.
 */
export function externalNote(entries: readonly Entry[], index: number): string {
  const entry = entries[index];
  if (entry === undefined || entry.kind !== 'external') return '';
  const paths = externalPaths(entry.changes);
  const replacedBy = new Map<string, { operation: Operation; copy: string | null }>();
  for (const later of entries.slice(index + 1)) {
    if (later.kind !== 'operation' || later.state !== 'completed' || later.outcome === 'refused') continue;
    for (const step of later.steps) {
      if (step.channel !== 'fs' || step.result !== 'done') continue;
      for (const item of step.items) {
        const gone = /^(.*) (?:put back|removed)$/.exec(item);
        const kept = /^(.*): your edit kept as (.*)$/.exec(item);
        const label = gone?.[1] ?? kept?.[1];
        if (label === undefined) continue;
        const path = paths.find((p) => label === p || label.endsWith(`/${p}`));
        if (path === undefined) continue;
        const before = replacedBy.get(path);
        // The same path's copy, from its own line of the same operation, is kept with it.
        replacedBy.set(path, { operation: later.operation, copy: kept?.[2] ?? (before?.operation === later.operation ? before.copy : null) });
      }
    }
  }
  if (replacedBy.size === 0) return 'Kept as you left it: no undo reverts it.';
  const opWord = (o: Operation) => (o === 'rewind' ? 'the rewind' : o === 'undo' ? 'the undo' : 'the redo');
  const sentences = [...replacedBy].map(([path, r]) =>
    r.copy !== null ? `${path} was put back by ${opWord(r.operation)} that followed; your edit is kept in ${r.copy}.` : `${path} was replaced by ${opWord(r.operation)} that followed.`,
  );
  const rest = paths.filter((p) => !replacedBy.has(p));
  if (rest.length > 0) sentences.push(`${joinShort(rest)} ${rest.length === 1 ? 'is' : 'are'} kept as you left ${rest.length === 1 ? 'it' : 'them'}.`);
  return sentences.join(' ');
}
