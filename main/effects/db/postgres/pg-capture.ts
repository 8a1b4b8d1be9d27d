// Change capture for PostgreSQL: statement-level AFTER triggers with transition tables on every table,
// created inside the action's transaction (and dropped before it commits, so no other session ever sees
// them), log each statement's old and new rows as record text into a temporary table. Cascades and the
// person's own triggers run as statements of their own and are logged too. An UPDATE's old and new rows
// are logged in the same order, so each row's before- and after-image pair up even when its key changed.
// The log lives in the database only for the action's transaction (ON COMMIT DROP): what undo needs of it
// is copied into Posthoc's data folder before COMMIT, so nothing of Posthoc stays in the person's database.
import type Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { DbRefusal } from '../db-errors';
import { isTable, LOG_SCHEMA, relLabel, relSql, type Catalog, type PgRelation } from './pg-catalog';
import { pgMessage, type PgClient } from './pg-client';
import { rowFileRows, saveRowFile, type RowFile } from './pg-row-file';
import type { LazySource, RowEntry, TableLog } from '../row-log';
import { parseRecordText, pgLiteral, quoteIdent } from '../sql-literals';

type Entry = { beforeKey: string[] | null; before: string[] | null; cur: string | null; curKey: string[] | null; after: string[] | null };
type Tracker = { rel: PgRelation; keyIdx: number[]; writeIdx: number[]; entries: Entry[]; byCur: Map<string, Slot>; byOrig: Map<string, Slot> };
/** A log row as read: the statement's invocation, the relation, op, and the record texts before and after. */
type LogRow = [inv: string, rel: string, op: string, o: string | null, n: string | null];


/** Where a lazy table's rows are: its relation's rows in the action's log table. */
/** PostgreSQL: the rows as logged, in a SQLite file beside the undo log (`file`), or, in logs of earlier versions, in a log table in the database (`log`). */
export type PgLazy = { engine: 'postgres'; file?: string; log?: string; rel: string; keyIdx: number[]; writeIdx: number[] };

/** The PostgreSQL folder's lazy source, or null for another engine's. */
export function pgSource(source: LazySource | undefined): PgLazy | null {
  return source?.engine === 'postgres' ? (source as unknown as PgLazy) : null;
}

/** What the log and the catalog say after a statement (one round trip). */
export type Probe = { logged: number; catalogWrites: string; intact: boolean; otherLogs: boolean };

/**
 * Log rows: one per row a statement changed — op ('i' inserted, 'd' deleted, 'u' updated, 'x' updated to
 * the same values, 'm' updated to another key), k and nk the key as text before and after, o and n the
 * record text before and after — ordered by the statement's invocation and the row's place in it.
 *
 * With a `rowFile`, the log is read only at the end (lazy): the rows of a table whose rows were each
 * touched once and kept their key are copied, as logged, into that file before COMMIT and read again only
 * when undo or redo needs them; the card gets its first statements and the count from SQL. Other tables,
 * and every table once a statement changed the schema, are read and merged into one entry per row in
 * JavaScript.
 */
export class PgCapture {
  readonly tag = randomBytes(6).toString('hex');
  private readonly trackers = new Map<string, Tracker>();
  private lastInv = 0;
  private installed = new Set<string>();
  private logTable = '';
  /** The log is read only at the end (no schema change so far). */
  private lazy = false;

  constructor(
    private readonly client: PgClient,
    private readonly options: { rowFile?: RowFile } = {},
  ) {}

  private get log(): string {
    return this.logTable;
  }

  private trigger(kind: string): string {
    return quoteIdent(`posthoc_${this.tag}_${kind}`);
  }

