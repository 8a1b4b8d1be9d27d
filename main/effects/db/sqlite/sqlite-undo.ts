// Undo and redo of a SQLite action, in one transaction that either completes or changes nothing.
// Rows: every row must still hold what the action left (redo: what it found); the person's triggers are
// set aside so they do not fire twice; the compensating statements run with capture on, and if they
// touched any row the log does not name (a cascade into someone else's row) or left a dangling foreign
// key, everything is rolled back and the rows are named. Snapshots: the file must still hold exactly
// the state the action left; then the state before it is restored.
import type Database from 'better-sqlite3';
import type { DatabaseGrant } from '../../../../shared/domain';
import { parentFirst, tableLabel, type TableInfo } from '../db-schema';
import { attachBulk, BulkFallback, bulkApply, bulkConflicts, bulkNamed, bulkPlan, detachBulk, dropBulk, type BulkPlan } from './sqlite-bulk';
import { DbConflict } from '../db-errors';
import { fitToColumns, keyText, moveOf, namedRows, orderedStatements, ORDERS, rowName, type Dialect, type Direction, type TableLog } from '../row-log';
import { captureTables, dropCapture, installCapture, touchedKeys } from './sqlite-capture';
import { diffDatabases, restoreFrom } from './sqlite-dump';
import { openSqlite } from './sqlite-runner';
import { readSqliteSchema } from './sqlite-schema';
import { quoteIdent, sameImage } from '../sql-literals';
import type { ApplyResult } from '../engine';
import type { Segment, UndoLog, UndoLogStore } from '../undo-log';

export const sqliteDialect: Dialect = {
  quote: quoteIdent,
  matchAll: (t, image) => t.columns.map((c, i) => `${quoteIdent(c)} IS ${image[i]}`).join(' AND '),
  oneRow: (t, condition) => `rowid = (SELECT rowid FROM ${t.table} WHERE ${condition} LIMIT 1)`,
};

/** Applies the log in one direction, or throws DbConflict and changes nothing. With dryRun, always rolls back. The log's lazy tables are read as needed. */
export function applySqlite(grant: DatabaseGrant, log: UndoLog, direction: Direction, logs: UndoLogStore, dryRun = false): ApplyResult {
  const snapshot = log.segments.find((s): s is Extract<Segment, { kind: 'snapshot' }> => s.kind === 'snapshot');
  const tables = rowTables(log);
  const db = openSqlite({ ...grant, readOnly: false }, { write: true });
  // Many rows kept in the undo folder are applied set by set, from their files attached read-only.
  const bulk = snapshot ? null : bulkPlan(tables, logs);
  try {
    db.pragma('temp_store = MEMORY');
    if (snapshot) db.pragma('foreign_keys = OFF');
    if (bulk) attachBulk(db, bulk);
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = snapshot ? applySnapshot(db, snapshot, direction, logs) : bulk ? applyBulkOrRows(db, bulk, tables, direction, logs) : applyRows(db, logs.fillRows(tables), direction);
      db.exec(dryRun ? 'ROLLBACK' : 'COMMIT');
      return result;
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
  } finally {
    for (const name of ['posthoc_expect', 'posthoc_target']) {
      try {
        db.exec(`DETACH ${name}`);
      } catch {
        // not attached
      }
    }
    if (bulk) detachBulk(db, bulk);
    db.close();
  }
}

function rowTables(log: UndoLog): TableLog[] {
  return log.segments.flatMap((s) => (s.kind === 'rows' ? s.tables : []));
}

/** The bulk way, or, when it cannot settle the undo (it then changed nothing), row by row. */
function applyBulkOrRows(db: Database.Database, plan: BulkPlan, tables: TableLog[], direction: Direction, logs: UndoLogStore): ApplyResult {
  db.exec('SAVEPOINT posthoc_bulk');
  try {
    const result = applyBulk(db, plan, tables, direction, logs);
    db.exec('RELEASE posthoc_bulk');
    return result;
  } catch (error) {
    db.exec('ROLLBACK TO posthoc_bulk; RELEASE posthoc_bulk');
    if (!(error instanceof BulkFallback)) throw error;
    return applyRows(db, logs.fillRows(tables), direction);
  }
}

