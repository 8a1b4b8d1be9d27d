// Runs one action's SQL on a granted MySQL or MariaDB database in one transaction. Every statement is
// classed before it runs — a schema change, a SET or a LOCK commits or changes the session on its own in
// MySQL, so it is refused up front rather than discovered after — then run, and the capture log says which
// rows it changed. Read-only grants run in a READ ONLY transaction, so the server itself refuses writes.
import type { DatabaseGrant, DbStatement, StatementClass } from '../../../../shared/domain';
import { DbRefusal, OverRowLimit } from '../db-errors';
import { displayValue, ResultCollector } from '../query-result';
import { tableRowCount } from '../row-log';
import { splitStatements, type Lexicon } from '../sql-splitter';
import type { EngineOutcome, RunInput } from '../engine';
import type { Segment, UndoLogStore } from '../undo-log';
import { readMyCatalog } from './my-catalog';
import { foldRecords, MyCapture } from './my-capture';
import { connectMy, myMessage, type MyConnection, type Secrets } from './my-client';

/** MySQL's quoting: backtick identifiers, backslash escapes in strings, # comments. */
export const MYSQL_LEXICON: Lexicon = { nestedComments: false, escapeStrings: false, backtickAndBracketIdents: true, dollarQuotes: false, triggerBodies: false, atomicBodies: false, backslashStrings: true };

const QUERIES = new Set(['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', 'VALUES', 'TABLE', '']);
const DML = new Set(['INSERT', 'UPDATE', 'DELETE', 'REPLACE']);
const DDL = new Set(['CREATE', 'ALTER', 'DROP', 'RENAME', 'TRUNCATE']);
const TRANSACTION = new Set(['BEGIN', 'START', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'XA']);

/** What a statement is, before it runs; throws DbRefusal with what to do instead for what Posthoc will not run. */
export function classify(text: string, keyword: string, grant: DatabaseGrant): StatementClass {
  if (/\bposthoc_(?:log_)?c\d+/i.test(text)) throw new DbRefusal('That statement names Posthoc\'s own capture objects (posthoc_…): they record what the action changes so it can be undone, and are not to be read or changed by an action.');
  if (TRANSACTION.has(keyword)) throw new DbRefusal('Posthoc runs each SQL action in a transaction of its own, so undo can take it back: leave out BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT and RELEASE.');
  if (DDL.has(keyword)) {
    throw new DbRefusal(`${keyword} changes the schema, and in MySQL and MariaDB every schema change commits on its own, outside the action's transaction: Posthoc cannot undo it exactly yet, so it did not run it. Change rows only (INSERT, UPDATE, DELETE), or ask the person to make the schema change themselves.`);
  }
  if (keyword === 'LOAD' || /\bINTO\s+(?:OUTFILE|DUMPFILE)\b/i.test(text)) throw new DbRefusal('Reading or writing files on the database server (LOAD DATA, INTO OUTFILE) is not allowed in an action: send the rows in SQL, or read results through the gateway.');
  if (QUERIES.has(keyword)) return 'query';
  if (DML.has(keyword)) {
    if (!grant.statements.includes('dml')) throw new DbRefusal(`The grant "${grant.name}" does not allow row changes (INSERT, UPDATE, DELETE); ask the person to widen the grant if this is needed.`);
    return 'dml';
  }
  throw new DbRefusal(`Posthoc does not run ${keyword || 'this kind of'} statements on MySQL or MariaDB in an action: SET, LOCK, CALL, DO, HANDLER and the like change the session, lock tables or run code that may commit on its own, which undo could not take back. Use SELECT, INSERT, UPDATE, DELETE or REPLACE.`);
}

export type StatementHooks = { after(record: DbStatement): Promise<void> };

