// A SQLite database's logical content — schema objects with their SQL, every table's rows with their rowids
// as exact literals, AUTOINCREMENT counters — compared between two attached databases, and restored from
// one into another inside a transaction. Page layout is not content: two files with the same dump are the
// same database for every query.
import type Database from 'better-sqlite3';
import { quoteIdent } from '../sql-literals';

type Obj = { type: string; name: string; sql: string | null; rowid: number };
type TableShape = { name: string; rowid: boolean; columns: string[]; shadow: boolean; virtual: boolean };

const INTERNAL = "name NOT LIKE 'sqlite\\_%' ESCAPE '\\'";

function objects(db: Database.Database, schema: string): Obj[] {
  return db
    .prepare(`SELECT rowid, type, name, sql FROM ${quoteIdent(schema)}.sqlite_schema WHERE ${INTERNAL} ORDER BY rowid`)
    .all() as Obj[];
}

function tables(db: Database.Database, schema: string): TableShape[] {
  const list = db.prepare('SELECT name, type, wr FROM pragma_table_list WHERE schema = ?').all(schema) as Array<{ name: string; type: string; wr: number }>;
  return list
    .filter((t) => (t.type === 'table' || t.type === 'virtual' || t.type === 'shadow') && !t.name.startsWith('sqlite_'))
    .map((t) => ({
      name: t.name,
      rowid: t.wr === 0 && t.type !== 'virtual',
      shadow: t.type === 'shadow',
      virtual: t.type === 'virtual',
      columns: (db.prepare('SELECT name, hidden FROM pragma_table_xinfo(?, ?)').all(t.name, schema) as Array<{ name: string; hidden: number }>)
        .filter((c) => c.hidden === 0)
        .map((c) => c.name),
    }));
}

function rowsQuery(schema: string, t: TableShape): string {
  const values = t.columns.map((c) => `quote(${quoteIdent(c)})`);
  if (t.rowid) values.unshift('quote(rowid)');
  return `SELECT json_array(${values.join(', ')}) FROM ${quoteIdent(schema)}.${quoteIdent(t.name)}`;
}

/** Differences between two attached databases' logical content, named for people (at most `limit`). */
export function diffDatabases(db: Database.Database, left: string, right: string, limit = 20): string[] {
  const out: string[] = [];
  const l = new Map(objects(db, left).map((o) => [`${o.type} ${o.name}`, o.sql]));
  const r = new Map(objects(db, right).map((o) => [`${o.type} ${o.name}`, o.sql]));
  for (const key of new Set([...l.keys(), ...r.keys()])) {
    if (l.get(key) !== r.get(key)) out.push(`${key} (${!l.has(key) ? 'missing' : !r.has(key) ? 'added since' : 'definition changed'})`);
  }
  const lt = new Map(tables(db, left).filter((t) => !t.shadow).map((t) => [t.name, t]));
  for (const t of tables(db, right)) {
    const mine = lt.get(t.name);
    if (t.shadow || !mine || mine.columns.join('\u0000') !== t.columns.join('\u0000') || out.length >= limit) continue;
    const diff = db
      .prepare(`SELECT * FROM (${rowsQuery(left, t)} EXCEPT ${rowsQuery(right, t)}) UNION ALL SELECT * FROM (${rowsQuery(right, t)} EXCEPT ${rowsQuery(left, t)}) LIMIT ${limit}`)
      .pluck()
      .all() as string[];
    const keys = new Set(diff.map((image) => describeRow(t, JSON.parse(image) as string[])));
    out.push(...keys);
  }
  for (const seqDiff of sequenceDiff(db, left, right)) out.push(seqDiff);
  return out.slice(0, limit);
}

function describeRow(t: TableShape, image: string[]): string {
  if (t.rowid) return `${t.name} (rowid = ${image[0]})`;
  return `${t.name} (${t.columns.slice(0, 2).map((c, i) => `${c} = ${image[i]}`).join(', ')})`;
}

