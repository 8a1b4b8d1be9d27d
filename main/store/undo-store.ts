// The undo engine's records: every change of a granted folder in order (an action's run, an undo, a
// redo, an edit made outside Posthoc), the last checkpoint of each folder, and the journal of restores
// (written before a restore touches the folder, finished in the same transaction as its outcome).
import type { AppDatabase } from './database';
import { KeptChanges } from './kept-reads';

export type FolderChangeKind = 'action' | 'undo' | 'redo' | 'external';
export type ChangeSummaryRecord = {
  added: string[];
  modified: string[];
  deleted: string[];
  renamed: Array<{ from: string; to: string }>;
};

export type FolderChange = {
  id: number;
  folder: string;
  kind: FolderChangeKind;
  actionId: string | null;
  taskId: string | null;
  journalId: number | null;
  /**
   * External changes: the action whose checkpoint found them (null: found before an undo or redo) —
   * before it ran, or, with `during`, after it ran: made while it ran, not by it.
   */
  foundBy?: string | null;
  during?: boolean;
  /** With `during`: paths that action also wrote; undo of it refuses for them. */
  ambiguous?: string[];
  /**
   * External changes made by an undo that kept the person's edits as copies (its `paths` are the copies):
   * the paths whose earlier outside edits were set aside, so they no longer stand in the way of an undo.
   */
  setAside?: string[];
  /** External changes Posthoc made for the person (copies kept by an undo, or moved back): told with the operation, not as an edit. */
  byUndo?: boolean;
  fromCommit: string;
  toCommit: string;
  /** Every path that differs, files and folders. */
  paths: string[];
  summary: ChangeSummaryRecord;
  createdAt: string;
};

export type JournalOperation = 'undo' | 'redo' | 'rewind';
export type JournalState = 'pending' | 'completed' | 'rolled-back';
export type JournalPlan = {
  direction: 'undo' | 'redo';
  folders: Array<{
    folder: string;
    from: string;
    to: string;
    paths: string[];
    items: Array<{ actionId: string; paths: string[] }>;
    /** Undo with keepCopies: each edited path and the copy that keeps the edit (recorded as an outside change before the items). */
    aside?: Array<{ path: string; copy: string }>;
    /** A compensation: copies moved back to their paths (recorded as an outside change after the items). */
    returned?: Array<{ path: string; copy: string }>;
  }>;
};
export type JournalEntry = {
  id: number;
  taskId: string | null;
  operation: JournalOperation;
  actionIds: string[];
  plan: JournalPlan;
  state: JournalState;
  recovered: boolean;
  note: string | null;
  startedAt: string;
  finishedAt: string | null;
};

type ChangeRow = {
  id: number; folder: string; kind: FolderChangeKind; action_id: string | null; task_id: string | null; journal_id: number | null; found_by: string | null;
  from_commit: string; to_commit: string; paths_json: string; summary_json: string; created_at: string;
};
type JournalRow = {
  id: number; task_id: string | null; operation: JournalOperation; action_ids_json: string; plan_json: string; state: JournalState;
  recovered: number; note: string | null; started_at: string; finished_at: string | null;
};

const now = (): string => new Date().toISOString();

export class UndoStore {
  constructor(private readonly db: AppDatabase) {}

  /** Runs `fn` in one SQLite transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  head(folder: string): string | null {
    const row = this.db.prepare('SELECT commit_id FROM fs_heads WHERE folder = ?').get(folder) as { commit_id: string } | undefined;
    return row?.commit_id ?? null;
  }

  setHead(folder: string, commit: string): void {
    this.db
      .prepare(
        `INSERT INTO fs_heads (folder, commit_id, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(folder) DO UPDATE SET commit_id = excluded.commit_id, updated_at = excluded.updated_at`,
      )
      .run(folder, commit, now());
  }

  folders(): string[] {
    return (this.db.prepare('SELECT folder FROM fs_heads ORDER BY folder').all() as Array<{ folder: string }>).map((r) => r.folder);
  }

  addChange(change: Omit<FolderChange, 'id' | 'createdAt'>): FolderChange {
    const createdAt = now();
    const result = this.db
      .prepare(
        `INSERT INTO fs_changes (folder, kind, action_id, task_id, journal_id, found_by, from_commit, to_commit, paths_json, summary_json, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        change.folder,
        change.kind,
        change.actionId,
        change.taskId,
        change.journalId,
        change.foundBy ?? null,
        change.fromCommit,
        change.toCommit,
        JSON.stringify(change.paths),
        // Kept with the summary (a JSON column) rather than in columns of their own: no schema change.
        JSON.stringify({
          ...change.summary,
          ...(change.during ? { during: true, ambiguous: change.ambiguous ?? [] } : {}),
          ...(change.setAside && change.setAside.length > 0 ? { setAside: change.setAside } : {}),
          ...(change.byUndo ? { byUndo: true } : {}),
        }),
        createdAt,
      );
    return { ...change, id: Number(result.lastInsertRowid), createdAt };
  }

  /** Every change of a folder, oldest first (from an id on, with `fromId`). */
  changes(folder: string, fromId = 0): FolderChange[] {
    return (this.db.prepare(CHANGES_FROM).all(folder, fromId) as ChangeRow[]).map(toChange);
  }

