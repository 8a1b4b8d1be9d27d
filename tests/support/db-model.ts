// The property tests' model of a database: its logical content as tables (columns, rows by key, values as
// exact literals) and indexes, read the same way from SQLite and PostgreSQL; and what undoing (or
// redoing) one action must leave, given the content before and after that action and the content now.
import type Database from 'better-sqlite3';
import type mysql from 'mysql2/promise';
import type pg from 'pg';

export type TableDump = { columns: string[]; rows: Map<string, string[]> };
export type Dump = { tables: Map<string, TableDump>; indexes: Map<string, string> };

export function sqliteDump(db: Database.Database): Dump {
  const tables = new Map<string, TableDump>();
  const names = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").pluck().all() as string[];
  for (const name of names) {
    const columns = (db.prepare('SELECT name FROM pragma_table_xinfo(?) WHERE hidden = 0').pluck().all(name) as string[]);
    const rows = db.prepare(`SELECT quote(rowid), json_array(${columns.map((c) => `quote("${c}")`).join(', ')}) FROM "${name}"`).raw(true).all() as Array<[string, string]>;
    tables.set(name, { columns, rows: new Map(rows.map(([k, v]) => [k, JSON.parse(v) as string[]])) });
  }
  const indexes = new Map(
    (db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL").raw(true).all() as Array<[string, string]>).map(([n, s]) => [n, s]),
  );
  return { tables, indexes };
}

export async function pgModelDump(client: pg.Client): Promise<Dump> {
  const tables = new Map<string, TableDump>();
  const names = (await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r: { tablename: string }) => r.tablename);
  for (const name of names) {
    const columns = (
      await client.query(
        `SELECT a.attname FROM pg_attribute a WHERE a.attrelid = ('public.' || quote_ident($1))::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
        [name],
      )
    ).rows.map((r: { attname: string }) => r.attname);
    const select = columns.map((c) => `quote_nullable("${c}"::text)`).join(', ');
    const res = await client.query({ text: `SELECT id::text, ${select} FROM public."${name}"`, rowMode: 'array' });
    tables.set(name, { columns, rows: new Map((res.rows as string[][]).map((r) => [r[0]!, r.slice(1)])) });
  }
  const idx = await client.query("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT LIKE '%\\_pkey'");
  return { tables, indexes: new Map(idx.rows.map((r: { indexname: string; indexdef: string }) => [r.indexname, r.indexdef])) };
}

/** MySQL and MariaDB: every table of the database but Posthoc's capture log, values as the server quotes them. */
export async function myModelDump(conn: mysql.Connection): Promise<Dump> {
  const tables = new Map<string, TableDump>();
  const [names] = await conn.query({ sql: "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME NOT LIKE 'posthoc\\_%' ORDER BY 1", rowsAsArray: true });
  for (const [name] of names as string[][]) {
    const [cols] = await conn.query({ sql: 'SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION', values: [name], rowsAsArray: true });
    const columns = (cols as string[][]).map(([c]) => c!);
    const [rows] = await conn.query({ sql: `SELECT CAST(id AS CHAR), ${columns.map((c) => `QUOTE(\`${c}\`)`).join(', ')} FROM \`${name}\``, rowsAsArray: true });
    tables.set(name!, { columns, rows: new Map((rows as string[][]).map((r) => [String(r[0]), r.slice(1).map(String)])) });
  }
  const [idx] = await conn.query({ sql: "SELECT TABLE_NAME, INDEX_NAME, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME <> 'PRIMARY' GROUP BY 1, 2", rowsAsArray: true });
  return { tables, indexes: new Map((idx as string[][]).map(([t, i, c]) => [`${t}.${i}`, String(c)])) };
}

export function dumpText(d: Dump): string {
  const out: string[] = [];
  for (const [name, t] of [...d.tables].sort(([a], [b]) => (a < b ? -1 : 1))) {
    out.push(`table ${name} (${t.columns.join(', ')})`);
    for (const [k, v] of [...t.rows].sort(([a], [b]) => (a < b ? -1 : 1))) out.push(`  ${k}: ${v.join(' | ')}`);
  }
  for (const [name, def] of [...d.indexes].sort(([a], [b]) => (a < b ? -1 : 1))) out.push(`index ${name}: ${def}`);
  return out.join('\n');
}

const tableText = (name: string, t: TableDump) => dumpText({ tables: new Map([[name, t]]), indexes: new Map() });

const same = (a: readonly string[] | undefined, b: readonly string[] | undefined) => (a === undefined ? b === undefined : b !== undefined && a.join('\u0000') === b.join('\u0000'));

function project(row: string[], from: string[], to: string[]): string[] {
  return to.map((c) => row[from.indexOf(c)]!);
}

/**
 * The content an exact undo of an action leaves (`from` = after the action, `to` = before it; swap them for
 * redo), or null when the rows and tables the action changed no longer hold what it left (a conflict).
 * `replaced` names the tables the action dropped and created again: a new table under the old name, changed
 * even where its content equals the old one's, so reverting it needs the table the action left still there.
 */
