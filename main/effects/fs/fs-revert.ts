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
//
// Keeping the person's edits (keepCopies, undo and rewind): a path in the way only because the person
// changed the file after the action is copied, in the same journaled restore, next to itself as
// "NAME (your edit).ext" (in the nearest folder the undo keeps), then goes back like the rest. The copy is
// recorded as an outside change made just before the undo that sets the path's earlier edits aside
// (undo-rules.ts). Later actions, deleted files and folders in the way still refuse.
import type { FolderChange, JournalEntry, JournalPlan } from '../../store/undo-store';
import type { CheckpointStore } from './checkpoint-store';
import type { FsChannel } from './fs-channel';
import { removeRestoreTemps, type RestoreOp } from './restore';
import { planRevert, rollbackOps, type RevertItem, type RevertPlan } from './revert-plan';
import { parentOf, realName, sameEntry, storedName, type Entry } from './tree-model';
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
  /** Undo: keep the person's edits in the way as copies, then go on. */
  keepCopies?: boolean;
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
  /** Undo: the path holds a file the person changed, which keepCopies would keep as a copy. */
  copyable?: boolean;
  /** With copyable false: why not, in words. */
  noCopy?: string;
  /** by: 'content' — what the content check found. */
  conflict?: 'changed' | 'added-inside' | 'folder-gone';
};

/** An edit kept as a copy: `path` goes back, `copy` (a new path) holds `entry`, what `path` held. */
export type KeptCopy = { path: string; copy: string; entry: Entry };

export type RevertOutcome =
  | {
      ok: true;
      journalId: number;
      restored: Record<string, string[]>;
      removed: Record<string, string[]>;
      notRestored: Record<string, string[]>;
      copies: Record<string, Array<{ path: string; copy: string }>>;
    }
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

