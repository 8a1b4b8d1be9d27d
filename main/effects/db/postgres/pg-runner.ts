// Runs one action's SQL on a granted PostgreSQL database in one transaction. Statements are split by the
// dialect-aware lexer and run one at a time inside a savepoint; after each, the catalog says whether the
// schema changed (and how), the capture log says which rows changed, and the grant decides whether that
// was allowed. Read-only grants run in a READ ONLY transaction, so PostgreSQL itself refuses writes.
import { rmSync } from 'node:fs';
import type { DatabaseGrant, DbStatement, StatementClass } from '../../../../shared/domain';
import { DbRefusal, OverRowLimit } from '../db-errors';
import { readCatalog, TRASH_PREFIX, type Catalog } from './pg-catalog';
import { identityColumns, PgCapture, type Probe } from './pg-capture';
import { readValues } from './pg-column-values';
import { connectPg, pgMessage, runBatch, type PgClient, type Secrets } from './pg-client';
import { planDdl, relationState, sameCatalog, trashedOp, trashMove } from './pg-ddl';
import { displayValue, ResultCollector } from '../query-result';
import { PREVIEW_STATEMENTS, tableRowCount } from '../row-log';
import { splitStatements, type Lexicon } from '../sql-splitter';
import { stepTimer } from '../step-timer';
import type { EngineOutcome, RunInput } from '../engine';
import type { DdlOp, Segment, UndoLogStore } from '../undo-log';

/** PostgreSQL's quoting and compound statements, for the statement splitter. */
export const PG_LEXICON: Lexicon = { nestedComments: true, escapeStrings: true, backtickAndBracketIdents: false, dollarQuotes: true, triggerBodies: false, atomicBodies: true };

const TRANSACTION_CONTROL = new Set(['BEGIN', 'START', 'COMMIT', 'END', 'ROLLBACK', 'ABORT', 'SAVEPOINT', 'RELEASE']);
const DML_TAGS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE', 'COPY']);

export type StatementHooks = {
  /** After the statement ran (inside its savepoint): may refuse, or replace what it did; returns the statement's class. */
  after(record: DbStatement, text: string, tag: string): Promise<StatementClass>;
};

/** Runs the statements in order on an open transaction, each in a savepoint; throws on the first refusal or error. */
export async function executePg(client: PgClient, input: RunInput, out: DbStatement[], hooks: StatementHooks): Promise<void> {
  const pieces = splitStatements(input.sql, PG_LEXICON);
  if (input.params !== null && input.params.length > 0 && pieces.length > 1) {
    throw new DbRefusal('Parameters ("params") go with exactly one statement; send the statements one request at a time.');
  }
  for (const piece of pieces) {
    const words = piece.text.trim().split(/\s+/).slice(0, 2).map((w) => w.toUpperCase());
    if (TRANSACTION_CONTROL.has(piece.keyword) || (piece.keyword === 'PREPARE' && words[1] === 'TRANSACTION')) {
      throw new DbRefusal('Posthoc runs each SQL action in a transaction of its own, so undo can take it back: leave out BEGIN, COMMIT, ROLLBACK, SAVEPOINT and RELEASE.');
    }
    await client.query('SAVEPOINT posthoc_statement');
    const record: DbStatement = { sql: piece.text, kind: 'query', rowsAffected: null, result: null };
    const res = await client.query({ text: piece.text, values: input.params ?? undefined, rowMode: 'array' });
    const tag = (res.command ?? '').toUpperCase();
    if (res.fields && res.fields.length > 0) {
      const collector = new ResultCollector(res.fields.map((f) => f.name));
      for (const row of res.rows as unknown[][]) {
        collector.add(row);
        input.onRow?.(out.length, row.map(displayValue));
      }
      record.result = collector.result();
    }
    out.push(record);
    record.kind = await hooks.after(record, piece.text, tag);
    if (record.kind === 'dml') record.rowsAffected = res.rowCount ?? 0;
    await client.query('RELEASE SAVEPOINT posthoc_statement');
  }
}

export function classOfTag(tag: string): StatementClass {
  return DML_TAGS.has(tag) ? 'dml' : 'query';
}

