// Reads a SQLite database's schema through its own catalog (sqlite_schema and the table_xinfo,
// foreign_key_list and index_list pragmas), so column positions, hidden generated columns and keys come
// from SQLite itself rather than from parsing CREATE statements.
import type Database from 'better-sqlite3';
import { SAMPLE_ROWS, type IndexInfo, type SchemaInfo, type SampleRows, type TableInfo, type ViewInfo } from '../db-schema';
import { quoteIdent } from '../sql-literals';

type XInfo = { cid: number; name: string; type: string; notnull: number; dflt_value: string | null; pk: number; hidden: number };
type FkRow = { id: number; seq: number; table: string; from: string; to: string | null; on_update: string; on_delete: string };
type IndexRow = { name: string; unique: number; origin: string; partial: number };
type TableListRow = { name: string; type: string; wr: number; schema: string };

/** User tables (no sqlite_ internals, no shadow tables of virtual tables), views excluded. */
export function readSqliteSchema(db: Database.Database, options: { counts?: boolean; samples?: boolean } = {}): SchemaInfo {
  const list = db.prepare("SELECT name, type, wr, schema FROM pragma_table_list WHERE schema = 'main'").all() as TableListRow[];
  const kinds = new Map(list.map((r) => [r.name, r]));
  const objects = db
    .prepare("SELECT type, name, tbl_name, sql FROM main.sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
    .all() as Array<{ type: string; name: string; tbl_name: string; sql: string | null }>;
  const tables: TableInfo[] = [];
  const views: ViewInfo[] = [];
  for (const o of objects) {
    if (o.type === 'view') views.push({ schema: null, name: o.name, definition: o.sql ?? '' });
    if (o.type !== 'table') continue;
    const kind = kinds.get(o.name);
    if (kind?.type === 'shadow' || kind?.type === 'virtual') continue;
    tables.push(readTable(db, o.name, kind?.wr === 1, objects));
  }
  const samples = new Map<string, SampleRows>();
  for (const t of tables) {
    if (options.counts !== false) {
      t.rowCount = (db.prepare(`SELECT count(*) AS n FROM main.${quoteIdent(t.name)}`).get() as { n: number }).n;
    }
    if (options.samples) samples.set(t.name, sampleRows(db, t));
  }
  return { tables, views, samples };
}

/**
 * The tables as readSqliteSchema reads them (no counts, no samples), remembered by the schema's exact text
 * (every catalog entry with its SQL): the same schema always reads the same, and each action needs them
 * before its first statement. Owned by the SQLite engine; callers must not change what it returns.
 */
export class SchemaCache {
  private readonly described = new Map<string, TableInfo[]>();

  constructor(private readonly size = 16) {}

  tables(db: Database.Database): readonly TableInfo[] {
    const text = (db.prepare("SELECT group_concat(type || char(0) || name || char(0) || tbl_name || char(0) || coalesce(sql, ''), char(1)) FROM main.sqlite_schema").pluck().get() as string | null) ?? '';
    let tables = this.described.get(text);
    if (!tables) {
      tables = readSqliteSchema(db, { counts: false }).tables;
      if (this.described.size >= this.size) this.described.delete(this.described.keys().next().value!);
      this.described.set(text, tables);
    }
    return tables;
  }
}

export function readTable(
  db: Database.Database,
  name: string,
  withoutRowid: boolean,
  objects: Array<{ type: string; name: string; tbl_name: string }>,
): TableInfo {
  const xinfo = db.prepare('SELECT * FROM pragma_table_xinfo(?)').all(name) as XInfo[];
  const columns = xinfo
    .filter((c) => c.hidden !== 1)
    .map((c) => ({
      name: c.name,
      type: c.type,
      notNull: c.notnull === 1,
      defaultValue: c.dflt_value,
      generated: c.hidden === 2 || c.hidden === 3,
      identityAlways: false,
    }));
  const primaryKey = xinfo.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
  const pkColumn = primaryKey.length === 1 ? xinfo.find((c) => c.name === primaryKey[0]) : undefined;
  const rowidAlias = !withoutRowid && pkColumn && pkColumn.type.toUpperCase() === 'INTEGER' && !hasDescPk(db, name) ? pkColumn.name : null;

  const fkRows = db.prepare('SELECT * FROM pragma_foreign_key_list(?)').all(name) as FkRow[];
  const fks = new Map<number, FkRow[]>();
  for (const r of fkRows) fks.set(r.id, [...(fks.get(r.id) ?? []), r]);
  const foreignKeys = [...fks.values()].map((rows) => {
    const sorted = rows.sort((a, b) => a.seq - b.seq);
    return {
      columns: sorted.map((r) => r.from),
      refTable: sorted[0]!.table,
      refColumns: sorted.map((r) => r.to ?? '(primary key)'),
      onDelete: sorted[0]!.on_delete,
      onUpdate: sorted[0]!.on_update,
    };
  });

  const indexRows = db.prepare('SELECT name, "unique", origin, partial FROM pragma_index_list(?)').all(name) as IndexRow[];
  const indexes: IndexInfo[] = [];
  const uniqueKeys: string[][] = primaryKey.length > 0 ? [primaryKey] : [];
  for (const ix of indexRows) {
    const cols = (db.prepare('SELECT cid, name FROM pragma_index_info(?)').all(ix.name) as Array<{ cid: number; name: string | null }>);
    const plain = cols.every((c) => c.cid >= 0 && c.name !== null);
    const names = cols.map((c) => c.name ?? '(expression)');
    if (ix.origin === 'c') indexes.push({ name: ix.name, columns: names, unique: ix.unique === 1 });
    if (ix.unique === 1 && plain && ix.partial === 0 && ix.origin !== 'pk') {
      if (!uniqueKeys.some((k) => k.join('\u0000') === names.join('\u0000'))) uniqueKeys.push(names);
    }
  }
  const triggers = objects.filter((o) => o.type === 'trigger' && o.tbl_name === name).map((o) => o.name);
  return {
    schema: null,
    name,
    columns,
    primaryKey,
    rowid: !withoutRowid,
    rowidAlias,
    foreignKeys,
    indexes,
    uniqueKeys,
    triggers,
    rowCount: null,
    rowCountEstimated: false,
  };
}

/** "INTEGER PRIMARY KEY DESC" is not a rowid alias (a documented SQLite quirk). */
function hasDescPk(db: Database.Database, table: string): boolean {
  const row = db.prepare("SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND name = ?").get(table) as { sql: string } | undefined;
  return row !== undefined && /PRIMARY\s+KEY\s+DESC/i.test(row.sql);
}

function sampleRows(db: Database.Database, t: TableInfo): SampleRows {
  const cols = t.columns.map((c) => c.name);
  const select = cols.map((c) => `CASE typeof(${quoteIdent(c)}) WHEN 'blob' THEN '<blob ' || length(${quoteIdent(c)}) || ' bytes>' ELSE CAST(${quoteIdent(c)} AS TEXT) END`);
  const rows = db
    .prepare(`SELECT ${select.join(', ')} FROM main.${quoteIdent(t.name)} LIMIT ${SAMPLE_ROWS}`)
    .raw(true)
    .all() as Array<Array<string | null>>;
  return { columns: cols, rows };
}