type FolderWork = {
  folder: string;
  store: CheckpointStore;
  from: string;
  fromTree: string;
  plan: RevertPlan;
  items: RevertItem[];
  /** Edits kept as copies by this restore. */
  aside: KeptCopy[];
  /** Copies this restore moves back to their paths (a compensation). */
  returned: KeptCopy[];
};

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
      const found: RevertBlocker[] = [];
      for (const [k, actionId] of req.actionIds.entries()) {
        // The action's own change (its run, or its latest redo) says what it wrote and what it replaced,
        // also after a rewind undid it together with others.
        const event = folderHistory.lastApplied(actionId);
        if (!event || event.paths.length === 0) continue;
        if (req.direction === 'redo' && !folderHistory.lastUndone(actionId)) continue;
        const history = req.direction === 'undo' ? folderHistory.undoBlockers(actionId, new Set(req.actionIds.slice(0, k))) : folderHistory.redoBlockers(actionId);
        for (const b of history) found.push(blockerOf(folder, b, actionId));
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
      let plan = planRevert(store, now.tree, items);
      for (const c of plan.conflicts) found.push({ folder, path: c.path, by: 'content', actionId: c.actionId, conflict: c.reason });
      const copyable = req.direction === 'undo' ? copyablePaths(store, now.tree, plan, found) : new Map<string, string | null>();
      for (const b of found) {
        if (req.direction !== 'undo') continue;
        const why = copyable.get(b.path) ?? null;
        b.copyable = why === null;
        if (why !== null) b.noCopy = why;
      }
      let aside: KeptCopy[] = [];
      if (req.keepCopies && found.length > 0 && found.every((b) => b.copyable)) {
        const paths = new Set(found.map((b) => b.path));
        plan = planRevert(store, now.tree, items, paths);
        // Only the set-aside content checks are skipped: anything else the plan still finds refuses.
        if (plan.conflicts.length > 0) {
          for (const c of plan.conflicts) blockers.push({ folder, path: c.path, by: 'content', actionId: c.actionId, conflict: c.reason, copyable: false });
        } else aside = keepCopies(store, now.tree, plan, paths);
      } else blockers.push(...found);
      work.push({ folder, store, from: now.commit, fromTree: now.tree, plan, items, aside, returned: [] });
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
        ...(w.aside.length > 0 ? { aside: w.aside.map(({ path, copy }) => ({ path, copy })) } : {}),
        ...(w.returned.length > 0 ? { returned: w.returned.map(({ path, copy }) => ({ path, copy })) } : {}),
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
    const copies: Record<string, Array<{ path: string; copy: string }>> = {};
    const applied: FolderWork[] = [];
    try {
      for (const w of work) {
        applied.push(w);
        await w.store.restore(w.plan.ops, String(journal.id), w.plan.current.values());
        await w.store.restore(w.plan.finalOps, String(journal.id));
        const madeCopies = new Set(w.aside.map((a) => a.copy));
        restored[w.folder] = w.plan.changes.filter((c) => c.to !== null && c.to.kind !== 'dir' && !madeCopies.has(c.path)).map((c) => c.path);
        removed[w.folder] = w.plan.changes.filter((c) => c.to === null && isFileLikeNow(w.plan, c.path)).map((c) => c.path);
        notRestored[w.folder] = w.plan.notRestored;
        copies[w.folder] = w.aside.map(({ path, copy }) => ({ path, copy }));
      }
    } catch (error) {
      await this.rollBack(journal, applied, error);
    }
    await this.complete(journal, work.map((w, i) => ({ folder: w.folder, store: w.store, to: targets[i]! })), req.commitStatuses, null);
    return { ok: true, journalId: journal.id, restored, removed, notRestored, copies };
  }

  /**
   * Compensation of an undo that kept copies, after its actions were redone (under the same locks): each
   * copy goes back to its path and the copy is removed, journaled, recorded as an outside change over the
   * redo, so the folder holds the person's edits where they were and undo refuses for them as before.
   * A copy changed since is left as it is (and so is its path).
   */
  async returnCopies(req: Pick<RevertRequest, 'taskId' | 'operation'>, kept: ReadonlyArray<{ store: CheckpointStore; aside: readonly KeptCopy[] }>): Promise<void> {
    const work: FolderWork[] = [];
    for (const { store, aside } of kept) {
      if (aside.length === 0) continue;
      const now = await this.channel.observe(store, req.taskId, `before putting back the edits kept as copies`);
      const changed = aside.filter((a) => !sameEntry(store.lookup(now.tree, a.copy), a.entry)).map((a) => a.copy);
      if (changed.length > 0) throw new RevertFailed(`${changed.join(', ')} changed meanwhile, so the edits kept there were left as they are`, false);
      const changes = aside.flatMap((a) => [
        { path: a.path, to: a.entry as Entry | null },
        { path: a.copy, to: null },
      ]);
      const current = new Map(changes.map((c) => [c.path, store.lookup(now.tree, c.path)]));
      const plan: RevertPlan = { paths: changes.map((c) => c.path).sort(), ops: changes, finalOps: [], notRestored: [], conflicts: [], changes, current };
      work.push({ folder: store.workspace, store, from: now.commit, fromTree: now.tree, plan, items: [], aside: [], returned: [...aside] });
    }
    if (work.length === 0) return;
    await this.commit({ ok: true, req: { ...req, direction: 'redo', actionIds: [], folders: work.map((w) => w.folder), stateOf: () => 'applied', commitStatuses: () => undefined }, work });
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
          removeRestoreTemps(store.workspace, f.paths, String(journal.id), (p) => store.lookup(fromTree, p) !== null, store.identity());
          const now = await store.snapshot(`found after interrupted ${journal.operation}`, { budgetBytes: this.channel.budgetFor(f.folder) });
          const toTree = (await store.checkpoint(f.to)).tree;
          for (const p of f.paths) {
            const cur = store.lookup(now.tree, p);
            if (!sameEntry(cur, store.lookup(fromTree, p)) && !sameEntry(cur, store.lookup(toTree, p))) third.push(folders.length > 1 ? `${f.folder}/${p}` : p);
          }
          found.push({ store, fromTree, toTree, nowTree: now.tree, paths: f.paths, to: f.to, from: f.from });
        }
        if (third.length === 0) {
          for (const [i, f] of found.entries()) await f.store.restore(opsTo(f.store, f.toTree, f.paths, folders[i]!.aside), String(journal.id));
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
        const outside = (paths: string[], summary: FolderChange['summary'], setAside?: string[]) =>
          history.addChange({
            folder: f.folder,
            kind: 'external',
            actionId: null,
            taskId: journal.taskId,
            journalId: journal.id,
            foundBy: null,
            fromCommit: planned.from,
            toCommit: f.to,
            paths,
            summary,
            byUndo: true,
            ...(setAside ? { setAside } : {}),
          });
        // The copies first: the undo after them no longer meets the edits they keep.
        const aside = planned.aside ?? [];
        if (aside.length > 0) {
          const copies = aside.map((a) => a.copy);
          outside(copies, { added: copies, modified: [], deleted: [], renamed: [] }, aside.map((a) => a.path));
        }
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
        // Copies moved back: the person's edits are where they were, in effect over the redo.
        const returned = planned.returned ?? [];
        if (returned.length > 0) {
          outside(
            returned.flatMap((a) => [a.path, a.copy]),
            { added: [], modified: returned.map((a) => a.path), deleted: returned.map((a) => a.copy), renamed: [] },
          );
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

/** The operations that make `paths` hold what `tree` holds; a copy kept by the restore (`aside`) takes its file's private bits. */
function opsTo(store: CheckpointStore, tree: string, paths: readonly string[], aside: ReadonlyArray<{ path: string; copy: string }> = []): RestoreOp[] {
  const copied = new Map(aside.map((a) => [a.copy, a.path]));
  const ops: RestoreOp[] = [];
  for (const path of paths) {
    const to = store.lookup(tree, path);
    if (to?.kind === 'uncovered') continue;
    const from = copied.get(path);
    ops.push(from === undefined ? { path, to } : { path, to, permsFrom: from });
  }
  return ops;
}

function isFileLikeNow(plan: RevertPlan, path: string): boolean {
  const now = plan.current.get(path);
  return now !== null && now !== undefined && now.kind !== 'dir';
}

export function toEvent(c: FolderChange): HistoryEvent {
  return {
    id: c.id,
    kind: c.kind,
    actionId: c.actionId,
    paths: c.paths,
    during: c.during ? (c.foundBy ?? null) : null,
    ambiguous: c.ambiguous ?? [],
    ...(c.setAside ? { setAside: c.setAside } : {}),
  };
}

/**
 * For each path in the way, null when it is there only because the person changed a file after the
 * action (the revert puts the path back, every blocker there is an outside edit or changed content, and
 * it holds a file or a link now), else why a copy cannot get past it, in words.
 */
function copyablePaths(store: CheckpointStore, tree: string, plan: RevertPlan, found: readonly RevertBlocker[]): Map<string, string | null> {
  const inPlan = new Set(plan.paths);
  const byPath = new Map<string, RevertBlocker[]>();
  for (const b of found) byPath.set(b.path, [...(byPath.get(b.path) ?? []), b]);
  const out = new Map<string, string | null>();
  for (const [path, list] of byPath) out.set(path, whyNoCopy(path, list, inPlan, store.lookup(tree, path)));
  return out;
}

function whyNoCopy(path: string, blockers: readonly RevertBlocker[], inPlan: ReadonlySet<string>, now: Entry | null): string | null {
  if (blockers.some((b) => b.by === 'action')) return 'a later action changed it too: rewind to undo that action as well';
  const insideChanged = [...inPlan].some((p) => path.startsWith(`${p}/`));
  if (blockers.some((b) => b.conflict === 'added-inside') || (!inPlan.has(path) && now !== null && insideChanged)) {
    return 'it is in a folder the action made, which undo would remove: move it elsewhere first';
  }
  if (!inPlan.has(path) && now !== null) return 'the action changed what is in it: only a file the action changed can be kept as a copy';
  if (blockers.some((b) => b.conflict === 'folder-gone')) return 'the folder was removed since, so the file has nowhere to go back to';
  if (now === null) return 'deleted since: there is nothing to keep a copy of';
  if (now.kind === 'dir') return 'a folder now: only a file can be kept as a copy';
  if (now.kind === 'uncovered') return 'not covered by undo (too large, or not a regular file), so Posthoc has no copy of it to keep';
  return null;
}

const NAME_MAX_BYTES = 255;

/**
 * Chooses each copy's name, "NAME (your edit).ext" next to the path (then "(your edit 2)", …), in the
 * nearest folder the revert keeps, never a name the folder holds or the revert writes, and adds the copies
 * to the plan (restored and rolled back with the rest).
 */
function keepCopies(store: CheckpointStore, tree: string, plan: RevertPlan, paths: ReadonlySet<string>): KeptCopy[] {
  const target = new Map(plan.changes.map((c) => [c.path, c.to]));
  const taken = new Set<string>();
  const free = (p: string) => !taken.has(p) && store.lookup(tree, p) === null && (target.get(p) ?? null) === null;
  const out: KeptCopy[] = [];
  for (const path of [...paths].sort()) {
    const entry = store.lookup(tree, path)!;
    let dir = parentOf(path);
    while (dir !== '' && target.has(dir) && target.get(dir)?.kind !== 'dir') dir = parentOf(dir);
    const base = realName(path.slice(path.lastIndexOf('/') + 1));
    const dot = base.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
    for (let n = 1; ; n++) {
      const label = n === 1 ? ' (your edit)' : ` (your edit ${n})`;
      const name = storedName(`${fitStem(stem, NAME_MAX_BYTES - Buffer.byteLength(label + ext))}${label}${ext}`);
      const copy = dir === '' ? name : `${dir}/${name}`;
      if (!free(copy)) continue;
      taken.add(copy);
      out.push({ path, copy, entry });
      break;
    }
  }
  for (const k of out) {
    plan.ops.push({ path: k.copy, to: k.entry, permsFrom: k.path });
    plan.changes.push({ path: k.copy, to: k.entry });
    plan.current.set(k.copy, null);
    plan.paths.push(k.copy);
  }
  plan.paths.sort();
  return out;
}

/** A name's stem cut (at a character) to at most `bytes` bytes of UTF-8. */
function fitStem(stem: string, bytes: number): string {
  if (Buffer.byteLength(stem) <= bytes) return stem;
  let out = '';
  for (const ch of stem) {
    if (Buffer.byteLength(out + ch) > bytes) break;
    out += ch;
  }
  return out;
}

/** A history blocker met while reverting `actionId`, with what an outside edit made during an action says. */
export function blockerOf(folder: string, b: HistoryBlocker, actionId: string): RevertBlocker {
  if (b.event.kind !== 'external') return { folder, path: b.path, by: 'action', actionId: b.event.actionId };
  const during = b.event.during ?? null;
  return { folder, path: b.path, by: 'external', actionId: null, during, ambiguous: during === actionId && (b.event.ambiguous ?? []).includes(b.path) };
}

/** One blocker per path: a later action's when there is one (rewind is the way past it), else the first. */
function dedupe(blockers: RevertBlocker[]): RevertBlocker[] {
  const chosen = new Map<string, RevertBlocker>();
  for (const b of blockers) {
    const key = `${b.folder}\0${b.path}`;
    const had = chosen.get(key);
    if (!had || (had.by !== 'action' && b.by === 'action')) chosen.set(key, b);
  }
  const keep = new Set(chosen.values());
  return blockers.filter((b) => keep.has(b));
}
