// Undo and redo of many rows at once: where every changed table's rows stay in the undo folder (a capture
// file of per-row triggers, or the file's images of page capture), SQLite reads them from there, attached,
// and a few set-based statements per table do what one statement per row did before — the check that every
// row still holds what the action left (for page capture, first by pages: the file now against the image
// after, in the C differ), the compensation (one INSERT … SELECT, one UPDATE, one DELETE), the check that
// inserted and deleted rows are as recorded — and SQLite's own count of rows written (total_changes(), which
// counts what cascades and triggers write) proves no other row moved. The rows never cross into
// JavaScript, except the first ones named for people. Anything this cannot settle (a column gone since, a
// unique value two rows trade, a cascade into another row) rolls back to its savepoint and the caller takes
// the row-by-row way, which names the rows.
import type Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { tableLabel, type TableInfo } from '../db-schema';
import { NAMED_ROWS, rowName, type Direction, type TableLog } from '../row-log';
import { quoteIdent } from '../sql-literals';
import type { UndoLogStore } from '../undo-log';
import { fileImage, isPageDelta, pageChanges } from './sqlite-pages';
import { sqliteSource } from './sqlite-capture';

/** Where one table's rows are, once attached. */
type Source = { t: TableLog; alias: string } & ({ kind: 'capture'; log: string } | { kind: 'pages'; before: string; after: string; root: number; file: { before: string; after: string } });

export type BulkPlan = { sources: Source[]; attached: string[] };

/** The bulk way could not settle this undo; it changed nothing (rolled back to its savepoint). */
export class BulkFallback extends Error {}

/** Row tables the bulk way takes: every table lazy and kept by rowid (the soft sqlite_sequence log goes row by row beside them). */
export function bulkPlan(tables: TableLog[], logs: UndoLogStore): BulkPlan | null {
  const rowTables = tables.filter((t) => !t.soft);
  if (rowTables.length === 0 || rowTables.some((t) => !t.lazy)) return null;
  const files = new Map<string, string>();
  const alias = (file: string): string => {
    let a = files.get(file);
    if (a === undefined) {
      a = `posthoc_bulk_${files.size}`;
      files.set(file, a);
    }
    return a;
  };
  const sources: Source[] = [];
  for (const t of rowTables) {
    const s = sqliteSource(t.lazy!.source);
    if (!s) return null;
    // A file gone from the undo folder is refused, in words, by the row-by-row way.
    if (!existsSync(logs.capturePath(s.engine === 'sqlite' ? s.file : s.engine === 'sqlite-pages' ? s.after : ''))) return null;
    if (s.engine === 'sqlite' && s.rowid) sources.push({ t, alias: alias(s.file), kind: 'capture', log: s.log });
    else if (s.engine === 'sqlite-pages') {
      // A page delta (few pages changed, so few rows) is not a database SQLite can attach: row by row.
      if (!existsSync(logs.capturePath(s.before)) || isPageDelta(head(logs.capturePath(s.after), 64))) return null;
      sources.push({ t, alias: alias(s.before), kind: 'pages', before: alias(s.before), after: alias(s.after), root: s.root, file: { before: s.before, after: s.after } });
    } else return null;
  }
  return { sources, attached: [...files].map(([file, a]) => `${a}\u0000${logs.capturePath(file)}`) };
}

function head(path: string, bytes: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    return buf.subarray(0, readSync(fd, buf, 0, bytes, 0));
  } finally {
    closeSync(fd);
  }
}

/** Attaches the plan's files (before the transaction begins: SQLite attaches only outside one); nothing writes to them. */
export function attachBulk(db: Database.Database, plan: BulkPlan): void {
  for (const entry of plan.attached) {
    const [a, path] = entry.split('\u0000') as [string, string];
    db.prepare(`ATTACH ? AS ${a}`).run(path);
  }
}

