// Undo, redo, rewind and keep: the rules a person sees (what can be undone, in what order, and why not),
// over the files channel's journaled restores. Timelines, diffs and storage budgets are in undo-views.ts.
import { isApplied, type Action, type FsEffect, type Task, type UndoBlocker, type UndoResult } from '../../shared/domain';
import type { RedoResult, RewindResult } from '../../shared/domain/undo';
import type { FsChannel } from '../effects/fs/fs-channel';
import { FolderBusy } from '../effects/fs/folder-lease';
import { FsReverter, RevertFailed, type Recovery, type RevertBlocker, type RevertOutcome } from '../effects/fs/fs-revert';
import type { ActionStateOf } from '../effects/fs/undo-rules';
import type { TaskStore } from '../store/task-store';
import { keepDatabases, revertDatabases, type DatabaseStep, type DatabaseUndo } from './database-undo';
import type { EventBus } from './event-bus';
import { revertServiceCalls, takenBack, type RestUndoPort } from './rest-undo-step';
import { ServiceError } from './service-error';

export type UndoServiceOptions = {
  /** Whether the agent is working on a task right now (nothing is undone under its feet). */
  isRunning: (taskId: string) => boolean;
  /** The databases channel: database effects are undone first, each all-or-nothing, and put back if the files refuse. */
  db?: DatabaseUndo;
  /** The services channel: each call's recorded inverse is sent first (it cannot be put back), newest first. */
  rest?: RestUndoPort;
};

export class UndoService {
  private readonly reverter: FsReverter;
  private readonly pendingGc = new Set<Promise<unknown>>();
  private ready: Promise<Recovery[]> = Promise.resolve([]);

  constructor(
    private readonly store: TaskStore,
    private readonly fs: FsChannel,
    private readonly events: EventBus,
    private readonly options: UndoServiceOptions,
  ) {
    this.reverter = new FsReverter(fs, (journal) => {
      for (const id of journal.actionIds) this.setStatusAfter(id, journal.plan.direction);
    });
    fs.setGate((folders) => this.recoverPending(folders));
  }

  /**
   * Finishes or rolls back every restore a crash interrupted (at start). An entry that cannot be
   * finished yet stays pending and is tried again before its folders are next used.
   */
  recover(): Promise<Recovery[]> {
    this.ready = this.recoverPending().catch(() => []);
    return this.ready;
  }

  private async recoverPending(folders?: string[]): Promise<Recovery[]> {
    let done: Recovery[];
    try {
      done = await this.reverter.recoverPending(folders);
    } catch (error) {
      throw new ServiceError(
        'unavailable',
        `An undo that Posthoc was doing when it stopped could not be finished or rolled back yet (${error instanceof Error ? error.message : String(error)}). Nothing is lost; fix the cause and try again.`,
      );
    }
    for (const r of done) for (const id of r.journal.actionIds) this.publish(id);
    return done;
  }

  async undo(actionId: string): Promise<UndoResult> {
    await this.ready;
    const action = this.requireAction(actionId);
    this.requireApplied(action, 'undo');
    const task = this.requireIdle(action);
    await this.awaitFolders(task, 'undo');
    const calls = await revertServiceCalls(this.options.rest, this.store, [action], 'Undo');
    if (!calls.ok) return { outcome: 'conflict', action: this.requireAction(actionId), ...calls };
    const db = await revertDatabases(this.options.db, [action], 'undo', this.rewindSet(action).filter((a) => a.id !== action.id));
    if (!db.ok) return { outcome: 'conflict', ...databaseRefusal('Undo', db), action };
    const outcome = await this.revert(task, 'undo', [action]).catch(putBack(db));
    if (!outcome.ok) {
      await db.compensate();
      const blockers = this.describeBlockers(task, outcome.blockers);
      const canRewind = blockers.every((b) => b.by === 'action' && b.taskTitle === null && (b.actionSeq ?? 0) > action.seq);
      return {
        outcome: 'conflict',
        action,
        paths: blockers.map((b) => b.path),
        blockers,
        canRewind,
        message: refusal('Undo', blockers, canRewind ? ' Rewind to before this action to undo the later actions too, newest first.' : ''),
      };
    }
    const undone = this.publish(actionId);
    return { outcome: 'undone', action: undone, ...withDatabases(flatten(task, outcome), db), calls: calls.taken };
  }

