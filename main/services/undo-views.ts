// What the undo timeline, the diff view and the storage settings show. Reads only: the history in the
// store and the checkpoints in the shadow repositories.
import { createHash } from 'node:crypto';
import { isApplied, type Action, type FsEffect } from '../../shared/domain';
import type { Availability, DiffSide, FileDiff, Timeline, TimelineEntry, UndoStorage } from '../../shared/domain/undo';
import { DamagedObject } from '../effects/fs/blob-stream';
import { CheckpointMissing, DEFAULT_LARGE_FILE_BYTES, type CheckpointStore } from '../effects/fs/checkpoint-store';
import { DEFAULT_BUDGET_BYTES, type FsChannel } from '../effects/fs/fs-channel';
import { blockerOf, toEvent } from '../effects/fs/fs-revert';
import type { Entry } from '../effects/fs/tree-model';
import { FolderHistory, type ActionStateOf, type HistoryBlocker } from '../effects/fs/undo-rules';
import type { TaskStore } from '../store/task-store';
import type { UndoOperations } from '../store/undo-operations';
import { ServiceError } from './service-error';
import { foldersOf, type UndoService } from './undo-service';

/** Files longer than this are shown by size and SHA-256, like binaries. */
const MAX_TEXT_BYTES = 512 * 1024;
/** A link's target is at most PATH_MAX (4096) bytes; a blob said to be one is never read further than this. */
const MAX_LINK_BYTES = 64 * 1024;
type RewindAvailability = Availability & { count: number };
const STORAGE_KEY = 'undo.storage';
type StorageSetting = { defaultBudgetBytes?: number; folders?: Record<string, number> };

export class UndoViews {
  constructor(
    private readonly store: TaskStore,
    private readonly fs: FsChannel,
    private readonly undo: UndoService,
    private readonly isRunning: (taskId: string) => boolean,
    private readonly operations?: UndoOperations,
  ) {}

  /**
   * What `task:timeline` answers: the timeline, with what the channels that can look without touching anything
   * (memory, service and tool calls: `UndoChannel.preview`, reading a file's hash or the definitions) say about
   * undoing each applied action, so their refusal shows before the click as the files' does. `timeline()` alone is
   * the record's read. Only for actions with an effect on such a channel; not while the agent works on the task.
   */
  async timelineChecked(taskId: string): Promise<Timeline> {
    const timeline = this.timeline(taskId);
    if (this.isRunning(taskId)) return timeline;
    const asked = this.undo.previewable();
    const entries: TimelineEntry[] = [];
    for (const entry of timeline.entries) {
      if (entry.kind !== 'action' || !entry.undo.possible || !entry.action.effects.some((e) => asked.has(e.channel))) {
        entries.push(entry);
        continue;
      }
      const blockers = await this.undo.preview(entry.action.id).catch(() => []);
      entries.push(blockers.length === 0 ? entry : { ...entry, undo: { possible: false, reason: previewReason(blockers), blockers: [...entry.undo.blockers, ...blockers] } });
    }
    return { ...timeline, entries };
  }