export function detachBulk(db: Database.Database, plan: BulkPlan): void {
  for (const entry of plan.attached) {
    try {
      db.exec(`DETACH ${entry.split('\u0000')[0]!}`);
    } catch {
      // not attached
    }
  }
}

/**
 * True when two values are the same SQL literal: IS alone takes 1 and 1.0 for one value; their text tells
 * them apart (as quote() does), and costs half what typeof() and quote() do over a million rows.
 */
const sameValue = (a: string, b: string): string => `(${a} IS ${b} AND CAST(${a} AS TEXT) IS CAST(${b} AS TEXT))`;

/** `proven`: the table's pages show that every row still holds what the direction starts from (no row check needed). */
type Prepared = { s: Source; view: string; info: TableInfo; cols: string[]; referenced: string[]; proven: boolean };

/**
 * Where a table's images are read: its temporary table holds them (capture files: c0…, n0…), or only the
 * changed rowids, the images staying in the attached page images (before b, after a), read by rowid.
 */
function source(p: Prepared): { from: string; img: (side: 'c' | 'n', j: number) => string } {
  if (p.s.kind === 'capture') return { from: `${p.view} AS v`, img: (side, j) => `v.${side}${j}` };
  const table = quoteIdent(p.s.t.label);
  const s = p.s;
  return {
    from: `${p.view} AS v LEFT JOIN ${s.before}.${table} AS b ON b.rowid = v.k AND v.op <> 'i' LEFT JOIN ${s.after}.${table} AS a ON a.rowid = v.k AND v.op <> 'd'`,
    img: (side, j) => `${side === 'c' ? 'b' : 'a'}.${p.cols[j]!}`,
  };
}

/**
 * Each table's rows as a temporary table (k, ord, op, c0…, n0…): op 'i' inserted, 'u' updated, 'd'
 * deleted by the action; c the image before, n the image after; ord the log's order.
 */
