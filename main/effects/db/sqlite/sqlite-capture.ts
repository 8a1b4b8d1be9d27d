// Change capture for SQLite, after SQLite's own undo/redo technique (sqlite.org/undoredo.html): temporary
// triggers on every table log each row before it changes, while the statement runs, into temporary
// tables of this connection (kept in memory), with the image it left. Cascades and the person's own
// triggers fire them too. BEFORE INSERT/UPDATE guards also log rows that an OR REPLACE would delete
// without firing delete triggers.
// Nothing crosses into JavaScript row by row while the action runs: when every row of a table was touched
// once and kept its key (the common case), the log itself is the table's undo log — the temporary tables
// are written to the undo folder as one SQLite file before COMMIT and read back, as SQL literals made by
// SQLite's quote() (which round-trips every value exactly), only when undo or redo needs them; the card
// gets the first compensating statements and the count from SQL. Otherwise (rows touched twice, keys that
// moved, REPLACE victims, schema changes) the log is merged into one entry per row right away.
import type Database from 'better-sqlite3';
import type { TableInfo } from '../db-schema';
import type { LazySource, RowEntry, TableLog } from '../row-log';
import type { PageSource } from './sqlite-pages';
import { quoteIdent, sameImage } from '../sql-literals';

export type CaptureTable = {
  index: number;
  info: TableInfo;
  /** Written columns: generated ones are derived by SQLite and never restored. */
  columns: string[];
  keyColumns: string[];
};

export function captureTables(tables: readonly TableInfo[]): CaptureTable[] {
  return tables.map((info, index) => ({
    index,
    info,
    columns: info.columns.filter((c) => !c.generated).map((c) => c.name),
    keyColumns: info.rowid ? [info.rowidAlias ?? 'rowid'] : info.primaryKey,
  }));
}

const img = (t: CaptureTable): string => `temp.${quoteIdent(`posthoc_img_${t.index}`)}`;
const trig = (t: CaptureTable, kind: string): string => quoteIdent(`posthoc_${kind}_${t.index}`);

/** The row's key as one value: the rowid, or a JSON array of the primary key's literals (WITHOUT ROWID). */
function keyExpr(t: CaptureTable, row: string): string {
  return t.info.rowid ? `${row}.rowid` : `json_array(${t.info.primaryKey.map((k) => `quote(${row}.${quoteIdent(k)})`).join(', ')})`;
}

/** True when two values are the same SQL literal (what quote() compares): same type and value, reals by their exact text. */
function sameValue(a: string, b: string): string {
  return `(${a} IS ${b} AND typeof(${a}) = typeof(${b}) AND (typeof(${a}) <> 'real' OR quote(${a}) = quote(${b})))`;
}

/**
 * Log rows: op ('i' inserted, 'u' updated, 'x' updated to the same image, 'm' updated to another key, 'd'
 * deleted, 'r' about to be deleted by an OR REPLACE), k the key before, nk the key after an update, c0…
 * the image before (updates, deletes, victims), n0… the image the statement left (inserts, updates).
 */
