// Runs one action's SQL on a granted MySQL or MariaDB database in one transaction. Every statement is
// classed before it runs — a schema change, a SET or a LOCK commits or changes the session on its own in
// MySQL, so it is refused up front rather than discovered after — then run, and the capture log says which
// rows it changed. Read-only grants run in a READ ONLY transaction, so the server itself refuses writes.
import type { DatabaseGrant, DbStatement, StatementClass } from '../../../../shared/domain';
import { DbRefusal, OverRowLimit } from '../db-errors';
import { displayValue, ResultCollector } from '../query-result';
import { tableRowCount } from '../row-log';
import { splitStatements, type Lexicon } from '../sql-splitter';
import { stepTimer } from '../step-timer';
import type { EngineOutcome, RunInput } from '../engine';
import type { Segment, UndoLogStore } from '../undo-log';
import { readMyCatalog, type MyCatalog } from './my-catalog';
import { planDdl, runDdl, type DdlPlan } from './my-ddl';
import { applyMy } from './my-undo';
import { cascadeState, foldRecords, MyCapture } from './my-capture';
import { BinlogReader, binlogRefusal, captureChoice, masterPosition } from './my-binlog';
import { connectMy, myMessage, serverOf, type MyConnection, type Secrets } from './my-client';

/** MySQL's quoting: backtick identifiers, backslash escapes in strings, # comments. */
export const MYSQL_LEXICON: Lexicon = { nestedComments: false, escapeStrings: false, backtickAndBracketIdents: true, dollarQuotes: false, triggerBodies: false, atomicBodies: false, backslashStrings: true };

const QUERIES = new Set(['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', 'VALUES', 'TABLE', '']);
const DML = new Set(['INSERT', 'UPDATE', 'DELETE', 'REPLACE']);
const DDL = new Set(['CREATE', 'ALTER', 'DROP', 'RENAME', 'TRUNCATE']);

/** A statement, classed before any statement of the action runs; schema changes with what they will change. */
export type Classed = { text: string; kind: StatementClass; ddl: DdlPlan | null };
const TRANSACTION = new Set(['BEGIN', 'START', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'XA']);

/** What a statement is, before it runs; throws DbRefusal with what to do instead for what Posthoc will not run. */
export function classify(text: string, keyword: string, grant: DatabaseGrant): Classed {
  if (/\bposthoc_(?:log_c\d|c\d|trash_)/i.test(text)) throw new DbRefusal('That statement names Posthoc\'s own capture objects (posthoc_…): they record what the action changes so it can be undone, and are not to be read or changed by an action.');
  if (TRANSACTION.has(keyword)) throw new DbRefusal('Posthoc runs each SQL action in a transaction of its own, so undo can take it back: leave out BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT and RELEASE.');
  if (DDL.has(keyword)) {
    if (!grant.statements.includes('ddl')) throw new DbRefusal(`The grant "${grant.name}" does not allow schema changes (CREATE, ALTER, DROP); ask the person to widen the grant if this is needed.`);
    return { text, kind: 'ddl', ddl: planDdl(text) };
  }
  if (keyword === 'LOAD' || /\bINTO\s+(?:OUTFILE|DUMPFILE)\b/i.test(text)) throw new DbRefusal('Reading or writing files on the database server (LOAD DATA, INTO OUTFILE) is not allowed in an action: send the rows in SQL, or read results through the gateway.');
  if (QUERIES.has(keyword)) return { text, kind: 'query', ddl: null };
  if (DML.has(keyword)) {
    if (!grant.statements.includes('dml')) throw new DbRefusal(`The grant "${grant.name}" does not allow row changes (INSERT, UPDATE, DELETE); ask the person to widen the grant if this is needed.`);
    return { text, kind: 'dml', ddl: null };
  }
  throw new DbRefusal(`Posthoc does not run ${keyword || 'this kind of'} statements on MySQL or MariaDB in an action: SET, LOCK, CALL, DO, HANDLER and the like change the session, lock tables or run code that may commit on its own, which undo could not take back. Use SELECT, INSERT, UPDATE, DELETE or REPLACE.`);
}

