// The files channel behind the undo saga's interface (shared/undo/channel.ts). A session holds the locks
// of every writable folder of the task, once no action runs there, for the whole saga: nothing else
// checkpoints, restores or starts an action on them between the check and the last step.
// check = FsReverter.prepare (checkpoint now, history and content rules); apply = FsReverter.commit
// (journaled restore); compensate = the opposite revert of the same actions under the same locks.
import type { UndoBlocker } from '../../../shared/domain';
import type { ChannelStep, StepReport, UndoChannel, UndoDirection, UndoJob } from '../../../shared/undo/channel';
import type { CheckpointStore } from './checkpoint-store';
import type { FsChannel } from './fs-channel';
import { FsReverter, RevertFailed, type PreparedRevert, type RevertBlocker, type RevertOutcome, type RevertRequest } from './fs-revert';
import type { ActionStateOf } from './undo-rules';

export type FilesUndoHooks = {
  /** The writable folders of the job's task (host paths). */
  foldersOf(job: UndoJob): string[];
  /** A fresh view of which actions are applied (statuses change as the saga goes). */
  stateOf(): ActionStateOf;
  /** Inside the transaction that completes a restore: set the actions' statuses (the job's `written` copies kept up to date). */
  commitStatuses(actionIds: readonly string[], direction: UndoDirection, job: UndoJob): void;
  /** Blockers in the person's words (action numbers, task titles, folder names). */
  describe(job: UndoJob, blockers: RevertBlocker[]): UndoBlocker[];
  /** How a path of a folder is named to the person (with the folder's name when the task has several). */
  label(job: UndoJob, folder: string, path: string): string;
};

export class FilesUndoChannel implements UndoChannel {
  readonly name = 'fs' as const;
  readonly leavesMachine = false;

  constructor(
    private readonly fs: FsChannel,
    private readonly reverter: FsReverter,
    private readonly hooks: FilesUndoHooks,
  ) {}

  async session<T>(job: UndoJob, body: (step: ChannelStep | null) => Promise<T>): Promise<T> {
    const folders = this.hooks.foldersOf(job);
    const touches = job.actions.some((a) => a.effects.some((e) => e.channel === 'fs'));
    if (folders.length === 0 || !touches) return body(null);
    return this.fs.withIdleFolders(folders, job.operation, (stores) => body(new FilesStep(this.reverter, this.hooks, job, folders, stores)));
  }
}

class FilesStep implements ChannelStep {
  private prepared: PreparedRevert | null = null;
  private report: StepReport | null = null;

  constructor(
    private readonly reverter: FsReverter,
    private readonly hooks: FilesUndoHooks,
    private readonly job: UndoJob,
    private readonly folders: string[],
    private readonly stores: CheckpointStore[],
  ) {}

  private request(direction: UndoDirection, actionIds: string[], keepCopies = false): RevertRequest {
    return {
      keepCopies,
      taskId: this.job.taskId,
      operation: this.job.operation,
      direction,
      actionIds,
      folders: this.folders,
      stateOf: this.hooks.stateOf(),
      commitStatuses: () => this.hooks.commitStatuses(actionIds, direction, this.job),
    };
  }

  async check(): Promise<UndoBlocker[]> {
    const prepared = await this.reverter.prepare(
      this.request(
        this.job.direction,
        this.job.actions.map((a) => a.id),
        this.job.direction === 'undo' && this.job.keepCopies === true,
      ),
      this.stores,
    );
    if (!prepared.ok) return this.hooks.describe(this.job, prepared.blockers).map((b) => ({ ...b, channel: 'fs' as const }));
    this.prepared = prepared;
    return [];
  }

  async apply() {
    if (!this.prepared) throw new Error('The files step was applied before it was checked.');
    const outcome = await this.reverter.commit(this.prepared);
    this.report = this.reportOf(outcome);
    return { ok: true as const, report: this.report };
  }

  async compensate(): Promise<void> {
    // The same actions the other way, oldest first for a rewind: under the same locks nothing else wrote
    // meanwhile, so only an edit the person made since the apply can stand in the way — then it is kept.
    // One revert per action, each journaled and recorded as that action's own change: a history entry
    // spanning several actions would give each the whole span, and a later undo of one of them would read
    // what the others did as its own.
    const back = this.job.direction === 'undo' ? 'redo' : 'undo';
    for (const id of this.job.actions.map((a) => a.id).reverse()) {
      const prepared = await this.reverter.prepare(this.request(back, [id]), this.stores);
      if (!prepared.ok) {
        const paths = this.hooks.describe(this.job, prepared.blockers).map((b) => b.path);
        throw new RevertFailed(`the files could not be put back, because ${paths.join(', ')} changed meanwhile (left as they are)`, false);
      }
      const outcome = await this.reverter.commit(prepared);
      this.report?.refs.push(`journal:${outcome.journalId}`);
    }
    // Edits the undo kept as copies go back where they were, over the redone actions.
    const kept = (this.prepared?.work ?? []).map((w) => ({ store: w.store, aside: w.aside }));
    await this.reverter.returnCopies({ taskId: this.job.taskId, operation: this.job.operation }, kept);
  }

  private reportOf(outcome: Extract<RevertOutcome, { ok: true }>): StepReport {
    const pick = (record: Record<string, string[]>) =>
      Object.entries(record).flatMap(([folder, paths]) => paths.map((p) => this.hooks.label(this.job, folder, p)));
    const restored = pick(outcome.restored);
    const removed = pick(outcome.removed);
    const notRestored = pick(outcome.notRestored);
    const copies = Object.entries(outcome.copies).flatMap(([folder, list]) =>
      list.map((c) => ({ path: this.hooks.label(this.job, folder, c.path), copy: this.hooks.label(this.job, folder, c.copy) })),
    );
    return {
      items: [
        ...copies.map((c) => `${c.path}: your edit kept as ${c.copy}`),
        ...restored.map((p) => `${p} put back`),
        ...removed.map((p) => `${p} removed`),
        ...notRestored.map((p) => `${p} left as it is (not covered by undo)`),
      ],
      restored,
      removed,
      notRestored,
      refs: [`journal:${outcome.journalId}`],
      ...(copies.length > 0 ? { copies } : {}),
    };
  }
}