  async install(catalog: Catalog): Promise<void> {
    const columns = '(inv bigint, ord bigint, rel oid, op "char", k text, nk text, o text, n text)';
    this.lazy = this.options.rowFile !== undefined;
    this.logTable = `pg_temp.${quoteIdent(`posthoc_log_${this.tag}`)}`;
    const fn = `pg_temp.${quoteIdent(`posthoc_capture_${this.tag}`)}`;
    const log = this.log.replace(/'/g, "''");
    // A lazy log needs each row's key (TG_ARGV[0], an expression of row r; NULL for a table without one)
    // and whether an update changed it, in SQL. Otherwise the log is read row by row anyway: the body stays
    // static, so PostgreSQL plans it once, not for each of undo's many one-row statements.
    const body = this.lazy
      ? `IF TG_OP = 'INSERT' THEN
    EXECUTE format('INSERT INTO ${log} (inv, ord, rel, op, k, n) SELECT $1, row_number() OVER (), $2, ''i'', %s, r::text FROM posthoc_new r', TG_ARGV[0]) USING inv, TG_RELID;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE format('INSERT INTO ${log} (inv, ord, rel, op, k, o) SELECT $1, row_number() OVER (), $2, ''d'', %s, r::text FROM posthoc_old r', TG_ARGV[0]) USING inv, TG_RELID;
  ELSE
    -- An UPDATE's old and new rows come in the same order: the k-th old row became the k-th new one.
    EXECUTE format('INSERT INTO ${log} (inv, ord, rel, op, k, nk, o, n)
      SELECT $1, z.ord, $2, CASE WHEN z.k IS DISTINCT FROM z.nk THEN ''m'' WHEN z.o = z.n THEN ''x'' ELSE ''u'' END, z.k, z.nk, z.o, z.n
      FROM unnest(ARRAY(SELECT %s FROM posthoc_old r), ARRAY(SELECT %s FROM posthoc_new r), ARRAY(SELECT r::text FROM posthoc_old r), ARRAY(SELECT r::text FROM posthoc_new r))
        WITH ORDINALITY AS z(k, nk, o, n, ord)', TG_ARGV[0], TG_ARGV[0]) USING inv, TG_RELID;
  END IF;`
      : `IF TG_OP = 'INSERT' THEN
    INSERT INTO ${this.log} (inv, ord, rel, op, n) SELECT inv, row_number() OVER (), TG_RELID, 'i', r::text FROM posthoc_new r;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO ${this.log} (inv, ord, rel, op, o) SELECT inv, row_number() OVER (), TG_RELID, 'd', r::text FROM posthoc_old r;
  ELSE
    -- An UPDATE's old and new rows come in the same order: the k-th old row became the k-th new one.
    INSERT INTO ${this.log} (inv, ord, rel, op, o, n)
      SELECT inv, z.ord, TG_RELID, 'u', z.o, z.n FROM unnest(ARRAY(SELECT r::text FROM posthoc_old r), ARRAY(SELECT r::text FROM posthoc_new r)) WITH ORDINALITY AS z(o, n, ord);
  END IF;`;
    const sql = [
      `CREATE TEMP TABLE ${quoteIdent(`posthoc_log_${this.tag}`)} ${columns} ON COMMIT DROP`,
      `CREATE TEMP SEQUENCE ${quoteIdent(`posthoc_inv_${this.tag}`)}`,
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $posthoc$
DECLARE inv bigint := nextval('pg_temp.${`posthoc_inv_${this.tag}`}');
BEGIN
  ${body}
  RETURN NULL;
END $posthoc$`,
    ];
    try {
      await this.client.query(sql.join(';\n'));
    } catch (error) {
      throw captureRefusal(error);
    }
    this.fn = fn;
    await this.addTables(catalog);
  }

  private fn = '';

  /** Puts the capture triggers on every table that does not have them yet (all of them at first, then tables created since). */
  async addTables(catalog: Catalog): Promise<void> {
    const sql: string[] = [];
    const fn = this.fn;
    for (const rel of [...catalog.relations.values()].filter((r) => isTable(r) && !r.parent && !this.installed.has(r.oid))) {
      const on = relSql(rel);
      const keys = identityColumns(rel).map((c) => `r.${quoteIdent(c)}`);
      const key = keys.length === 0 ? 'NULL::text' : keys.length === 1 ? `(${keys[0]})::text` : `ROW(${keys.join(', ')})::text`;
      const arg = `'${key.replace(/'/g, "''")}'`;
      sql.push(
        `CREATE TRIGGER ${this.trigger('i')} AFTER INSERT ON ${on} REFERENCING NEW TABLE AS posthoc_new FOR EACH STATEMENT EXECUTE FUNCTION ${fn}(${arg})`,
        `CREATE TRIGGER ${this.trigger('u')} AFTER UPDATE ON ${on} REFERENCING OLD TABLE AS posthoc_old NEW TABLE AS posthoc_new FOR EACH STATEMENT EXECUTE FUNCTION ${fn}(${arg})`,
        `CREATE TRIGGER ${this.trigger('d')} AFTER DELETE ON ${on} REFERENCING OLD TABLE AS posthoc_old FOR EACH STATEMENT EXECUTE FUNCTION ${fn}(${arg})`,
      );
      this.installed.add(rel.oid);
    }
    if (sql.length === 0) return;
    try {
      await this.client.query(sql.join(';\n'));
    } catch (error) {
      throw captureRefusal(error);
    }
  }

  /**
   * After a statement, in one round trip: how many rows the log holds, a count of this transaction's writes
   * to the system catalogs (unchanged: the statement changed no schema, so the catalog need not be read
   * again), and what `check` needs to know that Posthoc's capture is intact on the catalog's tables.
   */
  async probe(catalog: Catalog): Promise<Probe> {
    const live = [...this.installed].filter((oid) => catalog.relations.has(oid));
    const res = await this.client.query(
      `SELECT (SELECT count(*) FROM pg_trigger WHERE tgname LIKE $1 AND tgenabled <> 'D' AND tgrelid = ANY($2::oid[])) AS triggers,
              (SELECT count(*) FROM ${this.log}) AS rows,
              (SELECT n_tup_ins - n_tup_del - n_tup_upd FROM pg_stat_xact_all_tables WHERE relid = '${this.log.replace(/'/g, "''")}'::regclass) AS net,
              (SELECT sum(pg_stat_get_xact_tuples_inserted(c.oid) + pg_stat_get_xact_tuples_updated(c.oid) + pg_stat_get_xact_tuples_deleted(c.oid))
                 FROM pg_class c WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relkind = 'r') AS catalog,
              (SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_xact_all_tables
                 WHERE schemaname = '${LOG_SCHEMA}' AND relid <> '${this.log.replace(/'/g, "''")}'::regclass) AS others`,
      [`posthoc\\_${this.tag}\\_%`, live],
    );
    const row = res.rows[0] as { triggers: string; rows: string; net: string | null; catalog: string; others: string };
    return {
      logged: Number(row.rows),
      catalogWrites: row.catalog,
      intact: Number(row.triggers) === live.length * 3 && (row.net === null || Number(row.net) === Number(row.rows)),
      otherLogs: Number(row.others) > 0,
    };
  }

  /** Refuses the action if a statement dropped, disabled or changed Posthoc's capture (as the probe found it). */
  check(probe: Probe): void {
    if (probe.otherLogs) {
      throw new DbRefusal(`A statement wrote to the row logs Posthoc keeps for undoing earlier actions (schema ${LOG_SCHEMA}); everything was rolled back. Leave that schema alone.`);
    }
    if (!probe.intact) {
      throw new DbRefusal('A statement dropped, disabled or changed Posthoc\'s change capture, so its effects could not be recorded; everything was rolled back. Do not touch posthoc_* triggers or tables.');
    }
  }

  /** Checks the capture is intact on the catalog's tables. */
  async verify(catalog: Catalog): Promise<void> {
    this.check(await this.probe(catalog));
  }

  /** True while the log is read only at the end. */
  get isLazy(): boolean {
    return this.lazy;
  }

  /** Reads what the statements logged since the last call, with the columns the catalog had while they ran; from now on the log is read as it grows. */
  async drain(catalog: Catalog): Promise<void> {
    this.lazy = false;
    const res = await this.client.query({ text: `SELECT inv, rel::text, op, o, n FROM ${this.log} WHERE inv > $1 ORDER BY inv, ord`, values: [this.lastInv], rowMode: 'array' });
    const rows = res.rows as LogRow[];
    for (const r of rows) this.apply(catalog, r);
    if (rows.length > 0) this.lastInv = Number(rows[rows.length - 1]![0]);
  }

  /** Rows changed so far (each row once), of what was read. */
  rowsChanged(): number {
    let n = 0;
    for (const t of this.trackers.values()) n += t.entries.length;
    return n;
  }

  /** The changes logged so far as table logs, starting afresh (a schema change starts a new segment). */
  takeSegment(): TableLog[] {
    const out: TableLog[] = [];
    for (const t of this.trackers.values()) {
      const table = toTableLog(t);
      if (table.rows.length > 0) out.push(table);
    }
    this.trackers.clear();
    return out;
  }

  /**
   * The end of a lazy capture: per table, lazy (its rows are copied as logged into the row file; the first
   * `preview` of each kind are read for the card, with the count) when each row was touched once and kept
   * its key, else read and merged now. Drops the log. In table order (the catalog's).
   */
  async finish(catalog: Catalog, preview: number): Promise<TableLog[]> {
    // One statement's rows of one table are distinct rows (PostgreSQL changes a row at most once per
    // statement; what triggers and cascades change are statements of their own), so their keys are
    // distinct: only a table several statements changed needs its keys counted.
    const stats = await this.client.query({
      text: `SELECT rel::text, count(*), min(inv) = max(inv), count(*) FILTER (WHERE op = 'm'), count(*) FILTER (WHERE op = 'd'),
                    count(*) FILTER (WHERE op = 'u'), count(*) FILTER (WHERE op = 'i'), bool_or(k IS NULL) FROM ${this.log} GROUP BY rel ORDER BY min(inv)`,
      rowMode: 'array',
    });
    type Stat = [rel: string, total: string, oneStatement: boolean | string, moved: string, d: string, u: string, i: string, keyless: boolean | string];
    const rows = stats.rows as Stat[];
    const yes = (v: boolean | string) => v === true || v === 't';
    const several = rows.filter((r) => !yes(r[2]) && !yes(r[7]) && r[3] === '0').map((r) => r[0]);
    const distinct = new Map<string, string>();
    if (several.length > 0) {
      const res = await this.client.query({ text: `SELECT rel::text, count(DISTINCT k) FROM ${this.log} WHERE rel = ANY($1::oid[]) GROUP BY rel`, values: [several], rowMode: 'array' });
      for (const [rel, n] of res.rows as Array<[string, string]>) distinct.set(rel, n);
    }
    const lazyRels = new Map<string, Record<'d' | 'u' | 'i', number>>();
    const eager: string[] = [];
    // Tables in the order they first changed, as a log read row by row would have them.
    const order: string[] = [];
    for (const [rel, total, oneStatement, moved, d, u, i, keyless] of rows) {
      order.push(rel);
      const keysOnce = yes(oneStatement) || distinct.get(rel) === total;
      if (yes(keyless) || !keysOnce || moved !== '0') eager.push(rel);
      else lazyRels.set(rel, { d: Number(d), u: Number(u), i: Number(i) });
    }
    if (eager.length > 0) {
      const res = await this.client.query({ text: `SELECT inv, rel::text, op, o, n FROM ${this.log} WHERE rel = ANY($1::oid[]) ORDER BY inv, ord`, values: [eager], rowMode: 'array' });
      for (const r of res.rows as LogRow[]) this.apply(catalog, r);
    }
    const merged = new Map(this.takeSegment().map((t) => [t.table, t]));
    const file = this.options.rowFile!;
    // Rows updated to the values they held are no change: a table with only those needs no row file.
    const saved = [...lazyRels].filter(([, c]) => c.d + c.u + c.i > 0).map(([rel]) => rel);
    if (saved.length > 0) await saveRowFile(this.client, this.log, saved, file);
    const out: TableLog[] = [];
    for (const oid of order) {
      const rel = catalog.relations.get(oid);
      if (!rel) throw new Error(`Captured rows of a relation (${oid}) that is not in the catalog.`);
      const counts = lazyRels.get(rel.oid);
      if (counts) {
        const count = counts.d + counts.u + counts.i;
        if (count === 0) continue;
        const source = lazySource(file.name, rel);
        const rows = await this.previewRows(source, counts, preview);
        out.push({ ...tableShape(rel), rows, lazy: { count, source } });
      } else {
        const t = merged.get(relSql(rel));
        if (t) out.push(t);
      }
    }
    await this.client.query(`DROP TABLE ${this.log}`);
    return out;
  }

  private async previewRows(source: PgLazy, counts: Record<'d' | 'u' | 'i', number>, limit: number): Promise<RowEntry[]> {
    const parts = (['d', 'u', 'i'] as const)
      .filter((op) => counts[op] > 0)
      .map((op) => `(SELECT inv, ord, op, o, n FROM ${this.log} WHERE rel = ${Number(source.rel)} AND op = '${op}' ORDER BY inv, ord LIMIT ${limit})`);
    const res = await this.client.query({ text: `SELECT op, o, n FROM (${parts.join(' UNION ALL ')}) s ORDER BY inv, ord`, rowMode: 'array' });
    return (res.rows as Array<[string, string | null, string | null]>).map(([op, o, n]) => lazyEntry(source, op, o, n));
  }

  async uninstall(): Promise<void> {
    const res = await this.client.query(`SELECT tgrelid::regclass::text AS rel, tgname FROM pg_trigger WHERE tgname LIKE $1`, [`posthoc\\_${this.tag}\\_%`]);
    const drops = (res.rows as Array<{ rel: string; tgname: string }>).map((r) => `DROP TRIGGER ${quoteIdent(r.tgname)} ON ${r.rel}`);
    drops.push(`DROP FUNCTION IF EXISTS pg_temp.${quoteIdent(`posthoc_capture_${this.tag}`)}()`);
    await this.client.query(drops.join(';\n'));
  }

  private apply(catalog: Catalog, row: LogRow): void {
    const [, oid, op, o, n] = row;
    const rel = catalog.relations.get(oid);
    if (!rel) throw new Error(`Captured rows of a relation (${oid}) that is not in the catalog.`);
    let t = this.trackers.get(oid);
    if (!t) {
      const { keyIdx, writeIdx } = indexes(rel);
      t = { rel, keyIdx, writeIdx, entries: [], byCur: new Map(), byOrig: new Map() };
      this.trackers.set(oid, t);
    }
    if (op === 'i') this.inserted(t, parseRecordText(n!));
    else if (op === 'd') this.deleted(t, parseRecordText(o!));
    else this.updated(t, parseRecordText(o!), parseRecordText(n!));
  }

  private inserted(t: Tracker, image: Array<string | null>): void {
    const key = literalsAt(image, t.keyIdx);
    const text = key.join('\u0000');
    const e = take(t.byOrig, text, (x) => x.cur === null) ?? track(t, null, null);
    e.cur = text;
    e.curKey = key;
    e.after = literalsAt(image, t.writeIdx);
    put(t.byCur, text, e);
  }

  private deleted(t: Tracker, image: Array<string | null>): void {
    const key = literalsAt(image, t.keyIdx);
    const text = key.join('\u0000');
    const e = take(t.byCur, text) ?? track(t, key, literalsAt(image, t.writeIdx), text);
    e.cur = null;
    e.curKey = null;
    e.after = null;
  }

  private updated(t: Tracker, old: Array<string | null>, now: Array<string | null>): void {
    const from = literalsAt(old, t.keyIdx);
    const fromText = from.join('\u0000');
    const to = literalsAt(now, t.keyIdx);
    const toText = to.join('\u0000');
    const e = take(t.byCur, fromText) ?? track(t, from, literalsAt(old, t.writeIdx), fromText);
    e.cur = toText;
    e.curKey = to;
    e.after = literalsAt(now, t.writeIdx);
    put(t.byCur, toText, e);
  }
}