  async redo(actionId: string): Promise<RedoResult> {
    await this.ready;
    const action = this.requireAction(actionId);
    if (action.status !== 'undone') throw new ServiceError('conflict', `Action ${action.seq} is ${action.status}; only an undone action can be redone.`);
    const task = this.requireIdle(action);
    const gone = takenBack(action);
    if (gone.length > 0) {
      throw new ServiceError(
        'conflict',
        `Undo took back ${gone.map((e) => `${e.method} svc/${e.service}${e.path}`).join(', ')}; redo cannot send service calls again. Ask the agent to do it again instead.`,
      );
    }
    await this.awaitFolders(task, 'redo');
    const db = await revertDatabases(this.options.db, [action], 'redo');
    if (!db.ok) return { outcome: 'conflict', ...databaseRefusal('Redo', db), action };
    const outcome = await this.revert(task, 'redo', [action]).catch(putBack(db));
    if (!outcome.ok) {
      await db.compensate();
      const blockers = this.describeBlockers(task, outcome.blockers);
      return { outcome: 'conflict', action, paths: blockers.map((b) => b.path), blockers, message: refusal('Redo', blockers, '') };
    }
    const redone = this.publish(actionId);
    return { outcome: 'redone', action: redone, ...withDatabases(flatten(task, outcome), db) };
  }

  /** Undoes the action and every later applied action of its task, newest first; all or nothing. */
  async rewind(actionId: string): Promise<RewindResult> {
    await this.ready;
    const action = this.requireAction(actionId);
    this.requireApplied(action, 'rewind to before');
    const task = this.requireIdle(action);
    const later = this.rewindSet(action);
    const kept = later.find((a) => a.status === 'kept');
    if (kept) {
      throw new ServiceError('conflict', `Action ${kept.seq} was kept, so a rewind cannot go back past it. Undo the actions after it instead.`);
    }
    for (const a of later) requireRecorded(a, 'rewind past');
    await this.awaitFolders(task, 'rewind');
    const calls = await revertServiceCalls(this.options.rest, this.store, later, 'Rewind');
    if (!calls.ok) return { outcome: 'conflict', action: this.requireAction(action.id), ...calls };
    const db = await revertDatabases(this.options.db, later, 'undo');
    if (!db.ok) return { outcome: 'conflict', ...databaseRefusal('Rewind', db), action };
    const outcome = await this.revert(task, 'rewind', later).catch(putBack(db));
    if (!outcome.ok) {
      await db.compensate();
      const blockers = this.describeBlockers(task, outcome.blockers);
      return { outcome: 'conflict', action, paths: blockers.map((b) => b.path), blockers, message: refusal('Rewind', blockers, '') };
    }
    const undone = later.map((a) => this.publish(a.id));
    return { outcome: 'rewound', action: this.requireAction(action.id), undone, ...withDatabases(flatten(task, outcome), db) };
  }

  /** Marks the action final and releases the checkpoints only it needed. */
  async keep(actionId: string): Promise<Action> {
    await this.ready;
    const action = this.requireAction(actionId);
    if (!isApplied(action.status)) {
      throw new ServiceError('conflict', `Action ${action.seq} is ${action.status}; only finished actions can be kept.`);
    }
    requireRecorded(action, 'keep');
    // A held database transaction commits as a whole: the other actions in it become final too.
    for (const other of await keepDatabases(this.options.db, action)) this.events.emit('action:updated', this.store.setActionStatus(other, 'kept'));
    const kept = this.store.setActionStatus(actionId, 'kept');
    this.events.emit('action:updated', kept);
    const task = this.store.getTask(action.taskId);
    for (const folder of foldersOf(task, action)) this.collectGarbage(folder, actionId);
    return kept;
  }

  /** Waits for background garbage collection (the CLI calls this before it exits). */
  async settle(): Promise<void> {
    await this.ready.catch(() => undefined);
    await Promise.allSettled([...this.pendingGc]);
  }

  /** The actions a rewind to before `action` undoes, in the order it undoes them (latest applied first). */
  rewindSet(action: Action): Action[] {
    const later = this.store.listActions(action.taskId).filter((a) => a.seq >= action.seq && a.status !== 'undone');
    const order = new Map<string, number>();
    const task = this.store.getTask(action.taskId);
    for (const folder of foldersOf(task, null)) {
      for (const c of this.fs.history.changes(folder)) {
        if (c.actionId && (c.kind === 'action' || c.kind === 'redo')) order.set(c.actionId, Math.max(order.get(c.actionId) ?? 0, c.id));
      }
    }
    return later.sort((a, b) => (order.get(b.id) ?? 0) - (order.get(a.id) ?? 0) || b.seq - a.seq);
  }

