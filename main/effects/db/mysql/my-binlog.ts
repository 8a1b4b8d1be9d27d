// Capture of an action's row changes through the server's row-based binary log (binlog_format=ROW,
// binlog_row_image=FULL), read by a replication client (@vlasky/zongji) from the position the server was
// at before the action's first transaction. The stream holds every transaction of every client: the
// action's own are known by their first row, a marker Posthoc writes into its per-action log table as the
// transaction's first statement (MariaDB's GTID event replaces the BEGIN query that carries MySQL's thread
// id, so the marker is what works on both). Each row image arrives as values the reader decoded; they are
// turned into the same SQL literals the server's QUOTE/HEX/CAST make (my-capture's `literalExpr`), so
// undo and its conflict checks read them exactly as they read the trigger-made ones. Foreign-key cascades
// are not in the row-based log (a replica applies them itself): the BEFORE triggers of my-capture still
// log the rows a cascade may reach, into the same log table, and those rows arrive through the stream too.
import type ZongJi from '@vlasky/zongji';
import { DbRefusal } from '../db-errors';
import { writtenColumns, type MyCatalog, type MyColumn } from './my-catalog';
import { myString, rowsOf, type MyConnection } from './my-client';
import type { LogRecord } from './my-capture';

/** How capture is asked for on a grant: `?capture=binlog|triggers` at the end of its URL; absent: auto. */
export type CaptureMode = 'binlog' | 'triggers';
export type CaptureChoice = CaptureMode | 'auto';

export function captureChoice(location: string): CaptureChoice {
  const asked = new URL(location).searchParams.get('capture');
  if (asked === null || asked === '' || asked === 'auto') return 'auto';
  if (asked === 'binlog' || asked === 'triggers') return asked;
  throw new DbRefusal(`The grant's URL asks for capture=${asked}; write capture=binlog, capture=triggers or leave it out (auto: the binary log where the server allows it, else triggers).`);
}

export type BinlogPosition = { file: string; position: number };

const SPATIAL = new Set(['geometry', 'point', 'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon', 'geometrycollection']);

/** Why this connection cannot capture through the binary log (the setting or privilege to change), or null when it can. */
export async function binlogRefusal(conn: MyConnection, catalog: MyCatalog): Promise<string | null> {
  const [logBin, format, image, logOn] = (await rowsOf(conn, 'SELECT @@GLOBAL.log_bin, @@SESSION.binlog_format, @@SESSION.binlog_row_image, @@SESSION.sql_log_bin'))[0]!;
  if (logBin !== '1') return 'the server runs without the binary log (log_bin is OFF; start it with log_bin, binlog_format=ROW and binlog_row_image=FULL)';
  if (format !== 'ROW') return `binlog_format is ${format}, not ROW (set binlog_format=ROW on the server)`;
  if (image !== 'FULL') return `binlog_row_image is ${image}, not FULL (set binlog_row_image=FULL on the server)`;
  if (logOn !== '1') return 'sql_log_bin is off for this connection';
  const grants = (await rowsOf(conn, 'SHOW GRANTS')).map(([g]) => g ?? '').join('\n');
  const all = /GRANT ALL PRIVILEGES ON \*\.\*/i.test(grants);
  if (!all && !/\bREPLICATION SLAVE\b/i.test(grants)) return 'the user of the grant lacks the REPLICATION SLAVE privilege (GRANT REPLICATION SLAVE ON *.*)';
  if (!all && !/\b(BINLOG MONITOR|REPLICATION CLIENT|SUPER)\b/i.test(grants)) return 'the user of the grant lacks the BINLOG MONITOR privilege (REPLICATION CLIENT on MySQL) to read the log position';
  for (const t of catalog.values()) {
    const c = t.columns.find((x) => SPATIAL.has(x.dataType));
    if (c) return `the table ${t.name} has a spatial column (${c.name}), which the binary log reader does not return byte for byte`;
  }
  return null;
}

export async function masterPosition(conn: MyConnection): Promise<BinlogPosition> {
  const [rows] = await conn.query('SHOW MASTER STATUS');
  const row = (rows as Array<{ File: string; Position: string | number }>)[0];
  if (!row) throw new DbRefusal('The server reports no binary log position (SHOW MASTER STATUS is empty): is log_bin on?');
  return { file: row.File, position: Number(row.Position) };
}

function after(a: BinlogPosition, b: BinlogPosition): boolean {
  return a.file > b.file || (a.file === b.file && a.position >= b.position);
}

type RawRow = { raw: true; table: string; before: Record<string, unknown> | null; after: Record<string, unknown> | null };
type RowsEvent = { getEventName(): string; nextPosition: number; tableMap: Record<number, { parentSchema: string; tableName: string }>; tableId: number; rows: Array<Record<string, unknown>> };

/** One replication stream for one action, from a position taken before its first transaction. */
export class BinlogReader {
  private readonly zongji: ZongJi;
  private at: BinlogPosition;
  private ours: boolean | null = null;
  /** The action's writes in stream order: cascade candidates as records, the rest as decoded rows. */
  private seen: Array<LogRecord | RawRow> = [];
  private failure: Error | null = null;
  private waiters: Array<() => void> = [];