function captureRefusal(error: unknown): DbRefusal {
  return new DbRefusal(
    `Posthoc could not set up change capture on this database (${pgMessage(error)}). Capture needs the TRIGGER privilege on the tables; grant it (GRANT TRIGGER ON ALL TABLES IN SCHEMA public TO your_role) or grant the database in held-transaction mode.`,
  );
}

function literalsAt(image: Array<string | null>, idx: number[]): string[] {
  const out = new Array<string>(idx.length);
  for (let i = 0; i < idx.length; i++) out[i] = pgLiteral(image[idx[i]!] ?? null);
  return out;
}

function track(t: Tracker, key: string[] | null, before: string[] | null, keyText?: string): Entry {
  const e: Entry = { beforeKey: key, before, cur: null, curKey: null, after: before };
  t.entries.push(e);
  if (keyText !== undefined) put(t.byOrig, keyText, e);
  return e;
}

/** Several entries can share a key only in a table without one (identical rows); one is the common case. */
type Slot = Entry | Entry[];

function put(map: Map<string, Slot>, key: string, e: Entry): void {
  const slot = map.get(key);
  if (slot === undefined) map.set(key, e);
  else if (Array.isArray(slot)) slot.push(e);
  else map.set(key, [slot, e]);
}

function take(map: Map<string, Slot>, key: string, where: (e: Entry) => boolean = () => true): Entry | undefined {
  const slot = map.get(key);
  if (slot === undefined) return undefined;
  if (!Array.isArray(slot)) {
    if (!where(slot)) return undefined;
    map.delete(key);
    return slot;
  }
  const i = slot.findIndex(where);
  if (i === -1) return undefined;
  const [e] = slot.splice(i, 1);
  if (slot.length === 0) map.delete(key);
  return e;
}