  /**
   * Every action of the task with what it changed and what can be done with it, outside edits, and undo
   * operations. Read in one pass (issue 27): the task's actions once (their effects, figures and usage in one
   * query each), each folder's history once, the rewind order once; each action's undo blockers are found
   * once and reused by every rewind that passes it. The answer grows with the actions, not their square:
   * the rewind order is given once (`rewindOrder`) and each row says how many of it its rewind undoes.
   */
  timeline(taskId: string): Timeline {
    const task = this.store.getTask(taskId);
    if (!task) throw new ServiceError('not-found', `No task ${taskId}. List tasks with "posthoc tasks".`);
    const actions = this.store.keptActions(taskId);
    const known = new Map(actions.map((a) => [a.id, a]));
    // The task's own actions are known; another task's action in the same folder is read when its change is met.
    const others = this.undo.stateOf();
    const stateOf: ActionStateOf = (id) => {
      const a = known.get(id);
      return a ? (a.status === 'undone' ? 'undone' : 'applied') : others(id);
    };
    const changes = new Map(foldersOf(task, null).map((folder) => [folder, this.fs.history.keptChanges(folder)]));
    const histories = [...changes].map(([folder, list]) => ({ folder, history: new FolderHistory(list.map(toEvent), stateOf) }));
    const undoBlockers = histories.map(({ history }) => memo((id: string) => history.undoBlockers(id)));
    const operations = this.operations?.forTask(taskId) ?? [];
    const rewindOrder = this.undo.rewindOrder(taskId, {
      actions,
      changesOf: (folder) => changes.get(folder) ?? this.fs.history.keptChanges(folder),
      task,
      ...(this.operations ? { operations } : {}),
    });
    const rank = new Map(rewindOrder.map((a, i) => [a.id, i]));
    const countFrom = countAtLeast(rewindOrder.map((a) => a.seq));
    // What can stand in a rewind's way, found once: each blocker of an action of the order (few actions have
    // any), with the rewinds it shows in. A rewind to before seq s undoes the actions of the order from s on,
    // each checked ignoring the ones it undoes before it (those of the set earlier in the order): a blocker
    // of action A by action B counts for s ≤ A's seq, unless B is in the set (s ≤ B's seq) and earlier in the
    // order than A. So it counts for `after` < s ≤ `upTo`, kept in the order the old per-row check met them.
    const seqOf = new Map(actions.map((a) => [a.id, a.seq]));
    const inTheWay: Array<{ folder: number; blocker: HistoryBlocker; upTo: number; after: number }> = [];
    histories.forEach((_, f) => {
      for (const a of rewindOrder) {
        for (const blocker of undoBlockers[f]!(a.id)) {
          const by = blocker.event.actionId;
          const byRank = by === null ? undefined : rank.get(by);
          const after = by !== null && byRank !== undefined && byRank < rank.get(a.id)! ? (seqOf.get(by) ?? -Infinity) : -Infinity;
          inTheWay.push({ folder: f, blocker, upTo: a.seq, after });
        }
      }
    });
    const kept = rewindOrder.filter((a) => a.status === 'kept');
    const running = this.isRunning(taskId);
    const entries: TimelineEntry[] = [];

    for (const action of actions) {
      const describe = (found: (folder: number) => readonly HistoryBlocker[]) => {
        const raw = histories.flatMap(({ folder }, f) => found(f).map((b) => blockerOf(folder, b, action.id)));
        return raw.length === 0 ? [] : this.undo.describeBlockers(task, raw, known);
      };
      const applied = isApplied(action.status) && action.output.interrupted?.recorded !== false;
      const undo = applied ? availability(describe((f) => undoBlockers[f]!(action.id)), null) : unavailable(statusReason(action));
      const redo =
        action.status === 'undone'
          ? availability(describe((f) => histories[f]!.history.redoBlockers(action.id)), null)
          : unavailable('Only an undone action can be redone.');
      let rewind: RewindAvailability;
      if (!applied) {
        rewind = { ...unavailable(statusReason(action)), count: 0 };
      } else {
        // The rewind undoes the actions of the order from this one's seq on, in that order.
        const from = action.seq;
        const count = countFrom(from);
        const firstKept = kept.find((a) => a.seq >= from);
        const standing = inTheWay.filter((w) => w.after < from && from <= w.upTo);
        rewind = firstKept
          ? { ...unavailable(`Action ${firstKept.seq} was kept; a rewind cannot go back past it.`), count }
          : { ...availability(describe((f) => standing.flatMap((w) => (w.folder === f ? [w.blocker] : []))), null), count };
      }
      if (running) {
        const busy = 'The agent is still working on this task.';
        entries.push({ kind: 'action', at: action.startedAt, action, undo: busyOf(undo, busy), redo: busyOf(redo, busy), rewind: { ...busyOf(rewind, busy), count: rewind.count } });
      } else {
        entries.push({ kind: 'action', at: action.startedAt, action, undo, redo, rewind });
      }
    }
    const startOf = new Map(actions.map((a) => [a.id, a.startedAt]));
    for (const change of this.fs.history.externalChangesForTask(taskId)) {
      // Copies an undo kept (or moved back) are told by that operation's own record.
      if (change.byUndo) continue;
      const grant = task.workspaces.find((w) => w.hostPath === change.folder);
      // Shown just before the action whose checkpoint found it, or after the action it was made during.
      const at = (change.foundBy && !change.during ? startOf.get(change.foundBy) : undefined) ?? change.createdAt;
      entries.push({ kind: 'external', at, workspace: grant?.name ?? change.folder, changes: change.summary });
    }
    // Undo operations with each channel's step; a restore journal no operation names (one a crash
    // interrupted, or from before operations were recorded) is shown by itself.
    const linked = new Set(operations.flatMap((op) => op.refs));
    const journals = new Map(this.fs.history.journalsForTask(taskId).map((j) => [`journal:${j.id}`, j]));
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
    return { taskId, rewindOrder: rewindOrder.map((a) => a.seq), entries };
  }

