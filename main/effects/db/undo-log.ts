// Undo logs live in Posthoc's data folder, one JSON file per database effect (the effect on the card
// carries only the first compensating statements). Snapshots of small SQLite files sit beside them.
// Files are written to a temporary name and renamed, so a crash never leaves half a log. A SQLite action's
// row images stay in SQLite: its capture tables, written as one SQLite file beside the log (`ID.capture`),
// are read back only when undo or redo needs the rows. With page capture (sqlite-pages.ts) they are the two
// images of the file: `ID.pages-before`, and `ID.pages-after` as the pages that differ from it. A
// PostgreSQL action's logged rows are copied out of its database into a SQLite file too (`ID.capture`).
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseEngine } from '../../../shared/domain';
import type { DbEngines, ImageOpener, OpenedImage } from './engine';
import type { TableLog } from './row-log';

/** The values one direction writes back: each row's key and the column's value, as literals of their types. */
export type ColumnFill = { type: string; rows: Array<[key: string[], value: string]>; after: string[] };

/** What a column step writes after its statements (undo puts old values back; redo of a type change, the new ones). */
export type ColumnValues = {
  table: string;
  column: string;
  keyColumns: string[];
  keyTypes: string[];
  undo: ColumnFill | null;
  redo: ColumnFill | null;
};

/**
 * Which relation a schema step's check looks at, and whose content: null every column, [] none. `uniform`:
 * instead, how many rows hold something else than the column's default (a column the action added must
 * still hold only that, or dropping it would lose what someone wrote there since).
 */
export type DdlCheck = {
  schema: string;
  name: string;
  columns: string[] | null;
  uniform?: { column: string; value: string | null };
  /** Instead: only this column — absent, or its type and each row's value by these key columns. */
  column?: { name: string; keys: string[] };
};

/**
 * A PostgreSQL schema change and how to take it back (and forward again). Undo runs only while the
 * relation at `checkAfter` is in the state recorded after the action (redo: `checkBefore`, as the last
 * undo left it); a different state is a conflict.
 */
export type DdlOp = {
  /** What it did, for people: "created table categories". */
  describe: string;
  /** The table, view or index it concerns. */
  object: string;
  undo: string[];
  redo: string[];
  checkAfter: DdlCheck;
  checkBefore: DdlCheck;
  expectAfter: string | null;
  expectBefore: string | null;
  /** Run when the action is kept: empties the trash. */
  keep: string[];
  /** A dropped column or a type change: the values written back after the statements (see pg-column-values). */
  values?: ColumnValues;
};

export type Segment =
  | { kind: 'rows'; tables: TableLog[] }
  /** SQLite schema changes: the whole file before and after, restored logically (schema, rows with rowids, counters). */
  | { kind: 'snapshot'; before: string; after: string; objects: string[] }
  | { kind: 'ddl'; statement: string; ops: DdlOp[] };

export type UndoLog = {
  /** 1: every row in the log; 2: rows of lazy tables in the engine's capture log; 3: also page images. */
  version: 1 | 2 | 3;
  engine: DatabaseEngine;
  database: string;
  segments: Segment[];
};

export class UndoLogStore {
  readonly dir: string;
  readonly snapshotDir: string;

  constructor(
    dataDir: string,
    private readonly engines: DbEngines,
  ) {
    this.dir = join(dataDir, 'databases', 'undo');
    this.snapshotDir = join(dataDir, 'databases', 'snapshots');
  }

  newId(): string {
    return randomUUID();
  }

  snapshotPath(name: string): string {
    mkdirSync(this.snapshotDir, { recursive: true, mode: 0o700 });
    return join(this.snapshotDir, name);
  }

  /** The capture file of a SQLite action's lazy tables. */
  captureName(id: string): string {
    return `${id}.capture`;
  }

  /** Where a capture file (or page image) of this folder is. */
  capturePath(name: string): string {
    return join(this.dir, name);
  }

  /** The images of the file before and after a page-captured SQLite action. */
  pageNames(id: string): { before: string; after: string } {
    return { before: `${id}.pages-before`, after: `${id}.pages-after` };
  }