/** Runs the statements in order on an open transaction; throws on the first refusal or error. */
export async function executeMy(conn: MyConnection, input: RunInput, out: DbStatement[], hooks: StatementHooks): Promise<void> {
  const pieces = splitStatements(input.sql, MYSQL_LEXICON);
  if (input.params !== null && input.params.length > 0 && pieces.length > 1) {
    throw new DbRefusal('Parameters ("params") go with exactly one statement; send the statements one request at a time.');
  }
  for (const piece of pieces) {
    const kind = classify(piece.text, piece.keyword, input.grant);
    const record: DbStatement = { sql: piece.text, kind, rowsAffected: null, result: null };
    const [res, fields] = await conn.query({ sql: piece.text, values: input.params ?? undefined, rowsAsArray: true });
    if (Array.isArray(res) && fields) {
      const collector = new ResultCollector((fields as Array<{ name: string }>).map((f) => f.name));
      for (const row of res as unknown[][]) {
        collector.add(row);
        input.onRow?.(out.length, row.map(displayValue));
      }
      record.result = collector.result();
    } else if (kind === 'dml') record.rowsAffected = (res as { affectedRows?: number }).affectedRows ?? 0;
    out.push(record);
    await hooks.after(record);
  }
}

/** Capture mode and read-only grants: the action runs and commits; undo uses the captured log. */
export async function runMyAction(input: RunInput, secrets: Secrets, _logs: UndoLogStore, _logId: string, timeoutMs: number): Promise<EngineOutcome> {
  const { grant } = input;
  const conn = await connectMy(grant, secrets, { statementTimeoutMs: timeoutMs });
  const statements: DbStatement[] = [];
  let capture: MyCapture | null = null;
  try {
    const catalog = await readMyCatalog(conn);
    if (!grant.readOnly) {
      capture = await MyCapture.open(conn);
      await capture.install(catalog);
    }
    await conn.query(grant.readOnly ? 'START TRANSACTION READ ONLY' : 'START TRANSACTION');
    let logged = 0;
    await executeMy(conn, input, statements, {
      after: async (record) => {
        if (!capture) return;
        const now = await capture.count();
        // A query that wrote (a stored function with side effects) is a row change.
        if (now > logged && record.kind === 'query') {
          if (!grant.statements.includes('dml')) throw new DbRefusal(`The grant "${grant.name}" does not allow row changes, and this query changed rows (through a function it calls). It was rolled back.`);
          record.kind = 'dml';
        }
        logged = now;
        if (!input.approved && now > grant.maxRowsAffected) {
          // The log counts a row written twice twice: past the limit, count each row once.
          const rows = (await foldRecords(conn, catalog, await capture.records())).reduce((n, t) => n + tableRowCount(t), 0);
          if (rows > grant.maxRowsAffected) throw new OverRowLimit(rows, grant.maxRowsAffected, grant.name);
        }
      },
    });
    const segments: Segment[] = [];
    let rowsAffected = 0;
    const tables: string[] = [];
    if (capture) {
      const rows = await foldRecords(conn, catalog, await capture.records());
      if (rows.length > 0) segments.push({ kind: 'rows', tables: rows });
      rowsAffected = rows.reduce((n, t) => n + tableRowCount(t), 0);
      tables.push(...rows.map((t) => t.label));
      if (segments.length > 0) input.beforeCommit?.(segments);
    }
    await conn.query(grant.readOnly ? 'ROLLBACK' : 'COMMIT');
    return { ok: true, statements, segments, rowsAffected, tables };
  } catch (error) {
    await conn.query('ROLLBACK').catch(() => undefined);
    return { ok: false, statements, error: describeMyError(error, grant), overLimit: error instanceof OverRowLimit ? error : null };
  } finally {
    await capture?.uninstall();
    await conn.end().catch(() => undefined);
  }
}

export function describeMyError(error: unknown, grant: DatabaseGrant): string {
  if (error instanceof DbRefusal || error instanceof OverRowLimit) return error.message;
  const errno = (error as { errno?: number }).errno;
  if (errno === 1792) return `The grant "${grant.name}" is read-only, and the server refused the write (${myMessage(error)}). Nothing was changed.`;
  if (errno === 1969 || errno === 3024) return `The server stopped the statement: it ran longer than the action timeout. Nothing was changed. (${myMessage(error)})`;
  if (errno === 1205) return `A row or table is locked by another session (${myMessage(error)}); nothing was changed. Try again when it is free.`;
  return `MySQL: ${myMessage(error)}`;
}