export function installCapture(db: Database.Database, tables: CaptureTable[], options: { images?: boolean } = {}): void {
  // Undo's own capture only needs the keys it touched: without images its triggers stay small, and SQLite
  // compiles them into each of the many compensating statements.
  const images = options.images !== false;
  for (const t of tables) {
    const target = `main.${quoteIdent(t.info.name)}`;
    const cols = t.columns.map((_, i) => `, c${i}`).join('');
    const news = t.columns.map((_, i) => `, n${i}`).join('');
    const vals = (row: string) => t.columns.map((c) => `, ${row}.${quoteIdent(c)}`).join('');
    // Most updated rows differ in some value by IS already; only the others pay for the exact comparison.
    const differs = t.columns.map((c) => `old.${quoteIdent(c)} IS NOT new.${quoteIdent(c)}`).join(' OR ') || '0';
    const same = t.columns.map((c) => sameValue(`old.${quoteIdent(c)}`, `new.${quoteIdent(c)}`)).join(' AND ') || '1';
    const op = `CASE WHEN ${keyExpr(t, 'old')} IS NOT ${keyExpr(t, 'new')} THEN 'm' WHEN ${differs} THEN 'u' WHEN ${same} THEN 'x' ELSE 'u' END`;
    const into = `INSERT INTO ${img(t)} (op, k, nk${cols})`;
    const sql = [
      // Untyped columns store every value exactly as it was (no affinity conversion).
      `CREATE TEMP TABLE ${img(t)} (seq INTEGER PRIMARY KEY, op TEXT, k, nk${cols}${news})`,
      images
        ? `CREATE TEMP TRIGGER ${trig(t, 'i')} AFTER INSERT ON ${target} BEGIN INSERT INTO ${img(t)} (op, k${news}) VALUES ('i', ${keyExpr(t, 'new')}${vals('new')}); END`
        : `CREATE TEMP TRIGGER ${trig(t, 'i')} AFTER INSERT ON ${target} BEGIN INSERT INTO ${img(t)} (op, k) VALUES ('i', ${keyExpr(t, 'new')}); END`,
      images
        ? `CREATE TEMP TRIGGER ${trig(t, 'u')} AFTER UPDATE ON ${target} BEGIN INSERT INTO ${img(t)} (op, k, nk${cols}${news}) VALUES (${op}, ${keyExpr(t, 'old')}, ${keyExpr(t, 'new')}${vals('old')}${vals('new')}); END`
        : `CREATE TEMP TRIGGER ${trig(t, 'u')} AFTER UPDATE ON ${target} BEGIN INSERT INTO ${img(t)} (op, k, nk) VALUES ('u', ${keyExpr(t, 'old')}, ${keyExpr(t, 'new')}); END`,
      images
        ? `CREATE TEMP TRIGGER ${trig(t, 'd')} BEFORE DELETE ON ${target} BEGIN ${into} VALUES ('d', ${keyExpr(t, 'old')}, NULL${vals('old')}); END`
        : `CREATE TEMP TRIGGER ${trig(t, 'd')} BEFORE DELETE ON ${target} BEGIN INSERT INTO ${img(t)} (op, k) VALUES ('d', ${keyExpr(t, 'old')}); END`,
    ];
    const guards = t.info.rowid ? [['rowid'], ...t.info.uniqueKeys.filter((k) => !(k.length === 1 && k[0] === t.info.rowidAlias))] : t.info.uniqueKeys;
    guards.forEach((key, g) => {
      const match = key.map((k) => `r.${quoteIdent(k)} = new.${quoteIdent(k)}`).join(' AND ');
      const changed = key.map((k) => `new.${quoteIdent(k)} IS NOT old.${quoteIdent(k)}`).join(' OR ');
      const victims = `${into} SELECT 'r', ${keyExpr(t, 'r')}, NULL${vals('r')} FROM ${target} AS r WHERE ${match}`;
      // An UPDATE can only make a victim through a key column it sets: OF (columns) keeps the guard out of every other UPDATE.
      const of = key.length === 1 && key[0] === 'rowid' ? (t.info.rowidAlias === null ? '' : ` OF ${quoteIdent(t.info.rowidAlias)}`) : ` OF ${key.map(quoteIdent).join(', ')}`;
      sql.push(`CREATE TEMP TRIGGER ${trig(t, `ri${g}`)} BEFORE INSERT ON ${target} BEGIN ${victims}; END`);
      sql.push(`CREATE TEMP TRIGGER ${trig(t, `ru${g}`)} BEFORE UPDATE${of} ON ${target} WHEN ${changed} BEGIN ${victims} AND ${keyExpr(t, 'r')} IS NOT ${keyExpr(t, 'old')}; END`);
    });
    for (const s of sql) db.prepare(s).run();
  }
}

export function dropCapture(db: Database.Database, tables: CaptureTable[]): void {
  for (const t of tables) db.prepare(`DROP TABLE IF EXISTS ${img(t)}`).run();
  dropTriggers(db);
}

/** Posthoc's temporary triggers; with `all`, every temporary trigger (the connection ends with the action anyway). */
function dropTriggers(db: Database.Database, all = false): void {
  const ours = db.prepare(`SELECT name FROM temp.sqlite_schema WHERE type = 'trigger'${all ? '' : " AND name LIKE 'posthoc\\_%' ESCAPE '\\'"}`).pluck().all() as string[];
  for (const name of ours) db.prepare(`DROP TRIGGER IF EXISTS temp.${quoteIdent(name)}`).run();
}

/**
 * Rows logged so far, across tables (a row touched twice counts twice; it only bounds the limit check).
 * While every log row together stays within `limit` (a count SQLite keeps, no scan), that count is returned;
 * past it, the exact count without REPLACE victims.
 */
export function loggedRows(db: Database.Database, tables: CaptureTable[], limit = Number.POSITIVE_INFINITY): number {
  let all = 0;
  for (const t of tables) all += db.prepare(`SELECT count(*) FROM ${img(t)}`).pluck().get() as number;
  if (all <= limit) return all;
  let n = 0;
  for (const t of tables) n += db.prepare(`SELECT count(*) FROM ${img(t)} WHERE op <> 'r'`).pluck().get() as number;
  return n;
}