function views(db: Database.Database, plan: BulkPlan, schema: TableInfo[], logs: UndoLogStore, direction: Direction): Prepared[] {
  let now: Buffer | null = null;
  return plan.sources.map((s, i) => {
    let proven = false;
    const info = schema.find((x) => tableLabel(x) === s.t.label);
    const current = new Set(info?.columns.map((c) => c.name) ?? []);
    if (!info || !info.rowid || s.t.columns.some((c) => !current.has(c))) throw new BulkFallback(`${s.t.label} changed shape since`);
    const name = quoteIdent(`posthoc_bulk_v${i}`);
    const view = `temp.${name}`;
    const n = s.t.columns.length;
    const list = (p: string) => Array.from({ length: n }, (_, j) => `, ${p}${j}`).join('');
    // One table per changed table, keyed by rowid: every statement then finds a row in it, and in the
    // person's table, by key (an UPDATE over a view would make SQLite scan the whole table instead). Page
    // capture's rows keep their images in the attached images, read by rowid.
    db.exec(`CREATE TEMP TABLE ${name} (k INTEGER PRIMARY KEY, ord, op${s.kind === 'capture' ? `${list('c')}${list('n')}` : ''})`);
    if (s.kind === 'capture') {
      db.exec(`INSERT INTO ${view} (k, ord, op${list('c')}${list('n')}) SELECT k, seq, op${list('c')}${list('n')} FROM ${s.alias}.${quoteIdent(s.log)} WHERE op IN ('i', 'u', 'd') ORDER BY k`);
    } else {
      // Page capture: the differ names the changed rowids; runs of consecutive rowids of one kind go to
      // SQLite as ranges, and the rows are read once from both images, in rowid order.
      const images = { before: readFileSync(logs.capturePath(s.file.before)), after: readFileSync(logs.capturePath(s.file.after)) };
      const changes = pageChanges(images.before, images.after, s.root);
      // The file now against the image this direction starts from, page by page as capture compared them:
      // when no row the action changed differs (nor was a key it freed taken), every row holds what it
      // should, and the row-by-row check is not needed. Any doubt (the table moved, a page the differ does
      // not know) leaves it to the check.
      const root = db.prepare("SELECT rootpage FROM main.sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(info.name);
      if (root === s.root) {
        try {
          now ??= fileImage(db);
          const since = pageChanges(direction === 'undo' ? images.after : images.before, now, s.root);
          proven = disjoint(changes.rowids, since.rowids);
        } catch {
          proven = false;
        }
      }
      const runs: Record<string, Array<[string, string]>> = { d: [], u: [], i: [] };
      for (let j = 0; j < changes.ops.length; ) {
        let e = j;
        while (e + 1 < changes.ops.length && changes.ops[e + 1] === changes.ops[j] && changes.rowids[e + 1] === changes.rowids[e]! + 1n) e++;
        runs[String.fromCharCode(changes.ops[j]!)]!.push([changes.rowids[j]!.toString(), changes.rowids[e]!.toString()]);
        j = e + 1;
      }
      const table = quoteIdent(s.t.label);
      const into = `INSERT INTO ${view} (k, ord, op)`;
      const ranges = `json_each(?) AS r JOIN`;
      const range = (alias: string) => `${alias}.rowid BETWEEN r.value ->> 0 AND r.value ->> 1`;
      if (runs.u!.length > 0) db.prepare(`${into} SELECT b.rowid, b.rowid, 'u' FROM ${ranges} ${s.before}.${table} AS b ON ${range('b')}`).run(JSON.stringify(runs.u));
      if (runs.d!.length > 0) db.prepare(`${into} SELECT b.rowid, b.rowid, 'd' FROM ${ranges} ${s.before}.${table} AS b ON ${range('b')}`).run(JSON.stringify(runs.d));
      if (runs.i!.length > 0) db.prepare(`${into} SELECT a.rowid, a.rowid, 'i' FROM ${ranges} ${s.after}.${table} AS a ON ${range('a')}`).run(JSON.stringify(runs.i));
      const found = db.prepare(`SELECT count(*) FROM ${view}`).pluck().get() as number;
      if (found !== changes.ops.length) throw new BulkFallback(`the images hold ${found} of the ${changes.ops.length} changed rows of ${s.t.label}`);
    }
    const referenced = schema.flatMap((o) => o.foreignKeys.filter((fk) => fk.refTable === s.t.label).flatMap((fk) => (fk.refColumns.length > 0 ? fk.refColumns : info.primaryKey)));
    return { s, view, info, cols: s.t.columns.map(quoteIdent), referenced, proven };
  });
}

/** Columns an UPDATE writes only when some row changed them: indexed columns, foreign keys and the columns they point at (the rowid alias never: these rows kept their keys). */
function guarded(p: Prepared): Set<string> {
  const cols = new Set<string>(p.info.indexes.flatMap((i) => i.columns));
  for (const k of p.info.uniqueKeys) for (const c of k) cols.add(c);
  for (const fk of p.info.foreignKeys) for (const c of fk.columns) cols.add(c);
  for (const c of p.referenced) cols.add(c);
  return cols;
}

/** Whether two ascending lists of rowids share none. */
function disjoint(a: BigInt64Array, b: BigInt64Array): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) return false;
    if (a[i]! < b[j]!) i++;
    else j++;
  }
  return true;
}

/** The prefixes a direction reads from and writes, and the ops whose rows it inserts and deletes. */
function sides(direction: Direction): { from: 'c' | 'n'; to: 'c' | 'n'; inserts: string; deletes: string } {
  return direction === 'undo' ? { from: 'n', to: 'c', inserts: 'd', deletes: 'i' } : { from: 'c', to: 'n', inserts: 'i', deletes: 'd' };
}

