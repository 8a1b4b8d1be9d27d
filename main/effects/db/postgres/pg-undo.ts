// Undo and redo of a PostgreSQL action, in one transaction that either completes or changes nothing.
// Segments are taken back newest first (redo: oldest first). Rows: each must still hold what the action
// left; the person's triggers are disabled for the compensating statements (so they do not fire twice)
// and capture checks that nothing beyond the logged rows changed. Schema steps: the relation must be in
// the state recorded after the action.
import type { DatabaseGrant } from '../../../../shared/domain';
import { parentFirst } from '../db-schema';
import { DbConflict, DbRefusal } from '../db-errors';
import { isTable, readCatalog, relLabel, relSql, tableInfo, type Catalog } from './pg-catalog';
import { PgCapture, pgSource, readLazyRows } from './pg-capture';
import { connectPg, pgMessage, runBatch, type PgClient, type Secrets } from './pg-client';
import { fillColumn } from './pg-column-values';
import { relationState } from './pg-ddl';
import { fitToColumns, keyText, lazyRowsRead, moveOf, namedRows, orderedStatements, ORDERS, rowName, type Dialect, type Direction, type TableLog } from '../row-log';
import { parseRecordText, pgLiteral, quoteIdent, sameImage } from '../sql-literals';
import type { DdlOp, UndoLog } from '../undo-log';
import type { ApplyResult } from '../engine';

export const pgDialect: Dialect = {
  quote: quoteIdent,
  // Values are compared as their type's output text, as the capture log has them (record text): a plain
  // ::text cast differs for some types (bool gives 'true', not 't'; char(n) loses its padding).
  matchAll: (t, image) => t.columns.map((c, i) => `ROW(${quoteIdent(c)})::text = ROW(${image[i]}::text)::text`).join(' AND '),
  oneRow: (t, condition) => `ctid = (SELECT ctid FROM ${t.table} WHERE ${condition} LIMIT 1)`,
};

