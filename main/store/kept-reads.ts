// What the timeline reads most, kept on its connection across reads (issue 27): each task's actions as the
// store reads them back (parsed, their reverse plans derived) and each folder's changes (fs_changes parsed).
// A keep answers what a fresh read would, because it re-reads everything that may have changed:
//   - this connection's own writes, whichever class makes them, are caught by TEMP triggers (they live in
//     this connection alone, and are never in the file's schema): each names what it touched — an action
//     (its row, its effects, its figures, or the usage of the reply it came from), or a folder's changes
//     from some id on — in a TEMP table; a read re-reads those and keeps the rest. A write rolled back takes
//     its note back with it. A read inside a transaction is not the keep's: it could see writes a rollback
//     then takes back, and a keep made there would lose its triggers to that rollback; TaskStore.keptActions
//     and UndoStore.keptChanges read afresh then, and `of` refuses;
//   - a commit by any other connection (the `posthoc` CLI writing to the same data folder, another process
//     or connection of this one) changes SQLite's `PRAGMA data_version`, read before anything else: then
//     the whole keep is dropped and read again. It is read first, so whatever committed before it is in
//     what is read after it, and whatever commits later changes it again for the next read.
// Bounded: at most KEPT_TASKS tasks and KEPT_FOLDERS folders, the least recently read dropped first.
// What it returns is shared by every read: callers must not mutate it.
import type { Action } from '../../shared/domain';
import type { AppDatabase } from './database';
import type { FolderChange } from './undo-store';

/** Tasks whose actions a connection keeps at most (a task of 1,000 actions is a few MB). */
export const KEPT_TASKS = 8;
/** Folders whose changes a connection keeps at most. */
export const KEPT_FOLDERS = 8;

/** Inserts `key` into a TEMP table of one key column unless it is there (an INSERT OR IGNORE in a trigger takes the outer statement's conflict policy). */
const note = (table: string, column: string, key: string) =>
  `INSERT INTO temp.${table} (${column}) SELECT ${key} WHERE ${key} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM temp.${table} WHERE ${column} = ${key});`;

/** A trigger for each of INSERT, UPDATE and DELETE on `table`, each running `body(row)` for the rows it touched (OLD and NEW). */
function onEveryWrite(name: string, table: string, body: (row: 'OLD' | 'NEW') => string): string {
  return [
    `CREATE TEMP TRIGGER IF NOT EXISTS ${name}_i AFTER INSERT ON main.${table} BEGIN ${body('NEW')} END;`,
    `CREATE TEMP TRIGGER IF NOT EXISTS ${name}_u AFTER UPDATE ON main.${table} BEGIN ${body('OLD')} ${body('NEW')} END;`,
    `CREATE TEMP TRIGGER IF NOT EXISTS ${name}_d AFTER DELETE ON main.${table} BEGIN ${body('OLD')} END;`,
  ].join('\n');
}

/** What a keep needs of its connection: whether another connection committed since it last looked. */
class Watch {
  private version: number | null = null;
  private readonly dataVersion;

  constructor(protected readonly db: AppDatabase, setup: string) {
    Watch.outsideTransaction(db);
    db.exec(setup);
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  /** Whether another connection committed since the last call (true on the first). */
  protected othersWrote(): boolean {
    Watch.outsideTransaction(this.db);
    const version = this.dataVersion.get() as number;
    const changed = version !== this.version;
    this.version = version;
    return changed;
  }

  private static outsideTransaction(db: AppDatabase): void {
    if (db.inTransaction) throw new Error('A keep is not read inside a transaction: read afresh there.');
  }
}

/** Each task's actions, kept (KeptActions.of answers what TaskStore.listActions(taskId) reads). */
export class KeptActions extends Watch {
  private readonly tasks = new Map<string, { byId: Map<string, Action>; list: readonly Action[] | null }>();
  private readonly written;
  private readonly forget;
  private readonly ofTask;
  private readonly ofWritten;

