// Runs one action's SQL on a granted SQLite file, in one transaction: statement by statement (split by the
// dialect-aware lexer, then confirmed by SQLite's own prepare), each classified by SQLite before it runs,
// with change capture on every table: by pages (sqlite-pages.ts: an image of the file before and after,
// compared in C; the image before from the rollback journal) where the action touched enough of the file's
// pages (or the file is small) and the differ is built, else by per-row triggers (sqlite-capture.ts).
// Schema changes take a snapshot of the file first (rolling back and starting over
// with triggers if the first one shows up mid-action). Read-only grants open the file read-only, so SQLite
// itself refuses any write.
import Database from 'better-sqlite3';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import type { DatabaseGrant, DbStatement } from '../../../../shared/domain';
import { DbRefusal, OverRowLimit } from '../db-errors';
import { displayValue, ResultCollector } from '../query-result';
import { PREVIEW_STATEMENTS, tableRowCount, type TableLog } from '../row-log';
import { captureTables, dropCapture, installCapture, loggedRows, readCapture, saveCapture, type CaptureTable } from './sqlite-capture';
import { classifySqlite } from './sqlite-classify';
import { changedRows, fileImage, guardKeyMoves, keyMoved, PageCaptureUnfit, pageCaptureFits, pageDelta, pageLogs, pagesWorthComparing, rootPages } from './sqlite-pages';
import { imageBefore, JournalUnreadable, readJournal } from './sqlite-journal';
import type { SchemaCache } from './sqlite-schema';
import { splitStatements, type Lexicon, type SqlStatement } from '../sql-splitter';
import { stepTimer } from '../step-timer';
import type { EngineOutcome, RunInput } from '../engine';
import type { Segment, UndoLogStore } from '../undo-log';

/** SQLite files up to this size are snapshotted for schema changes; larger ones need held-transaction mode for DDL. */
export const SNAPSHOT_LIMIT_BYTES = 64 * 1024 * 1024;

/** SQLite's quoting and compound statements, for the statement splitter. */
export const SQLITE_LEXICON: Lexicon = { nestedComments: false, escapeStrings: false, backtickAndBracketIdents: true, dollarQuotes: false, triggerBodies: true, atomicBodies: false };

class NeedSnapshot extends Error {}

/** auto: pages where they fit, else triggers; triggers: per-row triggers; snapshot: triggers and a snapshot (schema changes). */
type Mode = 'auto' | 'triggers' | 'snapshot';

export function openSqlite(grant: DatabaseGrant, options: { write: boolean }): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(grant.location, { readonly: grant.readOnly || !options.write, fileMustExist: true, timeout: 5000 });
  } catch (error) {
    throw new DbRefusal(`Posthoc could not open the SQLite file of "${grant.name}" (${grant.location}): ${message(error)}. Check that it exists and is readable.`);
  }
  db.pragma('foreign_keys = ON');
  if (grant.readOnly) db.pragma('query_only = ON');
  return db;
}

/** Capture mode (and read-only grants): the action runs and commits; undo uses the captured log. */
export function runSqliteAction(input: RunInput, logs: UndoLogStore, logId: string, schemas: SchemaCache): EngineOutcome {
  stepTimer.reset();
  const db = openSqlite(input.grant, { write: true });
  stepTimer.mark('open');
  try {
    let mode: Mode = 'auto';
    for (;;) {
      try {
        return attempt(db, input, logs, logId, mode, schemas);
      } catch (error) {
        if (error instanceof NeedSnapshot && mode !== 'snapshot') mode = 'snapshot';
        else if (error instanceof PageCaptureUnfit && mode === 'auto') mode = 'triggers';
        else throw error;
        input.onRestart?.();
      }
    }
  } finally {
    db.close();
    stepTimer.mark('close');
  }
}