/** Rows that no longer hold what this direction starts from, named (the first ones), and how many. */
export function bulkConflicts(db: Database.Database, plan: BulkPlan, schema: TableInfo[], direction: Direction, logs: UndoLogStore): { prepared: Prepared[]; conflicts: string[]; count: number } {
  const prepared = views(db, plan, schema, logs, direction);
  const { from, inserts } = sides(direction);
  const conflicts: string[] = [];
  let count = 0;
  for (const p of prepared) {
    if (p.proven) continue;
    const src = source(p);
    const same = p.cols.map((c, j) => sameValue(`m.${c}`, src.img(from, j))).join(' AND ') || '1';
    const where = `(v.op <> '${inserts}' AND (m.rowid IS NULL OR NOT (${same}))) OR (v.op = '${inserts}' AND m.rowid IS NOT NULL)`;
    const body = `FROM ${src.from} LEFT JOIN main.${quoteIdent(p.info.name)} AS m ON m.rowid = v.k WHERE ${where}`;
    const image = Array.from({ length: p.cols.length }, (_, j) => `, quote(${src.img(from, j)})`).join('');
    const rows = db.prepare(`SELECT quote(v.k), v.op, m.rowid IS NULL${image} ${body} ORDER BY v.ord LIMIT ${NAMED_ROWS}`).raw(true).all() as Array<[string, string, number, ...string[]]>;
    if (rows.length === 0) continue;
    count += rows.length < NAMED_ROWS ? rows.length : (db.prepare(`SELECT count(*) ${body}`).pluck().get() as number);
    for (const [key, op, gone, ...img] of rows) {
      const problem = op === inserts ? 'another row has its key now' : gone ? 'deleted since' : 'changed since';
      conflicts.push(`${rowName(p.s.t, [key], op === inserts ? null : img)}: ${problem}`);
    }
  }
  return { prepared, conflicts, count };
}

/**
 * The compensation, in groups (inserts parent-first, updates, deletes child-first, as row by row), then
 * checked: each bulk statement wrote exactly its rows, nothing else was written (total_changes), and every
 * row holds what was recorded. `others`: the statements of the soft tables, run after the row tables.
 * Throws BulkFallback (the caller rolls back to its savepoint) when SQLite refuses or something else moved.
 */