  /** `reader(scope)`: a reader of the actions a WHERE clause over `actions` selects, read back as TaskStore reads them, in seq order (its statements prepared once). */
  constructor(db: AppDatabase, reader: (scope: string) => (args: readonly unknown[]) => Action[]) {
    const action = (key: string) => note('posthoc_written_actions', 'action_id', key);
    // The actions a reply's usage reaches: its usage is read with them (none when it has none).
    const ofMessage = (row: 'OLD' | 'NEW') =>
      `INSERT INTO temp.posthoc_written_actions (action_id) SELECT id FROM main.actions WHERE message_id = ${row}.id AND id NOT IN (SELECT action_id FROM temp.posthoc_written_actions);`;
    super(
      db,
      [
        'CREATE TEMP TABLE IF NOT EXISTS posthoc_written_actions (action_id TEXT PRIMARY KEY);',
        onEveryWrite('posthoc_kept_actions', 'actions', (row) => action(`${row}.id`)),
        onEveryWrite('posthoc_kept_effects', 'effects', (row) => action(`${row}.action_id`)),
        onEveryWrite('posthoc_kept_figures', 'action_figures', (row) => action(`${row}.action_id`)),
        `CREATE TEMP TRIGGER IF NOT EXISTS posthoc_kept_usage_i AFTER INSERT ON main.messages WHEN NEW.usage_json IS NOT NULL BEGIN ${ofMessage('NEW')} END;`,
        `CREATE TEMP TRIGGER IF NOT EXISTS posthoc_kept_usage_u AFTER UPDATE ON main.messages WHEN OLD.usage_json IS NOT NEW.usage_json OR OLD.id IS NOT NEW.id BEGIN ${ofMessage('OLD')} ${ofMessage('NEW')} END;`,
        // Before: a deleted message's actions lose their link to it (ON DELETE SET NULL, itself an UPDATE of them when foreign keys are on).
        `CREATE TEMP TRIGGER IF NOT EXISTS posthoc_kept_usage_d BEFORE DELETE ON main.messages WHEN OLD.usage_json IS NOT NULL BEGIN ${ofMessage('OLD')} END;`,
      ].join('\n'),
    );
    this.written = db.prepare('SELECT action_id FROM temp.posthoc_written_actions').pluck();
    this.forget = db.prepare('DELETE FROM temp.posthoc_written_actions');
    this.ofTask = reader('WHERE task_id = ?');
    this.ofWritten = reader('WHERE id IN (SELECT action_id FROM temp.posthoc_written_actions)');
  }

  /** The task's actions in seq order. */
  of(taskId: string): readonly Action[] {
    if (this.othersWrote()) this.tasks.clear();
    this.catchUp();
    let kept = this.tasks.get(taskId);
    if (kept) this.tasks.delete(taskId);
    else kept = { byId: new Map(this.ofTask([taskId]).map((a) => [a.id, a])), list: null };
    this.tasks.set(taskId, kept);
    if (this.tasks.size > KEPT_TASKS) this.tasks.delete(this.tasks.keys().next().value!);
    return (kept.list ??= [...kept.byId.values()].sort((a, b) => a.seq - b.seq));
  }

  /** Re-reads the actions this connection wrote since the last read (of any task kept; another's are only forgotten). */
  private catchUp(): void {
    const ids = this.written.all() as string[];
    if (ids.length === 0) return;
    if (this.tasks.size > 0) {
      const now = this.ofWritten([]);
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
    this.forget.run();
  }
}

/** Each folder's changes, kept (KeptChanges.of answers what UndoStore.changes(folder) reads). */
export class KeptChanges extends Watch {
  private readonly folders = new Map<string, readonly FolderChange[]>();
  private readonly written;
  private readonly forget;

  /** `read(folder, fromId)`: the folder's changes with an id of at least `fromId`, oldest first. */
  constructor(
    db: AppDatabase,
    private readonly read: (folder: string, fromId: number) => FolderChange[],
  ) {
    // Per folder, the lowest id a write touched: the changes before it are as they were (ids only grow).
    const from = (row: 'OLD' | 'NEW') =>
      `UPDATE temp.posthoc_written_changes SET from_id = min(from_id, ${row}.id) WHERE folder = ${row}.folder;
       INSERT INTO temp.posthoc_written_changes (folder, from_id) SELECT ${row}.folder, ${row}.id
         WHERE NOT EXISTS (SELECT 1 FROM temp.posthoc_written_changes WHERE folder = ${row}.folder);`;
    super(
      db,
      [
        'CREATE TEMP TABLE IF NOT EXISTS posthoc_written_changes (folder TEXT PRIMARY KEY, from_id INTEGER NOT NULL);',
        onEveryWrite('posthoc_kept_changes', 'fs_changes', from),
      ].join('\n'),
    );
    this.written = db.prepare('SELECT folder, from_id FROM temp.posthoc_written_changes');
    this.forget = db.prepare('DELETE FROM temp.posthoc_written_changes');
  }

  /** The folder's changes, oldest first. */
  of(folder: string): readonly FolderChange[] {
    if (this.othersWrote()) this.folders.clear();
    this.catchUp();
    const kept = this.folders.get(folder) ?? this.read(folder, 0);
    this.folders.delete(folder);
    this.folders.set(folder, kept);
    if (this.folders.size > KEPT_FOLDERS) this.folders.delete(this.folders.keys().next().value!);
    return kept;
  }

  /** Re-reads each kept folder's changes from the lowest id this connection wrote since the last read. */
  private catchUp(): void {
    const rows = this.written.all() as Array<{ folder: string; from_id: number }>;
    if (rows.length === 0) return;
    for (const { folder, from_id: fromId } of rows) {
      const kept = this.folders.get(folder);
      if (kept) this.folders.set(folder, [...kept.filter((c) => c.id < fromId), ...this.read(folder, fromId)]);
    }
    this.forget.run();
  }
}