/** Identity columns: the primary key, else a unique key on NOT NULL columns, else every column (a keyless table). */
export function identityColumns(rel: PgRelation): string[] {
  return rel.uniqueKeys[0] ?? [];
}

function toTableLog(t: Tracker): TableLog {
  const keyed = identityColumns(t.rel).length > 0;
  const rows: RowEntry[] = t.entries
    .filter((e) => !(e.before === null && e.after === null))
    .filter((e) => !(e.before !== null && e.after !== null && e.before.join('\u0000') === e.after.join('\u0000') && (e.beforeKey ?? []).join('\u0000') === (e.curKey ?? []).join('\u0000')))
    .map((e) => ({ beforeKey: keyed ? e.beforeKey : null, afterKey: keyed ? e.curKey : null, before: e.before, after: e.after }));
  return { ...tableShape(t.rel), rows };
}

function indexes(rel: PgRelation): { keyIdx: number[]; writeIdx: number[] } {
  const keys = identityColumns(rel);
  const keyIdx = keys.length > 0 ? keys.map((c) => rel.columns.findIndex((x) => x.name === c)) : rel.columns.map((_, i) => i);
  const writeIdx = rel.columns.flatMap((c, i) => (c.generated ? [] : [i]));
  return { keyIdx, writeIdx };
}

