// What undo reads and writes of the task record, shared by the saga (undo-service.ts), the timeline
// (undo-views.ts) and the files channel's hooks (undo-channels.ts): an action's status after an undo or a
// redo, which actions are applied, blockers in the person's words, the folders a task's files live in.
import type { Action, ActionStatus, FsEffect, Task, UndoBlocker } from '../../shared/domain';
import type { RevertBlocker } from '../effects/fs/fs-revert';
import type { ActionStateOf } from '../effects/fs/undo-rules';
import type { TaskStore } from '../store/task-store';

/** An action's status after an undo or a redo of it. */
export function statusAfter(action: Action, direction: 'undo' | 'redo'): ActionStatus {
  const ok = action.output.exitCode === 0 && !action.output.timedOut;
  // Redo gives an interrupted action its status back: it still did not run to its end.
  return direction === 'undo' ? 'undone' : action.output.interrupted ? 'interrupted' : ok ? 'done' : 'failed';
}

/** Sets the action's status after an undo or a redo of it, unless it has it already (read by id: crash recovery). */
export function setStatusAfter(store: TaskStore, actionId: string, direction: 'undo' | 'redo'): void {
  const action = store.getAction(actionId);
  if (action) writeStatusAfter(store, action, direction);
}

/** The same, of an action already read: written only when it changes (once), returned as it stands. */
export function writeStatusAfter(store: TaskStore, action: Action, direction: 'undo' | 'redo'): Action {
  const status = statusAfter(action, direction);
  return action.status === status ? action : store.writeActionStatus(action, status);
}

/** Sets the statuses of a job's actions after an undo or a redo, from the job's own copies (`written`), and keeps them there. */
export function writeJobStatuses(store: TaskStore, job: { actions: readonly Action[]; written?: Map<string, Action> }, ids: readonly string[], direction: 'undo' | 'redo'): void {
  for (const id of ids) {
    const action = job.written?.get(id) ?? job.actions.find((a) => a.id === id) ?? store.getAction(id);
    if (!action) continue;
    const next = writeStatusAfter(store, action, direction);
    job.written?.set(id, next);
  }
}

/** A fresh view of which actions are applied, each read once. */
export function actionStateOf(store: TaskStore): ActionStateOf {
  const cache = new Map<string, 'applied' | 'undone'>();
  return (id) => {
    let state = cache.get(id);
    if (!state) {
      state = store.getAction(id)?.status === 'undone' ? 'undone' : 'applied';
      cache.set(id, state);
    }
    return state;
  };
}

/** The blockers as the person reads them; `known`: actions already read (the timeline's), looked up instead of read again. */
export function describeBlockers(
  store: TaskStore,
  task: Task,
  blockers: ReadonlyArray<Omit<RevertBlocker, 'by'> & { by: RevertBlocker['by'] }>,
  known?: ReadonlyMap<string, Action>,
): UndoBlocker[] {
  const multi = task.workspaces.filter((w) => !w.readOnly).length > 1;
  const actionOf = (id: string) => known?.get(id) ?? store.getAction(id);
  return blockers.map((b) => {
    const other = b.actionId ? actionOf(b.actionId) : undefined;
    const grant = task.workspaces.find((w) => w.hostPath === b.folder);
    const during = b.by === 'external' && b.during ? actionOf(b.during) : undefined;
    return {
      path: multi && grant ? `${grant.name}/${b.path}` : b.path,
      by: b.by,
      actionId: b.by === 'action' ? b.actionId : null,
      actionSeq: b.by === 'action' ? (other?.seq ?? null) : null,
      taskTitle: b.by === 'action' && other && other.taskId !== task.id ? (store.getTask(other.taskId)?.title ?? 'another task') : null,
      ...(during ? { whileActionSeq: during.seq, ambiguous: b.ambiguous ?? false } : {}),
      ...(b.copyable !== undefined ? { copyable: b.copyable } : {}),
      ...(b.noCopy !== undefined ? { noCopy: b.noCopy } : {}),
    };
  });
}

/** The writable folders an action's files live in (all of the task's when `action` is null). */
export function foldersOf(task: Task | undefined, action: Action | null): string[] {
  if (!task) return [];
  const writable = task.workspaces.filter((w) => !w.readOnly);
  if (action === null) return writable.map((w) => w.hostPath);
  const names = new Set(action.effects.filter((e): e is FsEffect => e.channel === 'fs').map((e) => e.workspace));
  return writable.filter((w) => names.has(w.name)).map((w) => w.hostPath);
}

/** A path of `folder` as the person sees it: with the folder's name when the task has several. */
export function labelOf(task: Task, folder: string, path: string): string {
  const multi = task.workspaces.filter((w) => !w.readOnly).length > 1;
  const name = task.workspaces.find((w) => w.hostPath === folder)?.name ?? folder;
  return multi ? `${name}/${path}` : path;
}