  /** Writes the capture file (before the log that names it, both before the action commits). */
  writeCapture(id: string, image: Uint8Array, name = this.captureName(id)): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = join(this.dir, name);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, image, { mode: 0o600 });
    renameSync(tmp, file);
  }

  /** Lazy tables are written without their rows: those are in the engine's capture log. */
  write(id: string, log: UndoLog): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = join(this.dir, `${id}.json`);
    const tmp = `${file}.${process.pid}.tmp`;
    const lazy = log.segments.flatMap((s) => (s.kind === 'rows' ? s.tables.flatMap((t) => (t.lazy ? [t.lazy.source.format ?? 2] : [])) : []));
    const stored = lazy.length === 0
      ? log
      : { ...log, version: Math.max(...lazy) as 2 | 3, segments: log.segments.map((s) => (s.kind === 'rows' ? { ...s, tables: s.tables.map((t) => (t.lazy ? { ...t, rows: [] } : t)) } : s)) };
    writeFileSync(tmp, JSON.stringify(stored), { mode: 0o600 });
    renameSync(tmp, file);
  }

  /** The log, with the rows of lazy tables read from the capture file (a log table left in a PostgreSQL database by an earlier version: see pg-undo). */
  read(id: string, options: { rows?: boolean } = {}): UndoLog {
    const log = this.readStored(id);
    if (options.rows === false) return log;
    this.fillRows(log.segments.flatMap((s) => (s.kind === 'rows' ? s.tables : [])), id);
    return log;
  }

  /** Reads the rows of these lazy tables (of the log `id`) from the undo folder into their logs. */
  fillRows(tables: TableLog[], id = 'this action'): TableLog[] {
    const opened = new Map<string, OpenedImage>();
    const open: ImageOpener = (name, patch) => {
      let image = opened.get(name);
      if (!image) {
        const bytes = this.readRowLogFile(id, name);
        const whole = patch === undefined ? bytes : patch.apply(open(patch.base).bytes, bytes);
        image = { bytes: whole, db: new Database(whole, { readonly: true }) };
        opened.set(name, image);
      }
      return image;
    };
    try {
      for (const t of tables) {
        const source = t.lazy?.source;
        if (source === undefined) continue;
        const rows = this.engines.readLazyRows(t, source, open);
        if (rows !== null) t.rows = rows;
      }
    } finally {
      for (const image of opened.values()) image.db.close();
    }
    return tables;
  }

  private readRowLogFile(id: string, name: string): Buffer {
    try {
      return readFileSync(join(this.dir, name));
    } catch {
      throw new Error(`The row log of this database action (${name}) is missing from Posthoc's data folder, so it cannot be undone exactly (${id}).`);
    }
  }

  private readStored(id: string): UndoLog {
    let text: string;
    try {
      text = readFileSync(join(this.dir, `${id}.json`), 'utf8');
    } catch {
      throw new Error(`The undo log of this database action (${id}) is missing from Posthoc's data folder, so it cannot be undone exactly.`);
    }
    const log = JSON.parse(text) as UndoLog;
    if (log.version !== 1 && log.version !== 2 && log.version !== 3) throw new Error(`The undo log ${id} was written by another version of Posthoc (format ${String(log.version)}).`);
    // Sources written before they said their format keep the log's: written again, it stays in that format.
    for (const seg of log.segments) if (seg.kind === 'rows') for (const t of seg.tables) if (t.lazy && t.lazy.source.format === undefined && log.version > 2) t.lazy.source = { ...t.lazy.source, format: log.version };
    return log;
  }

  /** Keep: the action is final, its log and snapshots are no longer needed. */
  remove(id: string, log?: UndoLog): void {
    for (const seg of log?.segments ?? []) {
      if (seg.kind === 'snapshot') {
        rmSync(join(this.snapshotDir, seg.before), { force: true });
        rmSync(join(this.snapshotDir, seg.after), { force: true });
      }
    }
    for (const name of [this.captureName(id), ...Object.values(this.pageNames(id))]) rmSync(join(this.dir, name), { force: true });
    rmSync(join(this.dir, `${id}.json`), { force: true });
  }
}