function applyBulk(db: Database.Database, plan: BulkPlan, tables: TableLog[], direction: Direction, logs: UndoLogStore): ApplyResult {
  const schema = readSqliteSchema(db, { counts: false });
  const byLabel = new Map(schema.tables.map((t) => [tableLabel(t), t]));
  // The soft logs (AUTOINCREMENT counters) are few rows, checked and written row by row beside the bulk.
  const soft = checkRows(db, tables.filter((t) => t.soft), byLabel, direction);
  const { prepared, conflicts, count } = bulkConflicts(db, plan, schema.tables, direction, logs);
  if (conflicts.length > 0) throw conflictError(conflicts, direction, count);
  const triggers = dropTriggers(db);
  db.pragma('defer_foreign_keys = ON');
  const touched = new Set(prepared.map((p) => p.s.t.label));
  const children = schema.tables.filter((t) => t.foreignKeys.length > 0 && (touched.has(tableLabel(t)) || t.foreignKeys.some((fk) => touched.has(fk.refTable)))).map(tableLabel);
  const violations = foreignKeyViolations(db, children);
  const others = counterStatements(soft.plan, direction);
  const rowCount = bulkApply(db, prepared, direction, parentFirst(schema.tables).map(tableLabel), others);
  checkForeignKeys(db, violations, children);
  const rows = bulkNamed(db, prepared);
  dropBulk(db, prepared);
  for (const t of triggers) db.exec(t.sql);
  return { statements: rowCount + soft.plan.reduce((n, t) => n + t.rows.length, 0), rows, rowCount };
}

/**
 * The AUTOINCREMENT counters the direction puts back, after the rows: each counter as recorded, whatever
 * the rows' inserts just made SQLite write there (an insert with an explicit rowid creates or raises it,
 * so a plain INSERT of the recorded counter would leave two).
 */
function counterStatements(soft: TableLog[], direction: Direction): string[] {
  return soft.flatMap((t) =>
    t.rows.flatMap((entry) => {
      const m = moveOf(entry, direction);
      const key = (m.toKey ?? m.fromKey)![0]!;
      const remove = `DELETE FROM ${t.table} WHERE ${quoteIdent(t.keyColumns[0]!)} = ${key};`;
      return m.to === null ? [remove] : [remove, `INSERT INTO ${t.table} (${t.columns.map(quoteIdent).join(', ')}) VALUES (${m.to.join(', ')});`];
    }),
  );
}

/** The person's triggers, set aside so they do not fire twice (put back by running their SQL). */
function dropTriggers(db: Database.Database): Array<{ name: string; sql: string }> {
  const triggers = db.prepare("SELECT name, sql FROM main.sqlite_schema WHERE type = 'trigger' AND sql IS NOT NULL ORDER BY rowid").all() as Array<{ name: string; sql: string }>;
  for (const t of triggers) db.exec(`DROP TRIGGER main.${quoteIdent(t.name)}`);
  return triggers;
}

function applySnapshot(db: Database.Database, seg: Extract<Segment, { kind: 'snapshot' }>, direction: Direction, logs: UndoLogStore): ApplyResult {
  const expect = direction === 'undo' ? seg.after : seg.before;
  const target = direction === 'undo' ? seg.before : seg.after;
  db.prepare('ATTACH ? AS posthoc_expect').run(logs.snapshotPath(expect));
  const changed = diffDatabases(db, 'main', 'posthoc_expect');
  if (changed.length > 0) {
    throw new DbConflict(changed, `The database changed since this action (${changed.slice(0, 5).join('; ')}${changed.length > 5 ? '; …' : ''}); restoring its snapshot would lose those changes, so nothing was ${direction === 'undo' ? 'undone' : 'redone'}.`);
  }
  db.prepare('ATTACH ? AS posthoc_target').run(logs.snapshotPath(target));
  restoreFrom(db, 'posthoc_target');
  return { statements: 1, rows: seg.objects, rowCount: seg.objects.length };
}

