// Schema changes on MySQL and MariaDB, undone after the fact although each commits on its own. What a
// statement will change is read from its text before it runs, and only forms Posthoc can take back exactly
// are run: CREATE TABLE, CREATE INDEX (and ALTER TABLE … ADD INDEX/KEY), ALTER TABLE … ADD COLUMN, and
// DROP TABLE of a table nothing references — which Posthoc runs as a RENAME into a trash table of the
// action's own, so undo renames it back (and keep drops it). Everything else (DROP COLUMN, MODIFY, CHANGE,
// RENAME, TRUNCATE, several clauses in one ALTER) is refused before it runs, saying why. Each step records
// the state it left (a table's definition and its rows' checksum, a column's values, an index's columns);
// undo and redo run only while the object is in that state.
import { DbRefusal } from '../db-errors';
import type { DdlOp } from '../undo-log';
import { CAPTURE_PREFIX, identity, type MyCatalog } from './my-catalog';
import { myString, quoteMy, rowsOf, type MyConnection } from './my-client';

/** A schema change Posthoc can take back, read from the statement's text. */
export type DdlPlan =
  | { kind: 'create-table'; table: string }
  | { kind: 'drop-table'; table: string }
  | { kind: 'add-column'; table: string; column: string }
  | { kind: 'add-index'; table: string; index: string };

const NAME = String.raw`(?:\x60((?:[^\x60]|\x60\x60)+)\x60|([A-Za-z0-9_$]+))`;
const unquote = (m: RegExpMatchArray, at: number) => (m[at] !== undefined ? m[at].replace(/``/g, '`') : m[at + 1]!);

/** What a DDL statement will do, or DbRefusal saying why Posthoc will not run it. */
export function planDdl(text: string): DdlPlan {
  const flat = text.replace(/\s+/g, ' ').trim();
  let m: RegExpMatchArray | null;
  if ((m = new RegExp(String.raw`^CREATE (?:TEMPORARY )?TABLE (?:IF NOT EXISTS )?${NAME}`, 'i').exec(flat))) {
    if (/^CREATE TEMPORARY/i.test(flat)) return refuse(text, 'a temporary table lives only in Posthoc\'s own connection; create a real table, or keep the work in one statement');
    return { kind: 'create-table', table: unquote(m, 1) };
  }
  if ((m = new RegExp(String.raw`^DROP TABLE (?:IF EXISTS )?${NAME} ?(?:RESTRICT|CASCADE)?$`, 'i').exec(flat))) return { kind: 'drop-table', table: unquote(m, 1) };
  if ((m = new RegExp(String.raw`^CREATE (?:UNIQUE )?INDEX ${NAME} ON ${NAME} ?\(`, 'i').exec(flat))) return { kind: 'add-index', table: unquote(m, 3), index: unquote(m, 1) };
  const alter = new RegExp(String.raw`^ALTER TABLE ${NAME} (.*)$`, 'i').exec(flat);
  if (alter) {
    const table = unquote(alter, 1);
    const rest = alter[3]!;
    if (topLevelCommas(rest)) return refuse(text, 'it makes several changes in one ALTER TABLE; make each change in a statement of its own');
    if ((m = new RegExp(String.raw`^ADD (?:UNIQUE |FULLTEXT )?(?:INDEX|KEY) ${NAME} ?\(`, 'i').exec(rest))) return { kind: 'add-index', table, index: unquote(m, 1) };
    if ((m = new RegExp(String.raw`^ADD (?:COLUMN )?(?!INDEX\b|KEY\b|UNIQUE\b|PRIMARY\b|CONSTRAINT\b|FOREIGN\b|FULLTEXT\b|SPATIAL\b|CHECK\b|PARTITION\b)${NAME} `, 'i').exec(rest))) {
      if (/\b(FIRST|AFTER)\b/i.test(rest.replace(/'(?:[^'\\]|\\.|'')*'/g, "''"))) return refuse(text, 'Posthoc adds a column at the end only; leave out FIRST and AFTER');
      return { kind: 'add-column', table, column: unquote(m, 1) };
    }
  }
  return refuse(text, 'only CREATE TABLE, CREATE INDEX, ALTER TABLE … ADD COLUMN or ADD INDEX, and DROP TABLE can be taken back exactly (each commits on its own, so what it changes is kept before it runs)');
}

function refuse(text: string, why: string): never {
  const shown = text.replace(/\s+/g, ' ').slice(0, 120);
  throw new DbRefusal(`Posthoc did not run "${shown}" on MySQL/MariaDB: ${why}. Schema changes commit on their own there, so Posthoc runs only those it can undo; ask the person to make other changes themselves.`);
}

function topLevelCommas(sql: string): boolean {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) return true;
  }
  return false;
}

