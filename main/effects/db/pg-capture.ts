// Change capture for PostgreSQL: statement-level AFTER triggers with transition tables on every table,
// created inside the action's transaction (and dropped before it commits, so no other session ever sees
// them), log each statement's old and new rows as record text into a temporary table. Cascades and the
// person's own triggers run as statements of their own and are logged too. An UPDATE's old and new rows
// are logged in the same order, so each row's before- and after-image pair up even when its key changed.
import { randomBytes } from 'node:crypto';
import { DbRefusal } from './db-errors';
import { isTable, relLabel, relSql, type Catalog, type PgRelation } from './pg-catalog';
import { pgMessage, type PgClient } from './pg-client';
import type { RowEntry, TableLog } from './row-log';
import { parseRecordText, pgLiteral, quoteIdent } from './sql-literals';

type Entry = { beforeKey: string[] | null; before: string[] | null; cur: string | null; curKey: string[] | null; after: string[] | null };
type Tracker = { rel: PgRelation; keyIdx: number[]; writeIdx: number[]; entries: Entry[]; byCur: Map<string, Slot>; byOrig: Map<string, Slot> };

export class PgCapture {
  readonly tag = randomBytes(6).toString('hex');
  private readonly trackers = new Map<string, Tracker>();
  private lastSeq = 0;
  private installed = new Set<string>();

  constructor(private readonly client: PgClient) {}

  private get log(): string {
    return `pg_temp.${quoteIdent(`posthoc_log_${this.tag}`)}`;
  }

  private trigger(kind: string): string {
    return quoteIdent(`posthoc_${this.tag}_${kind}`);
  }

  async install(catalog: Catalog): Promise<void> {
    const fn = `pg_temp.${quoteIdent(`posthoc_capture_${this.tag}`)}`;
    const sql = [
      `CREATE TEMP TABLE ${quoteIdent(`posthoc_log_${this.tag}`)} (seq bigserial PRIMARY KEY, inv bigint, rel oid, op "char", img text) ON COMMIT DROP`,
      `CREATE TEMP SEQUENCE ${quoteIdent(`posthoc_inv_${this.tag}`)}`,
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $posthoc$
DECLARE inv bigint := nextval('pg_temp.${`posthoc_inv_${this.tag}`}');
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO ${this.log} (inv, rel, op, img) SELECT inv, TG_RELID, 'i', n::text FROM posthoc_new n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO ${this.log} (inv, rel, op, img) SELECT inv, TG_RELID, 'd', o::text FROM posthoc_old o;
  ELSE
    INSERT INTO ${this.log} (inv, rel, op, img) SELECT inv, TG_RELID, 'o', o::text FROM posthoc_old o;
    INSERT INTO ${this.log} (inv, rel, op, img) SELECT inv, TG_RELID, 'n', n::text FROM posthoc_new n;
  END IF;
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
      sql.push(
        `CREATE TRIGGER ${this.trigger('i')} AFTER INSERT ON ${on} REFERENCING NEW TABLE AS posthoc_new FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
        `CREATE TRIGGER ${this.trigger('u')} AFTER UPDATE ON ${on} REFERENCING OLD TABLE AS posthoc_old NEW TABLE AS posthoc_new FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
        `CREATE TRIGGER ${this.trigger('d')} AFTER DELETE ON ${on} REFERENCING OLD TABLE AS posthoc_old FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
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

  /** Checks that the statements did not drop, disable or empty Posthoc's capture; the action is refused if they did. */
  async verify(catalog: Catalog): Promise<void> {
    const live = [...this.installed].filter((oid) => catalog.relations.has(oid));
    const res = await this.client.query(
      `SELECT (SELECT count(*) FROM pg_trigger WHERE tgname LIKE $1 AND tgenabled <> 'D' AND tgrelid = ANY($2::oid[])) AS triggers,
              (SELECT count(*) FROM ${this.log}) AS rows,
              (SELECT n_tup_ins - n_tup_del - n_tup_upd FROM pg_stat_xact_all_tables WHERE relid = '${this.log}'::regclass) AS net`,
      [`posthoc\\_${this.tag}\\_%`, live],
    );
    const row = res.rows[0] as { triggers: string; rows: string; net: string | null };
    if (Number(row.triggers) !== live.length * 3 || (row.net !== null && Number(row.net) !== Number(row.rows))) {
      throw new DbRefusal('A statement dropped, disabled or changed Posthoc\'s change capture, so its effects could not be recorded; everything was rolled back. Do not touch posthoc_* triggers or tables.');
    }
  }

  /** Reads what the statements logged since the last call, with the columns the catalog had while they ran. */
  async drain(catalog: Catalog): Promise<void> {
    const res = await this.client.query({ text: `SELECT seq, inv, rel::text, op, img FROM ${this.log} WHERE seq > $1 ORDER BY seq`, values: [this.lastSeq], rowMode: 'array' });
    const rows = res.rows as Array<[string, string, string, string, string]>;
    let i = 0;
    while (i < rows.length) {
      const inv = rows[i]![1];
      let j = i;
      while (j < rows.length && rows[j]![1] === inv) j++;
      this.apply(catalog, rows.slice(i, j));
      i = j;
    }
    if (rows.length > 0) this.lastSeq = Number(rows[rows.length - 1]![0]);
  }

  /** Rows changed so far (each row once). */
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

  async uninstall(): Promise<void> {
    const res = await this.client.query(`SELECT tgrelid::regclass::text AS rel, tgname FROM pg_trigger WHERE tgname LIKE $1`, [`posthoc\\_${this.tag}\\_%`]);
    const drops = (res.rows as Array<{ rel: string; tgname: string }>).map((r) => `DROP TRIGGER ${quoteIdent(r.tgname)} ON ${r.rel}`);
    drops.push(`DROP FUNCTION IF EXISTS pg_temp.${quoteIdent(`posthoc_capture_${this.tag}`)}()`);
    await this.client.query(drops.join(';\n'));
  }

  private apply(catalog: Catalog, rows: Array<[string, string, string, string, string]>): void {
    const oid = rows[0]![2];
    const rel = catalog.relations.get(oid);
    if (!rel) throw new Error(`Captured rows of a relation (${oid}) that is not in the catalog.`);
    let t = this.trackers.get(oid);
    if (!t) {
      const keys = identityColumns(rel);
      const keyIdx = keys.length > 0 ? keys.map((c) => rel.columns.findIndex((x) => x.name === c)) : rel.columns.map((_, i) => i);
      const writeIdx = rel.columns.flatMap((c, i) => (c.generated ? [] : [i]));
      t = { rel, keyIdx, writeIdx, entries: [], byCur: new Map(), byOrig: new Map() };
      this.trackers.set(oid, t);
    }
    const op = rows[0]![3];
    if (op === 'i') for (const r of rows) this.inserted(t, parseRecordText(r[4]));
    else if (op === 'd') for (const r of rows) this.deleted(t, parseRecordText(r[4]));
    else {
      // An UPDATE logs its old rows, then its new rows, in the same order: the k-th old row became the k-th new one.
      const half = rows.length / 2;
      for (let k = 0; k < half; k++) this.updated(t, parseRecordText(rows[k]![4]), parseRecordText(rows[half + k]![4]));
    }
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
  return {
    table: relSql(t.rel),
    label: relLabel(t.rel),
    columns: t.rel.columns.filter((c) => !c.generated).map((c) => c.name),
    keyColumns: identityColumns(t.rel),
    overridingSystemValue: t.rel.columns.some((c) => c.identityAlways),
    soft: false,
    rows,
  };
}
