// Capture of an action's row changes on MySQL and MariaDB, by triggers of the action's own. Before the
// action, Posthoc creates a log table and, on every table, AFTER INSERT, UPDATE and DELETE triggers that
// write each row's image before and after — only for Posthoc's own connection (CONNECTION_ID()), so other
// clients writing meanwhile are neither logged nor slowed beyond a comparison. Rows changed by the person's
// triggers are caught the same way (triggers fire triggers). Foreign-key cascades fire no trigger in MySQL
// or MariaDB, so BEFORE DELETE and BEFORE UPDATE triggers on each referenced table log the rows its
// cascades may reach (down the cascade chain), and their state after the action is read back by key.
// Every image is a JSON array of SQL literals, made by the server (QUOTE, HEX), so undo writes back exact
// values. The triggers and the log table are dropped as soon as the action ends: nothing stays in the
// person's database. Creating and dropping them commits (DDL), so they are made before the action's
// transaction starts and dropped after it ends.
import { DbRefusal } from '../db-errors';
import { keyText, type RowEntry, type TableLog } from '../row-log';
import { sameImage } from '../sql-literals';
import { CAPTURE_PREFIX, identity, writtenColumns, type MyCatalog, type MyColumn, type MyTable } from './my-catalog';
import { myString, quoteMy, rowsOf, type MyConnection } from './my-client';

const NUMERIC = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint', 'decimal', 'numeric', 'float', 'double', 'real', 'year']);
const BINARY = new Set(['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob', 'geometry', 'point', 'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon', 'geometrycollection']);

/** A SQL expression giving the literal of a column's value: what undo writes back, and what it compares. */
export function literalExpr(c: MyColumn, ref: string): string {
  // FLOAT prints 6 digits as text; as a double it prints every digit, and reads back as the same float.
  if (c.dataType === 'float') return `IF(${ref} IS NULL, 'NULL', CAST(CAST(${ref} AS DOUBLE) AS CHAR))`;
  if (NUMERIC.has(c.dataType)) return `IF(${ref} IS NULL, 'NULL', CAST(${ref} AS CHAR))`;
  if (c.dataType === 'bit') return `IF(${ref} IS NULL, 'NULL', CONCAT('b''', BIN(${ref}), ''''))`;
  if (BINARY.has(c.dataType)) return `IF(${ref} IS NULL, 'NULL', CONCAT('X''', HEX(${ref}), ''''))`;
  return `QUOTE(${ref})`;
}

/** A row's image: one JSON array of literals, in the order of the table's written columns. */
export function imageExpr(t: MyTable, alias: string): string {
  return `JSON_ARRAY(${writtenColumns(t).map((c) => literalExpr(c, `${alias}.${quoteMy(c.name)}`)).join(', ')})`;
}

/** Where the identity columns sit in an image. */
export function keyIndexes(t: MyTable): number[] {
  const cols = writtenColumns(t).map((c) => c.name);
  return identity(t).map((k) => cols.indexOf(k));
}

type Edge = { child: MyTable; columns: string[]; refColumns: string[] };
const CASCADES = new Set(['CASCADE', 'SET NULL', 'SET DEFAULT']);
const MAX_DEPTH = 6;

/** One logged write: the table, its row before and after (null: absent), and whether it is a cascade's candidate. */
export type LogRecord = { table: string; before: string[] | null; after: string[] | null; cascade: boolean };

export class MyCapture {
  private triggers: string[] = [];
  private installed = false;
  readonly logTable: string;

  private constructor(
    private readonly conn: MyConnection,
    readonly connectionId: number,
  ) {
    this.logTable = `${CAPTURE_PREFIX}log_c${connectionId}`;
  }

  static async open(conn: MyConnection): Promise<MyCapture> {
    const id = Number((await rowsOf(conn, 'SELECT CONNECTION_ID()'))[0]![0]);
    return new MyCapture(conn, id);
  }

