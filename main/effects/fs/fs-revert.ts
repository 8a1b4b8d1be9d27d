// Undo, redo and rewind for files, journaled for crash safety.
//
//  1. Under the locks of every folder involved, once no action runs there (its lease), checkpoint each
//     folder now (recording outside edits).
//  2. Check the history (undo-rules.ts) and the content (revert-plan.ts); refuse with every blocking path.
//  3. Write the resulting state as a checkpoint, then a journal entry naming the states before and after.
//  4. Replace each path atomically. An error rolls back to the state before and closes the entry.
//  5. One transaction closes the journal entry, sets the actions' statuses and records the change.
// A crash between 3 and 5 leaves a pending entry: recover() finishes it (every path already holds its
// old or its new entry) or rolls it back (something else changed meanwhile) at the next start.
import type { FolderChange, JournalEntry, JournalPlan } from '../../store/undo-store';
import type { CheckpointStore } from './checkpoint-store';
import type { FsChannel } from './fs-channel';
import { removeRestoreTemps, type RestoreOp } from './restore';
import { planRevert, rollbackOps, type RevertItem, type RevertPlan } from './revert-plan';
import { sameEntry } from './tree-model';
import { FolderHistory, type ActionStateOf, type HistoryBlocker, type HistoryEvent } from './undo-rules';

export type RevertRequest = {
  taskId: string | null;
  operation: 'undo' | 'redo' | 'rewind';
  direction: 'undo' | 'redo';
  /** In the order they are reverted: undo and rewind newest first. */
  actionIds: string[];
  folders: string[];
  stateOf: ActionStateOf;
  /** Runs inside the transaction that completes the journal entry: set the actions' statuses. */
  commitStatuses: () => void;
};

export type RevertBlocker = {
  folder: string;
  path: string;
  by: 'action' | 'external' | 'content';
  actionId: string | null;
  /** by: 'external' — edited while this action ran. */
  during?: string | null;
  /** by: 'external' — the action being reverted also wrote the path then: whose edit it holds is unknown. */
  ambiguous?: boolean;
};

export type RevertOutcome =
  | { ok: true; journalId: number; restored: Record<string, string[]>; removed: Record<string, string[]>; notRestored: Record<string, string[]> }
  | { ok: false; blockers: RevertBlocker[] };

export class RevertFailed extends Error {
  constructor(
    message: string,
    readonly rolledBack: boolean,
  ) {
    super(message);
  }
}

export type Recovery = { journal: JournalEntry; outcome: 'completed' | 'rolled-back'; note: string };

type FolderWork = { folder: string; store: CheckpointStore; from: string; fromTree: string; plan: RevertPlan; items: RevertItem[] };

/** What prepare() found possible, for commit() under the same locks. */
export type PreparedRevert = { ok: true; req: RevertRequest; work: FolderWork[] };