type Entry = { beforeKey: string | null; before: string[] | null; cur: string | null };

/** Where a lazy table's rows are: its log table in the capture file written before COMMIT. */
export type SqliteLazy = { engine: 'sqlite'; file: string; log: string; rowid: boolean; columns: number };

/** The SQLite folder's lazy sources (trigger capture, page capture), or null for another engine's. */
export function sqliteSource(source: LazySource): SqliteLazy | PageSource | null {
  return source.engine === 'sqlite' || source.engine === 'sqlite-pages' ? (source as unknown as SqliteLazy | PageSource) : null;
}

/**
 * The action's changes, one table log per changed table. A table whose rows were each touched once and
 * kept their key stays lazy: its log rows are the entries, and only the first `preview` of each kind are
 * read now (the card's statements), with the count. Any other table, and every table when `mergeAll`
 * (schema changes), is merged now, one entry per row with after-images read from the table (inside the
 * action's transaction).
 */
export function readCapture(db: Database.Database, tables: CaptureTable[], options: { mergeAll: boolean; file: string; preview: number }): TableLog[] {
  const out: TableLog[] = [];
  const tableExists = db.prepare("SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = ?").pluck();
  for (const t of tables) {
    const [total, distinct, moved, d, u, i] = db
      .prepare(`SELECT count(*), count(DISTINCT k), sum(op IN ('r', 'm')), sum(op = 'd'), sum(op = 'u'), sum(op = 'i') FROM ${img(t)}`)
      .raw(true)
      .get() as number[];
    if (total === 0) continue;
    const exists = tableExists.get(t.info.name) !== undefined;
    const base = { table: quoteIdent(t.info.name), label: t.info.name, columns: t.columns, keyColumns: t.keyColumns, overridingSystemValue: false, soft: false };
    if (!options.mergeAll && exists && distinct === total && moved === 0) {
      const count = d! + u! + i!;
      if (count === 0) continue;
      const lazy: SqliteLazy = { engine: 'sqlite', file: options.file, log: `posthoc_img_${t.index}`, rowid: t.info.rowid, columns: t.columns.length };
      out.push({ ...base, rows: previewRows(db, t, { d: d!, u: u!, i: i! }, options.preview), lazy: { count, source: lazy } });
      continue;
    }
    const rows = mergeTable(db, t, exists);
    if (rows.length > 0) out.push({ ...base, rows });
  }
  return out;
}

/** The first `limit` log rows of each kind, in log order: enough for the card's first statements in any group order. */
function previewRows(db: Database.Database, t: CaptureTable, counts: Record<'d' | 'u' | 'i', number>, limit: number): RowEntry[] {
  const rows: Array<{ seq: number; entry: RowEntry }> = [];
  for (const op of ['d', 'u', 'i'] as const) {
    if (counts[op] === 0) continue;
    const stmt = db.prepare(`SELECT seq, ${lazySelect(t.info.rowid, t.columns.length)} FROM ${img(t)} WHERE op = ? ORDER BY seq LIMIT ?`).raw(true);
    for (const r of stmt.all(op, limit) as Array<[number, ...string[]]>) rows.push({ seq: r[0], entry: lazyEntry(r.slice(1) as string[], t.info.rowid) });
  }
  return rows.sort((a, b) => a.seq - b.seq).map((r) => r.entry);
}

function lazySelect(rowid: boolean, columns: number): string {
  const lits = (p: string) => Array.from({ length: columns }, (_, i) => `, quote(${p}${i})`).join('');
  return `op, ${rowid ? 'quote(k)' : 'k'}${lits('c')}${lits('n')}`;
}

/** A log row of a lazy table as its entry: inserted, updated in place, or deleted. */
function lazyEntry(r: string[], rowid: boolean): RowEntry {
  const n = (r.length - 2) / 2;
  const key = rowid ? [r[1]!] : (JSON.parse(r[1]!) as string[]);
  const before = r.slice(2, 2 + n);
  const after = r.slice(2 + n);
  if (r[0] === 'i') return { beforeKey: null, afterKey: key, before: null, after };
  if (r[0] === 'd') return { beforeKey: key, afterKey: null, before, after: null };
  return { beforeKey: key, afterKey: key, before, after };
}

/** Every entry of a lazy table, from the capture file (opened as a database). */
export function readLazyRows(file: Database.Database, source: SqliteLazy): RowEntry[] {
  const rows = file.prepare(`SELECT ${lazySelect(source.rowid, source.columns)} FROM ${quoteIdent(source.log)} WHERE op IN ('i', 'u', 'd') ORDER BY seq`).raw(true).all() as string[][];
  return rows.map((r) => lazyEntry(r, source.rowid));
}