/** Applies the log in one direction, or throws DbConflict and changes nothing; returns the log with the states it left. */
export async function applyPg(grant: DatabaseGrant, log: UndoLog, direction: Direction, secrets: Secrets, dryRun = false): Promise<ApplyResult & { log: UndoLog }> {
  const client = await connectPg({ ...grant, readOnly: false }, secrets);
  const next: UndoLog = JSON.parse(JSON.stringify(log)) as UndoLog;
  try {
    await client.query('BEGIN');
    const segments = direction === 'undo' ? [...next.segments].reverse() : next.segments;
    let statements = 0;
    let rowCount = 0;
    const rows: string[] = [];
    for (const seg of segments) {
      if (seg.kind === 'rows') {
        // Rows an earlier version of Posthoc left in a log table in the database are read now (a row file's were read with the log).
        for (const t of seg.tables) {
          const source = pgSource(t.lazy?.source);
          if (source?.log !== undefined) t.rows = lazyRowsRead(t, await readLazyRows(client, { ...source, log: source.log }), source.log);
        }
        const r = await applyRows(client, seg.tables, direction);
        statements += r.statements;
        rowCount += r.rowCount;
        rows.push(...r.rows);
      } else if (seg.kind === 'ddl') {
        const ops = direction === 'undo' ? [...seg.ops].reverse() : seg.ops;
        for (const op of ops) {
          await applyOp(client, op, direction);
          statements += (direction === 'undo' ? op.undo : op.redo).length;
          rowCount++;
          rows.push(op.object);
        }
      } else throw new Error('A PostgreSQL undo log cannot hold a snapshot.');
    }
    await client.query(dryRun ? 'ROLLBACK' : 'COMMIT');
    return { statements, rows: rows.slice(0, 50), rowCount, log: next };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (error instanceof DbConflict || error instanceof DbRefusal) throw error;
    const e = error as { code?: string; detail?: string; table?: string };
    if (e.code?.startsWith('23')) {
      // A constraint refused it: rows written since stand in the way (a parent deleted, a key taken).
      const item = `${e.table ?? 'a table'}: ${e.detail ?? pgMessage(error)}`;
      throw new DbConflict([item], `Cannot ${direction}: rows changed since stand in the way (${pgMessage(error)}), for example rows now pointing at rows that no longer exist. Nothing was changed.`);
    }
    throw new DbRefusal(`PostgreSQL refused the ${direction} (${pgMessage(error)}); nothing was changed.`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function applyOp(client: PgClient, op: DdlOp, direction: Direction): Promise<void> {
  const check = direction === 'undo' ? op.checkAfter : op.checkBefore;
  const expect = direction === 'undo' ? op.expectAfter : op.expectBefore;
  if (expect !== null) {
    const state = await relationState(client, check);
    if (state !== expect) {
      throw new DbConflict([op.object], `Cannot ${direction}: ${op.describe}, and ${op.object} changed since (${state === 'absent' ? 'it no longer exists' : 'its definition or rows differ'}). Nothing was changed.`);
    }
  }
  const steps = direction === 'undo' ? op.undo : op.redo;
  await runBatch(client, steps);
  if (op.values) await fillColumn(client, op.values, direction);
  // What this step left is what the opposite direction will expect.
  if (direction === 'undo') op.expectBefore = await relationState(client, op.checkBefore);
  else op.expectAfter = await relationState(client, op.checkAfter);
}

async function applyRows(client: PgClient, logged: TableLog[], direction: Direction): Promise<ApplyResult> {
  const catalog = await readCatalog(client);
  const rels = new Map([...catalog.relations.values()].filter(isTable).map((r) => [relLabel(r), r]));
  const conflicts: string[] = [];
  const logTables: TableLog[] = [];
  for (const logTable of logged) {
    const rel = rels.get(logTable.label);
    if (!rel) {
      conflicts.push(`${logTable.label} (the table no longer exists)`);
      continue;
    }
    const t = fitToColumns(logTable, rel.columns.map((c) => c.name));
    if (typeof t === 'string') {
      conflicts.push(t);
      continue;
    }
    logTables.push(t);
    conflicts.push(...(await preCheck(client, t, direction)));
  }
  if (conflicts.length > 0) {
    throw new DbConflict(
      conflicts,
      `Cannot ${direction}: ${conflicts.length === 1 ? 'a row' : `${conflicts.length} rows`} changed since this action (${conflicts.slice(0, 5).join('; ')}${conflicts.length > 5 ? '; …' : ''}). ${direction === 'undo' ? 'Undo the later actions that changed them first, or keep this one.' : 'Nothing was changed.'}`,
    );
  }
  const suspended = await suspendTriggers(client, catalog, logTables.map((t) => rels.get(t.label)!.oid));
  const ordered = orderTables(logTables, catalog);
  let statements: string[] = [];
  let first: unknown = null;
  for (const order of ORDERS) {
    await client.query('SAVEPOINT posthoc_undo_try');
    try {
      const capture = new PgCapture(client);
      await capture.install(catalog);
      statements = orderedStatements(ordered, direction, pgDialect, order);
      await runBatch(client, statements);
      await verify(client, capture, catalog, logTables, direction);
      await capture.uninstall();
      await client.query('RELEASE SAVEPOINT posthoc_undo_try');
      first = null;
      break;
    } catch (error) {
      await client.query('ROLLBACK TO SAVEPOINT posthoc_undo_try; RELEASE SAVEPOINT posthoc_undo_try');
      if (!(error instanceof DbConflict) && !String((error as { code?: string }).code ?? '').startsWith('23')) throw error;
      first ??= error;
    }
  }
  if (first !== null) throw first;
  if (suspended.length > 0) await runBatch(client, suspended);
  const named = namedRows(logTables, direction);
  return { statements: statements.length, rows: named.names, rowCount: named.count };
}

/** The compensating statements touched exactly the logged rows and left each as recorded. */
async function verify(client: PgClient, capture: PgCapture, catalog: Catalog, logTables: TableLog[], direction: Direction): Promise<void> {
  await capture.drain(catalog);
  const expected = new Map(logTables.map((t) => [t.label, new Set(t.rows.flatMap((e) => [e.beforeKey, e.afterKey]).filter((k): k is string[] => k !== null).map(keyText))]));
  const strays: string[] = [];
  for (const t of capture.takeSegment()) {
    if (t.keyColumns.length === 0 && expected.has(t.label)) continue;
    for (const e of t.rows) {
      for (const key of [e.beforeKey, e.afterKey]) {
        if (key !== null && !expected.get(t.label)?.has(keyText(key))) strays.push(rowName(t, key, e.before ?? e.after));
      }
      if (!expected.has(t.label) && e.beforeKey === null && e.afterKey === null) strays.push(rowName(t, null, e.before ?? e.after));
    }
  }
  if (strays.length > 0) {
    throw new DbConflict(strays, `This ${direction} would also change rows the action did not change (${strays.slice(0, 5).join('; ')}${strays.length > 5 ? '; …' : ''}), through a foreign-key cascade into rows written since; nothing was changed.`);
  }
  for (const t of logTables) {
    const after = await postCheck(client, t, direction);
    if (after.length > 0) throw new DbConflict(after, `After the ${direction}, ${after[0]} does not hold what was recorded; nothing was changed.`);
  }
}

async function preCheck(client: PgClient, t: TableLog, direction: Direction): Promise<string[]> {
  const out: string[] = [];
  if (t.keyColumns.length === 0) {
    const need = new Map<string, { image: string[]; n: number }>();
    for (const e of t.rows) {
      const m = moveOf(e, direction);
      if (m.from === null) continue;
      const k = keyText(m.from);
      need.set(k, { image: m.from, n: (need.get(k)?.n ?? 0) + 1 });
    }
    for (const { image, n } of need.values()) {
      const res = await client.query(`SELECT count(*) AS n FROM ${t.table} WHERE ${pgDialect.matchAll(t, image)}`);
      if (Number((res.rows[0] as { n: string }).n) < n) out.push(`${rowName(t, null, image)}: changed or deleted since`);
    }
    return out;
  }
  const keys = t.rows.flatMap((e) => [e.beforeKey, e.afterKey]).filter((k): k is string[] => k !== null);
  const current = await fetchImages(client, t, keys);
  for (const e of t.rows) {
    const m = moveOf(e, direction);
    const now = m.fromKey === null ? null : (current.get(keyText(m.fromKey)) ?? null);
    if (m.from !== null && !sameImage(now, m.from)) {
      out.push(`${rowName(t, m.fromKey, m.from)}: ${now === null ? 'deleted since' : 'changed since'}`);
      continue;
    }
    if (m.to !== null && m.toKey !== null && (m.fromKey === null || keyText(m.toKey) !== keyText(m.fromKey)) && current.has(keyText(m.toKey))) {
      const leaving = t.rows.some((o) => {
        const om = moveOf(o, direction);
        return om.fromKey !== null && keyText(om.fromKey) === keyText(m.toKey!) && (om.toKey === null || keyText(om.toKey) !== keyText(m.toKey!));
      });
      if (!leaving) out.push(`${rowName(t, m.toKey, m.to)}: another row has its key now`);
    }
  }
  return out;
}

async function postCheck(client: PgClient, t: TableLog, direction: Direction): Promise<string[]> {
  if (t.keyColumns.length === 0) return [];
  const moves = t.rows.map((e) => moveOf(e, direction)).filter((m) => m.toKey !== null);
  const now = await fetchImages(client, t, moves.map((m) => m.toKey!));
  return moves.filter((m) => !sameImage(now.get(keyText(m.toKey!)) ?? null, m.to)).map((m) => rowName(t, m.toKey, m.to));
}

/** Current images (text literals) of the rows at the given keys, by key text. */
async function fetchImages(client: PgClient, t: TableLog, keys: string[][]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const unique = [...new Map(keys.map((k) => [keyText(k), k])).values()];
  const keyCols = t.keyColumns.map(quoteIdent);
  for (let i = 0; i < unique.length; i += 1000) {
    const chunk = unique.slice(i, i + 1000);
    const where = `(${keyCols.join(', ')}) IN (${chunk.map((k) => `(${k.join(', ')})`).join(', ')})`;
    // Read by column name as record text, the form the capture log holds (see pgDialect.matchAll).
    const select = `ROW(${[...keyCols, ...t.columns.map(quoteIdent)].join(', ')})::text`;
    const res = await client.query({ text: `SELECT ${select} FROM ${t.table} WHERE ${where}`, rowMode: 'array' });
    for (const [text] of res.rows as Array<[string]>) {
      const row = parseRecordText(text).map(pgLiteral);
      out.set(keyText(row.slice(0, keyCols.length)), row.slice(keyCols.length));
    }
  }
  return out;
}

/** Disables the person's enabled triggers on these tables; returns the statements that turn them back on. */
async function suspendTriggers(client: PgClient, catalog: Catalog, oids: string[]): Promise<string[]> {
  const off: string[] = [];
  const on: string[] = [];
  for (const oid of new Set(oids)) {
    const rel = catalog.relations.get(oid)!;
    for (const [name, trg] of rel.triggers) {
      if (trg.enabled === 'D') continue;
      off.push(`ALTER TABLE ${relSql(rel)} DISABLE TRIGGER ${quoteIdent(name)}`);
      const mode = trg.enabled === 'A' ? 'ENABLE ALWAYS' : trg.enabled === 'R' ? 'ENABLE REPLICA' : 'ENABLE';
      on.push(`ALTER TABLE ${relSql(rel)} ${mode} TRIGGER ${quoteIdent(name)}`);
    }
  }
  try {
    await runBatch(client, off);
  } catch (error) {
    throw new DbRefusal(`Posthoc must switch off the table's own triggers while it restores rows (so they do not fire twice), and PostgreSQL refused (${pgMessage(error)}). That needs the role that owns the tables.`);
  }
  return on;
}

function orderTables(tables: TableLog[], catalog: Catalog): TableLog[] {
  const rels = [...catalog.relations.values()];
  const order = parentFirst(rels.filter(isTable).map((r) => tableInfo(r, rels))).map((t) => relLabel({ schema: t.schema ?? 'public', name: t.name }));
  const rank = (label: string) => (order.indexOf(label) === -1 ? order.length : order.indexOf(label));
  return [...tables].sort((a, b) => rank(a.label) - rank(b.label));
}