function tableShape(rel: PgRelation): Omit<TableLog, 'rows'> {
  return {
    table: relSql(rel),
    label: relLabel(rel),
    columns: rel.columns.filter((c) => !c.generated).map((c) => c.name),
    keyColumns: identityColumns(rel),
    overridingSystemValue: rel.columns.some((c) => c.identityAlways),
    soft: false,
  };
}

function lazySource(file: string, rel: PgRelation): PgLazy {
  return { engine: 'postgres', file, rel: rel.oid, ...indexes(rel) };
}

/** Every entry of a lazy table, read from the action's row file in Posthoc's data folder (undo and redo). */
export function readRowFile(file: Database.Database, source: PgLazy): RowEntry[] {
  return rowFileRows(file, source.rel).map(([op, o, n]) => lazyEntry(source, op, o, n));
}

/** A log row of a lazy table as its entry (each row was touched once and kept its key). */
function lazyEntry(source: PgLazy, op: string, o: string | null, n: string | null): RowEntry {
  const before = o === null ? null : parseRecordText(o);
  const after = n === null ? null : parseRecordText(n);
  return {
    beforeKey: op === 'i' ? null : literalsAt(before!, source.keyIdx),
    afterKey: op === 'd' ? null : literalsAt(after!, source.keyIdx),
    before: op === 'i' ? null : literalsAt(before!, source.writeIdx),
    after: op === 'd' ? null : literalsAt(after!, source.writeIdx),
  };
}

/** Every entry of a lazy table in a log table an earlier version of Posthoc left in the database (undo and redo). */
export async function readLazyRows(client: PgClient, source: PgLazy & { log: string }): Promise<RowEntry[]> {
  let res;
  try {
    res = await client.query({ text: `SELECT op, o, n FROM ${source.log} WHERE rel = $1 AND op IN ('i', 'u', 'd') ORDER BY inv, ord`, values: [source.rel], rowMode: 'array' });
  } catch (error) {
    throw new DbRefusal(`The row log of this action (${source.log}) is missing from the database (${pgMessage(error)}), so it cannot be undone exactly.`);
  }
  return (res.rows as Array<[string, string | null, string | null]>).map(([op, o, n]) => lazyEntry(source, op, o, n));
}