function attempt(db: Database.Database, input: RunInput, logs: UndoLogStore, logId: string, mode: Mode, schemas: SchemaCache): EngineOutcome {
  const { grant } = input;
  const snapshot = mode === 'snapshot';
  const statements: DbStatement[] = [];
  let before: string | null = null;
  db.exec(grant.readOnly ? 'BEGIN' : 'BEGIN IMMEDIATE');
  stepTimer.mark('begin');
  try {
    if (snapshot) {
      const size = fileSize(grant.location);
      if (size > SNAPSHOT_LIMIT_BYTES) {
        throw new DbRefusal(
          `Schema changes (CREATE, ALTER, DROP) on "${grant.name}" need a snapshot for undo, and this file is ${Math.round(size / 1048576)} MiB (snapshots are taken up to ${SNAPSHOT_LIMIT_BYTES / 1048576} MiB). Ask the person to grant it in held-transaction mode to change its schema.`,
        );
      }
      before = `${logId}-before.sqlite3`;
      writeFileSync(logs.snapshotPath(before), db.serialize(), { mode: 0o600 });
    }
    // Capture tables live in memory: they are written out once, as one file, if undo needs them.
    db.pragma('temp_store = MEMORY');
    const capture = grant.readOnly ? [] : captureTables(schemas.tables(db));
    stepTimer.mark('read schema');
    if (mode === 'auto' && !grant.readOnly) {
      const wal = (db.pragma('journal_mode', { simple: true }) as string).toLowerCase() === 'wal';
      if (pageCaptureFits(fileSize(grant.location), wal)) return capturePages(db, input, statements, capture, logs, logId, wal);
    }
    installCapture(db, capture);
    const sequencesBefore = readSequences(db);
    const schemaBefore = schemaObjects(db);
    stepTimer.mark('install capture');
    execute(db, input, statements, {
      onDdl: () => {
        if (!snapshot && !grant.readOnly) throw new NeedSnapshot();
      },
      rows: () => loggedRows(db, capture, grant.maxRowsAffected),
    });
    // Schema changes are undone from the snapshots; their rows are merged now, as the schema stood.
    const tables = readCapture(db, capture, { mergeAll: before !== null, file: logs.captureName(logId), preview: PREVIEW_STATEMENTS });
    const sequences = sequenceLog(sequencesBefore, readSequences(db));
    if (sequences) tables.push(sequences);
    stepTimer.mark('count and first rows');
    const segments: Segment[] = [];
    if (before !== null) {
      const after = `${logId}-after.sqlite3`;
      writeFileSync(logs.snapshotPath(after), db.serialize(), { mode: 0o600 });
      segments.push({ kind: 'snapshot', before, after, objects: changedObjects(schemaBefore, schemaObjects(db)) });
    }
    if (tables.length > 0) segments.push({ kind: 'rows', tables });
    if (tables.some((t) => t.lazy)) saveCapture(db, (image) => logs.writeCapture(logId, image));
    else dropCapture(db, capture);
    stepTimer.mark('write capture file');
    if (segments.length > 0) input.beforeCommit?.(segments);
    stepTimer.mark('write undo log');
    db.exec('COMMIT');
    stepTimer.mark('commit');
    const changed = tables.filter((t) => !t.soft);
    const logged = changed.reduce((n, t) => n + tableRowCount(t), 0);
    return {
      ok: true,
      statements,
      segments,
      // Rows written into tables the action created are in the snapshot, not in the row log: SQLite's own count says how many.
      rowsAffected: before === null ? logged : Math.max(logged, statements.reduce((n, st) => n + (st.rowsAffected ?? 0), 0)),
      tables: [...new Set([...changed.map((t) => t.label), ...(segments[0]?.kind === 'snapshot' ? segments[0].objects : [])])],
    };
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    // Nothing happened, so the snapshots taken for it go (a restart takes a fresh one).
    for (const name of [before, `${logId}-after.sqlite3`]) if (name) rmSync(logs.snapshotPath(name), { force: true });
    logs.remove(logId);
    if (error instanceof NeedSnapshot || error instanceof PageCaptureUnfit) throw error;
    return { ok: false, statements, error: describeError(error, grant), overLimit: error instanceof OverRowLimit ? error : null };
  }
}

/**
 * Page capture (inside attempt's transaction, which rolls back on any throw): the statements run with no
 * triggers; the rows that differ between the file's image before and after them are the action's changes.
 * In a rollback-journal database the image before is the image after with the pages SQLite journaled put
 * back (sqlite-journal.ts), so nothing is copied before the statements run, and the journal says how many
 * pages they touched: when that is a small share of a larger file, comparing whole images would cost more
 * than the rows, and the action runs again with triggers. In a WAL database the image before is taken right
 * before the first statement that may write. A schema change throws NeedSnapshot (the action starts over
 * on the snapshot path).
 */