export type StatementHooks = {
  after(record: DbStatement): Promise<void>;
  /** Runs a schema change in place of the plain statement (it commits on its own); absent: refused. */
  ddl?(text: string, plan: DdlPlan): Promise<void>;
};

/** Runs the statements in order on an open transaction; throws on the first refusal or error. Every statement is classed before the first runs. */
export async function executeMy(conn: MyConnection, input: RunInput, out: DbStatement[], hooks: StatementHooks): Promise<void> {
  const pieces = splitStatements(input.sql, MYSQL_LEXICON);
  if (input.params !== null && input.params.length > 0 && pieces.length > 1) {
    throw new DbRefusal('Parameters ("params") go with exactly one statement; send the statements one request at a time.');
  }
  const classed = pieces.map((p) => classify(p.text, p.keyword, input.grant));
  if (!hooks.ddl && classed.some((c) => c.ddl)) {
    throw new DbRefusal('A schema change commits on its own in MySQL and MariaDB, which would end the open transaction this grant holds: it is not run in held-transaction mode. Ask the person to make it, or to grant the database in capture mode.');
  }
  for (const { text, kind, ddl } of classed) {
    const record: DbStatement = { sql: text, kind, rowsAffected: null, result: null };
    if (ddl && hooks.ddl) {
      await hooks.ddl(text, ddl);
      out.push(record);
      continue;
    }
    // Rows stream past one at a time: the card keeps the first ones, the gateway hands each on; a huge result
    // is never held whole in memory.
    let collector: ResultCollector | null = null;
    const header = await streamQuery(conn, text, input.params, {
      fields: (names) => (collector = new ResultCollector(names)),
      row: (row) => {
        collector!.add(row);
        input.onRow?.(out.length, row.map(displayValue));
      },
    });
    if (collector) record.result = (collector as ResultCollector).result();
    else if (kind === 'dml') record.rowsAffected = header?.affectedRows ?? 0;
    out.push(record);
    await hooks.after(record);
  }
}

type Streamed = { fields(names: string[]): void; row(row: unknown[]): void };

/** One statement, its rows handed over as they arrive; resolves with the server's answer to a statement without rows. */
function streamQuery(conn: MyConnection, sql: string, values: unknown[] | null, on: Streamed): Promise<{ affectedRows?: number } | null> {
  return new Promise((resolve, reject) => {
    let header: { affectedRows?: number } | null = null;
    let rows = false;
    // The callback connection under the promise one: its query emits rows as they come.
    const core = (conn as unknown as { connection: import('mysql2').Connection }).connection;
    const q = core.query({ sql, values: values ?? undefined, rowsAsArray: true });
    // mysql2 emits 'fields' for every statement, with no fields for one that returns no rows.
    q.on('fields', (fields: Array<{ name: string }> | undefined) => {
      if (!Array.isArray(fields) || fields.length === 0) return;
      rows = true;
      on.fields(fields.map((f) => f.name));
    });
    q.on('result', (result: unknown) => {
      try {
        if (rows && Array.isArray(result)) on.row(result);
        else header = result as { affectedRows?: number };
      } catch (error) {
        reject(error);
      }
    });
    q.on('error', reject);
    q.on('end', () => resolve(header));
  });
}

/**
 * Capture mode and read-only grants: the action runs and commits; undo uses the captured log. A schema
 * change ends the transaction so far (its rows logged, then committed) and runs on its own; the rest runs
 * in a new transaction. An action that fails after such a commit has what it committed taken back.
 */