export function checkAllowed(grant: DatabaseGrant, kind: StatementClass): void {
  if (grant.statements.includes(kind)) return;
  const words: Record<StatementClass, string> = { query: 'queries', dml: 'row changes (INSERT, UPDATE, DELETE)', ddl: 'schema changes (CREATE, ALTER, DROP)' };
  throw new DbRefusal(`The grant "${grant.name}" does not allow ${words[kind]} (it allows ${grant.statements.map((k) => words[k]).join(', ')}). It was rolled back; ask the person to widen the grant if this is needed.`);
}

/** Capture mode and read-only grants: the action runs and commits; undo uses the captured log. */
export async function runPgAction(input: RunInput, secrets: Secrets, logs: UndoLogStore, logId: string, timeoutMs: number): Promise<EngineOutcome> {
  const { grant } = input;
  stepTimer.reset();
  const client = await connectPg(grant, secrets, { statementTimeoutMs: timeoutMs });
  stepTimer.mark('connect');
  const statements: DbStatement[] = [];
  try {
    await client.query(grant.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
    // The row log is copied into Posthoc's data folder before COMMIT (see PgCapture); the database keeps nothing.
    const rowFile = { name: logs.captureName(logId), write: (image: Uint8Array) => logs.writeCapture(logId, image) };
    const capture = grant.readOnly ? null : new PgCapture(client, { rowFile });
    let catalog: Catalog = await readCatalog(client);
    stepTimer.mark('begin, read catalog');
    if (capture) await capture.install(catalog);
    let probe = capture ? await capture.probe(catalog) : null;
    stepTimer.mark('install capture');
    const segments: Segment[] = [];
    const tables = new Set<string>();
    let trashCount = 0;
    const trashName = () => ({ schema: `${TRASH_PREFIX}_${logId.replace(/-/g, '').slice(0, 12)}`, name: `t${++trashCount}` });
    await executePg(client, input, statements, {
      after: async (record, text, tag) => {
        if (!capture || !probe) return classOfTag(tag);
        stepTimer.mark('statements (with capture triggers)');
        const before = probe;
        probe = await capture.probe(catalog);
        let kind: StatementClass = probe.logged > before.logged || DML_TAGS.has(tag) ? 'dml' : 'query';
        // The catalog is read again only when this transaction wrote to it (the statement may have changed the schema).
        const now = probe.catalogWrites === before.catalogWrites ? catalog : await readCatalog(client);
        if (!sameCatalog(catalog, now)) {
          kind = 'ddl';
          checkAllowed(grant, 'ddl');
          // What the statements logged so far is read with the columns the tables had while they ran.
          await capture.drain(catalog);
          const plan = planDdl(catalog, now, grant.name, trashName);
          let ops: DdlOp[] = plan.ops;
          if (plan.trash.length > 0) {
            if (plan.ops.length > 0) throw new DbRefusal(`This statement dropped tables and other objects with them (${plan.ops.map((o) => o.describe).join(', ')}), which cannot be undone exactly in capture mode. Drop the dependent objects first, in statements of their own, or ask the person to grant "${grant.name}" in held-transaction mode.`);
            await client.query('ROLLBACK TO SAVEPOINT posthoc_statement');
            ops = [];
            for (const r of plan.trash) {
              const name = trashName();
              const state = await relationState(client, { schema: r.schema, name: r.name, columns: null });
              await runBatch(client, trashMove(r, name));
              ops.push(trashedOp(r, name, state));
            }
            if (!sameCatalog(await readCatalog(client), now)) {
              throw new DbRefusal(`This DROP also removed other objects (a CASCADE into views or foreign keys), which cannot be undone exactly in capture mode. Drop the dependent objects first, or ask the person to grant "${grant.name}" in held-transaction mode.`);
            }
          } else if (plan.saves.length > 0) {
            // A dropped column or a type change: its values are read before the statement (rolled back and
            // run again) and, for a type change, after it too; they go into the undo log.
            await client.query('ROLLBACK TO SAVEPOINT posthoc_statement');
            const olds: Array<Array<[string[], string]>> = [];
            for (const x of plan.saves) olds.push(await readValues(client, x.old, identityColumns(x.old), x.column.name));
            await client.query({ text, values: input.params ?? undefined });
            const again = planDdl(catalog, await readCatalog(client), grant.name, trashName);
            if (again.saves.length !== plan.saves.length || again.trash.length > 0) throw new DbRefusal('This statement changed the schema differently when Posthoc ran it again to keep the values it changes; it was rolled back. Run its schema changes one statement at a time.');
            for (const [i, x] of again.saves.entries()) {
              x.op.values.undo!.rows = olds[i]!;
              if (x.changed && x.op.values.redo) x.op.values.redo.rows = await readValues(client, x.now, x.op.values.keyColumns, x.changed.name);
            }
            ops = again.ops;
          }
          const rows = capture.takeSegment();
          if (rows.length > 0) segments.push({ kind: 'rows', tables: rows });
          // Each step expects, on undo, the state this statement left: later changes are undone before it.
          for (const op of ops) op.expectAfter = await relationState(client, op.checkAfter);
          // A dropped column comes back first on undo, which changes the table the other steps of this
          // statement see (its index or constraint comes back after it): those check nothing of their own.
          const saved = new Set(ops.filter((o) => o.values).map((o) => o.object));
          for (const op of ops) if (!op.values && saved.has(op.object)) op.expectAfter = null;
          segments.push({ kind: 'ddl', statement: text, ops });
          for (const op of ops) tables.add(op.object);
          catalog = await readCatalog(client);
          // Tables the statement created are captured from now on, like every other table.
          await capture.addTables(catalog);
          probe = await capture.probe(catalog);
        } else if (!capture.isLazy) {
          await capture.drain(catalog);
        }
        checkAllowed(grant, kind);
        capture.check(probe);
        if (!input.approved && overLimit(capture, probe, grant.maxRowsAffected)) {
          // The log counts a row touched twice twice: past the limit, count each row once.
          await capture.drain(catalog);
          if (capture.rowsChanged() > grant.maxRowsAffected) throw new OverRowLimit(capture.rowsChanged(), grant.maxRowsAffected, grant.name);
        }
        record.kind = kind;
        stepTimer.mark('after each statement: log, catalog, limit');
        return kind;
      },
    });
    let rowsAffected = 0;
    if (capture) {
      const rows = capture.isLazy ? await capture.finish(catalog, PREVIEW_STATEMENTS) : capture.takeSegment();
      if (rows.length > 0) segments.push({ kind: 'rows', tables: rows });
      stepTimer.mark('count and first rows');
      for (const seg of segments) {
        if (seg.kind === 'rows') {
          for (const t of seg.tables) tables.add(t.label);
          rowsAffected += seg.tables.reduce((n, t) => n + tableRowCount(t), 0);
        }
      }
      await capture.uninstall();
      stepTimer.mark('remove capture');
      if (segments.length > 0) input.beforeCommit?.(segments);
      stepTimer.mark('write undo log');
    }
    await client.query(grant.readOnly ? 'ROLLBACK' : 'COMMIT');
    stepTimer.mark('commit');
    return { ok: true, statements, segments, rowsAffected, tables: [...tables] };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    // A row file written before a later failure is of no action.
    rmSync(logs.capturePath(logs.captureName(logId)), { force: true });
    return { ok: false, statements, error: describePgError(error, grant), overLimit: error instanceof OverRowLimit ? error : null };
  } finally {
    await client.end().catch(() => undefined);
    stepTimer.mark('disconnect');
  }
}

/** Over the limit by the log's count (each row a statement changed, once per statement; or each row once, once read). */
function overLimit(capture: PgCapture, probe: Probe, limit: number): boolean {
  return capture.isLazy ? probe.logged > limit : capture.rowsChanged() > limit;
}

export function describePgError(error: unknown, grant: DatabaseGrant): string {
  if (error instanceof DbRefusal || error instanceof OverRowLimit) return error.message;
  const code = (error as { code?: string }).code;
  if (code === '25006') return `The grant "${grant.name}" is read-only, and PostgreSQL refused the write (${pgMessage(error)}). Nothing was changed.`;
  if (code === '57014') return `PostgreSQL cancelled the statement: it ran longer than the action timeout. Nothing was changed. (${pgMessage(error)})`;
  if (code === '55P03') return `A table is locked by another session (${pgMessage(error)}); nothing was changed. Try again when it is free.`;
  return `PostgreSQL: ${pgMessage(error)}`;
}