function applyRows(db: Database.Database, logTables: TableLog[], direction: Direction): ApplyResult {
  const schema = readSqliteSchema(db, { counts: false });
  const byLabel = new Map(schema.tables.map((t) => [tableLabel(t), t]));
  const { plan, conflicts } = checkRows(db, logTables, byLabel, direction);
  if (conflicts.length > 0) throw conflictError(conflicts, direction);

  const triggers = dropTriggers(db);
  db.pragma('defer_foreign_keys = ON');
  const capture = captureTables(schema.tables);
  installCapture(db, capture, { images: false });
  const ordered = orderTables(plan.filter((t) => !t.soft), schema.tables);
  const counters = counterStatements(plan.filter((t) => t.soft), direction);
  const violations = foreignKeyViolations(db);
  let statements: string[] = [];
  let first: unknown = null;
  for (const order of ORDERS) {
    db.exec('SAVEPOINT posthoc_undo_try');
    try {
      statements = [...orderedStatements(ordered, direction, sqliteDialect, order), ...counters];
      // SQLite parses the batch itself: no round trip through JavaScript per statement.
      for (let i = 0; i < statements.length; i += 1000) db.exec(statements.slice(i, i + 1000).join('\n'));
      verify(db, plan, schema.tables, capture, direction, violations);
      db.exec('RELEASE posthoc_undo_try');
      first = null;
      break;
    } catch (error) {
      db.exec('ROLLBACK TO posthoc_undo_try; RELEASE posthoc_undo_try');
      if (!(error instanceof DbConflict) && !String((error as { code?: string }).code ?? '').startsWith('SQLITE_CONSTRAINT')) throw error;
      first ??= error;
    }
  }
  if (first instanceof DbConflict) throw first;
  if (first !== null) {
    const message = first instanceof Error ? first.message : String(first);
    throw new DbConflict([message], `Cannot ${direction}: rows written since stand in the way (${message}). Nothing was changed.`);
  }
  dropCapture(db, capture);
  for (const t of triggers) db.exec(t.sql);
  const named = namedRows(plan, direction);
  return { statements: statements.length, rows: named.names, rowCount: named.count };
}

/** Every row must still hold what this direction starts from: the rows that do (per table), and the others named. */
function checkRows(db: Database.Database, logTables: TableLog[], byLabel: Map<string, TableInfo>, direction: Direction): { plan: TableLog[]; conflicts: string[] } {
  const conflicts: string[] = [];
  const plan: TableLog[] = [];
  for (const logged of logTables) {
    const info = byLabel.get(logged.label);
    if (!logged.soft && !info) {
      conflicts.push(`${logged.label} (the table no longer exists)`);
      continue;
    }
    const t = info ? fitToColumns(logged, info.columns.map((c) => c.name)) : logged;
    if (typeof t === 'string') {
      conflicts.push(t);
      continue;
    }
    const current = fetchImages(db, t, t.rows.flatMap((e) => [e.afterKey, e.beforeKey]).filter((k): k is string[] => k !== null));
    const keep = t.rows.filter((entry) => {
      const m = moveOf(entry, direction);
      const now = m.fromKey === null ? null : (current.get(keyText(m.fromKey)) ?? null);
      let problem: string | null = null;
      if (m.from !== null && !sameImage(now, m.from)) problem = now === null ? 'deleted since' : 'changed since';
      if (problem === null && m.to !== null && m.toKey !== null && (m.fromKey === null || keyText(m.toKey) !== keyText(m.fromKey))) {
        const occupied = current.has(keyText(m.toKey));
        const leaving = t.rows.some((o) => {
          const om = moveOf(o, direction);
          return om.fromKey !== null && keyText(om.fromKey) === keyText(m.toKey!) && (om.toKey === null || keyText(om.toKey) !== keyText(m.toKey!));
        });
        if (occupied && !leaving) problem = 'another row has its key now';
      }
      if (problem !== null && !t.soft) conflicts.push(`${rowName(t, m.fromKey ?? m.toKey, m.from ?? m.to)}: ${problem}`);
      return problem === null;
    });
    plan.push({ ...t, rows: keep });
  }
  return { plan, conflicts };
}