  stateOf(): ActionStateOf {
    const cache = new Map<string, 'applied' | 'undone'>();
    return (id) => {
      let state = cache.get(id);
      if (!state) {
        state = this.store.getAction(id)?.status === 'undone' ? 'undone' : 'applied';
        cache.set(id, state);
      }
      return state;
    };
  }

  describeBlockers(task: Task, blockers: ReadonlyArray<Omit<RevertBlocker, 'by'> & { by: RevertBlocker['by'] }>): UndoBlocker[] {
    const multi = task.workspaces.filter((w) => !w.readOnly).length > 1;
    return blockers.map((b) => {
      const other = b.actionId ? this.store.getAction(b.actionId) : undefined;
      const grant = task.workspaces.find((w) => w.hostPath === b.folder);
      const during = b.by === 'external' && b.during ? this.store.getAction(b.during) : undefined;
      return {
        path: multi && grant ? `${grant.name}/${b.path}` : b.path,
        by: b.by,
        actionId: b.by === 'action' ? b.actionId : null,
        actionSeq: b.by === 'action' ? (other?.seq ?? null) : null,
        taskTitle: b.by === 'action' && other && other.taskId !== task.id ? (this.store.getTask(other.taskId)?.title ?? 'another task') : null,
        ...(during ? { whileActionSeq: during.seq, ambiguous: b.ambiguous ?? false } : {}),
      };
    });
  }

  private async revert(task: Task, operation: 'undo' | 'redo' | 'rewind', actions: Action[]): Promise<RevertOutcome> {
    const direction = operation === 'redo' ? 'redo' : 'undo';
    await this.recoverPending(foldersOf(task, null));
    try {
      return await this.reverter.revert({
        taskId: task.id,
        operation,
        direction,
        actionIds: actions.map((a) => a.id),
        folders: foldersOf(task, null),
        stateOf: this.stateOf(),
        commitStatuses: () => {
          for (const a of actions) this.setStatusAfter(a.id, direction);
        },
      });
    } catch (error) {
      if (error instanceof RevertFailed) throw new ServiceError('internal', error.message);
      // Another action (of any task, in any process) is running on one of the folders.
      if (error instanceof FolderBusy) throw new ServiceError('conflict', error.message);
      throw error;
    } finally {
      // Refused or not, the attempt may have recorded outside edits and a journal entry.
      this.events.emit('timeline:updated', { taskId: task.id });
    }
  }

  /** Waits for an action running on the task's folders (another task's, or another process's), or refuses. */
  private async awaitFolders(task: Task, what: string): Promise<void> {
    try {
      await this.fs.awaitIdle(foldersOf(task, null), what);
    } catch (error) {
      if (error instanceof FolderBusy) throw new ServiceError('conflict', error.message);
      throw error;
    }
  }

  private setStatusAfter(actionId: string, direction: 'undo' | 'redo'): void {
    const action = this.store.getAction(actionId);
    if (!action) return;
    const ok = action.output.exitCode === 0 && !action.output.timedOut;
    // Redo gives an interrupted action its status back: it still did not run to its end.
    this.store.setActionStatus(actionId, direction === 'undo' ? 'undone' : action.output.interrupted ? 'interrupted' : ok ? 'done' : 'failed');
  }

  private publish(actionId: string): Action {
    const action = this.requireAction(actionId);
    this.events.emit('action:updated', action);
    return action;
  }

  private collectGarbage(folder: string, actionId: string): void {
    const run = this.fs.withFolders([folder], async ([store]) => {
      for (const ref of await store!.pinned()) if (ref.name.startsWith(`actions/${actionId}/`)) await store!.unpin(ref.name);
      return store!.collectGarbage();
    });
    this.pendingGc.add(run);
    void run.catch(() => undefined).finally(() => this.pendingGc.delete(run));
  }

  private requireAction(actionId: string): Action {
    const action = this.store.getAction(actionId);
    if (!action) throw new ServiceError('not-found', `No action ${actionId}. List actions with "posthoc actions".`);
    return action;
  }

  private requireApplied(action: Action, verb: string): void {
    switch (action.status) {
      case 'done':
      case 'failed':
        return;
      case 'interrupted':
        requireRecorded(action, verb);
        return;
      case 'undone':
        throw new ServiceError('conflict', `Action ${action.seq} is already undone. Redo it with "posthoc redo ${action.id}".`);
      case 'kept':
        throw new ServiceError('conflict', `Action ${action.seq} was kept; kept actions are final and cannot be undone.`);
      case 'running':
        throw new ServiceError('conflict', `Action ${action.seq} is still running; wait for it before you ${verb} it.`);
      case 'awaiting-approval':
        throw new ServiceError('conflict', `Action ${action.seq} never ran (it waits for approval), so there is nothing to ${verb}.`);
    }
  }