export class FsReverter {
  private recovering: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly channel: FsChannel,
    /** Runs inside the transaction that completes a recovered entry: set the actions' statuses. */
    private readonly commitRecovered: (journal: JournalEntry) => void,
  ) {}

  async revert(req: RevertRequest): Promise<RevertOutcome> {
    // Never under a running action's feet (its lease): wait for it, or refuse saying which action it is.
    return this.channel.withIdleFolders(req.folders, req.operation, async (stores) => {
      const prepared = await this.prepare(req, stores);
      return prepared.ok ? this.commit(prepared) : prepared;
    });
  }

  /**
   * Steps 1 and 2, under locks the caller holds (`stores`, from withIdleFolders): checkpoints each folder
   * now (recording outside edits, the only write) and checks history and content. Either every blocker,
   * or the work commit() does.
   */
  async prepare(req: RevertRequest, stores: CheckpointStore[]): Promise<PreparedRevert | { ok: false; blockers: RevertBlocker[] }> {
    const history = this.channel.history;
    const blockers: RevertBlocker[] = [];
    const work: FolderWork[] = [];
    for (const store of stores) {
      const folder = store.workspace;
      const now = await this.channel.observe(store, req.taskId, `before ${req.operation}`);
      const changes = history.changes(folder);
      const byId = new Map(changes.map((c) => [c.id, c]));
      const folderHistory = new FolderHistory(changes.map(toEvent), req.stateOf);
      const items: RevertItem[] = [];
      for (const [k, actionId] of req.actionIds.entries()) {
        // The action's own change (its run, or its latest redo) says what it wrote and what it replaced,
        // also after a rewind undid it together with others.
        const event = folderHistory.lastApplied(actionId);
        if (!event || event.paths.length === 0) continue;
        if (req.direction === 'redo' && !folderHistory.lastUndone(actionId)) continue;
        const found = req.direction === 'undo' ? folderHistory.undoBlockers(actionId, new Set(req.actionIds.slice(0, k))) : folderHistory.redoBlockers(actionId);
        for (const b of found) blockers.push(blockerOf(folder, b, actionId));
        const change = byId.get(event.id)!;
        const before = (await store.checkpoint(change.fromCommit)).tree;
        const after = (await store.checkpoint(change.toCommit)).tree;
        // Reverting puts back `fromTree` where the folder holds `toTree`: undo goes after → before, redo before → after.
        items.push(
          req.direction === 'undo'
            ? { actionId, fromTree: before, toTree: after, paths: change.paths }
            : { actionId, fromTree: after, toTree: before, paths: change.paths },
        );
      }
      const plan = planRevert(store, now.tree, items);
      for (const c of plan.conflicts) blockers.push({ folder, path: c.path, by: 'content', actionId: c.actionId });
      work.push({ folder, store, from: now.commit, fromTree: now.tree, plan, items });
    }
    if (blockers.length > 0) return { ok: false, blockers: dedupe(blockers) };
    return { ok: true, req, work };
  }

  /** Steps 3 to 5: writes what prepare() planned, under the same locks, journaled. */
  async commit(prepared: PreparedRevert): Promise<Extract<RevertOutcome, { ok: true }>> {
    const { req, work } = prepared;
    const history = this.channel.history;
    const targets: string[] = [];
    for (const w of work) {
      const tree = w.store.applyChanges(w.fromTree, w.plan.changes);
      const fromCp = await w.store.checkpoint(w.from);
      const to = await w.store.commit(tree, `after ${req.operation} of ${req.actionIds.join(', ')}`, [w.from], fromCp.notCovered);
      targets.push(to.commit);
    }
    const plan: JournalPlan = {
      direction: req.direction,
      folders: work.map((w, i) => ({
        folder: w.folder,
        from: w.from,
        to: targets[i]!,
        paths: w.plan.paths,
        items: w.items.map((it) => ({ actionId: it.actionId, paths: [...it.paths] })),
      })),
    };
    const journal = history.beginJournal({ taskId: req.taskId, operation: req.operation, actionIds: req.actionIds, plan });
    for (const [i, w] of work.entries()) {
      await w.store.pin(`journal/${journal.id}/from`, w.from);
      await w.store.pin(`journal/${journal.id}/to`, targets[i]!);
    }

    const restored: Record<string, string[]> = {};
    const removed: Record<string, string[]> = {};
    const notRestored: Record<string, string[]> = {};
    const applied: FolderWork[] = [];
    try {
      for (const w of work) {
        applied.push(w);
        await w.store.restore(w.plan.ops, String(journal.id), w.plan.current.values());
        await w.store.restore(w.plan.finalOps, String(journal.id));
        restored[w.folder] = w.plan.changes.filter((c) => c.to !== null && c.to.kind !== 'dir').map((c) => c.path);
        removed[w.folder] = w.plan.changes.filter((c) => c.to === null && isFileLikeNow(w.plan, c.path)).map((c) => c.path);
        notRestored[w.folder] = w.plan.notRestored;
      }
    } catch (error) {
      await this.rollBack(journal, applied, error);
    }
    await this.complete(journal, work.map((w, i) => ({ folder: w.folder, store: w.store, to: targets[i]! })), req.commitStatuses, null);
    return { ok: true, journalId: journal.id, restored, removed, notRestored };
  }

  /**
   * Finishes or rolls back every restore a crash interrupted (those touching `folders`, or all). Runs at
   * start, and again before anything checkpoints or restores a folder an unfinished entry names.
   */
  recoverPending(folders?: readonly string[]): Promise<Recovery[]> {
    const run = async (): Promise<Recovery[]> => {
      const out: Recovery[] = [];
      for (const journal of this.channel.history.pendingJournals()) {
        if (folders && !journal.plan.folders.some((f) => folders.includes(f.folder))) continue;
        const done = await this.recoverOne(journal);
        if (done) out.push(done);
      }
      return out;
    };
    const next = this.recovering.then(run, run);
    this.recovering = next.catch(() => undefined);
    return next;
  }

  private async recoverOne(pending: JournalEntry): Promise<Recovery | null> {
    const folders = pending.plan.folders;
    const commitStatuses = this.commitRecovered;
    return this.channel.withFolders(
      folders.map((f) => f.folder),
      async (stores) => {
        // Another process may have finished it while this one waited for the locks.
        const journal = this.channel.history.pendingJournals().find((j) => j.id === pending.id);
        if (!journal) return null;
        const found: Array<{ store: CheckpointStore; fromTree: string; toTree: string; nowTree: string; paths: string[]; to: string; from: string }> = [];
        const third: string[] = [];
        for (const [i, f] of folders.entries()) {
          const store = stores[i]!;
          const fromTree = (await store.checkpoint(f.from)).tree;
          // Before anything scans: the crashed restore's own temporary files, by its exact tag.
          removeRestoreTemps(store.workspace, f.paths, String(journal.id), (p) => store.lookup(fromTree, p) !== null);
          const now = await store.snapshot(`found after interrupted ${journal.operation}`, { budgetBytes: this.channel.budgetFor(f.folder) });
          const toTree = (await store.checkpoint(f.to)).tree;
          for (const p of f.paths) {
            const cur = store.lookup(now.tree, p);
            if (!sameEntry(cur, store.lookup(fromTree, p)) && !sameEntry(cur, store.lookup(toTree, p))) third.push(folders.length > 1 ? `${f.folder}/${p}` : p);
          }
          found.push({ store, fromTree, toTree, nowTree: now.tree, paths: f.paths, to: f.to, from: f.from });
        }
        if (third.length === 0) {
          for (const f of found) await f.store.restore(opsTo(f.store, f.toTree, f.paths), String(journal.id));
          const note = `Interrupted (Posthoc stopped during this ${journal.operation}); completed when Posthoc next started.`;
          await this.complete(journal, found.map((f) => ({ folder: f.store.workspace, store: f.store, to: f.to })), () => commitStatuses(journal), note);
          return { journal, outcome: 'completed', note };
        }
        for (const f of found) {
          // Put back only what the restore wrote; paths changed by someone else meanwhile stay as they are.
          const mine = f.paths.filter((p) => sameEntry(f.store.lookup(f.nowTree, p), f.store.lookup(f.toTree, p)));
          await f.store.restore(opsTo(f.store, f.fromTree, mine), String(journal.id));
        }
        const note = `Interrupted (Posthoc stopped during this ${journal.operation}); rolled back when Posthoc next started, because ${third.join(', ')} changed meanwhile and was left as it is.`;
        this.channel.history.transaction(() => {
          this.channel.history.finishJournal(journal.id, 'rolled-back', { recovered: true, note });
          for (const f of found) this.channel.history.setHead(f.store.workspace, f.from);
        });
        for (const f of found) await this.unpinJournal(f.store, journal.id, f.from);
        return { journal, outcome: 'rolled-back', note };
      },
    );
  }

  private async rollBack(journal: JournalEntry, applied: FolderWork[], error: unknown): Promise<never> {
    const reason = error instanceof Error ? error.message : String(error);
    try {
      for (const w of applied.reverse()) await w.store.restore(rollbackOps(w.plan), String(journal.id));
    } catch (again) {
      throw new RevertFailed(
        `The ${journal.operation} stopped half-way (${reason}) and could not be rolled back (${again instanceof Error ? again.message : String(again)}). Posthoc will finish or roll it back when it next starts; nothing is lost.`,
        false,
      );
    }
    const note = `Stopped by an error and rolled back: ${reason}`;
    this.channel.history.transaction(() => this.channel.history.finishJournal(journal.id, 'rolled-back', { note }));
    for (const w of applied) await this.unpinJournal(w.store, journal.id, w.from);
    throw new RevertFailed(`The ${journal.operation} failed and was rolled back, so nothing changed: ${reason}`, true);
  }

  private async complete(
    journal: JournalEntry,
    folders: Array<{ folder: string; store: CheckpointStore; to: string }>,
    commitStatuses: () => void,
    note: string | null,
  ): Promise<void> {
    const history = this.channel.history;
    const kind = journal.plan.direction === 'undo' ? 'undo' : 'redo';
    history.transaction(() => {
      history.finishJournal(journal.id, 'completed', { recovered: note !== null, note });
      commitStatuses();
      for (const f of folders) {
        const planned = journal.plan.folders.find((p) => p.folder === f.folder)!;
        for (const item of planned.items) {
          history.addChange({
            folder: f.folder,
            kind,
            actionId: item.actionId,
            taskId: journal.taskId,
            journalId: journal.id,
            fromCommit: planned.from,
            toCommit: f.to,
            paths: item.paths,
            summary: { added: [], modified: [], deleted: [], renamed: [] },
          });
        }
        history.setHead(f.folder, f.to);
      }
    });
    for (const f of folders) {
      const planned = journal.plan.folders.find((p) => p.folder === f.folder)!;
      await f.store.pin('head', f.to);
      // After a redo, a later undo reads the redo's states: keep them until the action is kept.
      if (kind === 'redo') {
        for (const item of planned.items) {
          await f.store.pin(`actions/${item.actionId}/redo-from`, planned.from);
          await f.store.pin(`actions/${item.actionId}/redo-to`, f.to);
        }
      }
      await this.unpinJournal(f.store, journal.id, null);
    }
  }

  private async unpinJournal(store: CheckpointStore, id: number, head: string | null): Promise<void> {
    if (head !== null) await store.pin('head', head);
    await store.unpin(`journal/${id}/from`);
    await store.unpin(`journal/${id}/to`);
  }
}

