// What an action did to a database, in words a person reads at a glance: a schema change by what it changed
// ("column products.sku added") rather than the row count the database reports for it, and rows changed by
// the statements that change rows. Pure; no React.
import type { DbEffect } from '../../../shared/domain';

const ident = String.raw`(?:"[^"]+"|\x60[^\x60]+\x60|\[[^\]]+\]|[\w$.]+)`;
const unquote = (name: string): string => name.replace(/^["`[]|["`\]]$/g, '');
const ifExists = String.raw`(?:IF\s+(?:NOT\s+)?EXISTS\s+)?`;

/** One DDL statement in words ("column products.sku added"), or null when it is not one Posthoc names. */
export function schemaChangeWords(sql: string): string | null {
  const text = sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ').replace(/\s+/g, ' ').trim();
  let m: RegExpExecArray | null;
  const re = (source: string) => new RegExp(`^${source}`, 'i');
  if ((m = re(String.raw`ALTER TABLE (?:ONLY )?${ifExists}(${ident}) (.*)$`).exec(text))) {
    const table = unquote(m[1]!);
    const rest = m[2]!;
    let a: RegExpExecArray | null;
    if ((a = re(String.raw`ADD (?:COLUMN )?${ifExists}(${ident})`).exec(rest)) && !/^ADD (CONSTRAINT|PRIMARY|UNIQUE|FOREIGN|CHECK)\b/i.test(rest))
      return `column ${table}.${unquote(a[1]!)} added`;
    if ((a = re(String.raw`DROP (?:COLUMN )?${ifExists}(${ident})`).exec(rest)) && !/^DROP CONSTRAINT\b/i.test(rest))
      return `column ${table}.${unquote(a[1]!)} dropped`;
    if ((a = re(String.raw`RENAME (?:COLUMN )?(${ident}) TO (${ident})`).exec(rest)) && !/^RENAME TO\b/i.test(rest))
      return `column ${table}.${unquote(a[1]!)} renamed to ${unquote(a[2]!)}`;
    if ((a = re(String.raw`RENAME TO (${ident})`).exec(rest))) return `table ${table} renamed to ${unquote(a[1]!)}`;
    if ((a = re(String.raw`ALTER (?:COLUMN )?(${ident})`).exec(rest))) return `column ${table}.${unquote(a[1]!)} changed`;
    if (/^(ADD|DROP) CONSTRAINT\b|^ADD (PRIMARY|UNIQUE|FOREIGN|CHECK)\b/i.test(rest)) return `constraint on ${table} ${/^ADD/i.test(rest) ? 'added' : 'dropped'}`;
    return `table ${table} altered`;
  }
  if ((m = re(String.raw`CREATE (?:TEMP(?:ORARY)? |UNLOGGED )?TABLE ${ifExists}(${ident})`).exec(text))) return `table ${unquote(m[1]!)} created`;
  if ((m = re(String.raw`DROP TABLE ${ifExists}(${ident})`).exec(text))) return `table ${unquote(m[1]!)} dropped`;
  if ((m = re(String.raw`CREATE (?:UNIQUE )?INDEX (?:CONCURRENTLY )?${ifExists}(${ident}) ON (${ident})`).exec(text))) return `index ${unquote(m[1]!)} on ${unquote(m[2]!)} created`;
  if ((m = re(String.raw`DROP INDEX (?:CONCURRENTLY )?${ifExists}(${ident})`).exec(text))) return `index ${unquote(m[1]!)} dropped`;
  if ((m = re(String.raw`CREATE (?:OR REPLACE )?(?:MATERIALIZED )?VIEW ${ifExists}(${ident})`).exec(text))) return `view ${unquote(m[1]!)} created`;
  if ((m = re(String.raw`DROP (?:MATERIALIZED )?VIEW ${ifExists}(${ident})`).exec(text))) return `view ${unquote(m[1]!)} dropped`;
  if ((m = re(String.raw`TRUNCATE (?:TABLE )?(${ident})`).exec(text))) return `table ${unquote(m[1]!)} emptied`;
  return null;
}

/** What one database effect changed: its rows (by the row-changing statements), and its schema changes in words. */
export function dbChangeWords(effect: DbEffect): { rows: number; schema: string[] } {
  const ddl = effect.statements.filter((s) => s.kind === 'ddl');
  if (ddl.length === 0) return { rows: effect.rowsAffected, schema: [] };
  // A schema change's "rows affected" (SQLite counts the table's rows it rewrote) are not rows the person changed.
  const rows = effect.statements.reduce((n, s) => n + (s.kind === 'dml' ? (s.rowsAffected ?? 0) : 0), 0);
  const schema = ddl.map((s) => schemaChangeWords(s.sql) ?? `schema of ${effect.database} changed`);
  return { rows, schema: [...new Set(schema)] };
}
