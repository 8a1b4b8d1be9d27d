// What a granted database looks like, for the model's prompt and for change capture: tables with their
// columns, keys, foreign keys, indexes, triggers and row counts, and views. Never rows, unless the grant
// allows sample rows — then a few per table, with long values cut.
import type { DatabaseGrant } from '../../../shared/domain';
import { engineLabel } from '../../../shared/domain/database-engines';

export type ColumnInfo = {
  name: string;
  type: string;
  notNull: boolean;
  defaultValue: string | null;
  /** Generated (computed) columns are never written by undo: the database derives them. */
  generated: boolean;
  /** PostgreSQL GENERATED ALWAYS AS IDENTITY: restoring a row needs OVERRIDING SYSTEM VALUE. */
  identityAlways: boolean;
};

export type ForeignKeyInfo = { columns: string[]; refTable: string; refColumns: string[]; onDelete: string; onUpdate: string };
export type IndexInfo = { name: string; columns: string[]; unique: boolean };

export type TableInfo = {
  /** Schema (PostgreSQL) or null (SQLite's main database). */
  schema: string | null;
  name: string;
  columns: ColumnInfo[];
  primaryKey: string[];
  /** SQLite: the table has a rowid (not WITHOUT ROWID); its INTEGER PRIMARY KEY column, if any, is the rowid. */
  rowid: boolean;
  rowidAlias: string | null;
  foreignKeys: ForeignKeyInfo[];
  indexes: IndexInfo[];
  /** Unique column sets usable as a row identity (primary key first); SQLite includes nullable ones for REPLACE capture. */
  uniqueKeys: string[][];
  triggers: string[];
  rowCount: number | null;
  /** Rows counted exactly, or the planner's estimate for a very large PostgreSQL table. */
  rowCountEstimated: boolean;
};

export type ViewInfo = { schema: string | null; name: string; definition: string };

export type SchemaInfo = { tables: TableInfo[]; views: ViewInfo[]; samples: Map<string, SampleRows> };
export type SampleRows = { columns: string[]; rows: Array<Array<string | null>> };

export const SAMPLE_ROWS = 3;
const SAMPLE_VALUE_CHARS = 60;

export function tableLabel(t: { schema: string | null; name: string }): string {
  return t.schema === null || t.schema === 'public' ? t.name : `${t.schema}.${t.name}`;
}

/** The prompt section for one granted database. */
export function describeSchema(grant: DatabaseGrant, schema: SchemaInfo): string {
  const engine = engineLabel(grant.engine);
  const allowed = grant.readOnly ? 'read-only (queries only)' : `allows ${grant.statements.map(statementWord).join(', ')}`;
  const limit = grant.readOnly ? '' : `; an action may change up to ${grant.maxRowsAffected} rows before it waits for the person's approval`;
  const held = grant.mode === 'held' ? '; your statements stay in an open transaction until the person keeps or undoes them' : '';
  const lines = [`Database "${grant.name}" (${engine}; ${allowed}${limit}${held}):`];
  if (schema.tables.length === 0 && schema.views.length === 0) lines.push('  (no tables yet)');
  for (const t of schema.tables) {
    const count = t.rowCount === null ? '' : ` (${t.rowCountEstimated ? 'about ' : ''}${t.rowCount} row${t.rowCount === 1 ? '' : 's'})`;
    lines.push(`  table ${tableLabel(t)}${count}`);
    for (const c of t.columns) lines.push(`    ${describeColumn(t, c)}`);
    if (t.primaryKey.length > 1) lines.push(`    primary key (${t.primaryKey.join(', ')})`);
    for (const fk of t.foreignKeys) {
      const actions = [fk.onDelete !== 'NO ACTION' ? `ON DELETE ${fk.onDelete}` : '', fk.onUpdate !== 'NO ACTION' ? `ON UPDATE ${fk.onUpdate}` : '']
        .filter(Boolean)
        .join(' ');
      lines.push(`    foreign key (${fk.columns.join(', ')}) → ${fk.refTable}(${fk.refColumns.join(', ')})${actions ? ` ${actions}` : ''}`);
    }
    for (const ix of t.indexes) lines.push(`    ${ix.unique ? 'unique index' : 'index'} ${ix.name} (${ix.columns.join(', ')})`);
    if (t.triggers.length > 0) lines.push(`    triggers: ${t.triggers.join(', ')}`);
    const sample = schema.samples.get(tableLabel(t));
    if (sample && sample.rows.length > 0) {
      lines.push(`    sample rows (${sample.columns.join(' | ')}):`);
      for (const row of sample.rows) lines.push(`      ${row.map((v) => (v === null ? 'NULL' : cut(v))).join(' | ')}`);
    }
  }
  for (const v of schema.views) lines.push(`  view ${tableLabel(v)}: ${oneLine(v.definition)}`);
  return lines.join('\n');
}

function describeColumn(t: TableInfo, c: ColumnInfo): string {
  const parts = [c.name, c.type || '(no type)'];
  if (t.primaryKey.length === 1 && t.primaryKey[0] === c.name) parts.push('PRIMARY KEY');
  if (c.notNull && !(t.primaryKey.length === 1 && t.primaryKey[0] === c.name)) parts.push('NOT NULL');
  if (t.uniqueKeys.some((k) => k.length === 1 && k[0] === c.name) && !t.primaryKey.includes(c.name)) parts.push('UNIQUE');
  if (c.generated) parts.push('GENERATED');
  if (c.defaultValue !== null && !c.generated) parts.push(`DEFAULT ${oneLine(c.defaultValue)}`);
  return parts.join(' ');
}

function statementWord(c: string): string {
  return c === 'query' ? 'queries' : c === 'dml' ? 'row changes (INSERT/UPDATE/DELETE)' : 'schema changes (CREATE/ALTER/DROP)';
}

function cut(value: string): string {
  const flat = value.replace(/\s+/g, ' ');
  return flat.length > SAMPLE_VALUE_CHARS ? `${flat.slice(0, SAMPLE_VALUE_CHARS - 1)}…` : flat;
}

function oneLine(sql: string): string {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

/** Tables ordered so that a table comes after the tables its foreign keys point to (cycles broken arbitrarily). */
export function parentFirst(tables: TableInfo[]): TableInfo[] {
  const byLabel = new Map(tables.map((t) => [tableLabel(t), t]));
  const out: TableInfo[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (t: TableInfo): void => {
    const label = tableLabel(t);
    if (state.get(label)) return;
    state.set(label, 'visiting');
    for (const fk of t.foreignKeys) {
      const parent = byLabel.get(fk.refTable);
      if (parent && parent !== t) visit(parent);
    }
    state.set(label, 'done');
    out.push(t);
  };
  tables.forEach(visit);
  return out;
}