  /** One file's change by an action, for the diff view. */
  /**
   * What an action changed in one file; with `since`, what changed in it after the action — the folder's
   * latest checkpoint against what the action left (the person's edit that stands in an undo's way).
   */
  async diff(input: { actionId: string; path: string; workspace?: string; since?: boolean }): Promise<FileDiff> {
    const action = this.store.getAction(input.actionId);
    if (!action) throw new ServiceError('not-found', `No action ${input.actionId}.`);
    const task = this.store.getTask(action.taskId)!;
    const fsEffects = action.effects.filter((e): e is FsEffect => e.channel === 'fs');
    const path = input.path.replace(/\/$/, '');
    const effect =
      fsEffects.find((e) => (input.workspace === undefined || e.workspace === input.workspace) && mentions(e, path)) ??
      fsEffects.find((e) => input.workspace === undefined || e.workspace === input.workspace);
    if (!effect) throw new ServiceError('not-found', `Action ${action.seq} changed no file ${input.path}.`);
    const grant = task.workspaces.find((w) => w.name === effect.workspace);
    if (!grant) throw new ServiceError('not-found', `The folder "${effect.workspace}" is not granted to this task.`);
    const store = await this.fs.storeFor(grant.hostPath);
    const rename = input.since ? undefined : (effect.renamed ?? []).find((r) => r.to.replace(/\/$/, '') === path);
    const oldPath = rename ? rename.from.replace(/\/$/, '') : null;
    try {
      const head = input.since ? this.fs.history.head(store.workspace) : null;
      if (input.since && head === null) throw new ServiceError('not-found', `No checkpoint of ${grant.hostPath} after action ${action.seq}.`);
      const before = await store.checkpoint(input.since ? effect.checkpointAfter : effect.checkpointBefore);
      const after = await store.checkpoint(head ?? effect.checkpointAfter);
      const was = store.lookup(before.tree, oldPath ?? path);
      const is = store.lookup(after.tree, path);
      if (was === null && is === null) throw new ServiceError('not-found', `Action ${action.seq} changed no file ${input.path}.`);
      return {
        actionId: action.id,
        workspace: effect.workspace,
        path,
        oldPath,
        status: oldPath !== null ? 'renamed' : was === null ? 'added' : is === null ? 'deleted' : 'modified',
        before: await diffSide(store, was),
        after: await diffSide(store, is),
      };
    } catch (error) {
      if (error instanceof CheckpointMissing) {
        throw new ServiceError('not-found', `Action ${action.seq} was kept, so its checkpoints were released and its diff is no longer stored.`);
      }
      if (error instanceof DamagedObject) throw new ServiceError('unavailable', error.message);
      throw error;
    }
  }

  budgetFor(folder: string): number {
    return storageBudget(this.store, folder);
  }

  async storage(): Promise<UndoStorage> {
    const setting = this.store.getSetting<StorageSetting>(STORAGE_KEY) ?? {};
    const folders = [...new Set([...this.fs.history.folders(), ...Object.keys(setting.folders ?? {})])].sort();
    const out: UndoStorage['folders'] = [];
    for (const folder of folders) {
      const store = await this.fs.storeFor(folder).catch(() => null);
      out.push({ folder, budgetBytes: this.budgetFor(folder), custom: setting.folders?.[folder] !== undefined, usedBytes: store?.largeBytes() ?? 0 });
    }
    return { defaultBudgetBytes: setting.defaultBudgetBytes ?? DEFAULT_BUDGET_BYTES, largeFileBytes: DEFAULT_LARGE_FILE_BYTES, folders: out };
  }