function opsTo(store: CheckpointStore, tree: string, paths: readonly string[]): RestoreOp[] {
  const ops: RestoreOp[] = [];
  for (const path of paths) {
    const to = store.lookup(tree, path);
    if (to?.kind === 'uncovered') continue;
    ops.push({ path, to });
  }
  return ops;
}

function isFileLikeNow(plan: RevertPlan, path: string): boolean {
  const now = plan.current.get(path);
  return now !== null && now !== undefined && now.kind !== 'dir';
}

export function toEvent(c: FolderChange): HistoryEvent {
  return { id: c.id, kind: c.kind, actionId: c.actionId, paths: c.paths, during: c.during ? (c.foundBy ?? null) : null, ambiguous: c.ambiguous ?? [] };
}

/** A history blocker met while reverting `actionId`, with what an outside edit made during an action says. */
export function blockerOf(folder: string, b: HistoryBlocker, actionId: string): RevertBlocker {
  if (b.event.kind !== 'external') return { folder, path: b.path, by: 'action', actionId: b.event.actionId };
  const during = b.event.during ?? null;
  return { folder, path: b.path, by: 'external', actionId: null, during, ambiguous: during === actionId && (b.event.ambiguous ?? []).includes(b.path) };
}

function dedupe(blockers: RevertBlocker[]): RevertBlocker[] {
  const seen = new Set<string>();
  return blockers.filter((b) => {
    const key = `${b.folder}\0${b.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
