// Undo, redo, rewind and keep: the rules a person sees (what can be undone, in what order, and why not),
// as one saga over the channels it is handed (shared/undo/channel.ts; the list is built by undo-channels.ts
// in the composition root), naming none of them:
//
//   open a session on every channel (the files' folder locks are held to the end)
//   ─ check every step of every action: a dry run that changes nothing; any conflict → refuse, naming all
//   ─ apply the exact (local) channels in the list's order, each all-or-nothing
//   ─ then the channels that leave the machine (`leavesMachine`: service and tool calls), newest first
//   ─ a provider refuses → put the local steps back; "refused" if nothing was sent, else "partial"
//   ─ record the operation with each step's result (the timeline shows it)
// Timelines, diffs and storage budgets are in undo-views.ts.
import { isApplied, type Action, type PartialUndo, type Task, type UndoBlocker, type UndoResult, type UndoStep } from '../../shared/domain';
import type { RedoResult, RewindResult } from '../../shared/domain/undo';
import { describeBlocker } from '../../shared/undo/blocker-words';
import { reversePlanOf } from '../../shared/undo/reverse-plan';
import { KeepRefused, StepRefused, type ApplyResult, type ChannelStep, type StepReport, type UndoChannel, type UndoDirection, type UndoJob, type UndoOperation } from '../../shared/undo/channel';
import type { FsChannel } from '../effects/fs/fs-channel';
import { FolderBusy } from '../effects/fs/folder-lease';
import { RevertFailed, type FsReverter, type Recovery, type RevertBlocker } from '../effects/fs/fs-revert';
import type { ActionStateOf } from '../effects/fs/undo-rules';
import type { TaskStore } from '../store/task-store';
import { lastRedoneOf, putBackJournalsOf, type UndoOperationRecord, type UndoOperations } from '../store/undo-operations';
import type { FolderChange } from '../store/undo-store';
import type { EventBus } from './event-bus';
import { ServiceError } from './service-error';
import { actionStateOf, describeBlockers, foldersOf, writeJobStatuses } from './undo-facts';

export { describeBlocker, foldersOf };

export type UndoServiceOptions = {
  /** Whether the agent is working on a task right now (nothing is undone under its feet). */
  isRunning: (taskId: string) => boolean;
  /**
   * The saga's channels (undo-channels.ts, built by the composition root): the exact ones are applied first,
   * in this order, and the ones that leave the machine (`leavesMachine`) last.
   */
  channels: readonly UndoChannel[];
  /** The files' reverter the files channel restores with: UndoService finishes or rolls back what a crash interrupted. */
  reverter: FsReverter;
  /** Where operations are recorded for the timeline (none: not recorded). */
  operations?: UndoOperations;
  /** Keep releases what only the action's card needed (its figures' files). */
  release?: (actionId: string) => Promise<void>;
};

type SagaOutcome =
  | { kind: 'done'; report: Merged; steps: UndoStep[] }
  | { kind: 'refused'; blockers: UndoBlocker[]; message: string; canRewind: boolean; canKeepCopies: boolean; steps: UndoStep[] }
  | { kind: 'partial'; message: string; calls: string[]; refused: PartialUndo['refused']; steps: UndoStep[] };

type Merged = { restored: string[]; removed: string[]; notRestored: string[]; calls: string[]; copies: Array<{ path: string; copy: string }> };

/** Undo and rewind: keep the person's edits in the way as copies ("NAME (your edit).ext"), then go on. */
export type UndoOptions = { keepCopies?: boolean };

const WORDS: Record<UndoOperation, { verb: string; title: string }> = {
  undo: { verb: 'undo', title: 'Undo' },
  redo: { verb: 'redo', title: 'Redo' },
  rewind: { verb: 'rewind', title: 'Rewind' },
};

export class UndoService {
  private readonly reverter: FsReverter;
  /** Exact channels first (in the order given), then the ones that leave the machine. */
  private readonly channels: readonly UndoChannel[];
  private readonly pendingGc = new Set<Promise<unknown>>();
  private ready: Promise<Recovery[]> = Promise.resolve([]);