function sequenceDiff(db: Database.Database, left: string, right: string): string[] {
  const read = (schema: string): Map<string, string> => {
    const has = db.prepare(`SELECT 1 FROM ${quoteIdent(schema)}.sqlite_schema WHERE name = 'sqlite_sequence'`).get();
    if (!has) return new Map();
    return new Map(db.prepare(`SELECT name, quote(seq) FROM ${quoteIdent(schema)}.sqlite_sequence`).raw(true).all() as Array<[string, string]>);
  };
  const a = read(left);
  const b = read(right);
  return [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).map((k) => `AUTOINCREMENT counter of ${k}`);
}

/**
 * Replaces main's content with `source`'s: drops every object, recreates them from their SQL in their
 * original order, copies rows with their rowids, and the counters. Needs foreign_keys OFF on this
 * connection (set before the transaction began) so dropping and refilling tables cascades nothing.
 */
export function restoreFrom(db: Database.Database, source: string): void {
  const mine = objects(db, 'main');
  for (const type of ['trigger', 'view', 'index', 'table']) {
    for (const o of mine.filter((x) => x.type === type && x.sql !== null)) {
      if (type === 'table' && tables(db, 'main').find((t) => t.name === o.name)?.shadow) continue;
      db.exec(`DROP ${type.toUpperCase()} IF EXISTS main.${quoteIdent(o.name)}`);
    }
  }
  const theirs = objects(db, source);
  const shapes = new Map(tables(db, source).map((t) => [t.name, t]));
  for (const o of theirs.filter((x) => x.type === 'table' && x.sql !== null && !shapes.get(x.name)?.shadow)) db.exec(o.sql!);
  for (const t of shapes.values()) {
    if (t.shadow) continue;
    const cols = writableColumns(db, source, t);
    const list = [...(t.rowid ? ['rowid'] : []), ...cols].map(quoteIdent).join(', ');
    db.exec(`INSERT INTO main.${quoteIdent(t.name)} (${list}) SELECT ${list} FROM ${quoteIdent(source)}.${quoteIdent(t.name)}`);
  }
  const hasSeq = (schema: string) => db.prepare(`SELECT 1 FROM ${quoteIdent(schema)}.sqlite_schema WHERE name = 'sqlite_sequence'`).get() !== undefined;
  if (hasSeq('main')) db.exec('DELETE FROM main.sqlite_sequence');
  if (hasSeq('main') && hasSeq(source)) db.exec(`INSERT INTO main.sqlite_sequence (name, seq) SELECT name, seq FROM ${quoteIdent(source)}.sqlite_sequence`);
  for (const type of ['index', 'view', 'trigger']) {
    for (const o of theirs.filter((x) => x.type === type && x.sql !== null)) db.exec(o.sql!);
  }
}

function writableColumns(db: Database.Database, schema: string, t: TableShape): string[] {
  const info = db.prepare('SELECT name, hidden FROM pragma_table_xinfo(?, ?)').all(t.name, schema) as Array<{ name: string; hidden: number }>;
  return info.filter((c) => c.hidden === 0).map((c) => c.name);
}

/** The whole logical content as one comparable text: for tests, benchmarks and the property model. */
export function logicalDump(db: Database.Database, schema = 'main'): string {
  const lines = objects(db, schema).map((o) => `${o.type} ${o.name}: ${o.sql ?? '(auto)'}`).sort();
  for (const t of tables(db, schema).filter((x) => !x.shadow).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const rows = (db.prepare(rowsQuery(schema, t)).pluck().all() as string[]).sort();
    lines.push(`rows ${t.name} (${t.columns.join(', ')}):`, ...rows.map((r) => `  ${r}`));
  }
  lines.push(...sequenceLines(db, schema));
  return lines.join('\n');
}

function sequenceLines(db: Database.Database, schema: string): string[] {
  const has = db.prepare(`SELECT 1 FROM ${quoteIdent(schema)}.sqlite_schema WHERE name = 'sqlite_sequence'`).get();
  if (!has) return [];
  const rows = db.prepare(`SELECT name || ' = ' || quote(seq) FROM ${quoteIdent(schema)}.sqlite_sequence ORDER BY name`).pluck().all() as string[];
  return rows.map((r) => `sequence ${r}`);
}
