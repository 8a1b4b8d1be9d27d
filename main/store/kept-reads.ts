// What the timeline reads most, kept on its connection across reads (issue 27): each task's actions as the
// store reads them back (parsed, their reverse plans derived) and each folder's changes (fs_changes parsed).
// A keep answers what a fresh read would, because it re-reads everything that may have changed: triggers in
// the file's schema (the read_marks migration, main/store/migrations.ts) mark every write, by any connection
// or process — the app's saga and runner, plain SQL, the `posthoc` CLI beside the app — with what it touched:
// an action (its row, its effects, its figures, or the usage of the reply it came from), or a folder's changes
// from some id on. A read first takes the newest mark, then re-reads what the marks after the last one it saw
// name and keeps the rest; whatever commits meanwhile carries a later mark and is read again next time. A
// write rolled back takes its marks with it. Only the newest ~20,000 marks stay: a keep that saw none of
// those drops everything and reads it again. A read inside a transaction is not the keep's: it could see
// writes a rollback then takes back; TaskStore.keptActions and UndoStore.keptChanges read afresh then, and
// `of` refuses.
// Bounded: at most KEPT_TASKS tasks and KEPT_FOLDERS folders, the least recently read dropped first.
// What it returns is shared by every read: callers must not mutate it.
import type { Action } from '../../shared/domain';
import type { AppDatabase } from './database';
import type { FolderChange } from './undo-store';

/** Tasks whose actions a connection keeps at most (a task of 1,000 actions is a few MB). */
export const KEPT_TASKS = 8;
/** Folders whose changes a connection keeps at most. */
export const KEPT_FOLDERS = 8;

/** The marks a keep has not seen yet (read_marks, written by every connection's writes). */
class Marks {
  private seen: number;
  private readonly newest;
  private readonly oldest;

  constructor(protected readonly db: AppDatabase) {
    Marks.outsideTransaction(db);
    this.newest = db.prepare('SELECT coalesce(max(seq), 0) FROM read_marks').pluck();
    this.oldest = db.prepare('SELECT min(seq) FROM read_marks').pluck();
    this.seen = this.newest.get() as number;
  }

  /**
   * The range of marks written since the last call, (from, to]: what the caller re-reads; `lost` when some of
   * them were pruned before this keep saw them (then it must drop everything). Nothing to read: from === to.
   */
  protected unseen(): { from: number; to: number; lost: boolean } {
    Marks.outsideTransaction(this.db);
    const to = this.newest.get() as number;
    const from = this.seen;
    this.seen = to;
    if (to === from) return { from, to, lost: false };
    const oldest = this.oldest.get() as number | null;
    return { from, to, lost: oldest !== null && oldest > from + 1 };
  }

  private static outsideTransaction(db: AppDatabase): void {
    if (db.inTransaction) throw new Error('A keep is not read inside a transaction: read afresh there.');
  }
}

/** Each task's actions, kept (KeptActions.of answers what TaskStore.listActions(taskId) reads). */
export class KeptActions extends Marks {
  private readonly tasks = new Map<string, { byId: Map<string, Action>; list: readonly Action[] | null }>();
  private readonly marked;
  private readonly ofTask;
  private readonly ofMarked;

  /** `reader(scope)`: a reader of the actions a WHERE clause over `actions` selects, read back as TaskStore reads them, in seq order (its statements prepared once). */
  constructor(db: AppDatabase, reader: (scope: string) => (args: readonly unknown[]) => Action[]) {
    super(db);
    this.marked = db.prepare('SELECT DISTINCT action_id FROM read_marks WHERE seq > ? AND seq <= ? AND action_id IS NOT NULL').pluck();
    this.ofTask = reader('WHERE task_id = ?');
    this.ofMarked = reader('WHERE id IN (SELECT action_id FROM read_marks WHERE seq > ? AND seq <= ?)');
  }

  /** The task's actions in seq order. */
  of(taskId: string): readonly Action[] {
    this.catchUp();
    let kept = this.tasks.get(taskId);
    if (kept) this.tasks.delete(taskId);
    else kept = { byId: new Map(this.ofTask([taskId]).map((a) => [a.id, a])), list: null };
    this.tasks.set(taskId, kept);
    if (this.tasks.size > KEPT_TASKS) this.tasks.delete(this.tasks.keys().next().value!);
    return (kept.list ??= [...kept.byId.values()].sort((a, b) => a.seq - b.seq));
  }

  /** Re-reads the marked actions of every task kept (another task's marks are passed over). */
  private catchUp(): void {
    const { from, to, lost } = this.unseen();
    if (lost) this.tasks.clear();
    if (from === to || this.tasks.size === 0) return;
    const ids = this.marked.all(from, to) as string[];
    if (ids.length === 0) return;
    const now = this.ofMarked([from, to]);
    for (const kept of this.tasks.values()) {
      for (const id of ids) if (kept.byId.delete(id)) kept.list = null;
    }
    for (const action of now) {
      const kept = this.tasks.get(action.taskId);
      if (!kept) continue;
      kept.byId.set(action.id, action);
      kept.list = null;
    }
  }
}

/** Each folder's changes, kept (KeptChanges.of answers what UndoStore.changes(folder) reads). */
export class KeptChanges extends Marks {
  private readonly folders = new Map<string, readonly FolderChange[]>();
  private readonly marked;

  /** `read(folder, fromId)`: the folder's changes with an id of at least `fromId`, oldest first. */
  constructor(
    db: AppDatabase,
    private readonly read: (folder: string, fromId: number) => FolderChange[],
  ) {
    super(db);
    // Per folder, the lowest id a write touched: the changes before it are as they were (ids only grow).
    this.marked = db.prepare('SELECT folder, min(from_id) AS from_id FROM read_marks WHERE seq > ? AND seq <= ? AND folder IS NOT NULL GROUP BY folder');
  }

  /** The folder's changes, oldest first. */
  of(folder: string): readonly FolderChange[] {
    this.catchUp();
    const kept = this.folders.get(folder) ?? this.read(folder, 0);
    this.folders.delete(folder);
    this.folders.set(folder, kept);
    if (this.folders.size > KEPT_FOLDERS) this.folders.delete(this.folders.keys().next().value!);
    return kept;
  }

  /** Re-reads each kept folder's changes from the lowest id marked since the last read. */
  private catchUp(): void {
    const { from, to, lost } = this.unseen();
    if (lost) this.folders.clear();
    if (from === to || this.folders.size === 0) return;
    for (const { folder, from_id: fromId } of this.marked.all(from, to) as Array<{ folder: string; from_id: number }>) {
      const kept = this.folders.get(folder);
      if (kept) this.folders.set(folder, [...kept.filter((c) => c.id < fromId), ...this.read(folder, fromId)]);
    }
  }
}