export function predictRevert(
  now: Dump,
  from: Dump,
  to: Dump,
  moves: ReadonlyArray<readonly [string, string]> = [],
  direction: 'undo' | 'redo' = 'undo',
  replaced: ReadonlySet<string> = new Set(),
): Dump | null {
  const tables = new Map(now.tables);
  for (const name of new Set([...from.tables.keys(), ...to.tables.keys()])) {
    let f = from.tables.get(name);
    let t = to.tables.get(name);
    const n = now.tables.get(name);
    if (f && t && replaced.has(name)) {
      if (!n || tableText(name, n) !== tableText(name, f)) return null;
      tables.set(name, t);
      continue;
    }
    if (f && !t) {
      if (!n || tableText(name, n) !== tableText(name, f)) return null;
      tables.delete(name);
      continue;
    }
    if (!f && t) {
      if (n) return null;
      tables.set(name, t);
      continue;
    }
    if (f && t && tableText(name, f) === tableText(name, t)) continue; // not changed by the action
    if (!f || !t || !n) return null;
    // A column gone since (an earlier action undone) is fine where the action never changed it.
    const toColumns = t.columns;
    const missing = f.columns.filter((c) => toColumns.includes(c) && !n.columns.includes(c));
    if (missing.length > 0) {
      for (const k of new Set([...f.rows.keys(), ...t.rows.keys()])) {
        const fr = f.rows.get(k);
        const tr = t.rows.get(k);
        if (fr && tr && !same(project(fr, f.columns, missing), project(tr, toColumns, missing))) return null;
        if ((fr === undefined) !== (tr === undefined) && project((fr ?? tr)!, fr ? f.columns : toColumns, missing).some((v) => v !== 'NULL')) return null;
      }
      const drop = (d: TableDump): TableDump => {
        const cols = d.columns.filter((c) => !missing.includes(c));
        return { columns: cols, rows: new Map([...d.rows].map(([k, r]) => [k, project(r, d.columns, cols)])) };
      };
      f = drop(f);
      t = drop(t);
    }
    // Columns added since the action (by later actions) stay; a column the action added goes on undo and
    // comes back (NULL, then the action's own values) on redo.
    if (!f.columns.every((c) => n.columns.includes(c))) return null;
    const common = f.columns.filter((c) => t.columns.includes(c));
    const added = f.columns.filter((c) => !t.columns.includes(c));
    const gained = t.columns.filter((c) => !f.columns.includes(c));
    if (gained.some((c) => n.columns.includes(c))) return null; // someone added that column again since
    const columns = [...n.columns.filter((c) => !added.includes(c)), ...gained];
    const valueOf = (row: string[] | undefined, cols: string[], c: string) => (row && cols.includes(c) ? row[cols.indexOf(c)]! : 'NULL');
    const rows = new Map<string, string[]>();
    for (const [k, row] of n.rows) rows.set(k, columns.map((c) => valueOf(row, n.columns, c)));
    // A key the action changed (UPDATE … SET id = …) is one row moving, not a delete and an insert: putting
    // the key back keeps the values that columns added since hold on the moved row.
    // Undo moves each row back from its final key to its original one, redo forth; the key it leaves may
    // hold a row the action inserted there, which is a new row.
    const movedFrom = new Map<string, string>();
    const vacated = new Set<string>();
    for (const [origin, final] of moves) {
      const [dest, src] = direction === 'undo' ? [origin, final] : [final, origin];
      if (t.rows.has(dest) && f.rows.has(src)) {
        movedFrom.set(dest, src);
        vacated.add(src);
      }
    }
    for (const [k, row] of n.rows) {
      if (added.some((c) => valueOf(row, n.columns, c) !== valueOf(f.rows.get(k), f.columns, c))) return null;
    }
    for (const k of new Set([...f.rows.keys(), ...t.rows.keys()])) {
      const fr = f.rows.get(k);
      const tr = t.rows.get(k);
      const nr = n.rows.get(k);
      // A row the action wrote: its values differ, or it set a column the action added (undo) or adds (redo).
      const changed =
        !same(fr && project(fr, f.columns, common), tr && project(tr, t.columns, common)) ||
        (tr !== undefined && gained.some((c) => valueOf(tr, t.columns, c) !== 'NULL')) ||
        (fr !== undefined && added.some((c) => valueOf(fr, f.columns, c) !== 'NULL'));
      if (!changed) continue;
      if (!same(nr && project(nr, n.columns, f.columns), fr)) return null;
      // The row moving to its key brings what columns added since hold on it; a row inserted at the key it
      // left is a new row (added columns NULL), and a row that goes takes what was written on it since.
      const carried = movedFrom.has(k) ? n.rows.get(movedFrom.get(k)!) : vacated.has(k) ? undefined : nr;
      if (tr) rows.set(k, columns.map((c) => (t.columns.includes(c) ? valueOf(tr, t.columns, c) : valueOf(carried, n.columns, c))));
      else rows.delete(k);
    }
    tables.set(name, { columns, rows });
  }
  const indexes = new Map(now.indexes);
  for (const name of new Set([...from.indexes.keys(), ...to.indexes.keys()])) {
    const f = from.indexes.get(name);
    const t = to.indexes.get(name);
    if (f === t) continue;
    if (now.indexes.get(name) !== f) return null;
    if (t === undefined) indexes.delete(name);
    else indexes.set(name, t);
  }
  return { tables, indexes };
}
