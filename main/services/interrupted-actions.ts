// Every started action ends on the record. What a crash, a kill -9, a second Ctrl-C or a failed
// checkpoint left behind is closed here: at the start of every Posthoc command (orphan containers removed
// first, so nothing of a dead process still writes) and before each new action. Closing takes a
// checkpoint of each writable granted folder, diffs it against the action's pinned before-checkpoint,
// records the difference as the action's effect (undoable), and marks the action "interrupted".
// Only actions whose owning process is gone are touched: a live app's running action is left alone.
import type { Action, FsEffect, Task } from '../../shared/domain';
import { notCoveredOf, type Checkpointed, type FsChannel } from '../effects/fs/fs-channel';
import { summarize } from '../effects/fs/tree-diff';
import type { TaskStore } from '../store/task-store';
import { INTERRUPTED, withEffects } from './action-record';
import type { EventBus } from './event-bus';
import { deadTasks, leftovers, type Leftover } from './left-open';

const TASK_CRASHED = 'Posthoc stopped while this task ran (crash, kill or a second Ctrl-C); the next start closed it. Continue picks it up from the record of what ran.';

export class InterruptedActions {
  /** One closing at a time in this process; claimAction keeps two processes apart. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: TaskStore,
    private readonly fs: FsChannel,
    private readonly executor: { removeOrphans(): Promise<number> },
    private readonly events: EventBus,
  ) {}

  /**
   * At a start: orphan containers first, then `recover` (interrupted restores), then every leftover. One
   * line per closed action, for the person.
   */
  start(recover: () => Promise<unknown> = async () => undefined): Promise<string[]> {
    return this.serial(async () => {
      // Docker down means no container runs either; closing the records goes ahead.
      await this.executor.removeOrphans().catch(() => 0);
      await recover();
      return this.closeAll(leftovers(this.store));
    });
  }

  /** Before a new action: the same, paying for Docker only when a dead process's action is open. */
  settle(): Promise<string[]> {
    return this.serial(async () => {
      const open = leftovers(this.store);
      if (open.length === 0 && deadTasks(this.store).length === 0) return [];
      if (open.some((l) => l.action.status === 'running')) await this.executor.removeOrphans().catch(() => 0);
      return this.closeAll(open);
    });
  }

  private async closeAll(leftovers: Leftover[]): Promise<string[]> {
    const lines: string[] = [];
    for (const leftover of leftovers) {
      if (!this.store.claimAction(leftover.action.id, leftover.owner)) continue; // another process took it
      const action = this.store.getAction(leftover.action.id);
      const task = action && this.store.getTask(action.taskId);
      if (!action || !task) continue;
      lines.push(await this.close(action, task));
    }
    for (const task of deadTasks(this.store)) {
      this.events.emit('task:updated', this.store.updateTask(task.id, { status: 'interrupted', error: TASK_CRASHED }));
    }
    return lines;
  }

