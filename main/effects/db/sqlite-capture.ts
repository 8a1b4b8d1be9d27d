// Change capture for SQLite, after SQLite's own undo/redo technique (sqlite.org/undoredo.html): temporary
// triggers on every table log each row before it changes, while the statement runs, into temporary
// tables of this connection. Cascades and the person's own triggers fire them too. BEFORE INSERT/UPDATE
// guards also log rows that an OR REPLACE would delete without firing delete triggers.
// After the action, the log becomes one entry per row with its before- and after-image as SQL literals
// made by SQLite's quote(), which round-trips every value exactly.
import type Database from 'better-sqlite3';
import type { TableInfo } from './db-schema';
import type { RowEntry, TableLog } from './row-log';
import { quoteIdent, sameImage } from './sql-literals';

export type CaptureTable = {
  index: number;
  info: TableInfo;
  /** Written columns: generated ones are derived by SQLite and never restored. */
  columns: string[];
  keyColumns: string[];
};

export function captureTables(tables: TableInfo[]): CaptureTable[] {
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

export function installCapture(db: Database.Database, tables: CaptureTable[]): void {
  for (const t of tables) {
    const target = `main.${quoteIdent(t.info.name)}`;
    const cols = t.columns.map((_, i) => `c${i}`);
    const oldVals = t.columns.map((c) => `old.${quoteIdent(c)}`).join(', ');
    const rowVals = (row: string) => t.columns.map((c) => `${row}.${quoteIdent(c)}`).join(', ');
    const into = `INSERT INTO ${img(t)} (op, k, nk${cols.map((c) => `, ${c}`).join('')})`;
    const sql = [
      // Untyped columns store every value exactly as it was (no affinity conversion).
      `CREATE TEMP TABLE ${img(t)} (seq INTEGER PRIMARY KEY, op TEXT, k, nk${cols.map((c) => `, ${c}`).join('')})`,
      `CREATE TEMP TRIGGER ${trig(t, 'i')} AFTER INSERT ON ${target} BEGIN INSERT INTO ${img(t)} (op, k) VALUES ('i', ${keyExpr(t, 'new')}); END`,
      `CREATE TEMP TRIGGER ${trig(t, 'u')} AFTER UPDATE ON ${target} BEGIN ${into} VALUES ('u', ${keyExpr(t, 'old')}, ${keyExpr(t, 'new')}${t.columns.length ? `, ${oldVals}` : ''}); END`,
      `CREATE TEMP TRIGGER ${trig(t, 'd')} BEFORE DELETE ON ${target} BEGIN ${into} VALUES ('d', ${keyExpr(t, 'old')}, NULL${t.columns.length ? `, ${oldVals}` : ''}); END`,
    ];
    const guards = t.info.rowid ? [['rowid'], ...t.info.uniqueKeys.filter((k) => !(k.length === 1 && k[0] === t.info.rowidAlias))] : t.info.uniqueKeys;
    guards.forEach((key, g) => {
      const match = key.map((k) => `r.${quoteIdent(k)} = new.${quoteIdent(k)}`).join(' AND ');
      const changed = key.map((k) => `new.${quoteIdent(k)} IS NOT old.${quoteIdent(k)}`).join(' OR ');
      const victims = `${into} SELECT 'r', ${keyExpr(t, 'r')}, NULL${t.columns.length ? `, ${rowVals('r')}` : ''} FROM ${target} AS r WHERE ${match}`;
      sql.push(`CREATE TEMP TRIGGER ${trig(t, `ri${g}`)} BEFORE INSERT ON ${target} BEGIN ${victims}; END`);
      sql.push(`CREATE TEMP TRIGGER ${trig(t, `ru${g}`)} BEFORE UPDATE ON ${target} WHEN ${changed} BEGIN ${victims} AND ${keyExpr(t, 'r')} IS NOT ${keyExpr(t, 'old')}; END`);
    });
    for (const s of sql) db.prepare(s).run();
  }
}

export function dropCapture(db: Database.Database, tables: CaptureTable[]): void {
  for (const t of tables) db.prepare(`DROP TABLE IF EXISTS ${img(t)}`).run();
  const ours = db.prepare("SELECT name FROM temp.sqlite_schema WHERE type = 'trigger' AND name LIKE 'posthoc\\_%' ESCAPE '\\'").pluck().all() as string[];
  for (const name of ours) db.prepare(`DROP TRIGGER IF EXISTS temp.${quoteIdent(name)}`).run();
}

/** Rows logged so far, across tables (a row touched twice counts twice; it only bounds the limit check). */
export function loggedRows(db: Database.Database, tables: CaptureTable[]): number {
  let n = 0;
  for (const t of tables) n += db.prepare(`SELECT count(*) FROM ${img(t)} WHERE op <> 'r'`).pluck().get() as number;
  return n;
}

type Entry = { beforeKey: string | null; before: string[] | null; cur: string | null };

/** One entry per changed row, with after-images read from the table now (inside the action's transaction). */
export function readCapture(db: Database.Database, tables: CaptureTable[]): TableLog[] {
  const out: TableLog[] = [];
  const tableExists = db.prepare("SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = ?").pluck();
  for (const t of tables) {
    const quotedCols = t.columns.map((_, i) => `, quote(c${i})`).join('');
    const keyLit = t.info.rowid ? 'quote(k)' : 'k';
    const nkLit = t.info.rowid ? 'quote(nk)' : 'nk';
    const logRows = db.prepare(`SELECT op, ${keyLit}, ${nkLit}${quotedCols} FROM ${img(t)} ORDER BY seq`).raw(true).all() as string[][];
    if (logRows.length === 0) continue;
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
      } else if (op === 'u') {
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
    const after = tableExists.get(t.info.name) ? afterImages(db, t) : new Map<string, string[]>();
    const rows: RowEntry[] = [];
    for (const e of entries) {
      const a = e.cur === null ? null : (after.get(e.cur) ?? null);
      const afterKey = a === null ? null : e.cur;
      if (e.before === null && a === null) continue;
      if (e.before !== null && a !== null && e.beforeKey === afterKey && sameImage(e.before, a)) continue;
      rows.push({ beforeKey: e.beforeKey === null ? null : toKey(t, e.beforeKey), afterKey: afterKey === null ? null : toKey(t, afterKey), before: e.before, after: a });
    }
    if (rows.length === 0) continue;
    out.push({
      table: quoteIdent(t.info.name),
      label: t.info.name,
      columns: t.columns,
      keyColumns: t.keyColumns,
      overridingSystemValue: false,
      soft: false,
      rows,
    });
  }
  return out;
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