  private constructor(
    Client: typeof ZongJi,
    options: Record<string, unknown>,
    private readonly database: string,
    private readonly logTable: string,
    from: BinlogPosition,
  ) {
    this.at = { ...from };
    this.zongji = new Client({ ...options, dateStrings: true, timezone: 'Z', jsonStrings: true, supportBigNumbers: true, bigNumberStrings: true } as never);
  }

  /** Starts reading at `from`; resolves once the server streams (rejects, naming why, when it refuses). */
  static async open(options: Record<string, unknown>, database: string, logTable: string, from: BinlogPosition): Promise<BinlogReader> {
    // The replication client is loaded when an action is first captured this way, not with the services.
    const { default: Client } = await import('@vlasky/zongji');
    const reader = new BinlogReader(Client, options, database, logTable, from);
    await reader.start(from);
    return reader;
  }

  private start(from: BinlogPosition): Promise<void> {
    return new Promise((resolve, reject) => {
      let ready = false;
      this.zongji.on('ready', () => {
        ready = true;
        resolve();
      });
      this.zongji.on('error', (error: Error) => {
        this.failure = error;
        if (!ready) reject(new DbRefusal(`The server refused to stream its binary log to Posthoc (${error.message}).`));
        this.wake();
      });
      this.zongji.on('binlog', (event: unknown) => this.take(event as RowsEvent & { binlogName?: string }));
      this.zongji.start({
        // A replica id of this stream's own: two streams with one id would cut each other off.
        serverId: 0x40000000 + Math.floor(Math.random() * 0x3fffffff),
        filename: from.file,
        position: from.position,
        includeEvents: ['rotate', 'mariadbgtid', 'gtid', 'anonymousgtid', 'tablemap', 'writerows', 'updaterows', 'deleterows', 'xid', 'query'],
        includeSchema: { [this.database]: true },
      });
    });
  }

  private take(event: RowsEvent & { binlogName?: string }): void {
    const name = event.getEventName();
    if (name === 'rotate') {
      if (event.binlogName) this.at = { file: event.binlogName, position: 4 };
      return;
    }
    if (name === 'mariadbgtid' || name === 'gtid' || name === 'anonymousgtid') this.ours = null;
    else if (name === 'writerows' || name === 'updaterows' || name === 'deleterows') this.rows(name, event);
    if (event.nextPosition > 0) this.at = { file: this.at.file, position: event.nextPosition };
    this.wake();
  }

  private rows(name: string, event: RowsEvent): void {
    const t = event.tableMap[event.tableId];
    if (!t || t.parentSchema !== this.database) return;
    // A transaction is the action's when its first row is the marker in the action's log table.
    if (this.ours === null) this.ours = t.tableName === this.logTable && name === 'writerows';
    if (!this.ours) return;
    if (t.tableName === this.logTable) {
      if (name !== 'writerows') return;
      for (const r of event.rows) {
        if (String(r.cascade_of) !== '1') continue;
        this.seen.push({ table: String(r.tbl), cascade: true, before: JSON.parse(String(r.old_img)) as string[], after: null });
      }
      return;
    }
    for (const r of event.rows) {
      if (name === 'updaterows') {
        const u = r as { before: Record<string, unknown>; after: Record<string, unknown> };
        this.seen.push({ raw: true, table: t.tableName, before: u.before, after: u.after });
      } else this.seen.push({ raw: true, table: t.tableName, before: name === 'deleterows' ? r : null, after: name === 'writerows' ? r : null });
    }
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until the stream has passed `target` (the server's position after the action's commit). */
  async reach(target: BinlogPosition, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!after(this.at, target)) {
      if (this.failure) throw new DbRefusal(`The binary log stream broke before it reached the action's commit (${this.failure.message}).`);
      const left = deadline - Date.now();
      if (left <= 0) throw new DbRefusal(`The binary log stream did not reach the action's commit (${target.file}:${target.position}) within ${timeoutMs / 1000} s.`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1000));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The action's writes read since the last call, in order, as log records of literals (timestamps in the session's time zone). */
  async takeRecords(conn: MyConnection, catalog: MyCatalog): Promise<LogRecord[]> {
    const seen = this.seen.splice(0);
    const raw = seen.filter((x): x is RawRow => 'raw' in x && catalog.has(x.table));
    const literal = await literalMaker(conn, catalog, raw);
    const out: LogRecord[] = [];
    for (const x of seen) {
      if (!('raw' in x)) out.push(x);
      else if (catalog.has(x.table)) out.push({ table: x.table, cascade: false, before: x.before && literal(x.table, x.before), after: x.after && literal(x.table, x.after) });
    }
    return out;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      this.zongji.once('stopped', () => {
        clearTimeout(timer);
        resolve();
      });
      try {
        this.zongji.stop();
      } catch {
        clearTimeout(timer);
        resolve();
      }
    });
  }
}