/** The state of what a step concerns: its definition and (for tables and columns) a checksum of its rows. */
export async function objectState(conn: MyConnection, table: string, what: { column?: string; index?: string } = {}): Promise<string> {
  const exists = await rowsOf(conn, `SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${myString(table)}`);
  if (exists[0]![0] === '0') return 'absent';
  if (what.index !== undefined) {
    const cols = await rowsOf(conn, `SELECT GROUP_CONCAT(COLUMN_NAME, ':', NON_UNIQUE ORDER BY SEQ_IN_INDEX) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${myString(table)} AND INDEX_NAME = ${myString(what.index)}`);
    return cols[0]![0] === null ? 'absent' : `index ${cols[0]![0]}`;
  }
  if (what.column !== undefined) {
    const def = await rowsOf(conn, `SELECT COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${myString(table)} AND COLUMN_NAME = ${myString(what.column)}`);
    if (def.length === 0) return 'absent';
    const col = quoteMy(what.column);
    // One value in every row (what ADD COLUMN gives when its default is a constant): rows added or removed
    // since with that value too lose nothing when the column goes.
    const [distinct, only] = (await rowsOf(conn, `SELECT COUNT(DISTINCT QUOTE(${col})), MIN(QUOTE(${col})) FROM ${quoteMy(table)}`))[0]!;
    if (distinct === '1') return `column ${def[0]!.join(' ')} every row ${only}`;
    const keys = await rowsOf(conn, `SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${myString(table)} AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX`);
    const key = keys.map(([k]) => `QUOTE(${quoteMy(k!)})`);
    // Each row's key with the column's value, order-independent: what undo would lose by dropping the column.
    const sum = await rowsOf(conn, `SELECT COUNT(*), BIT_XOR(CRC32(CONCAT_WS(0x1f, ${[...key, `QUOTE(${quoteMy(what.column)})`].join(', ')}))) FROM ${quoteMy(table)}`);
    return `column ${def[0]!.join(' ')} rows ${sum[0]!.join(':')}`;
  }
  const create = (await rowsOf(conn, `SHOW CREATE TABLE ${quoteMy(table)}`))[0]![1]!;
  // The rows as this transaction sees them (CHECKSUM TABLE would not count its own uncommitted writes).
  const cols = await rowsOf(conn, `SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${myString(table)} ORDER BY ORDINAL_POSITION`);
  const sum = await rowsOf(conn, `SELECT COUNT(*), BIT_XOR(CRC32(CONCAT_WS(0x1f, ${cols.map(([c]) => `QUOTE(${quoteMy(c!)})`).join(', ')}))) FROM ${quoteMy(table)}`);
  return `${create.replace(/ AUTO_INCREMENT=\d+/, '')}\nrows ${sum[0]!.join(':')}`;
}

