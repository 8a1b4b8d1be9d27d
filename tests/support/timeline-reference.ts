// The timeline as it was read before issue 27 ("a read path that scales"), kept as the oracle the new one
// must mean the same as: every action read by itself (3 queries and a parse each), every state looked up
// by getAction, and each applied action's rewind set computed by listing the task's actions again and
// written out on its row (`actionSeqs`), as the answer was then. The new answer gives the rewind order once
// and each row its count; `expandRewinds` derives each row's list from it (the consumers' `rewindSeqsOf`),
// so the two compare byte for byte on what they say. Slow on purpose; only
// tests/integration/timeline-read-path.test.ts and bench/timeline.ts use it.
import { isApplied, type Action, type Task } from '../../shared/domain';
import { rewindSeqsOf, type Availability, type Timeline, type TimelineEntry } from '../../shared/domain/undo';
import type { FsChannel } from '../../main/effects/fs/fs-channel';
import { blockerOf, toEvent } from '../../main/effects/fs/fs-revert';
import { FolderHistory, type ActionStateOf } from '../../main/effects/fs/undo-rules';
import type { UndoService } from '../../main/services/undo-service';
import { foldersOf } from '../../main/services/undo-service';
import type { AppDatabase } from '../../main/store/database';
import type { TaskStore } from '../../main/store/task-store';
import type { UndoOperations } from '../../main/store/undo-operations';

type RewindAvailability = Availability & { actionSeqs: number[] };
type ActionEntry = Extract<TimelineEntry, { kind: 'action' }>;
/** A timeline as it was answered before: each action's rewind lists the actions it undoes. */
export type ReferenceEntry = Exclude<TimelineEntry, ActionEntry> | (Omit<ActionEntry, 'rewind'> & { rewind: RewindAvailability });
export type ReferenceTimeline = { taskId: string; entries: ReferenceEntry[] };

/** The new answer in the old shape: each action row's rewind list derived from the rewind order given once. */
export function expandRewinds(timeline: Timeline): ReferenceTimeline {
  return {
    taskId: timeline.taskId,
    entries: timeline.entries.map((e) => {
      if (e.kind !== 'action') return e;
      const { count: _count, ...rest } = e.rewind;
      return { ...e, rewind: { ...rest, actionSeqs: rewindSeqsOf(timeline.rewindOrder, e) } };
    }),
  };
}

export type ReferenceParts = {
  db: AppDatabase;
  store: TaskStore;
  fs: FsChannel;
  undo: UndoService;
  operations: UndoOperations;
  isRunning: (taskId: string) => boolean;
};

/** The task's actions one row at a time, as listActions read them (getAction per id). */
function listActionsOneByOne(p: ReferenceParts, taskId: string): Action[] {
  const ids = p.db.prepare('SELECT id FROM actions WHERE task_id = ? ORDER BY seq').all(taskId) as Array<{ id: string }>;
  return ids.map(({ id }) => p.store.getAction(id)!);
}

function stateOf(p: ReferenceParts): ActionStateOf {
  const cache = new Map<string, 'applied' | 'undone'>();
  return (id) => {
    let state = cache.get(id);
    if (!state) {
      state = p.store.getAction(id)?.status === 'undone' ? 'undone' : 'applied';
      cache.set(id, state);
    }
    return state;
  };
}

function rewindSet(p: ReferenceParts, action: Action): Action[] {
  const later = listActionsOneByOne(p, action.taskId).filter((a) => a.seq >= action.seq && a.status !== 'undone');
  const appliedAt = new Map<string, string>();
  const bump = (id: string, at: string) => {
    if ((appliedAt.get(id) ?? '') < at) appliedAt.set(id, at);
  };
  for (const a of later) bump(a.id, a.finishedAt ?? a.startedAt);
  for (const [id, at] of p.operations.lastRedone(action.taskId)) bump(id, at);
  const putBack = p.operations.putBackJournals(action.taskId);
  const task = p.store.getTask(action.taskId);
  for (const folder of foldersOf(task, null)) {
    for (const c of p.fs.history.changes(folder)) {
      if (c.actionId && c.kind === 'redo' && (c.journalId === null || !putBack.has(c.journalId))) bump(c.actionId, c.createdAt);
    }
  }
  const key = (a: Action) => appliedAt.get(a.id) ?? '';
  return later.sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : b.seq - a.seq));
}

