// What a Posthoc process that is gone left open in the record: its unrecorded actions and its running
// tasks, and the restores a crash interrupted. InterruptedActions closes them; a command that only reads
// the record (posthoc tasks) opens the whole services, whose start closes them, only when there is one.
import type { Action, Task } from '../../shared/domain';
import { ownerGone, thisProcess, type ProcessOwner } from '../platform/process-owner';
import type { AppDatabase } from '../store/database';
import { runningTaskOwners, unfinishedOwners } from '../store/task-rows';
import type { TaskStore } from '../store/task-store';
import type { UndoStore } from '../store/undo-store';

export type Leftover = { action: Action; owner: ProcessOwner };

/** Unfinished actions to close here: a gone process's, and this process's own unrecorded interrupted ones. */
export function leftovers(store: TaskStore): Leftover[] {
  return store.unfinishedActions().filter(({ action, owner }) => isLeftover(action.status, owner));
}

/** Whether an unfinished action (its status, its owner) is this process's to close. */
function isLeftover(status: string, owner: ProcessOwner): boolean {
  const me = thisProcess();
  const mine = owner.pid === me.pid && owner.start === me.start;
  // This process's own unrecorded action is closed by it; a live other process's is left to it.
  return status === 'interrupted' ? mine || ownerGone(owner) : !mine && ownerGone(owner);
}

/** Tasks still marked running whose process is gone. */
export function deadTasks(store: TaskStore): Task[] {
  return store.runningTasks().flatMap(({ task, owner }) => (ownerGone(owner) ? [task] : []));
}

/** True when a start has something of an earlier run to close: an action, a task or an interrupted restore. */
export function leftOpen(store: TaskStore, undo: UndoStore): boolean {
  return leftovers(store).length > 0 || deadTasks(store).length > 0 || undo.pendingJournals().length > 0;
}

/**
 * The same question asked of the record's rows alone, no action parsed (a command that only lists the record,
 * issue 28): the unfinished actions' status and owner, the running tasks' owners, the pending restores.
 */
export function leftOpenInRecord(db: AppDatabase, undo: UndoStore): boolean {
  return (
    unfinishedOwners(db).some(({ status, owner }) => isLeftover(status, owner)) ||
    runningTaskOwners(db).some(ownerGone) ||
    undo.pendingJournals().length > 0
  );
}