  private requireIdle(action: Action): Task {
    if (this.options.isRunning(action.taskId)) {
      throw new ServiceError('conflict', 'The agent is still working on this task; cancel it or wait for it to finish before undoing.');
    }
    const task = this.store.getTask(action.taskId);
    if (!task) throw new ServiceError('not-found', `The task of action ${action.id} no longer exists.`);
    return task;
  }
}

/** The writable folders an action's files live in (all of the task's when `action` is null). */
export function foldersOf(task: Task | undefined, action: Action | null): string[] {
  if (!task) return [];
  const writable = task.workspaces.filter((w) => !w.readOnly);
  if (action === null) return writable.map((w) => w.hostPath);
  const names = new Set(action.effects.filter((e): e is FsEffect => e.channel === 'fs').map((e) => e.workspace));
  return writable.filter((w) => names.has(w.name)).map((w) => w.hostPath);
}

function flatten(task: Task, outcome: Extract<RevertOutcome, { ok: true }>): { restored: string[]; removed: string[]; notRestored: string[] } {
  const multi = task.workspaces.filter((w) => !w.readOnly).length > 1;
  const name = (folder: string) => task.workspaces.find((w) => w.hostPath === folder)?.name ?? folder;
  const pick = (record: Record<string, string[]>) =>
    Object.entries(record).flatMap(([folder, paths]) => paths.map((p) => (multi ? `${name(folder)}/${p}` : p)));
  return { restored: pick(outcome.restored), removed: pick(outcome.removed), notRestored: pick(outcome.notRestored) };
}

/** An action started on the folders between the check and the files' step: the databases' step is put back. */
function putBack(db: Extract<DatabaseStep, { ok: true }>): (error: unknown) => Promise<never> {
  return async (error) => {
    if (error instanceof ServiceError && error.code === 'conflict') await db.compensate();
    throw error;
  };
}

function refusal(what: string, blockers: UndoBlocker[], hint: string): string {
  const parts = blockers.map((b) => `${b.path} (${describeBlocker(b)})`);
  const shown = parts.length > 8 ? `${parts.slice(0, 8).join(', ')} and ${parts.length - 8} more` : parts.join(', ');
  return `${what} refused: ${blockers.length} path(s) changed since and would be overwritten: ${shown}.${hint}`;
}

export function describeBlocker(b: UndoBlocker): string {
  switch (b.by) {
    case 'external':
      if (b.ambiguous) {
        return `also edited outside Posthoc while action ${b.whileActionSeq ?? '?'} ran, so undo cannot tell your edit from the action's and leaves it`;
      }
      return b.whileActionSeq != null ? `edited outside Posthoc while action ${b.whileActionSeq} ran` : 'edited outside Posthoc';
    case 'content':
      return 'no longer holds what the action left there';
    case 'action':
      return b.taskTitle !== null ? `changed by action ${b.actionSeq ?? '?'} of "${b.taskTitle}"` : `changed by action ${b.actionSeq ?? '?'}`;
  }
}

function databaseRefusal(what: string, db: Extract<DatabaseStep, { ok: false }>): { paths: string[]; blockers: UndoBlocker[]; canRewind: boolean; message: string } {
  const hint = db.canRewind ? ' Rewind to before this action to undo the later actions too, newest first.' : '';
  return { paths: db.blockers.map((b) => b.path), blockers: db.blockers, canRewind: db.canRewind, message: `${what} refused: ${db.message}${hint}` };
}

function withDatabases<T extends { restored: string[] }>(files: T, db: Extract<DatabaseStep, { ok: true }>): T {
  return { ...files, restored: [...files.restored, ...db.restored] };
}

/** An interrupted action whose changes are not recorded yet (its after-checkpoint failed) has nothing undo could take back yet. */
function requireRecorded(action: Action, verb: string): void {
  if (action.output.interrupted?.recorded === false) {
    throw new ServiceError(
      'conflict',
      `Action ${action.seq}'s changes are not recorded yet (the checkpoint after it failed), so Posthoc cannot ${verb} it yet. Free space on the disk of Posthoc's data folder and run any posthoc command: it records them, then try again.`,
    );
  }
}