export async function runMyAction(input: RunInput, secrets: Secrets, _logs: UndoLogStore, logId: string, timeoutMs: number): Promise<EngineOutcome> {
  const { grant } = input;
  stepTimer.reset();
  const choice = captureChoice(grant.location);
  const conn = await connectMy(grant, secrets, { statementTimeoutMs: timeoutMs });
  stepTimer.mark('connect');
  const statements: DbStatement[] = [];
  const segments: Segment[] = [];
  let committed = 0;
  let capture: MyCapture | null = null;
  let reader: BinlogReader | null = null;
  try {
    let catalog: MyCatalog = await readMyCatalog(conn);
    stepTimer.mark('read catalog');
    if (!grant.readOnly) {
      capture = await MyCapture.open(conn);
      // The binary log where the server allows it (and the grant changes rows: a query that writes through a
      // function is caught by triggers only), else triggers.
      const refusal = choice === 'triggers' ? 'triggers asked for' : await binlogRefusal(conn, catalog);
      if (choice === 'binlog' && refusal !== null) {
        throw new DbRefusal(`The grant "${grant.name}" asks for capture through the binary log (capture=binlog), and ${refusal}. Change that on the server, or remove capture=binlog from the grant's URL to let Posthoc capture with triggers.`);
      }
      if (refusal === null && grant.statements.includes('dml')) {
        try {
          const { database, ...server } = await serverOf(grant, secrets);
          reader = await BinlogReader.open(server, database, capture.logTable, await masterPosition(conn));
        } catch (error) {
          if (choice === 'binlog') throw error;
          reader = null;
        }
      }
      stepTimer.mark('start the binlog stream');
      await capture.install(catalog, { rows: reader === null });
    }
    stepTimer.mark('install capture');
    const begin = async (): Promise<void> => {
      await conn.query(grant.readOnly ? 'START TRANSACTION READ ONLY' : 'START TRANSACTION');
      if (reader) await capture!.marker();
    };
    await begin();
    let logged = 0;
    let changed = 0;
    /** Rows whose key the action changed: two entries in the log, one row on the card. */
    const moved = { rows: 0 };
    let trashCount = 0;
    /** Logs the transaction's rows and commits it (binary log: commits, then reads its rows from the stream). */
    const commitRows = async (): Promise<void> => {
      if (!reader) {
        const rows = await foldRecords(conn, catalog, await capture!.records(), undefined, moved);
        if (rows.length > 0) segments.push({ kind: 'rows', tables: rows });
        stepTimer.mark('read the log');
        if (segments.length > committed) input.beforeCommit?.(segments);
        stepTimer.mark('write undo log');
        await conn.query('COMMIT');
        committed = segments.length;
        return;
      }
      const cascades = await cascadeState(conn, catalog, await capture!.records(0, 'cascades'));
      await conn.query('COMMIT');
      stepTimer.mark('commit');
      let rows;
      try {
        await reader.reach(await masterPosition(conn));
        stepTimer.mark('wait for the stream');
        const records = await reader.takeRecords(conn, catalog);
        stepTimer.mark('images as literals');
        rows = await foldRecords(conn, catalog, records, cascades, moved);
      } catch (error) {
        throw new DbRefusal(`The action's rows were committed, but Posthoc could not read them back from the binary log (${error instanceof Error ? error.message : String(error)}): this part of the action cannot be undone by Posthoc. Check ${grant.name}.`);
      }
      if (rows.length > 0) segments.push({ kind: 'rows', tables: rows });
      committed = segments.length;
      stepTimer.mark('read the log');
      // The rows are known only once committed: the undo log is written right after.
      input.beforeCommit?.(segments);
      stepTimer.mark('write undo log');
      const rowCount = countRows(segments) - moved.rows;
      if (!input.approved && rowCount > grant.maxRowsAffected) throw new OverRowLimit(rowCount, grant.maxRowsAffected, grant.name);
    };
    await executeMy(conn, input, statements, {
      after: async (record) => {
        if (!capture) return;
        if (reader) {
          // Rows are read from the stream after COMMIT; until then the server's counts stand in for the limit.
          changed += record.rowsAffected ?? 0;
          if (!input.approved && changed > grant.maxRowsAffected) throw new OverRowLimit(changed, grant.maxRowsAffected, grant.name);
          return;
        }
        const now = await capture.count();
        // A query that wrote (a stored function with side effects) is a row change.
        if (now > logged && record.kind === 'query') {
          if (!grant.statements.includes('dml')) throw new DbRefusal(`The grant "${grant.name}" does not allow row changes, and this query changed rows (through a function it calls). It was rolled back.`);
          record.kind = 'dml';
        }
        logged = now;
        if (!input.approved && now > grant.maxRowsAffected) {
          // The log counts a row written twice twice: past the limit, count each row once.
          const rows = (await foldRecords(conn, catalog, await capture.records())).reduce((n, t) => n + tableRowCount(t), 0) + countRows(segments);
          if (rows > grant.maxRowsAffected) throw new OverRowLimit(rows, grant.maxRowsAffected, grant.name);
        }
      },
      ddl: capture
        ? async (text, plan) => {
            // The rows so far are logged and committed; the schema change commits on its own.
            await commitRows();
            await capture!.uninstall();
            const trash = () => `posthoc_trash_${logId.replace(/-/g, '').slice(0, 12)}_${++trashCount}`;
            const op = await runDdl(conn, text, plan, catalog, trash);
            segments.push({ kind: 'ddl', statement: text, ops: [op] });
            input.beforeCommit?.(segments);
            committed = segments.length;
            // Tables (and columns) the statement made are captured from now on.
            catalog = await readMyCatalog(conn);
            await capture!.install(catalog, { rows: reader === null });
            logged = 0;
            await begin();
          }
        : undefined,
    });
    stepTimer.mark(reader ? 'statements (binlog capture)' : 'statements (with capture triggers)');
    if (capture) await commitRows();
    else await conn.query('ROLLBACK');
    stepTimer.mark('commit');
    const tables = [...new Set(segments.flatMap((seg) => (seg.kind === 'rows' ? seg.tables.map((t) => t.label) : seg.kind === 'ddl' ? seg.ops.map((o) => o.object) : [])))];
    return { ok: true, statements, segments, rowsAffected: countRows(segments) - moved.rows, tables };
  } catch (error) {
    await conn.query('ROLLBACK').catch(() => undefined);
    await capture?.uninstall();
    let message = describeMyError(error, grant);
    if (committed > 0) {
      // Schema changes (and the rows before them) were committed: take them back, newest first.
      try {
        await applyMy(grant, { version: 1, engine: 'mysql', database: grant.name, segments: segments.slice(0, committed) }, 'undo', secrets);
        message += ' What the action had already committed (its rows and schema changes) was taken back.';
      } catch (undoError) {
        message += ` The action had already committed changes, and taking them back failed (${undoError instanceof Error ? undoError.message : String(undoError)}): check ${grant.name} by hand.`;
      }
    }
    return { ok: false, statements, error: message, overLimit: error instanceof OverRowLimit ? error : null };
  } finally {
    await capture?.uninstall();
    await reader?.close();
    stepTimer.mark('remove capture');
    await conn.end().catch(() => undefined);
  }
}

/** Rows a log's row steps change (each once), for the card and the limit. */
function countRows(segments: Segment[]): number {
  return segments.reduce((n, seg) => n + (seg.kind === 'rows' ? seg.tables.reduce((m, t) => m + tableRowCount(t), 0) : 0), 0);
}

export function describeMyError(error: unknown, grant: DatabaseGrant): string {
  if (error instanceof DbRefusal || error instanceof OverRowLimit) return error.message;
  const errno = (error as { errno?: number }).errno;
  if (errno === 1792) return `The grant "${grant.name}" is read-only, and the server refused the write (${myMessage(error)}). Nothing was changed.`;
  if (errno === 1969 || errno === 3024) return `The server stopped the statement: it ran longer than the action timeout. Nothing was changed. (${myMessage(error)})`;
  if (errno === 1205) return `A row or table is locked by another session (${myMessage(error)}); nothing was changed. Try again when it is free.`;
  return `MySQL: ${myMessage(error)}`;
}