  constructor(
    private readonly store: TaskStore,
    private readonly fs: FsChannel,
    private readonly events: EventBus,
    private readonly options: UndoServiceOptions,
  ) {
    this.reverter = options.reverter;
    fs.setGate((folders) => this.recoverPending(folders));
    this.channels = [...options.channels.filter((c) => !c.leavesMachine), ...options.channels.filter((c) => c.leavesMachine)];
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
    for (const r of done) for (const id of r.journal.actionIds) this.publish(this.requireAction(id));
    return done;
  }

  /** The channels that can preview (their ids): an action with no effect on any of them needs no preview. */
  previewable(): ReadonlySet<string> {
    return new Set(this.options.channels.filter((c) => c.preview).map((c) => c.name));
  }

  /**
   * What an undo (or redo) of the action would meet on every channel with a cheap look that reads and writes
   * nothing (`UndoChannel.preview`: no checkpoint, no lock, nothing recorded), for the timeline to show before
   * the click. The files are not asked: their blockers come from the folders' record (undo-views.ts).
   */
  async preview(actionId: string, direction: UndoDirection = 'undo'): Promise<UndoBlocker[]> {
    await this.ready;
    const action = this.requireAction(actionId);
    const job: UndoJob = { taskId: action.taskId, operation: direction, direction, actions: [action], later: [] };
    const found = await Promise.all(this.options.channels.map((c) => c.preview?.(job) ?? Promise.resolve([])));
    return found.flat();
  }

  async undo(actionId: string, options: UndoOptions = {}): Promise<UndoResult> {
    await this.ready;
    const action = this.requireAction(actionId);
    this.requireApplied(action, 'undo');
    const task = this.requireIdle(action);
    const later = this.rewindSet(action, { task }).filter((a) => a.id !== action.id);
    const { out, now: after } = await this.saga(task, 'undo', [action], later, options.keepCopies === true);
    const now = after.get(actionId)!;
    switch (out.kind) {
      case 'refused':
        return { ...conflictOf(now, out), canRewind: out.canRewind };
      case 'partial':
        return { outcome: 'partial', action: now, message: out.message, calls: out.calls, refused: out.refused, steps: out.steps };
      case 'done':
        return {
          outcome: 'undone',
          action: now,
          restored: out.report.restored,
          removed: out.report.removed,
          notRestored: out.report.notRestored,
          calls: out.report.calls,
          ...(out.report.copies.length > 0 ? { copies: out.report.copies } : {}),
          steps: out.steps,
        };
    }
  }

  async redo(actionId: string): Promise<RedoResult> {
    await this.ready;
    const action = this.requireAction(actionId);
    if (action.status !== 'undone') throw new ServiceError('conflict', `Action ${action.seq} is ${action.status}; only an undone action can be redone.`);
    const task = this.requireIdle(action);
    const { out, now: after } = await this.saga(task, 'redo', [action], []);
    const now = after.get(actionId)!;
    switch (out.kind) {
      // Redo sends nothing off the machine, so it is never partial.
      case 'refused':
      case 'partial':
        return { outcome: 'conflict', action: now, paths: 'blockers' in out ? out.blockers.map((b) => b.path) : [], blockers: 'blockers' in out ? out.blockers : [], message: out.message, steps: out.steps };
      case 'done':
        return { outcome: 'redone', action: now, restored: out.report.restored, removed: out.report.removed, notRestored: out.report.notRestored, steps: out.steps };
    }
  }