  /**
   * Creates the log table and the triggers on every table (each commits: call before the transaction
   * starts). `rows: false` (binary-log capture): only the BEFORE triggers that log what a cascade may reach.
   */
  async install(catalog: MyCatalog, options: { rows: boolean } = { rows: true }): Promise<void> {
    await sweepOrphans(this.conn);
    const q = quoteMy(this.logTable);
    await this.conn.query(`DROP TABLE IF EXISTS ${q}`);
    await this.conn.query(
      `CREATE TABLE ${q} (seq BIGINT AUTO_INCREMENT PRIMARY KEY, tbl VARCHAR(64) NOT NULL, cascade_of TINYINT NOT NULL DEFAULT 0, old_img LONGTEXT NULL, new_img LONGTEXT NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
    );
    this.installed = true;
    const guard = `CONNECTION_ID() = ${this.connectionId}`;
    try {
      for (const t of catalog.values()) {
        const ins = (old: string, neu: string) => `INSERT INTO ${q} (tbl, old_img, new_img) VALUES (${myString(t.name)}, ${old}, ${neu})`;
        if (options.rows) await this.trigger('AFTER INSERT', t, `IF ${guard} THEN ${ins('NULL', imageExpr(t, 'NEW'))}; END IF`);
        if (options.rows) await this.trigger('AFTER UPDATE', t, `IF ${guard} THEN ${ins(imageExpr(t, 'OLD'), imageExpr(t, 'NEW'))}; END IF`);
        if (options.rows) await this.trigger('AFTER DELETE', t, `IF ${guard} THEN ${ins(imageExpr(t, 'OLD'), 'NULL')}; END IF`);
        for (const event of ['DELETE', 'UPDATE'] as const) {
          const reach = cascadeStatements(catalog, t, event, q);
          if (reach.length === 0) continue;
          const refs = [...new Set(edgesFrom(catalog, t, event).flatMap((e) => e.refColumns))];
          const changed = event === 'UPDATE' ? ` AND NOT (${refs.map((c) => `OLD.${quoteMy(c)} <=> NEW.${quoteMy(c)}`).join(' AND ')})` : '';
          await this.trigger(`BEFORE ${event}`, t, `IF ${guard}${changed} THEN ${reach.join('; ')}; END IF`);
        }
      }
    } catch (error) {
      await this.uninstall();
      const e = error as { errno?: number };
      if (e.errno === 1419) {
        throw new DbRefusal(`Posthoc captures with triggers of its own (for foreign-key cascades even when it reads the binary log), and the server refused to create one: ${String((error as Error).message)}. With the binary log on, a user without SUPER may create triggers only when the server runs with log_bin_trust_function_creators=1.`);
      }
      if (e.errno === 1142 || e.errno === 1227) {
        throw new DbRefusal(`Posthoc captures what an action changes with triggers of its own, and the server refused to create one (${String((error as Error).message)}). The user of the grant needs the TRIGGER and CREATE privileges on this database.`);
      }
      throw error;
    }
  }

  /** Binary-log capture: the transaction's first row, by which the stream knows the transaction is the action's. */
  async marker(): Promise<void> {
    await this.conn.query(`INSERT INTO ${quoteMy(this.logTable)} (tbl, cascade_of) VALUES ('', 2)`);
  }

  private async trigger(timing: string, t: MyTable, body: string): Promise<void> {
    const name = `${CAPTURE_PREFIX}c${this.connectionId}_${this.triggers.length + 1}`;
    await this.conn.query(`CREATE TRIGGER ${quoteMy(name)} ${timing} ON ${quoteMy(t.name)} FOR EACH ROW ${body}`);
    this.triggers.push(name);
  }

  /** How many writes were logged so far (the transaction's own). */
  async count(): Promise<number> {
    return Number((await rowsOf(this.conn, `SELECT COUNT(*) FROM ${quoteMy(this.logTable)}`))[0]![0]);
  }

  async records(after = 0, only?: 'cascades'): Promise<LogRecord[]> {
    const rows = await rowsOf(this.conn, `SELECT tbl, cascade_of, old_img, new_img FROM ${quoteMy(this.logTable)} WHERE seq > ${after}${only ? ' AND cascade_of = 1' : ' AND cascade_of < 2'} ORDER BY seq`);
    return rows.map(([table, cascade, old, neu]) => ({ table: table!, cascade: cascade === '1', before: old == null ? null : (JSON.parse(old) as string[]), after: neu == null ? null : (JSON.parse(neu) as string[]) }));
  }

  /** The highest sequence number logged so far. */
  async mark(): Promise<number> {
    return Number((await rowsOf(this.conn, `SELECT COALESCE(MAX(seq), 0) FROM ${quoteMy(this.logTable)}`))[0]![0]);
  }

  /** Drops the triggers and the log table (each commits: call after the transaction ended). */
  async uninstall(): Promise<void> {
    for (const name of this.triggers.splice(0)) await this.conn.query(`DROP TRIGGER IF EXISTS ${quoteMy(name)}`).catch(() => undefined);
    if (this.installed) await this.conn.query(`DROP TABLE IF EXISTS ${quoteMy(this.logTable)}`).catch(() => undefined);
    this.installed = false;
  }
}

/** Rows a cascade may have reached, by table and key text: their images now (absent: deleted). */
export type CascadeState = Map<string, Map<string, string[]>>;

/** The images now of the rows the cascade records name (read before COMMIT in binary-log capture). */
export async function cascadeState(conn: MyConnection, catalog: MyCatalog, records: LogRecord[]): Promise<CascadeState> {
  const keys = new Map<string, Map<string, string[]>>();
  for (const r of records) {
    const t = catalog.get(r.table);
    if (!r.cascade || !t) continue;
    const idx = keyIndexes(t);
    if (idx.length === 0) continue;
    const key = idx.map((i) => r.before![i]!);
    const m = keys.get(r.table) ?? new Map<string, string[]>();
    keys.set(r.table, m);
    m.set(keyText(key), key);
  }
  const out: CascadeState = new Map();
  for (const [table, m] of keys) out.set(table, await currentImages(conn, catalog.get(table)!, [...m.values()]));
  return out;
}

/**
 * What each table's rows were before and after the logged writes, as the undo log's table logs (unchanged
 * rows left out). `cascades`: the state of cascade-reached rows read earlier; absent, it is read now.
 */
export async function foldRecords(conn: MyConnection, catalog: MyCatalog, records: LogRecord[], cascades?: CascadeState, moved?: { rows: number }): Promise<TableLog[]> {
  const moves: Array<{ table: string; from: string; to: string }> = [];
  type State = { first: string[] | null; last: string[] | null; key: string[] };
  const byTable = new Map<string, Map<string, State>>();
  const reread = new Map<string, Map<string, string[]>>();
  for (const r of records) {
    const t = catalog.get(r.table);
    if (!t) continue;
    const idx = keyIndexes(t);
    if (idx.length === 0) {
      throw new DbRefusal(`The action changed rows of ${t.name}, which has no primary key (nor a unique key of NOT NULL columns): Posthoc cannot name its rows to undo them exactly on MySQL or MariaDB. It was rolled back. Add a primary key to ${t.name}, or ask the person to grant the database in held-transaction mode.`);
    }
    const states = byTable.get(r.table) ?? new Map<string, State>();
    byTable.set(r.table, states);
    const keyOf = (image: string[]) => idx.map((i) => image[i]!);
    if (r.cascade) {
      const key = keyOf(r.before!);
      const k = keyText(key);
      if (!states.has(k)) states.set(k, { first: r.before, last: r.before, key });
      const again = reread.get(r.table) ?? new Map<string, string[]>();
      reread.set(r.table, again);
      again.set(k, key);
      continue;
    }
    if (r.before !== null && r.after !== null) {
      const from = keyText(keyOf(r.before));
      const to = keyText(keyOf(r.after));
      if (from !== to) moves.push({ table: r.table, from, to });
    }
    if (r.before !== null) {
      const key = keyOf(r.before);
      const k = keyText(key);
      const s = states.get(k) ?? { first: r.before, last: r.before, key };
      s.last = null;
      states.set(k, s);
    }
    if (r.after !== null) {
      const key = keyOf(r.after);
      const k = keyText(key);
      const s = states.get(k) ?? { first: null, last: null, key };
      s.last = r.after;
      states.set(k, s);
    }
  }
  // Rows a cascade may have reached: their state now is the state the action left.
  for (const [table, keys] of reread) {
    const now = cascades ? (cascades.get(table) ?? new Map<string, string[]>()) : await currentImages(conn, catalog.get(table)!, [...keys.values()]);
    const states = byTable.get(table)!;
    for (const k of keys.keys()) states.get(k)!.last = now.get(k) ?? null;
  }
  // A row whose key changed leaves one key and takes another (two entries, which undo needs): the card counts it once.
  if (moved) {
    const paired = new Set<string>();
    for (const m of moves) {
      const states = byTable.get(m.table)!;
      const a = states.get(m.from);
      const b = states.get(m.to);
      const ends = `${m.table}\u0000${m.from}`;
      const starts = `${m.table}\u0001${m.to}`;
      if (!a || !b || paired.has(ends) || paired.has(starts)) continue;
      if (a.first !== null && a.last === null && b.first === null && b.last !== null) {
        paired.add(ends);
        paired.add(starts);
        moved.rows++;
      }
    }
  }
  const out: TableLog[] = [];
  for (const [table, states] of byTable) {
    const t = catalog.get(table)!;
    const rows: RowEntry[] = [];
    for (const s of states.values()) {
      if (sameImage(s.first, s.last)) continue;
      rows.push({ beforeKey: s.first === null ? null : s.key, before: s.first, afterKey: s.last === null ? null : s.key, after: s.last });
    }
    if (rows.length > 0) out.push(tableLogOf(t, rows));
  }
  return out;
}

export function tableLogOf(t: MyTable, rows: RowEntry[]): TableLog {
  return { table: quoteMy(t.name), label: t.name, columns: writtenColumns(t).map((c) => c.name), keyColumns: identity(t), overridingSystemValue: false, soft: false, rows };
}

/** The images of the rows at these keys now, by key text (absent rows are missing); `columns`: only those, in that order. */
export async function currentImages(conn: MyConnection, t: MyTable, keys: string[][], columns?: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const written = writtenColumns(t);
  const picked = columns ? columns.map((name) => written.find((c) => c.name === name)!) : written;
  const idx = identity(t).map((k) => picked.findIndex((c) => c.name === k));
  const image = `JSON_ARRAY(${picked.map((c) => literalExpr(c, `x.${quoteMy(c.name)}`)).join(', ')})`;
  const cols = identity(t).map((c) => `x.${quoteMy(c)}`);
  const unique = [...new Map(keys.map((k) => [keyText(k), k])).values()];
  for (let i = 0; i < unique.length; i += 1000) {
    const chunk = unique.slice(i, i + 1000);
    const where = `(${cols.join(', ')}) IN (${chunk.map((k) => `(${k.join(', ')})`).join(', ')})`;
    for (const [img] of await rowsOf(conn, `SELECT ${image} FROM ${quoteMy(t.name)} AS x WHERE ${where}`)) {
      const row = JSON.parse(img!) as string[];
      out.set(keyText(idx.map((j) => row[j]!)), row);
    }
  }
  return out;
}

function edgesFrom(catalog: MyCatalog, parent: MyTable, event: 'DELETE' | 'UPDATE'): Edge[] {
  const out: Edge[] = [];
  for (const child of catalog.values()) {
    for (const fk of child.foreignKeys) {
      if (fk.refTable !== parent.name) continue;
      if (CASCADES.has(event === 'DELETE' ? fk.onDelete : fk.onUpdate)) out.push({ child, columns: fk.columns, refColumns: fk.refColumns });
    }
  }
  return out;
}

/** INSERT … SELECT statements logging every row a cascade from one row of `parent` (OLD) may reach, down the chain. */
function cascadeStatements(catalog: MyCatalog, parent: MyTable, event: 'DELETE' | 'UPDATE', log: string): string[] {
  const out: string[] = [];
  const walk = (path: Edge[]): void => {
    const last = path.at(-1)!;
    out.push(`INSERT INTO ${log} (tbl, cascade_of, old_img) SELECT ${myString(last.child.name)}, 1, ${imageExpr(last.child, 'x0')} FROM ${quoteMy(last.child.name)} AS x0 WHERE ${condition(path, 0)}`);
    // A deleted child cascades its own deletes; an updated one, the updates of its referenced columns.
    if (path.length < MAX_DEPTH && out.length < 64) for (const e of edgesFrom(catalog, last.child, event)) walk([...path, e]);
  };
  for (const e of edgesFrom(catalog, parent, event)) walk([e]);
  return out;
}

/** The condition on the last table of a cascade path (alias x<level>): its rows reached from OLD. */
function condition(path: Edge[], level: number): string {
  const last = path.at(-1)!;
  const alias = `x${level}`;
  if (path.length === 1) return last.columns.map((c, i) => `${alias}.${quoteMy(c)} = OLD.${quoteMy(last.refColumns[i]!)}`).join(' AND ');
  const up = `x${level + 1}`;
  const prev = path.at(-2)!;
  return `(${last.columns.map((c) => `${alias}.${quoteMy(c)}`).join(', ')}) IN (SELECT ${last.refColumns.map((c) => `${up}.${quoteMy(c)}`).join(', ')} FROM ${quoteMy(prev.child.name)} AS ${up} WHERE ${condition(path.slice(0, -1), level + 1)})`;
}

/**
 * Drops capture objects left by a connection that no longer exists (a crash mid-action). Without the PROCESS
 * privilege the process list shows only the user's own connections, and another user's live capture would
 * look dead: then nothing is swept.
 */
export async function sweepOrphans(conn: MyConnection): Promise<void> {
  const grants = (await rowsOf(conn, 'SHOW GRANTS')).map(([g]) => g ?? '').join('\n');
  if (!/GRANT ALL PRIVILEGES ON \*\.\*|GRANT [^\n]*\bPROCESS\b[^\n]* ON \*\.\*/i.test(grants)) return;
  const live = new Set((await rowsOf(conn, 'SELECT ID FROM information_schema.PROCESSLIST')).map(([id]) => id));
  const idOf = (name: string) => /^posthoc_(?:log_)?c(\d+)(?:_\d+)?$/.exec(name)?.[1];
  for (const [name] of await rowsOf(conn, `SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() AND TRIGGER_NAME LIKE 'posthoc\\_c%'`)) {
    const id = idOf(name!);
    if (id !== undefined && !live.has(id)) await conn.query(`DROP TRIGGER IF EXISTS ${quoteMy(name!)}`);
  }
  for (const [name] of await rowsOf(conn, `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE 'posthoc\\_log\\_c%'`)) {
    const id = idOf(name!);
    if (id !== undefined && !live.has(id)) await conn.query(`DROP TABLE IF EXISTS ${quoteMy(name!)}`);
  }
}