function capturePages(db: Database.Database, input: RunInput, statements: DbStatement[], capture: CaptureTable[], logs: UndoLogStore, logId: string, wal: boolean): EngineOutcome {
  const roots = rootPages(db, capture);
  guardKeyMoves(db, capture);
  const sequencesBefore = readSequences(db);
  const writtenBefore = totalChanges(db);
  // Queries change nothing: the image before is taken right before the first statement that may write.
  let before: Buffer | null = null;
  let wrote = false;
  const noWritesYet = (): void => {
    if (totalChanges(db) !== writtenBefore) throw new PageCaptureUnfit('a statement SQLite called a query wrote rows');
  };
  try {
    execute(db, input, statements, {
      onDdl: () => {
        throw new NeedSnapshot();
      },
      beforeRun: (kind) => {
        if (wrote || kind === 'query') return;
        noWritesYet();
        wrote = true;
        if (!wal) return;
        before = fileImage(db);
        stepTimer.mark('image before');
      },
      // SQLite's own count of rows written, cascades and the person's triggers included (a row written twice
      // counts twice, as in the triggers' log).
      rows: () => totalChanges(db) - writtenBefore,
    });
  } catch (error) {
    if (keyMoved(error)) throw new PageCaptureUnfit('a row moved to another key');
    throw error;
  }
  if (!wrote) noWritesYet();
  let after: Buffer | null = null;
  if (wrote && !wal) {
    const journalPath = `${mainFile(db)}-journal`;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const touched = journalPages(journalPath, pageSize);
    if (touched > 0 && !pagesWorthComparing(touched, pageCount(db), pageSize)) throw new PageCaptureUnfit(`the action touched ${touched} of ${pageCount(db)} pages`);
    try {
      const journal = readJournal(journalPath);
      stepTimer.mark('read journal');
      if (journal !== null) {
        after = fileImage(db);
        before = imageBefore(after, journal);
      }
    } catch (error) {
      if (error instanceof JournalUnreadable) throw new PageCaptureUnfit(`the rollback journal: ${error.message}`);
      throw error;
    }
  } else if (before !== null) after = fileImage(db);
  stepTimer.mark('image after');
  const tables: TableLog[] = [];
  const changes = before === null ? [] : changedRows(before, after!, capture, roots);
  stepTimer.mark('compare images');
  if (changes.length > 0) {
    const files = logs.pageNames(logId);
    logs.writeCapture(logId, before!, files.before);
    logs.writeCapture(logId, pageDelta(before!, after!), files.after);
    stepTimer.mark('write images');
    const image = new Database(logs.capturePath(files.before), { readonly: true, fileMustExist: true });
    try {
      tables.push(...pageLogs(changes, files, { before: image, after: db }, PREVIEW_STATEMENTS));
    } finally {
      image.close();
    }
    stepTimer.mark('count and first rows');
  }
  const sequences = sequenceLog(sequencesBefore, readSequences(db));
  if (sequences) tables.push(sequences);
  const segments: Segment[] = tables.length > 0 ? [{ kind: 'rows', tables }] : [];
  if (segments.length > 0) input.beforeCommit?.(segments);
  stepTimer.mark('write undo log');
  db.exec('COMMIT');
  stepTimer.mark('commit');
  const changed = tables.filter((t) => !t.soft);
  return { ok: true, statements, segments, rowsAffected: changed.reduce((n, t) => n + tableRowCount(t), 0), tables: changed.map((t) => t.label) };
}

/** The main database's file, as SQLite opened it (its journal is this name with -journal). */
function mainFile(db: Database.Database): string {
  const rows = db.pragma('database_list') as Array<{ name: string; file: string }>;
  return rows.find((r) => r.name === 'main')!.file;
}

function pageCount(db: Database.Database): number {
  return db.pragma('page_count', { simple: true }) as number;
}

/** How many pages the rollback journal holds, from its size (a header per sector-aligned segment is small beside the pages). */
function journalPages(path: string, pageSize: number): number {
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
    return 0;
  }
  return Math.floor(size / (pageSize + 8));
}

function totalChanges(db: Database.Database): number {
  return db.prepare('SELECT total_changes()').pluck().get() as number;
}

export type ExecHooks = {
  onDdl(): void;
  rows(): number;
  /** Before each statement runs, with what SQLite says it is. */
  beforeRun?(kind: DbStatement['kind']): void;
};