  /** Undoes the action and every later applied action of its task, newest applied first; all or nothing. */
  async rewind(actionId: string, options: UndoOptions = {}): Promise<RewindResult> {
    await this.ready;
    const action = this.requireAction(actionId);
    this.requireApplied(action, 'rewind to before');
    const task = this.requireIdle(action);
    const later = this.rewindSet(action, { task });
    const kept = later.find((a) => a.status === 'kept');
    if (kept) {
      throw new ServiceError('conflict', `Action ${kept.seq} was kept, so a rewind cannot go back past it. Undo the actions after it instead.`);
    }
    for (const a of later) requireRecorded(a, 'rewind past');
    const { out, now: after } = await this.saga(task, 'rewind', later, [], options.keepCopies === true);
    // The rewind set starts at the chosen action (it is applied), so the saga read it back with the rest.
    const now = after.get(actionId) ?? this.requireAction(actionId);
    switch (out.kind) {
      case 'refused':
        return conflictOf(now, out);
      case 'partial':
        return { outcome: 'partial', action: now, message: out.message, calls: out.calls, refused: out.refused, steps: out.steps };
      case 'done':
        return {
          outcome: 'rewound',
          action: now,
          undone: later.map((a) => after.get(a.id) ?? this.requireAction(a.id)),
          restored: out.report.restored,
          removed: out.report.removed,
          notRestored: out.report.notRestored,
          ...(out.report.copies.length > 0 ? { copies: out.report.copies } : {}),
          steps: out.steps,
        };
    }
  }

  /**
   * The saga: every channel's step is checked before any is applied; local channels are applied before
   * the ones that leave the machine; a refusal from those puts the local steps back.
   */
  private async saga(task: Task, operation: UndoOperation, actions: Action[], later: Action[], keepCopies = false): Promise<{ out: SagaOutcome; now: ReadonlyMap<string, Action> }> {
    const direction: UndoDirection = operation === 'redo' ? 'redo' : 'undo';
    const written = new Map<string, Action>();
    const job: UndoJob = { taskId: task.id, task, operation, direction, actions, later, written, ...(keepCopies ? { keepCopies } : {}) };
    const words = WORDS[operation];
    await this.recoverPending(foldersOf(task, null));
    let out: SagaOutcome;
    let refs: string[] = [];
    /** The job's actions as published after the saga (read once each). */
    const now = new Map<string, Action>();
    try {
      try {
        out = await this.openSessions(job, this.channels, [], async (opened) => {
          const result = await this.run(job, opened, words.title);
          refs = result.refs;
          return result.out;
        });
      } catch (error) {
        if (error instanceof RevertFailed) throw new ServiceError('internal', error.message);
        // Another action (of any task, in any process) is running on one of the folders.
        if (error instanceof FolderBusy) throw new ServiceError('conflict', error.message);
        throw error;
      }
      this.options.operations?.add({
        taskId: task.id,
        operation,
        actionIds: actions.map((a) => a.id),
        outcome: out.kind,
        steps: out.steps,
        refs,
        message: out.kind === 'done' ? null : out.message,
      });
      for (const a of actions) now.set(a.id, this.publish(written.get(a.id) ?? a));
    } finally {
      // Once, whatever happened: the attempt may have recorded outside edits and a journal entry, and the
      // operation (when it got that far) is recorded by now.
      this.events.emit('timeline:updated', { taskId: task.id });
    }
    return { out, now };
  }

  private async openSessions<T>(
    job: UndoJob,
    rest: readonly UndoChannel[],
    opened: Array<{ channel: UndoChannel; step: ChannelStep }>,
    body: (opened: Array<{ channel: UndoChannel; step: ChannelStep }>) => Promise<T>,
  ): Promise<T> {
    const [first, ...others] = rest;
    if (!first) return body(opened);
    return first.session(job, (step) => this.openSessions(job, others, step ? [...opened, { channel: first, step }] : opened, body));
  }