/** The compensating statements touched exactly the logged rows, left each as recorded, and no foreign key dangles. */
function verify(db: Database.Database, plan: TableLog[], tables: TableInfo[], capture: ReturnType<typeof captureTables>, direction: Direction, violations: Set<string>): void {
  const expected = new Map(plan.map((t) => [t.label, new Set(t.rows.flatMap((e) => [e.beforeKey, e.afterKey]).filter((k): k is string[] => k !== null).map(keyText))]));
  const strays: string[] = [];
  for (const [label, keys] of touchedKeys(db, capture)) {
    const logTable = plan.find((t) => t.label === label);
    const info = tables.find((t) => t.name === label)!;
    const keyColumns = info.rowid ? [info.rowidAlias ?? 'rowid'] : info.primaryKey;
    for (const key of keys) {
      if (!expected.get(label)?.has(key)) strays.push(rowName(logTable ?? { ...plan[0]!, label, keyColumns }, key.split('\u0000'), null));
    }
  }
  if (strays.length > 0) {
    throw new DbConflict(strays, `This ${direction} would also change rows the action did not change (${strays.slice(0, 5).join('; ')}${strays.length > 5 ? '; …' : ''}), through a foreign-key cascade into rows written since; nothing was changed.`);
  }
  for (const t of plan.filter((x) => !x.soft)) {
    const now = fetchImages(db, t, t.rows.map((e) => moveOf(e, direction).toKey).filter((k): k is string[] => k !== null));
    for (const entry of t.rows) {
      const m = moveOf(entry, direction);
      if (m.toKey !== null && !sameImage(now.get(keyText(m.toKey)) ?? null, m.to)) {
        throw new DbConflict([rowName(t, m.toKey, m.to)], `After the ${direction}, ${rowName(t, m.toKey, m.to)} does not hold what was recorded; nothing was changed.`);
      }
    }
  }
  checkForeignKeys(db, violations);
}

/** Current images (quote() literals) of the rows at the given keys, by key text. */
function fetchImages(db: Database.Database, t: TableLog, keys: string[][]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (keys.length === 0) return out;
  const image = t.columns.map((c) => `, quote(${quoteIdent(c)})`).join('');
  const keyCols = t.keyColumns.map(quoteIdent);
  const keyExpr = keyCols.map((k) => `quote(${k})`).join(', ');
  const unique = [...new Map(keys.map((k) => [keyText(k), k])).values()];
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    const where = keyCols.length === 1 ? `${keyCols[0]} IN (${chunk.map((k) => k[0]).join(', ')})` : `(${keyCols.join(', ')}) IN (VALUES ${chunk.map((k) => `(${k.join(', ')})`).join(', ')})`;
    const rows = db.prepare(`SELECT ${keyExpr}${image} FROM main.${t.table} WHERE ${where}`).raw(true).all() as string[][];
    for (const r of rows) out.set(keyText(r.slice(0, keyCols.length)), r.slice(keyCols.length));
  }
  return out;
}

function orderTables(plan: TableLog[], schema: TableInfo[]): TableLog[] {
  const order = parentFirst(schema).map(tableLabel);
  return [...plan].sort((a, b) => rank(order, a.label) - rank(order, b.label));
}

function rank(order: string[], label: string): number {
  const i = order.indexOf(label);
  return i === -1 ? order.length : i;
}

/** Rows pointing at missing rows, named: in the given tables, or in every table. */
function foreignKeyViolations(db: Database.Database, tables?: string[]): Set<string> {
  const read = (table: string | null) =>
    (table === null ? db.prepare('SELECT "table", rowid, parent FROM pragma_foreign_key_check').all() : db.prepare('SELECT "table", rowid, parent FROM pragma_foreign_key_check(?)').all(table)) as Array<{ table: string; rowid: number | null; parent: string }>;
  const rows = tables === undefined ? read(null) : tables.flatMap((t) => read(t));
  return new Set(rows.map((b) => `${b.table} (rowid = ${b.rowid}) points to a missing ${b.parent} row`));
}

/** Deferred foreign keys are checked at COMMIT; check them first so the refusal can name the rows (only new ones: the database may hold old ones). */
function checkForeignKeys(db: Database.Database, before: Set<string>, tables?: string[]): void {
  const broken = [...foreignKeyViolations(db, tables)].filter((v) => !before.has(v));
  if (broken.length === 0) return;
  const rows = broken.slice(0, 10);
  throw new DbConflict(rows, `Undoing this would leave rows pointing at rows that no longer exist (${rows.slice(0, 3).join('; ')}); they were added since. Nothing was changed.`);
}

function conflictError(conflicts: string[], direction: Direction, count = conflicts.length): DbConflict {
  const verb = direction === 'undo' ? 'undo' : 'redo';
  return new DbConflict(
    conflicts,
    `Cannot ${verb}: ${count === 1 ? 'a row' : `${count} rows`} changed since this action (${conflicts.slice(0, 5).join('; ')}${count > 5 ? '; …' : ''}). ${direction === 'undo' ? 'Undo the later actions that changed them first, or keep this one.' : 'Nothing was changed.'}`,
  );
}