export function bulkApply(db: Database.Database, prepared: Prepared[], direction: Direction, parentFirst: string[], others: string[]): number {
  const { to, inserts, deletes } = sides(direction);
  const rank = (p: Prepared) => {
    const i = parentFirst.indexOf(p.s.t.label);
    return i === -1 ? parentFirst.length : i;
  };
  const ordered = [...prepared].sort((a, b) => rank(a) - rank(b));
  const total = () => db.prepare('SELECT total_changes()').pluck().get() as number;
  const start = total();
  let direct = 0;
  const run = (sql: string, expected: number | null) => {
    let changes: number;
    try {
      changes = db.prepare(sql).run().changes;
    } catch (error) {
      throw new BulkFallback(error instanceof Error ? error.message : String(error));
    }
    if (expected !== null && changes !== expected) throw new BulkFallback(`a statement wrote ${changes} rows where ${expected} were expected`);
    direct += changes;
  };
  // One pass per table: how many rows of each kind, and which columns the updated rows changed.
  const counts = new Map<Prepared, Map<string, number[]>>();
  for (const p of ordered) {
    const src = source(p);
    const check = p.cols.map((_, j) => j).filter((j) => p.s.t.columns[j] !== p.info.rowidAlias && guarded(p).has(p.s.t.columns[j]!));
    const differs = p.cols.map((_, j) => (p.s.t.columns[j] === p.info.rowidAlias ? ', 0' : check.includes(j) ? `, max(NOT ${sameValue(src.img('c', j), src.img('n', j))})` : ', 1')).join('');
    // Without a column to check, the images need not be read at all.
    const rows = db.prepare(`SELECT v.op, count(*)${differs} FROM ${check.length > 0 ? src.from : `${p.view} AS v`} GROUP BY v.op`).raw(true).all() as Array<[string, number, ...number[]]>;
    counts.set(p, new Map(rows.map(([op, ...rest]) => [op, rest])));
  }
  const count = (p: Prepared, op: string) => counts.get(p)!.get(op)?.[0] ?? 0;
  for (const p of ordered) {
    const n = count(p, inserts);
    const rowidCol = p.info.rowidAlias !== null && p.s.t.columns.includes(p.info.rowidAlias) ? [] : ['rowid'];
    const target = [...rowidCol, ...p.cols].join(', ');
    const src = source(p);
    const values = [...rowidCol.map(() => 'v.k'), ...p.cols.map((_, j) => src.img(to, j))].join(', ');
    if (n > 0) run(`INSERT INTO main.${quoteIdent(p.info.name)} (${target}) SELECT ${values} FROM ${src.from} WHERE v.op = '${inserts}' ORDER BY v.k`, n);
  }
  for (const p of ordered) {
    const n = count(p, 'u');
    if (n === 0) continue;
    // Every column but the key (rows of these tables kept theirs), except indexed and foreign-key columns
    // no row changed: writing those again would cost SQLite their index entries and checks, and each
    // holds what it should already (the conflict check read it).
    const changed = counts.get(p)!.get('u')!.slice(1);
    const js = p.cols.map((_, j) => j).filter((j) => changed[j] === 1);
    if (js.length === 0) continue;
    const target = js.map((j) => p.cols[j]!).join(', ');
    const src = source(p);
    const values = js.map((j) => src.img(to, j)).join(', ');
    run(`UPDATE main.${quoteIdent(p.info.name)} AS m SET (${target}) = (SELECT ${values} FROM ${src.from} WHERE v.k = m.rowid) WHERE m.rowid IN (SELECT k FROM ${p.view} WHERE op = 'u')`, n);
  }
  for (const p of [...ordered].reverse()) {
    const n = count(p, deletes);
    if (n > 0) run(`DELETE FROM main.${quoteIdent(p.info.name)} WHERE rowid IN (SELECT k FROM ${p.view} WHERE op = '${deletes}')`, n);
  }
  for (const sql of others) run(sql, null);
  if (total() - start !== direct) throw new BulkFallback(`${total() - start - direct} other rows were written (a cascade or a trigger)`);
  for (const p of ordered) {
    // Inserted rows hold their whole image, deleted ones are gone. Updated rows are not read again: the
    // UPDATE wrote the recorded values, read from the same table, with no trigger left to change them.
    const src = source(p);
    const all = p.cols.map((c, j) => sameValue(`m.${c}`, src.img(to, j))).join(' AND ') || '1';
    const wrong = db
      .prepare(
        `SELECT count(*) FROM ${src.from} LEFT JOIN main.${quoteIdent(p.info.name)} AS m ON m.rowid = v.k
         WHERE (v.op = '${deletes}' AND m.rowid IS NOT NULL) OR (v.op = '${inserts}' AND (m.rowid IS NULL OR NOT (${all})))`,
      )
      .pluck()
      .get() as number;
    if (wrong > 0) throw new BulkFallback(`${wrong} rows of ${p.s.t.label} do not hold what was recorded`);
  }
  return ordered.reduce((sum, p) => sum + count(p, 'i') + count(p, 'u') + count(p, 'd'), 0);
}

/** The first rows a direction moved, named for people (by rowid, as row by row), in log order. */
export function bulkNamed(db: Database.Database, prepared: Prepared[], limit = NAMED_ROWS): string[] {
  const names: string[] = [];
  for (const p of prepared) {
    if (names.length >= limit) break;
    const keys = db.prepare(`SELECT quote(k) FROM ${p.view} ORDER BY ord LIMIT ?`).pluck().all(limit - names.length) as string[];
    for (const k of keys) names.push(rowName(p.s.t, [k], null));
  }
  return names;
}

/** Drops the temporary tables (the connection ends with the undo anyway). */
export function dropBulk(db: Database.Database, prepared: Prepared[]): void {
  for (const p of prepared) db.exec(`DROP TABLE IF EXISTS ${p.view}`);
}