  /**
   * A folder's changes as `changes` reads them, kept on this connection across reads and re-read only from
   * the first one written since (store/kept-reads.ts): what the timeline reads. Shared: not to be mutated.
   */
  keptChanges(folder: string): readonly FolderChange[] {
    // Inside a transaction the rows may hold writes a rollback takes back: read afresh, keep nothing.
    if (this.db.inTransaction) return this.changes(folder);
    let kept = keptChanges.get(this.db);
    if (!kept) {
      const changes = this.db.prepare(CHANGES_FROM);
      kept = new KeptChanges(this.db, (f, fromId) => (changes.all(f, fromId) as ChangeRow[]).map(toChange));
      keptChanges.set(this.db, kept);
    }
    return kept.of(folder);
  }

  /** Changes shown on a task's timeline: its actions' and the outside edits its checkpoints found. */
  changesForTask(taskId: string): FolderChange[] {
    return (this.db.prepare('SELECT * FROM fs_changes WHERE task_id = ? ORDER BY id').all(taskId) as ChangeRow[]).map(toChange);
  }

  /** The outside edits among them, the only ones the timeline shows by themselves. */
  externalChangesForTask(taskId: string): FolderChange[] {
    return (this.db.prepare(`SELECT * FROM fs_changes WHERE task_id = ? AND kind = 'external' ORDER BY id`).all(taskId) as ChangeRow[]).map(toChange);
  }

  beginJournal(input: { taskId: string | null; operation: JournalOperation; actionIds: string[]; plan: JournalPlan }): JournalEntry {
    const startedAt = now();
    const result = this.db
      .prepare(
        `INSERT INTO undo_journal (task_id, operation, action_ids_json, plan_json, state, recovered, note, started_at, finished_at)
         VALUES (?, ?, ?, ?, 'pending', 0, NULL, ?, NULL)`,
      )
      .run(input.taskId, input.operation, JSON.stringify(input.actionIds), JSON.stringify(input.plan), startedAt);
    return { id: Number(result.lastInsertRowid), ...input, state: 'pending', recovered: false, note: null, startedAt, finishedAt: null };
  }

  finishJournal(id: number, state: Exclude<JournalState, 'pending'>, input: { recovered?: boolean; note?: string | null } = {}): void {
    this.db
      .prepare('UPDATE undo_journal SET state = ?, recovered = ?, note = ?, finished_at = ? WHERE id = ?')
      .run(state, input.recovered ? 1 : 0, input.note ?? null, now(), id);
  }

  pendingJournals(): JournalEntry[] {
    return (this.db.prepare("SELECT * FROM undo_journal WHERE state = 'pending' ORDER BY id").all() as JournalRow[]).map(toJournal);
  }

  journalsForTask(taskId: string): JournalEntry[] {
    return (this.db.prepare('SELECT * FROM undo_journal WHERE task_id = ? ORDER BY id').all(taskId) as JournalRow[]).map(toJournal);
  }
}

/** A folder's changes from an id on, oldest first. */
const CHANGES_FROM = 'SELECT * FROM fs_changes WHERE folder = ? AND id >= ? ORDER BY id';
/** Each connection's kept folder changes (one per connection: what it keeps was read on it). */
const keptChanges = new WeakMap<AppDatabase, KeptChanges>();

function toChange(r: ChangeRow): FolderChange {
  const { during, ambiguous, setAside, byUndo, ...summary } = JSON.parse(r.summary_json) as ChangeSummaryRecord & {
    during?: boolean;
    ambiguous?: string[];
    setAside?: string[];
    byUndo?: boolean;
  };
  return {
    id: r.id,
    folder: r.folder,
    kind: r.kind,
    actionId: r.action_id,
    taskId: r.task_id,
    journalId: r.journal_id,
    foundBy: r.found_by,
    fromCommit: r.from_commit,
    toCommit: r.to_commit,
    paths: JSON.parse(r.paths_json) as string[],
    summary,
    ...(during ? { during: true, ambiguous: ambiguous ?? [] } : {}),
    ...(setAside ? { setAside } : {}),
    ...(byUndo ? { byUndo: true } : {}),
    createdAt: r.created_at,
  };
}

function toJournal(r: JournalRow): JournalEntry {
  return {
    id: r.id,
    taskId: r.task_id,
    operation: r.operation,
    actionIds: JSON.parse(r.action_ids_json) as string[],
    plan: JSON.parse(r.plan_json) as JournalPlan,
    state: r.state,
    recovered: r.recovered === 1,
    note: r.note,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}
