// Dropped columns and column type changes on PostgreSQL in capture mode. Neither can be reversed from the
// catalog alone (the values are gone, or converted by an expression that may lose them), so the runner
// rolls the statement back, reads the column's values by the table's key (the output text of the old
// type, which its input function reads back exactly), runs the statement again and, for a type change,
// reads the new values too. They are kept in the undo log in Posthoc's data folder, never in the database.
// Undo adds the column back (as the table's last column: PostgreSQL cannot insert one elsewhere) or turns
// it back to its old type, then writes each row's value by key, with the person's triggers set aside.
import { DbRefusal } from '../db-errors';
import { relLabel, relSql, type PgColumn, type PgRelation } from './pg-catalog';
import { identityColumns } from './pg-capture';
import type { PgClient } from './pg-client';
import { parseRecordText, pgLiteral, quoteIdent } from '../sql-literals';
import type { ColumnValues, DdlOp } from '../undo-log';

export type { ColumnFill, ColumnValues } from '../undo-log';

/** A dropped column or a type change found in the catalog difference: its step, and where its values are read. */
export type ColumnSave = { op: DdlOp & { values: ColumnValues }; old: PgRelation; column: PgColumn; now: PgRelation; changed: PgColumn | null };

function refuse(what: string, grantName: string): never {
  throw new DbRefusal(
    `This schema change cannot be undone exactly in capture mode (${what}), so it was rolled back. Ask the person to grant "${grantName}" in held-transaction mode to run it, or do it another way.`,
  );
}

/** The step of a dropped column (`changed` null) or of a column whose type changed. Values are read later (see readValues). */
export function columnSave(old: PgRelation, column: PgColumn, now: PgRelation, changed: PgColumn | null, grantName: string): ColumnSave {
  const keys = identityColumns(old);
  const label = `${relLabel(now)}.${column.name}`;
  if (keys.length === 0) refuse(`${changed ? 'it changed the type of' : 'it dropped'} ${label}, and ${relLabel(now)} has no primary key to put values back by`, grantName);
  if (keys.includes(column.name)) refuse(`${changed ? 'it changed the type of' : 'it dropped'} ${label}, a key column`, grantName);
  if (column.generated || changed?.generated || column.identityAlways) refuse(`it changed the generated or identity column ${label}`, grantName);
  const nowKeys = keys.map((k) => now.columns.find((c) => c.num === old.columns.find((o) => o.name === k)!.num)!);
  if (nowKeys.some((k) => k === undefined)) refuse(`it changed the key of ${relLabel(now)}`, grantName);
  const t = relSql(now);
  const col = quoteIdent(changed?.name ?? column.name);
  const check = { schema: now.schema, name: now.name, columns: [], column: { name: changed?.name ?? column.name, keys: nowKeys.map((k) => k.name) } };
  const notNull = (on: boolean) => `ALTER TABLE ${t} ALTER COLUMN ${col} ${on ? 'SET' : 'DROP'} NOT NULL`;
  const retype = (type: string, nn: boolean) => [...(nn ? [notNull(false)] : []), `ALTER TABLE ${t} ALTER COLUMN ${col} TYPE ${type} USING NULL`];
  const values = { table: t, column: changed?.name ?? column.name, keyColumns: nowKeys.map((k) => k.name), keyTypes: nowKeys.map((k) => k.type) };
  if (changed === null) {
    const def = [column.type, column.defaultValue !== null ? `DEFAULT ${column.defaultValue}` : ''].filter(Boolean).join(' ');
    return {
      old, column, now, changed,
      op: {
        describe: `dropped column ${label} (its values are kept in Posthoc's undo log)`,
        object: relLabel(now),
        undo: [`ALTER TABLE ${t} ADD COLUMN ${col} ${def}`],
        redo: [`ALTER TABLE ${t} DROP COLUMN ${col}`],
        checkAfter: check,
        checkBefore: check,
        expectBefore: null,
        expectAfter: null,
        keep: [],
        values: { ...values, undo: { type: column.type, rows: [], after: column.notNull ? [notNull(true)] : [] }, redo: null },
      },
    };
  }
  return {
    old, column, now, changed,
    op: {
      describe: `changed the type of ${label} from ${column.type} to ${changed.type} (old values kept in Posthoc's undo log)`,
      object: relLabel(now),
      undo: retype(column.type, changed.notNull),
      redo: retype(changed.type, column.notNull),
      checkAfter: check,
      checkBefore: check,
      expectBefore: null,
      expectAfter: null,
      keep: [],
      values: {
        ...values,
        undo: { type: column.type, rows: [], after: column.notNull ? [notNull(true)] : [] },
        redo: { type: changed.type, rows: [], after: changed.notNull ? [notNull(true)] : [] },
      },
    },
  };
}

/** Each row's key and the column's value as literals (output text), read from a relation as it is now. */
export async function readValues(client: PgClient, rel: PgRelation, keys: string[], column: string): Promise<Array<[string[], string]>> {
  const res = await client.query({ text: `SELECT ROW(${[...keys, column].map(quoteIdent).join(', ')})::text FROM ${relSql(rel)}`, rowMode: 'array' });
  return (res.rows as Array<[string]>).map(([text]) => {
    const row = parseRecordText(text).map(pgLiteral);
    return [row.slice(0, keys.length), row[keys.length]!];
  });
}

/** Writes the values of one direction back, by key, with the person's triggers on the table set aside. */
export async function fillColumn(client: PgClient, v: ColumnValues, direction: 'undo' | 'redo'): Promise<void> {
  const fill = direction === 'undo' ? v.undo : v.redo;
  if (fill === null) return;
  const triggers = await client.query(`SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal AND tgenabled <> 'D'`, [v.table]);
  const rows = triggers.rows as Array<{ tgname: string; tgenabled: string }>;
  const mode = (e: string) => (e === 'A' ? 'ENABLE ALWAYS' : e === 'R' ? 'ENABLE REPLICA' : 'ENABLE');
  for (const r of rows) await client.query(`ALTER TABLE ${v.table} DISABLE TRIGGER ${quoteIdent(r.tgname)}`);
  const keys = v.keyColumns.map(quoteIdent);
  const names = keys.map((_, i) => `k${i}`);
  for (let i = 0; i < fill.rows.length; i += 1000) {
    const chunk = fill.rows.slice(i, i + 1000);
    const list = chunk.map(([key, value]) => `(${[...key.map((k, j) => `${k}::${v.keyTypes[j]}`), `${value}::${fill.type}`].join(', ')})`).join(', ');
    await client.query(
      `UPDATE ${v.table} AS t SET ${quoteIdent(v.column)} = v.val FROM (VALUES ${list}) AS v(${[...names, 'val'].join(', ')}) WHERE ${keys.map((k, j) => `t.${k} = v.${names[j]}`).join(' AND ')}`,
    );
  }
  for (const r of rows) await client.query(`ALTER TABLE ${v.table} ${mode(r.tgenabled)} TRIGGER ${quoteIdent(r.tgname)}`);
  for (const s of fill.after) await client.query(s);
}