/** Runs the statements in order on an open transaction; throws on the first refusal or error. */
export function execute(db: Database.Database, input: RunInput, out: DbStatement[], hooks: ExecHooks): void {
  const { grant } = input;
  const pieces = splitStatements(input.sql, SQLITE_LEXICON);
  if (input.params !== null && input.params.length > 0 && pieces.length > 1) {
    throw new DbRefusal('Parameters ("params") go with exactly one statement; send the statements one request at a time.');
  }
  // SQLite has no boolean type: true and false are 1 and 0, as SQLite itself stores them.
  const params = (input.params ?? []).map((p) => (typeof p === 'boolean' ? Number(p) : p));
  for (let i = 0; i < pieces.length; i++) {
    let piece: SqlStatement = pieces[i]!;
    let stmt: Database.Statement | null = null;
    while (stmt === null) {
      try {
        stmt = db.prepare(piece.text);
      } catch (error) {
        // SQLite knows where its statements end: a piece it calls incomplete joins the next one.
        if (/incomplete input/.test(message(error)) && i + 1 < pieces.length) {
          i++;
          piece = { text: `${piece.text};\n${pieces[i]!.text}`, keyword: piece.keyword };
        } else throw error;
      }
    }
    const { kind } = classifySqlite(db, stmt, piece.text, piece.keyword, params);
    stepTimer.mark('split, prepare, classify');
    if (!grant.readOnly && !grant.statements.includes(kind)) {
      throw new DbRefusal(`The grant "${grant.name}" does not allow ${kindWords[kind]} (it allows ${grant.statements.map((k) => kindWords[k]).join(', ')}). Nothing was changed; ask the person to widen the grant if this is needed.`);
    }
    if (kind === 'ddl') hooks.onDdl();
    hooks.beforeRun?.(kind);
    const versionBefore = schemaVersion(db);
    const record: DbStatement = { sql: piece.text, kind, rowsAffected: null, result: null };
    if (stmt.reader) {
      stmt.raw(true).safeIntegers(true);
      const collector = new ResultCollector(stmt.columns().map((c) => c.name));
      for (const row of stmt.iterate(...params) as Iterable<unknown[]>) {
        collector.add(row);
        input.onRow?.(out.length, row.map(displayValue));
      }
      record.result = collector.result();
      if (kind === 'dml') record.rowsAffected = db.prepare('SELECT changes()').pluck().get() as number;
    } else {
      const info = stmt.run(...params);
      if (kind === 'dml') record.rowsAffected = info.changes;
    }
    out.push(record);
    stepTimer.mark('statements');
    if (kind !== 'ddl' && schemaVersion(db) !== versionBefore) {
      // The statement changed the schema after all (a function or a trigger did): treat it as DDL.
      record.kind = 'ddl';
      if (!grant.statements.includes('ddl')) throw new DbRefusal(`The grant "${grant.name}" does not allow schema changes, and this statement made one. It was rolled back.`);
      hooks.onDdl();
    }
    const rows = hooks.rows();
    stepTimer.mark('rows limit check');
    if (!input.approved && rows > grant.maxRowsAffected) throw new OverRowLimit(rows, grant.maxRowsAffected, grant.name);
  }
}

const kindWords: Record<DbStatement['kind'], string> = { query: 'queries', dml: 'row changes (INSERT, UPDATE, DELETE)', ddl: 'schema changes (CREATE, ALTER, DROP)' };

function schemaVersion(db: Database.Database): number {
  return db.pragma('schema_version', { simple: true }) as number;
}

function readSequences(db: Database.Database): Map<string, string> {
  const exists = db.prepare("SELECT 1 FROM main.sqlite_schema WHERE name = 'sqlite_sequence'").get();
  if (!exists) return new Map();
  const rows = db.prepare('SELECT name, quote(seq) FROM main.sqlite_sequence').raw(true).all() as Array<[string, string]>;
  return new Map(rows);
}

/** AUTOINCREMENT counters the action moved: restored by undo only while nobody moved them further (soft). */
function sequenceLog(before: Map<string, string>, after: Map<string, string>): TableLog | null {
  const names = new Set([...before.keys(), ...after.keys()]);
  const rows = [...names].flatMap((name) => {
    const b = before.get(name);
    const a = after.get(name);
    if (b === a) return [];
    const key = [`'${name.replace(/'/g, "''")}'`];
    return [{ beforeKey: b === undefined ? null : key, afterKey: a === undefined ? null : key, before: b === undefined ? null : [key[0]!, b], after: a === undefined ? null : [key[0]!, a] }];
  });
  if (rows.length === 0) return null;
  return { table: '"sqlite_sequence"', label: 'sqlite_sequence', columns: ['name', 'seq'], keyColumns: ['name'], overridingSystemValue: false, soft: true, rows };
}

function schemaObjects(db: Database.Database): Map<string, string> {
  const rows = db.prepare("SELECT type || ' ' || name, coalesce(sql, '') FROM main.sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").raw(true).all() as Array<[string, string]>;
  return new Map(rows);
}

function changedObjects(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((n) => before.get(n) !== after.get(n)).map((n) => n.replace(/^\w+ /, ''));
}

function fileSize(path: string): number {
  let size = 0;
  for (const suffix of ['', '-wal']) {
    try {
      size += statSync(path + suffix).size;
    } catch {
      // no WAL file: nothing to add
    }
  }
  return size;
}

export function describeError(error: unknown, grant: DatabaseGrant): string {
  if (error instanceof DbRefusal || error instanceof OverRowLimit) return error.message;
  const text = message(error);
  const code = (error as { code?: string }).code ?? '';
  if (code.startsWith('SQLITE_READONLY') || /readonly database/.test(text)) {
    return `The grant "${grant.name}" is read-only, and SQLite refused the write (${text}). Nothing was changed.`;
  }
  if (code === 'SQLITE_BUSY') return `"${grant.name}" is locked by another program (${text}); try again in a moment.`;
  return `SQLite: ${text}`;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
