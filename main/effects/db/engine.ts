// What differs between database engines, behind one interface: each engine is a folder (sqlite/,
// postgres/) whose index.ts makes a DbEngine, and the composition root registers them in a DbEngines.
// The databases channel, held transactions, undo logs and grants ask the engine of a grant or a log;
// nothing outside the engine folders branches on which engine it is. A third engine is a third folder.
import type { DatabaseEngine, DatabaseGrant, DbStatement } from '../../../shared/domain';
import type { ParsedLocation } from './db-grant';
import type { SchemaInfo } from './db-schema';
import type { OverRowLimit } from './db-errors';
import type { Dialect, Direction, LazySource, RowEntry, TableLog } from './row-log';
import type { Segment, UndoLog, UndoLogStore } from './undo-log';

export type RunInput = {
  grant: DatabaseGrant;
  sql: string;
  params: unknown[] | null;
  approved: boolean;
  /** Called with the undo log right before COMMIT, so it is on disk before the changes it undoes are. */
  beforeCommit?: (segments: Segment[]) => void;
  /** Every row a statement returns (the card keeps only the first ones): the gateway answers code with them. */
  onRow?: (statement: number, row: Array<string | null>) => void;
  /** Called when the action is rolled back to run again another way (rows handed to onRow so far are void). */
  onRestart?: () => void;
};

export type EngineOutcome =
  | { ok: true; statements: DbStatement[]; segments: Segment[]; rowsAffected: number; tables: string[] }
  | { ok: false; statements: DbStatement[]; error: string; overLimit: OverRowLimit | null };

/** What an undo or redo did: statements run, the rows it moved (the first ones named) and how many. */
export type ApplyResult = { statements: number; rows: string[]; rowCount: number };

/** A database image of the undo folder (a capture file, a page image), opened once per read. */
export type OpenedImage = { bytes: Buffer; db: import('better-sqlite3').Database };
/** Opens an image by name; `patch` makes the whole image from a base image and the stored bytes. */
export type ImageOpener = (name: string, patch?: { base: string; apply(base: Buffer, stored: Buffer): Buffer }) => OpenedImage;

/** One open transaction of held-transaction mode: a task's actions each in a savepoint, until kept or undone. */
export interface HeldConnection {
  /** Runs the action's statements inside the open transaction (a savepoint is set); returns the rows they changed. Throws on a refusal. */
  execute(input: RunInput, out: DbStatement[]): Promise<number>;
  exec(sql: string): Promise<void>;
  /** Rolls back to the savepoint and releases it. */
  rollbackTo(savepoint: string): Promise<void>;
  /** Ends the transaction and the connection. A refused COMMIT throws DbRefusal. */
  close(how: 'commit' | 'rollback'): Promise<void>;
  /** The error of a statement, in words for the agent. */
  describeError(error: unknown): string;
}

export interface DbEngine {
  readonly id: DatabaseEngine;
  /** 'SQLite', 'PostgreSQL': from shared/domain/database-engines, the renderer's table too. */
  readonly label: string;
  /** Quoting and row matching of the compensating statements. */
  readonly dialect: Dialect;
  /** Whether a grant of this engine may carry a password (a file has none). */
  readonly passwords: boolean;
  /** Whether apply reads the rows of lazy tables itself, as it needs them (else they are read into the log first). */
  readonly readsOwnRows: boolean;
  /** Its reading of a grant's location as the person wrote it (a file path, a URL): the password taken out. Throws GrantError. */
  parseLocation(trimmed: string, cwd: string): ParsedLocation;
  /** When the task starts: the file exists and is not Posthoc's own, the server answers. May set the grant's canonical location. Throws GrantError. */
  checkGrant(grant: DatabaseGrant, protectedPaths: string[]): Promise<void>;
  /** Capture mode (and read-only grants): runs the action in one transaction, the undo log written before COMMIT. */
  run(input: RunInput, logs: UndoLogStore, logId: string, timeoutMs: number): Promise<EngineOutcome>;
  /** Applies the log in one direction or throws DbConflict, changing nothing; dryRun always rolls back. `log`: the log to store again, when applying changed it. */
  apply(grant: DatabaseGrant, log: UndoLog, direction: Direction, logs: UndoLogStore, dryRun: boolean): Promise<ApplyResult & { log?: UndoLog }>;
  /** The action is kept: empties what the engine keeps for its undo outside Posthoc's data folder (the trash schema). */
  keep(grant: DatabaseGrant, log: UndoLog): Promise<void>;
  /** The schema for the prompt (samples only when the grant allows them). */
  readSchema(grant: DatabaseGrant): Promise<SchemaInfo>;
  /** Opens the held transaction of a grant. */
  openHeld(grant: DatabaseGrant, timeoutMs: number): Promise<HeldConnection>;
  /** The rows of a lazy table kept in the undo folder (checked with lazyRowsRead), or null when the source is not this engine's. */
  readLazyRows(t: TableLog, source: LazySource, open: ImageOpener): RowEntry[] | null;
}

/** The registered engines by id. Built by the composition root and handed to whoever needs an engine. */
export class DbEngines {
  private readonly byId: ReadonlyMap<string, DbEngine>;

  constructor(engines: readonly DbEngine[]) {
    this.byId = new Map(engines.map((e) => [e.id, e]));
  }

  get(id: DatabaseEngine): DbEngine {
    const engine = this.byId.get(id);
    if (!engine) throw new Error(`No database engine "${id}" is registered.`);
    return engine;
  }

  all(): DbEngine[] {
    return [...this.byId.values()];
  }

  /** The rows of a lazy table, from whichever engine kept them. */
  readLazyRows(t: TableLog, source: LazySource, open: ImageOpener): RowEntry[] | null {
    for (const engine of this.byId.values()) {
      const rows = engine.readLazyRows(t, source, open);
      if (rows !== null) return rows;
    }
    return null;
  }
}