  private async close(action: Action, task: Task): Promise<string> {
    const name = `action ${action.seq} of task "${task.title}" (${action.id})`;
    const now = new Date().toISOString();
    if (action.kind === 'sql' || action.status === 'awaiting-approval') {
      const reason =
        action.status === 'awaiting-approval'
          ? INTERRUPTED.crashedWaiting
          : 'Posthoc stopped while this SQL action ran (crash or kill). The database keeps only what it had committed, and that was not recorded: check the database.';
      this.publish({ ...action, status: 'interrupted', output: { ...action.output, interrupted: { reason, recorded: true } }, finishedAt: action.finishedAt ?? now });
      return `closed ${name}: ${reason}`;
    }
    const calls = action.effects.filter((e) => e.channel !== 'fs');
    let files: FsEffect[];
    let skipped: string[];
    try {
      ({ files, skipped } = await this.recordFiles(action, task));
    } catch (error) {
      // Still not recordable (the disk is still full): interrupted, never "running"; the next start tries again.
      const reason = INTERRUPTED.afterFailed(error instanceof Error ? error.message : String(error));
      this.publish({ ...action, status: 'interrupted', output: { ...action.output, interrupted: { reason, recorded: false } }, finishedAt: action.finishedAt ?? now });
      return `could not close ${name}: ${reason}`;
    }
    const wasRunning = action.status === 'running';
    const reason = [
      wasRunning ? INTERRUPTED.crashed : 'The checkpoint after this action failed; what it changed was recorded later, at the next start, and can be undone.',
      ...skipped,
    ].join(' ');
    const recorded = withEffects(action, task, files, calls, skipped.length === 0);
    // Calls through the gateway are kept in the memory of the process that died: none is known here.
    const reachable = [...task.services, ...(task.databases ?? []).map((d) => d.name)];
    const closed = this.publish({
      ...recorded,
      ...(wasRunning && reachable.length > 0
        ? { confinement: { level: 'confined' as const, reason: `Posthoc stopped while it ran, so calls it may have made to ${reachable.join(', ')} were not recorded and cannot be undone; its file changes can.` } }
        : {}),
      status: 'interrupted',
      output: { ...action.output, interrupted: { reason, recorded: true } },
      finishedAt: action.finishedAt ?? now,
    });
    const changed = files.reduce((n, e) => n + e.added.length + e.modified.length + e.deleted.length + (e.renamed?.length ?? 0), 0);
    const what = changed === 0 ? 'it changed no file' : `${changed === 1 ? '1 file change' : `${changed} file changes`} recorded; undo with: posthoc undo ${closed.id}`;
    return `closed ${name}: interrupted ${wasRunning ? 'when Posthoc stopped' : 'after a failed checkpoint'}; ${what}.${skipped.length ? ` ${skipped.join(' ')}` : ''}`;
  }

  /** The action's file changes: each writable folder now, against its pinned before-checkpoint. */
  private async recordFiles(action: Action, task: Task): Promise<{ files: FsEffect[]; skipped: string[] }> {
    const files: FsEffect[] = [];
    const skipped: string[] = [];
    const befores: Checkpointed[] = [];
    for (const grant of task.workspaces.filter((g) => !g.readOnly)) {
      const store = await this.fs.storeFor(grant.hostPath);
      const refs = new Map((await store.pinned()).map((r) => [r.name, r.oid]));
      const before = refs.get(`actions/${action.id}/before`);
      if (!before) {
        skipped.push(`No checkpoint of ${grant.hostPath} was taken before it, so its changes there (if any) show as edits made outside Posthoc.`);
        continue;
      }
      const checkpoint = await store.checkpoint(before);
      const after = refs.get(`actions/${action.id}/after`);
      if (after) {
        // The crash came after the checkpoint was recorded but before the action was saved: read it back.
        const cp = await store.checkpoint(after);
        files.push(effectBetween(grant.name, checkpoint, cp, store.diff(checkpoint.tree, cp.tree)));
        continue;
      }
      if (this.fs.history.head(grant.hostPath) !== before) {
        skipped.push(`A later checkpoint of ${grant.hostPath} already recorded its changes there as edits made outside Posthoc.`);
        continue;
      }
      befores.push({ grant, store, commit: before, checkpoint, taskId: task.id });
    }
    for (const r of await this.fs.after(action.id, befores)) {
      files.push(r.effect);
    }
    return { files, skipped };
  }

  private publish(action: Action): Action {
    const saved = this.store.saveAction(action);
    this.events.emit('action:updated', saved);
    return saved;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

function effectBetween(
  workspace: string,
  before: Checkpointed['checkpoint'],
  after: Checkpointed['checkpoint'],
  changes: ReturnType<Checkpointed['store']['diff']>,
): FsEffect {
  const summary = summarize(changes);
  const touched = new Set([...summary.modified, ...summary.deleted, ...summary.renamed.map((r) => r.from)]);
  return {
    channel: 'fs',
    workspace,
    added: summary.added,
    modified: summary.modified,
    deleted: summary.deleted,
    renamed: summary.renamed,
    checkpointBefore: before.commit,
    checkpointAfter: after.commit,
    notCovered: notCoveredOf(before.notCovered, after.notCovered, touched),
  };
}