const NUMERIC = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint', 'decimal', 'numeric', 'year']);
const FLOATS = new Set(['float', 'double', 'real']);
const BINARY = new Set(['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob']);

/** QUOTE() as the server writes it: backslash, quote, NUL and Ctrl-Z escaped. */
export function quoteLikeServer(text: string): string {
  if (!/[\\'\0\x1a]/.test(text)) return `'${text}'`;
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\0/g, '\\0').replace(/\x1a/g, '\\Z')}'`;
}

function literalOf(c: MyColumn, v: unknown, timestamp: (text: string) => string, double: (n: number) => string): string {
  if (v === null || v === undefined) return 'NULL';
  if (FLOATS.has(c.dataType)) return double(Number(v));
  if (c.dataType === 'year') return Number(v) === 0 ? '0000' : String(v);
  if (NUMERIC.has(c.dataType)) return typeof v === 'bigint' ? v.toString() : String(v);
  if (c.dataType === 'bit') {
    const buf = v as Buffer;
    let n = 0n;
    for (const b of buf) n = (n << 8n) | BigInt(b);
    return `b'${n.toString(2)}'`;
  }
  if (BINARY.has(c.dataType)) return `X'${Buffer.from(v as Buffer).toString('hex').toUpperCase()}'`;
  if (c.dataType === 'timestamp') return quoteLikeServer(timestamp(String(v)));
  return quoteLikeServer(Buffer.isBuffer(v) ? v.toString('utf8') : String(v));
}

/**
 * Makes literals of decoded rows, in the order of the table's written columns. TIMESTAMP values arrive in
 * UTC; unless the session's time zone is UTC they are turned into its time by the server, once per value.
 */
async function literalMaker(conn: MyConnection, catalog: MyCatalog, raw: RawRow[]): Promise<(table: string, row: Record<string, unknown>) => string[]> {
  const stamps = new Map<string, string>();
  const hasStamp = raw.some((r) => catalog.get(r.table)?.columns.some((c) => c.dataType === 'timestamp'));
  if (hasStamp) {
    const [zone, system] = (await rowsOf(conn, 'SELECT @@SESSION.time_zone, @@system_time_zone'))[0]!;
    const utc = /^[+-]00:00$/.test(zone!) || (zone === 'SYSTEM' && /^(UTC|GMT|Etc\/UTC|Universal|Z)$/i.test(system ?? ''));
    if (!utc) {
      const distinct = new Set<string>();
      for (const r of raw) {
        const t = catalog.get(r.table);
        for (const c of t?.columns ?? []) if (c.dataType === 'timestamp') for (const row of [r.before, r.after]) if (row && row[c.name] != null) distinct.add(String(row[c.name]));
      }
      const list = [...distinct].filter((s) => !s.startsWith('0000-00-00'));
      for (let i = 0; i < list.length; i += 500) {
        const chunk = list.slice(i, i + 500);
        const fsp = (s: string) => s.split('.')[1]?.length ?? 0;
        // One row of columns, not a UNION (whose first SELECT would set the width of every value).
        const sql = `SELECT ${chunk.map((s) => `CAST(CAST(CONVERT_TZ(CAST(${myString(s)} AS DATETIME(${fsp(s)})), '+00:00', @@SESSION.time_zone) AS DATETIME(${fsp(s)})) AS CHAR)`).join(', ')}`;
        const row = (await rowsOf(conn, sql))[0]!;
        chunk.forEach((s, j) => stamps.set(s, row[j]!));
      }
    }
  }
  const timestamp = (text: string) => stamps.get(text) ?? text;
  // FLOAT and DOUBLE as CAST(… AS CHAR) prints them (its digits and exponents are the server's own): each
  // value once, through the server. JavaScript's shortest form reads back as the same double.
  const doubles = new Map<string, string>();
  const floats = new Set<string>();
  for (const r of raw) {
    const cols = catalog.get(r.table)?.columns.filter((c) => FLOATS.has(c.dataType)) ?? [];
    for (const c of cols) for (const row of [r.before, r.after]) if (row && row[c.name] != null) floats.add(String(Number(row[c.name])));
  }
  const floatList = [...floats];
  for (let i = 0; i < floatList.length; i += 500) {
    const chunk = floatList.slice(i, i + 500);
    const row = (await rowsOf(conn, `SELECT ${chunk.map((x) => `CAST(CAST(${myString(x)} AS DOUBLE) AS CHAR)`).join(', ')}`))[0]!;
    chunk.forEach((x, j) => doubles.set(x, row[j]!));
  }
  const double = (n: number) => doubles.get(String(n)) ?? String(n);
  const columns = new Map<string, MyColumn[]>();
  return (table, row) => {
    let cols = columns.get(table);
    if (!cols) columns.set(table, (cols = writtenColumns(catalog.get(table)!)));
    return cols.map((c) => literalOf(c, row[c.name], timestamp, double));
  };
}