/** UndoViews.timeline before issue 27. */
export function referenceTimeline(p: ReferenceParts, taskId: string): ReferenceTimeline {
  const task = p.store.getTask(taskId) as Task;
  const states = stateOf(p);
  const histories = foldersOf(task, null).map((folder) => ({
    folder,
    history: new FolderHistory(p.fs.history.changes(folder).map(toEvent), states),
  }));
  const actions = listActionsOneByOne(p, taskId);
  const seqOf = new Map(actions.map((a) => [a.id, a.seq]));
  const running = p.isRunning(taskId);
  const entries: ReferenceEntry[] = [];

  for (const action of actions) {
    const blockersOf = (pick: (h: FolderHistory) => ReturnType<FolderHistory['undoBlockers']>) =>
      p.undo.describeBlockers(
        task,
        histories.flatMap(({ folder, history }) => pick(history).map((b) => blockerOf(folder, b, action.id))),
      );
    const applied = isApplied(action.status) && action.output.interrupted?.recorded !== false;
    const undo = applied ? availability(blockersOf((h) => h.undoBlockers(action.id)), null) : unavailable(statusReason(action));
    const redo =
      action.status === 'undone' ? availability(blockersOf((h) => h.redoBlockers(action.id)), null) : unavailable('Only an undone action can be redone.');
    let rewind: RewindAvailability;
    if (!applied) {
      rewind = { ...unavailable(statusReason(action)), actionSeqs: [] };
    } else {
      const set = rewindSet(p, action);
      const kept = set.find((a) => a.status === 'kept');
      const ids = set.map((a) => a.id);
      rewind = kept
        ? { ...unavailable(`Action ${kept.seq} was kept; a rewind cannot go back past it.`), actionSeqs: set.map((a) => a.seq) }
        : {
            ...availability(blockersOf((h) => ids.flatMap((id, k) => h.undoBlockers(id, new Set(ids.slice(0, k))))), null),
            actionSeqs: set.map((a) => a.seq),
          };
    }
    if (running) {
      const busy = 'The agent is still working on this task.';
      entries.push({ kind: 'action', at: action.startedAt, action, undo: busyOf(undo, busy), redo: busyOf(redo, busy), rewind: { ...busyOf(rewind, busy), actionSeqs: rewind.actionSeqs } });
    } else {
      entries.push({ kind: 'action', at: action.startedAt, action, undo, redo, rewind });
    }
  }
  const startOf = new Map(actions.map((a) => [a.id, a.startedAt]));
  for (const change of p.fs.history.changesForTask(taskId)) {
    if (change.kind !== 'external' || change.byUndo) continue;
    const grant = task.workspaces.find((w) => w.hostPath === change.folder);
    const at = (change.foundBy && !change.during ? startOf.get(change.foundBy) : undefined) ?? change.createdAt;
    entries.push({ kind: 'external', at, workspace: grant?.name ?? change.folder, changes: change.summary });
  }
  const operations = p.operations.forTask(taskId);
  const linked = new Set(operations.flatMap((op) => op.refs));
  const journals = new Map(p.fs.history.journalsForTask(taskId).map((j) => [`journal:${j.id}`, j]));
  for (const op of operations) {
    const own = op.refs.flatMap((r) => journals.get(r) ?? []);
    entries.push({
      kind: 'operation',
      at: op.at,
      operation: op.operation,
      actionSeqs: op.actionIds.map((id) => seqOf.get(id) ?? 0),
      state: op.outcome === 'done' ? 'completed' : 'rolled-back',
      recovered: own.some((j) => j.recovered),
      note: op.message,
      outcome: op.outcome,
      steps: op.steps,
    });
  }
  for (const [ref, journal] of journals) {
    if (linked.has(ref)) continue;
    entries.push({
      kind: 'operation',
      at: journal.startedAt,
      operation: journal.operation,
      actionSeqs: journal.actionIds.map((id) => seqOf.get(id) ?? 0),
      state: journal.state,
      recovered: journal.recovered,
      note: journal.note,
      outcome: journal.state === 'completed' ? 'done' : 'refused',
      steps: [],
    });
  }
  entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : order(a) - order(b)));
  return { taskId, entries };
}

function availability(blockers: Availability['blockers'], reason: string | null): Availability {
  if (blockers.length === 0) return { possible: true, reason, blockers };
  return { possible: false, reason: `${blockers.length === 1 ? '1 file' : `${blockers.length} files`} changed since: ${blockers.map((b) => b.path).slice(0, 5).join(', ')}${blockers.length > 5 ? ', …' : ''}`, blockers };
}

function unavailable(reason: string): Availability {
  return { possible: false, reason, blockers: [] };
}

function busyOf(a: Availability, reason: string): Availability {
  return { possible: false, reason, blockers: a.blockers };
}

function statusReason(action: Action): string {
  switch (action.status) {
    case 'undone':
      return 'Already undone.';
    case 'kept':
      return 'Kept: this action is final.';
    case 'running':
      return 'Still running.';
    case 'awaiting-approval':
      return 'It never ran: it waits for approval.';
    case 'interrupted':
      return action.output.interrupted?.recorded === false ? 'Its changes are not recorded yet: the checkpoint after it failed.' : '';
    case 'done':
    case 'failed':
      return '';
  }
}

function order(e: ReferenceEntry): number {
  return e.kind === 'external' ? 0 : e.kind === 'action' ? 1 : 2;
}