/** Hands the capture tables to `write` as one SQLite file image (temporary triggers go first: the file has none of the tables they are on; the connection ends with the action). */
export function saveCapture(db: Database.Database, write: (image: Buffer) => void): void {
  dropTriggers(db, true);
  write(db.serialize({ attached: 'temp' }));
}

/** One entry per changed row: the log merged in order (rows touched twice, keys that moved, REPLACE victims). */
function mergeTable(db: Database.Database, t: CaptureTable, exists: boolean): RowEntry[] {
  const quotedCols = t.columns.map((_, i) => `, quote(c${i})`).join('');
  const keyLit = t.info.rowid ? 'quote(k)' : 'k';
  const nkLit = t.info.rowid ? 'quote(nk)' : 'nk';
  const logRows = db.prepare(`SELECT op, ${keyLit}, ${nkLit}${quotedCols} FROM ${img(t)} ORDER BY seq`).raw(true).all() as string[][];
  const entries: Entry[] = [];
  const byCur = new Map<string, Entry>();
  const byOrig = new Map<string, Entry>();
  const track = (k: string, before: string[] | null): Entry => {
    const e: Entry = { beforeKey: before === null ? null : k, before, cur: k };
    entries.push(e);
    byCur.set(k, e);
    if (before !== null) byOrig.set(k, e);
    return e;
  };
  for (const row of logRows) {
    const op = row[0]!;
    const k = row[1]!;
    const nk = row[2] ?? null;
    const values = row.slice(3);
    if (op === 'i') {
      if (byCur.has(k)) continue;
      const revived = byOrig.get(k);
      if (revived && revived.cur === null) {
        revived.cur = k;
        byCur.set(k, revived);
      } else track(k, null);
    } else if (op === 'r') {
      if (!byCur.has(k) && !byOrig.has(k)) track(k, values);
    } else if (op === 'u' || op === 'x' || op === 'm') {
      const e = byCur.get(k) ?? track(k, values);
      if (nk !== null && nk !== k) {
        byCur.delete(k);
        const victim = byCur.get(nk);
        if (victim) victim.cur = null;
        e.cur = nk;
        byCur.set(nk, e);
      }
    } else {
      const e = byCur.get(k) ?? track(k, values);
      e.cur = null;
      byCur.delete(k);
    }
  }
  const after = exists ? afterImages(db, t) : new Map<string, string[]>();
  const rows: RowEntry[] = [];
  for (const e of entries) {
    const a = e.cur === null ? null : (after.get(e.cur) ?? null);
    const afterKey = a === null ? null : e.cur;
    if (e.before === null && a === null) continue;
    if (e.before !== null && a !== null && e.beforeKey === afterKey && sameImage(e.before, a)) continue;
    rows.push({ beforeKey: e.beforeKey === null ? null : toKey(t, e.beforeKey), afterKey: afterKey === null ? null : toKey(t, afterKey), before: e.before, after: a });
  }
  return rows;
}

/** Current images of the rows the log touched, keyed like the log. */
function afterImages(db: Database.Database, t: CaptureTable): Map<string, string[]> {
  const quoted = t.columns.map((c) => `, quote(r.${quoteIdent(c)})`).join('');
  const keyLit = t.info.rowid ? 'quote(r.rowid)' : keyExpr(t, 'r');
  const rows = db
    .prepare(
      `SELECT ${keyLit}${quoted} FROM main.${quoteIdent(t.info.name)} AS r
       WHERE ${keyExpr(t, 'r')} IN (SELECT k FROM ${img(t)} UNION SELECT nk FROM ${img(t)} WHERE nk IS NOT NULL)`,
    )
    .raw(true)
    .all() as string[][];
  return new Map(rows.map((r) => [r[0]!, r.slice(1)]));
}

/** A key as literals: the rowid literal, or the primary key's literals (kept as a JSON array in the log). */
function toKey(t: CaptureTable, k: string): string[] {
  return t.info.rowid ? [k] : (JSON.parse(k) as string[]);
}

/** Keys of every row the log touched, per table label (what an undo may touch is checked against them). */
export function touchedKeys(db: Database.Database, tables: CaptureTable[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const t of tables) {
    const lit = (col: string) => (t.info.rowid ? `quote(${col})` : col);
    const keys = db.prepare(`SELECT ${lit('k')} FROM ${img(t)} UNION SELECT ${lit('nk')} FROM ${img(t)} WHERE nk IS NOT NULL`).pluck().all() as string[];
    if (keys.length > 0) out.set(t.info.name, new Set(keys.map((k) => toKey(t, k).join('\u0000'))));
  }
  return out;
}