/** Runs a planned step (DROP TABLE as a rename into the trash) and returns how to take it back and forth. */
export async function runDdl(conn: MyConnection, text: string, plan: DdlPlan, catalog: MyCatalog, trash: () => string): Promise<DdlOp> {
  const t = quoteMy(plan.table);
  if (plan.table.startsWith(CAPTURE_PREFIX)) refuse(text, 'posthoc_… tables are Posthoc\'s own');
  switch (plan.kind) {
    case 'create-table': {
      const existed = catalog.has(plan.table);
      await conn.query(text);
      if (existed) return noop(text, plan.table);
      const bin = trash();
      const op = ddlOp(`created table ${plan.table}`, plan.table, [`RENAME TABLE ${t} TO ${quoteMy(bin)}`], [`RENAME TABLE ${quoteMy(bin)} TO ${t}`], [`DROP TABLE IF EXISTS ${quoteMy(bin)}`], { name: plan.table }, { name: bin });
      op.expectAfter = await objectState(conn, plan.table);
      op.expectBefore = 'absent';
      return op;
    }
    case 'drop-table': {
      const table = catalog.get(plan.table);
      if (!table) {
        if (/IF EXISTS/i.test(text)) return noop(text, plan.table);
        refuse(text, `there is no table ${plan.table}`);
      }
      const referenced = [...catalog.values()].filter((x) => x.name !== plan.table && x.foreignKeys.some((f) => f.refTable === plan.table));
      if (referenced.length > 0) refuse(text, `${referenced.map((x) => x.name).join(', ')} ${referenced.length === 1 ? 'has a foreign key' : 'have foreign keys'} into it; drop ${referenced.length === 1 ? 'that key' : 'those keys'} first`);
      const bin = trash();
      const state = await objectState(conn, plan.table);
      // Not dropped: moved aside, rows, keys and triggers with it, until the action is kept.
      await conn.query(`RENAME TABLE ${t} TO ${quoteMy(bin)}`);
      const op = ddlOp(`dropped table ${plan.table}`, plan.table, [`RENAME TABLE ${quoteMy(bin)} TO ${t}`], [`RENAME TABLE ${t} TO ${quoteMy(bin)}`], [`DROP TABLE IF EXISTS ${quoteMy(bin)}`], { name: bin }, { name: plan.table });
      op.expectAfter = await objectState(conn, bin);
      op.expectBefore = state;
      return op;
    }
    case 'add-column': {
      const table = catalog.get(plan.table);
      if (!table) refuse(text, `there is no table ${plan.table}`);
      if (identity(table).length === 0) refuse(text, `${plan.table} has no primary key, so Posthoc cannot check the new column's values before taking it back`);
      await conn.query(text);
      const op = ddlOp(`added column ${plan.column} to ${plan.table}`, plan.table, [`ALTER TABLE ${t} DROP COLUMN ${quoteMy(plan.column)}`], [text], [], { name: plan.table, column: plan.column }, { name: plan.table, column: plan.column });
      op.expectAfter = await objectState(conn, plan.table, { column: plan.column });
      op.expectBefore = 'absent';
      return op;
    }
    case 'add-index': {
      await conn.query(text);
      const op = ddlOp(`added index ${plan.index} to ${plan.table}`, plan.table, [`DROP INDEX ${quoteMy(plan.index)} ON ${t}`], [text], [], { name: plan.table, index: plan.index }, { name: plan.table, index: plan.index });
      op.expectAfter = await objectState(conn, plan.table, { index: plan.index });
      op.expectBefore = 'absent';
      return op;
    }
  }
}

type Target = { name: string; column?: string; index?: string };

function ddlOp(describe: string, object: string, undo: string[], redo: string[], keep: string[], after: Target, before: Target): DdlOp {
  const check = (x: Target) => ({ schema: '', name: x.name, columns: x.column !== undefined ? [x.column] : null, ...(x.index !== undefined ? { column: { name: `index:${x.index}`, keys: [] } } : {}) });
  return { describe, object, undo, redo, keep, checkAfter: check(after), checkBefore: check(before), expectAfter: null, expectBefore: null };
}

function noop(text: string, table: string): DdlOp {
  return { describe: `${text.replace(/\s+/g, ' ').slice(0, 60)} (changed nothing)`, object: table, undo: [], redo: [], keep: [], checkAfter: { schema: '', name: table, columns: [] }, checkBefore: { schema: '', name: table, columns: [] }, expectAfter: null, expectBefore: null };
}

/** The state a step's check names, read now. */
export function stateOf(conn: MyConnection, check: DdlOp['checkAfter']): Promise<string> {
  if (check.column?.name.startsWith('index:')) return objectState(conn, check.name, { index: check.column.name.slice('index:'.length) });
  if (check.columns !== null && check.columns.length === 1) return objectState(conn, check.name, { column: check.columns[0]! });
  return objectState(conn, check.name);
}
