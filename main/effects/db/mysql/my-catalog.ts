// The granted MySQL or MariaDB database as Posthoc needs it: its base tables with their columns, keys,
// foreign keys (with their cascade rules), indexes and the person's triggers, read from information_schema.
// Posthoc's own capture objects (posthoc_…) are never part of it.
import { SAMPLE_ROWS, type ColumnInfo, type SchemaInfo, type TableInfo } from '../db-schema';
import { quoteMy, rowsOf, type MyConnection } from './my-client';

/** Posthoc's capture objects (per-action triggers and log table) carry this prefix, and the person's never. */
export const CAPTURE_PREFIX = 'posthoc_';

export type MyColumn = ColumnInfo & { dataType: string };
export type MyForeignKey = { name: string; columns: string[]; refTable: string; refColumns: string[]; onDelete: string; onUpdate: string };
export type MyTable = {
  name: string;
  columns: MyColumn[];
  primaryKey: string[];
  /** Unique keys of NOT NULL columns, primary key first: a row's identity. */
  uniqueKeys: string[][];
  indexes: Array<{ name: string; columns: string[]; unique: boolean }>;
  foreignKeys: MyForeignKey[];
  triggers: string[];
  rows: number;
};

export type MyCatalog = Map<string, MyTable>;

const mine = (name: string) => name.startsWith(CAPTURE_PREFIX);

export async function readMyCatalog(conn: MyConnection): Promise<MyCatalog> {
  const tables: MyCatalog = new Map();
  for (const [name, rows] of await rowsOf(conn, "SELECT TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME")) {
    if (mine(name!)) continue;
    tables.set(name!, { name: name!, columns: [], primaryKey: [], uniqueKeys: [], indexes: [], foreignKeys: [], triggers: [], rows: Number(rows ?? 0) });
  }
  const columns = await rowsOf(
    conn,
    `SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, DATA_TYPE, IS_NULLABLE, COLUMN_DEFAULT, EXTRA, IS_GENERATED
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION`,
  );
  for (const [table, name, type, dataType, nullable, def, extra, generated] of columns) {
    tables.get(table!)?.columns.push({
      name: name!,
      type: type!,
      dataType: dataType!.toLowerCase(),
      notNull: nullable === 'NO',
      defaultValue: def ?? null,
      generated: generated === 'ALWAYS' || /VIRTUAL|STORED|PERSISTENT/i.test(extra ?? ''),
      identityAlways: false,
    });
  }
  const stats = await rowsOf(
    conn,
    `SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, COLUMN_NAME FROM information_schema.STATISTICS
       WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, INDEX_NAME = 'PRIMARY' DESC, INDEX_NAME, SEQ_IN_INDEX`,
  );
  for (const [table, index, nonUnique, column] of stats) {
    const t = tables.get(table!);
    if (!t) continue;
    let ix = t.indexes.find((i) => i.name === index);
    if (!ix) t.indexes.push((ix = { name: index!, columns: [], unique: nonUnique === '0' }));
    ix.columns.push(column!);
  }
  for (const t of tables.values()) {
    t.primaryKey = t.indexes.find((i) => i.name === 'PRIMARY')?.columns ?? [];
    const notNull = new Set(t.columns.filter((c) => c.notNull && !c.generated).map((c) => c.name));
    t.uniqueKeys = t.indexes.filter((i) => i.unique && i.columns.every((c) => notNull.has(c))).map((i) => i.columns);
    t.indexes = t.indexes.filter((i) => i.name !== 'PRIMARY');
  }
  const fks = await rowsOf(
    conn,
    `SELECT k.TABLE_NAME, k.CONSTRAINT_NAME, k.COLUMN_NAME, k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME, r.DELETE_RULE, r.UPDATE_RULE
       FROM information_schema.KEY_COLUMN_USAGE k
       JOIN information_schema.REFERENTIAL_CONSTRAINTS r ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND r.TABLE_NAME = k.TABLE_NAME
      WHERE k.TABLE_SCHEMA = DATABASE() AND k.REFERENCED_TABLE_NAME IS NOT NULL
      ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`,
  );
  for (const [table, name, column, refTable, refColumn, onDelete, onUpdate] of fks) {
    const t = tables.get(table!);
    if (!t) continue;
    let fk = t.foreignKeys.find((f) => f.name === name);
    if (!fk) t.foreignKeys.push((fk = { name: name!, columns: [], refTable: refTable!, refColumns: [], onDelete: onDelete!, onUpdate: onUpdate! }));
    fk.columns.push(column!);
    fk.refColumns.push(refColumn!);
  }
  for (const [table, name] of await rowsOf(conn, 'SELECT EVENT_OBJECT_TABLE, TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() ORDER BY ACTION_ORDER')) {
    if (!mine(name!)) tables.get(table!)?.triggers.push(name!);
  }
  return tables;
}

/** The columns undo writes: every column but generated ones, which the server derives. */
export function writtenColumns(t: MyTable): MyColumn[] {
  return t.columns.filter((c) => !c.generated);
}

/** The columns that name a row: the primary key, else the first unique key of NOT NULL columns; [] when none. */
export function identity(t: MyTable): string[] {
  return t.primaryKey.length > 0 ? t.primaryKey : (t.uniqueKeys[0] ?? []);
}

export function tableInfo(t: MyTable): TableInfo {
  return {
    schema: null,
    name: t.name,
    columns: t.columns,
    primaryKey: t.primaryKey,
    rowid: false,
    rowidAlias: null,
    foreignKeys: t.foreignKeys.map((f) => ({ columns: f.columns, refTable: f.refTable, refColumns: f.refColumns, onDelete: f.onDelete, onUpdate: f.onUpdate })),
    indexes: t.indexes,
    uniqueKeys: t.uniqueKeys,
    triggers: t.triggers,
    rowCount: t.rows,
    rowCountEstimated: true,
  };
}

export async function readMySchema(conn: MyConnection, options: { samples: boolean }): Promise<SchemaInfo> {
  const catalog = await readMyCatalog(conn);
  const tables: TableInfo[] = [];
  const samples: SchemaInfo['samples'] = new Map();
  for (const t of catalog.values()) {
    // InnoDB's TABLE_ROWS is an estimate: small tables are counted exactly.
    const exact = t.rows < 100_000;
    const rows = exact ? Number((await rowsOf(conn, `SELECT COUNT(*) FROM ${quoteMy(t.name)}`))[0]![0]) : t.rows;
    tables.push({ ...tableInfo(t), rowCount: rows, rowCountEstimated: !exact });
    if (options.samples) {
      const [rows2, fields] = await conn.query({ sql: `SELECT * FROM ${quoteMy(t.name)} LIMIT ${SAMPLE_ROWS}`, rowsAsArray: true });
      samples.set(t.name, {
        columns: (fields as Array<{ name: string }>).map((f) => f.name),
        rows: (rows2 as unknown[][]).map((r) => r.map((v) => (v === null ? null : Buffer.isBuffer(v) ? `0x${v.toString('hex')}` : String(v)))),
      });
    }
  }
  const views = await rowsOf(conn, 'SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME');
  return { tables, views: views.map(([name, def]) => ({ schema: null, name: name!, definition: def ?? '' })), samples };
}