  /** Sets the default budget (folder null) or one folder's (bytes null: back to the default). */
  async setBudget(input: { folder: string | null; bytes: number | null }): Promise<UndoStorage> {
    const setting = this.store.getSetting<StorageSetting>(STORAGE_KEY) ?? {};
    if (input.folder === null) {
      if (input.bytes === null) delete setting.defaultBudgetBytes;
      else setting.defaultBudgetBytes = input.bytes;
    } else {
      const folders = { ...(setting.folders ?? {}) };
      if (input.bytes === null) delete folders[input.folder];
      else folders[input.folder] = input.bytes;
      setting.folders = folders;
    }
    this.store.setSetting(STORAGE_KEY, setting);
    return this.storage();
  }
}

/** The storage budget (bytes of large files) of a folder's checkpoints, from the settings. */
export function storageBudget(store: TaskStore, folder: string): number {
  const setting = store.getSetting<StorageSetting>(STORAGE_KEY) ?? {};
  return setting.folders?.[folder] ?? setting.defaultBudgetBytes ?? DEFAULT_BUDGET_BYTES;
}

function mentions(e: FsEffect, path: string): boolean {
  const strip = (p: string) => p.replace(/\/$/, '');
  return (
    e.added.some((p) => strip(p) === path) ||
    e.modified.some((p) => strip(p) === path) ||
    e.deleted.some((p) => strip(p) === path) ||
    (e.renamed ?? []).some((r) => strip(r.to) === path || strip(r.from) === path)
  );
}

/**
 * One side of a file's diff. A blob is read as a stream, never held whole: the SHA-256 is fed piece by
 * piece and only the first MAX_TEXT_BYTES (and a piece) are kept, so a file too long to show as text, or
 * binary, costs one chunk of memory whatever its size (and the time to inflate it once).
 */
export async function diffSide(store: CheckpointStore, entry: Entry | null): Promise<DiffSide | null> {
  if (entry === null) return null;
  switch (entry.kind) {
    case 'dir':
      return { kind: 'folder' };
    case 'uncovered':
      return { kind: 'not-covered' };
    case 'link':
      return { kind: 'link', target: (await store.readBlobHead(entry.oid, MAX_LINK_BYTES)).content.toString('utf8') };
    case 'file':
    case 'exec': {
      const hash = createHash('sha256');
      const head: Buffer[] = [];
      let headBytes = 0;
      const { size } = await store.streamBlob(entry.oid, Number.POSITIVE_INFINITY, (chunk) => {
        hash.update(chunk);
        if (headBytes <= MAX_TEXT_BYTES) {
          head.push(chunk);
          headBytes += chunk.length;
        }
      });
      const content = Buffer.concat(head);
      const executable = entry.kind === 'exec';
      const text = size <= MAX_TEXT_BYTES ? asText(content) : null;
      if (text !== null) return { kind: 'text', text, size, executable };
      const reason = size > MAX_TEXT_BYTES && startsAsText(content.subarray(0, 8000)) ? 'too-large' : 'binary';
      return { kind: 'binary', reason, size, sha256: hash.digest('hex'), executable };
    }
  }
}

function asText(content: Buffer): string | null {
  if (content.subarray(0, 8000).includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    return null;
  }
}

/** The start of a longer file reads as text: no NUL, and UTF-8 up to a character the cut may have split. */
function startsAsText(head: Buffer): boolean {
  if (head.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** How many seqs of a rewind order are at least a given seq: the size of a rewind's set, by binary search. */
function countAtLeast(seqs: readonly number[]): (from: number) => number {
  const ascending = [...seqs].sort((a, b) => a - b);
  return (from) => {
    let lo = 0;
    let hi = ascending.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ascending[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    return ascending.length - lo;
  };
}

/** A function of one string argument that computes each answer once. */
function memo<T>(fn: (key: string) => T): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    if (cache.has(key)) return cache.get(key)!;
    const value = fn(key);
    cache.set(key, value);
    return value;
  };
}

/** Why a channel's look refuses an undo, in its own words (the first few). */
function previewReason(blockers: Availability['blockers']): string {
  const said = blockers.map((b) => (b.reason ? `${b.path}: ${b.reason}` : b.path));
  return `Undo would be refused: ${said.slice(0, 3).join('; ')}${said.length > 3 ? `; and ${said.length - 3} more` : ''}.`;
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

function order(e: TimelineEntry): number {
  return e.kind === 'external' ? 0 : e.kind === 'action' ? 1 : 2;
}