  private async run(job: UndoJob, opened: Array<{ channel: UndoChannel; step: ChannelStep }>, title: string): Promise<{ out: SagaOutcome; refs: string[] }> {
    // 1. Check everything; change nothing.
    const found: Array<{ channel: UndoChannel; blockers: UndoBlocker[] }> = [];
    for (const o of opened) found.push({ channel: o.channel, blockers: await o.step.check() });
    const blockers = found.flatMap((f) => f.blockers);
    if (blockers.length > 0) {
      const steps = found.map((f): UndoStep => ({
        channel: f.channel.name,
        result: f.blockers.length > 0 ? 'refused' : 'not-run',
        items: f.blockers.map((b) => `${b.path}: ${describeBlocker(b)}`),
        detail: f.blockers.length > 0 ? (f.blockers.length === 1 ? '1 conflict' : `${f.blockers.length} conflicts`) : null,
      }));
      return { out: this.refusal(job, title, blockers, steps), refs: [] };
    }

    // 2. Local channels, each all or nothing; a conflict met half-way puts back the ones before it.
    const local = opened.filter((o) => !o.channel.leavesMachine);
    const remote = opened.filter((o) => o.channel.leavesMachine);
    const applied: Array<{ channel: UndoChannel; step: ChannelStep; report: StepReport }> = [];
    const putBack = async (): Promise<string | null> => {
      for (const a of [...applied].reverse()) {
        try {
          await a.step.compensate();
        } catch (error) {
          return `${a.channel.name} could not be put back: ${error instanceof Error ? error.message : String(error)}`;
        }
      }
      return null;
    };
    for (const o of local) {
      try {
        const r = await o.step.apply();
        applied.push({ ...o, report: r.report });
      } catch (error) {
        const stuck = await putBack();
        if (stuck) throw new ServiceError('internal', `The ${job.operation} stopped half-way and ${stuck}. Check the folders and databases named.`);
        if (error instanceof StepRefused) {
          const steps = opened.map((x): UndoStep => {
            if (x === o) return { channel: x.channel.name, result: 'refused', items: error.blockers.map((b) => `${b.path}: ${describeBlocker(b)}`), detail: 'changed since' };
            const done = applied.find((a) => a.channel === x.channel);
            return done ? { channel: x.channel.name, result: 'compensated', items: done.report.items, detail: 'put back: another step was refused' } : { channel: x.channel.name, result: 'not-run', items: [], detail: null };
          });
          return { out: this.refusal(job, title, error.blockers, steps), refs: applied.flatMap((a) => a.report.refs) };
        }
        throw error;
      }
    }

    // 3. What leaves the machine, last.
    for (const o of remote) {
      const r: ApplyResult = await o.step.apply();
      if (r.ok) {
        applied.push({ ...o, report: r.report });
        continue;
      }
      const stuck = await putBack();
      const sent = r.report.items;
      const steps = opened.map((x): UndoStep => {
        if (x === o) return { channel: x.channel.name, result: 'refused', items: [...sent, `${r.refused.what} refused: ${r.refused.why}`], detail: r.refused.why };
        const done = applied.find((a) => a.channel === x.channel);
        if (done && !done.channel.leavesMachine) return { channel: x.channel.name, result: stuck ? 'done' : 'compensated', items: done.report.items, detail: stuck ?? 'put back: a service refused' };
        return done ? { channel: x.channel.name, result: 'done', items: done.report.items, detail: null } : { channel: x.channel.name, result: 'not-run', items: [], detail: null };
      });
      const refs = applied.flatMap((a) => a.report.refs);
      const back = stuck ? ` ${stuck[0]!.toUpperCase()}${stuck.slice(1)}.` : applied.some((a) => !a.channel.leavesMachine) ? ' The files and database changes were put back.' : '';
      // Refused with nothing changed anywhere — unless a local step could not be put back (then it is partial too).
      if (sent.length === 0 && !stuck && applied.every((a) => !a.channel.leavesMachine)) {
        const blocker: UndoBlocker = { path: r.refused.what, by: 'content', actionId: null, actionSeq: null, taskTitle: null, channel: o.channel.name, reason: `refused: ${r.refused.why}` };
        return {
          out: {
            kind: 'refused',
            blockers: [blocker],
            canRewind: false,
            canKeepCopies: false,
            message: `${title} refused: ${r.refused.what} was refused: ${r.refused.why}.${back} Nothing changed. Fix the cause (reconnect the service, check the object still exists) and try again.`,
            steps,
          },
          refs,
        };
      }
      const went = [...applied.filter((a) => a.channel.leavesMachine).flatMap((a) => a.report.items), ...sent];
      return {
        out: {
          kind: 'partial',
          calls: [...applied.filter((a) => a.channel.leavesMachine).flatMap((a) => a.report.calls ?? []), ...(r.report.calls ?? [])],
          refused: r.refused,
          message: `${title} partly done: ${went.length > 0 ? `${went.join('; ')} — these cannot be taken back; then ` : ''}${r.refused.what} was refused: ${r.refused.why}.${back} ${stuck ? 'Check what is named above.' : `The action stays applied; ${job.operation} again to send only what is left.`}`,
          steps,
        },
        refs,
      };
    }

    const merged: Merged = { restored: [], removed: [], notRestored: [], calls: [], copies: [] };
    for (const a of applied) {
      merged.copies.push(...(a.report.copies ?? []));
      merged.restored.push(...a.report.restored);
      merged.removed.push(...a.report.removed);
      merged.notRestored.push(...a.report.notRestored);
      merged.calls.push(...(a.report.calls ?? []));
    }
    // Statuses of actions with no files (the files' step already set them in its own transaction).
    writeJobStatuses(this.store, job, job.actions.map((a) => a.id), job.direction);
    const steps = applied.map((a): UndoStep => ({ channel: a.channel.name, result: 'done', items: a.report.items, detail: null }));
    return { out: { kind: 'done', report: merged, steps }, refs: applied.flatMap((a) => a.report.refs) };
  }

  private refusal(job: UndoJob, title: string, blockers: UndoBlocker[], steps: UndoStep[]): SagaOutcome {
    const target = job.actions[0];
    const laterIds = new Set(job.later.map((a) => a.id));
    const laterDbs = new Set(job.later.flatMap((a) => a.effects.flatMap((e) => (e.channel === 'db' ? [e.database] : []))));
    const canRewind =
      job.operation === 'undo' &&
      blockers.length > 0 &&
      blockers.every(
        (b) =>
          (b.by === 'action' && b.taskTitle === null && b.actionId !== null && (laterIds.has(b.actionId) || (b.actionSeq ?? 0) > (target?.seq ?? 0))) ||
          (b.channel === 'db' && [...laterDbs].some((d) => b.path === d || b.path.startsWith(`${d}: `))),
      );
    // Every blocker a file the person changed: keeping each edit as a copy gets past all of them.
    const canKeepCopies = job.direction === 'undo' && blockers.length > 0 && blockers.every((b) => b.copyable === true);
    const parts = blockers.map((b) => `${b.path} (${describeBlocker(b)})`);
    const shown = parts.length > 8 ? `${parts.slice(0, 8).join(', ')} and ${parts.length - 8} more` : parts.join(', ');
    const stuck = blockers.filter((b) => b.copyable !== true).map((b) => (b.noCopy ? `${b.path} (${b.noCopy})` : b.path));
    const hint = canKeepCopies
      ? ` To ${job.operation} anyway, keep a copy of your edits: each stays next to its file as “NAME (your edit)”, and the files go back.`
      : job.keepCopies && stuck.length > 0
        ? ` Keeping copies does not get past ${stuck.slice(0, 5).join(', ')}${stuck.length > 5 ? ' and more' : ''}: only a file you changed since can be kept as a copy.${canRewind ? ' Rewind to before this action to undo the later actions too, newest first.' : ''}`
        : canRewind
          ? ' Rewind to before this action to undo the later actions too, newest first.'
          : '';
    return {
      kind: 'refused',
      blockers,
      canRewind,
      canKeepCopies,
      message: `${title} refused: ${blockers.length === 1 ? '1 conflict' : `${blockers.length} conflicts`}, nothing was changed: ${shown}.${hint}`,
      steps,
    };
  }

  /** Marks the action final and releases the checkpoints only it needed. */
  async keep(actionId: string): Promise<Action> {
    await this.ready;
    const action = this.requireAction(actionId);
    if (!isApplied(action.status)) {
      throw new ServiceError('conflict', `Action ${action.seq} is ${action.status}; only finished actions can be kept.`);
    }
    requireRecorded(action, 'keep');
    // Each channel releases what it holds (a held database transaction commits as a whole: the other actions in it become final too).
    for (const channel of this.options.channels) {
      let others: string[] = [];
      try {
        others = (await channel.keep?.(action)) ?? [];
      } catch (error) {
        if (error instanceof KeepRefused) throw new ServiceError('conflict', error.message);
        throw error;
      }
      for (const other of others) this.events.emit('action:updated', this.store.setActionStatus(other, 'kept'));
    }
    await this.options.release?.(actionId);
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

  /**
   * The actions a rewind to before `action` undoes, in the order it undoes them: newest applied first
   * across every channel. An action was applied when it finished, or when it was last redone (the
   * operations record; for files also the folder's history, which older data folders have alone).
   */
  rewindSet(action: Action, read: { task?: Task } = {}): Action[] {
    return this.rewindOrder(action.taskId, read).filter((a) => a.seq >= action.seq);
  }

  /**
   * Every action of the task that is not undone, newest applied first (an action is applied when it finished
   * or was last redone): the order a rewind undoes them in. A rewind to X undoes the ones from X's seq on, in
   * this order, so the timeline computes it once for all its rows (`actions`: the task's, when already read).
   */
  rewindOrder(
    taskId: string,
    read: {
      /** What the caller already read of the task: its actions, its folders' changes, its task row, its undo operations. */
      actions?: readonly Action[];
      changesOf?: (folder: string) => readonly FolderChange[];
      task?: Task;
      operations?: readonly UndoOperationRecord[];
    } = {},
  ): Action[] {
    const actions = read.actions ?? this.store.listActions(taskId);
    const changesOf = read.changesOf ?? ((folder: string) => this.fs.history.changes(folder));
    const operations = this.options.operations ? (read.operations ?? this.options.operations.forTask(taskId)) : [];
    const standing = actions.filter((a) => a.status !== 'undone');
    const appliedAt = new Map<string, string>();
    const bump = (id: string, at: string) => {
      if ((appliedAt.get(id) ?? '') < at) appliedAt.set(id, at);
    };
    for (const a of standing) bump(a.id, a.finishedAt ?? a.startedAt);
    for (const [id, at] of lastRedoneOf(operations)) bump(id, at);
    // A redo the files journaled while putting back a refused operation's undo is no redo: the action stays
    // where it was in the order.
    const putBack = putBackJournalsOf(operations);
    const task = read.task ?? this.store.getTask(taskId);
    for (const folder of foldersOf(task, null)) {
      for (const c of changesOf(folder)) {
        if (c.actionId && c.kind === 'redo' && (c.journalId === null || !putBack.has(c.journalId))) bump(c.actionId, c.createdAt);
      }
    }
    const key = (a: Action) => appliedAt.get(a.id) ?? '';
    return standing.sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : b.seq - a.seq));
  }

  /** A fresh view of which actions are applied (the timeline's blockers). */
  stateOf(): ActionStateOf {
    return actionStateOf(this.store);
  }

  /** The blockers as the person reads them; `known`: actions already read (the timeline's), looked up instead of read again. */
  describeBlockers(
    task: Task,
    blockers: ReadonlyArray<Omit<RevertBlocker, 'by'> & { by: RevertBlocker['by'] }>,
    known?: ReadonlyMap<string, Action>,
  ): UndoBlocker[] {
    return describeBlockers(this.store, task, blockers, known);
  }

  /** Tells the front ends an action as it stands after the saga (the job's copy: its row is not read again). */
  private publish(action: Action): Action {
    // Its reverse plan again: a channel that leaves the machine marks what it took back on the effects.
    const now = { ...action, reverse: reversePlanOf(action) };
    this.events.emit('action:updated', now);
    return now;
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

/** A refused undo or rewind, as its answer says it. */
function conflictOf(action: Action, out: Extract<SagaOutcome, { kind: 'refused' }>) {
  return {
    outcome: 'conflict' as const,
    action,
    paths: out.blockers.map((b) => b.path),
    blockers: out.blockers,
    canKeepCopies: out.canKeepCopies,
    message: out.message,
    steps: out.steps,
  };
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

