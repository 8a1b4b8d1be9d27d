// npm run bench:db — what change capture costs. In one run, on SQLite, PostgreSQL and MySQL/MariaDB: an UPDATE of
// 10,000 rows run plainly (the driver alone: open, BEGIN, UPDATE, COMMIT) and through Posthoc with capture
// (the same, plus classification, before-images, the undo log and its compensating SQL), alternating,
// and the undo of each captured UPDATE (conflict check, the compensating statements, verification).
// Capture's time by step (main/effects/db/step-timer.ts). SQLite captures small files by pages (two images
// of the file, compared in C; sqlite-pages.ts) and larger ones with per-row triggers: both are measured,
// with an UPDATE of one row beside each (page capture's cost does not depend on the rows changed), and the
// floor of per-row capture: the plain UPDATE with one temporary trigger logging each row's images.
// Medians over BENCH_ROUNDS rounds (default 7). The last line is `capture/plain ratio: X` for the engine
// where capture costs most. PostgreSQL: POSTHOC_TEST_PG_URL / POSTHOC_TEST_PG_PASSWORD (the test server
// `scripts/setup-test-env.sh postgres` starts); MySQL/MariaDB: POSTHOC_TEST_MYSQL_URL / POSTHOC_TEST_MYSQL_PASSWORD
// (`scripts/setup-test-env.sh mysql`); without a server each is skipped and says so.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DatabaseGrant, DbEffect } from '../shared/domain';
import { DbChannel } from '../main/effects/db/db-channel';
import { dbEngines } from '../tests/support/db-engines';
import { sqliteCaptureDescription } from '../main/effects/db/sqlite/sqlite-pages';
import { stepTimer } from '../main/effects/db/step-timer';
import { createPgDatabase, pgSecrets, sqliteGrant, type PgTestDb } from '../tests/support/shop-db';
import { createMyDatabase, MY_PASSWORD, mySecrets, type MyTestDb } from '../tests/support/mysql-db';
import mysql from 'mysql2/promise';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROWS = 10_000;
const UPDATE = 'UPDATE items SET price = price + 1, qty = qty + 1';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

type Result = { engine: string; plain: number; capture: number; undo: number; steps: Map<string, number>; floor?: number; others?: Array<{ label: string; r: Result }> };

async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function measure(engine: string, grant: DatabaseGrant, plain: () => Promise<void> | void, sql = UPDATE, rows = ROWS): Promise<Result> {
  return (await measureEach(engine, [grant], plain, sql, rows))[0]!;
}

/** Each round: the plain statement, then each grant's action and its undo, in turn (rounds interleaved). */
async function measureEach(engine: string, grants: DatabaseGrant[], plain: () => Promise<void> | void, sql = UPDATE, rows = ROWS): Promise<Result[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'posthoc-bench-db-'));
  const channel = new DbChannel(dataDir, dbEngines(async (name) => (await pgSecrets(name)) ?? mySecrets(name)));
  const plainTimes: number[] = [];
  const each = grants.map(() => ({ capture: [] as number[], undo: [] as number[], steps: new Map<string, number[]>() }));
  try {
    for (let round = 0; round <= ROUNDS; round++) {
      const p = await timed(plain);
      if (round > 0) plainTimes.push(p);
      for (const [i, grant] of grants.entries()) {
        let effect: DbEffect | undefined;
        const steps = stepTimer.start();
        const c = await timed(async () => {
          const r = await channel.run({ taskId: 'bench', actionId: `a${round}-${i}`, grant, sql, params: null, via: 'sql', approved: true, timeoutMs: 600_000 });
          if (r.status !== 'done') throw new Error(r.stderr);
          effect = r.effect;
        });
        stepTimer.stop();
        if (effect!.rowsAffected !== rows) throw new Error(`captured ${effect!.rowsAffected} rows, expected ${rows}`);
        const u = await timed(() => channel.undo(effect!));
        if (round === 0) continue; // warm-up
        each[i]!.capture.push(c);
        each[i]!.undo.push(u);
        for (const [step, t] of steps) each[i]!.steps.set(step, [...(each[i]!.steps.get(step) ?? []), t]);
      }
    }
  } finally {
    await channel.shutdown();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return each.map((e) => ({ engine, plain: median(plainTimes), capture: median(e.capture), undo: median(e.undo), steps: new Map([...e.steps].map(([step, ts]) => [step, median(ts)])) }));
}

async function sqlite(): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'posthoc-bench-sqlite-'));
  const file = join(dir, 'bench.db');
  const db = new Database(file);
  db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL, price INTEGER NOT NULL, qty INTEGER NOT NULL, note TEXT)');
  const insert = db.prepare('INSERT INTO items (sku, name, price, qty, note) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) insert.run(`SKU-${i}`, `Item ${i}`, 100 + (i % 997), i % 13, i % 3 ? null : `note ${i}`);
  })();
  db.close();
  // The floor of any per-row capture: the plain UPDATE with one temporary trigger that logs each row's
  // before- and after-image into an in-memory table (SQLite then updates in two passes).
  const floor: number[] = [];
  const cols = ['id', 'sku', 'name', 'price', 'qty', 'note'];
  for (let round = 0; round <= ROUNDS; round++) {
    const t = performance.now();
    const c = new Database(file, { fileMustExist: true });
    c.pragma('foreign_keys = ON');
    c.pragma('temp_store = MEMORY');
    c.exec('BEGIN IMMEDIATE');
    c.exec(`CREATE TEMP TABLE log (seq INTEGER PRIMARY KEY, k, ${cols.map((x) => `o_${x}, n_${x}`).join(', ')})`);
    c.exec(`CREATE TEMP TRIGGER log_u AFTER UPDATE ON main.items BEGIN INSERT INTO log (k, ${cols.map((x) => `o_${x}, n_${x}`).join(', ')}) VALUES (old.rowid, ${cols.map((x) => `old.${x}, new.${x}`).join(', ')}); END`);
    c.prepare(UPDATE).run();
    c.exec('DROP TRIGGER log_u; DROP TABLE log; COMMIT');
    c.close();
    if (round > 0) floor.push(performance.now() - t);
  }
  const grant = sqliteGrant(file, { name: 'bench', maxRowsAffected: 1_000_000 });
  const plain = (sql: string) => () => {
    const c = new Database(file, { fileMustExist: true });
    c.pragma('foreign_keys = ON');
    c.exec('BEGIN IMMEDIATE');
    c.prepare(sql).run();
    c.exec('COMMIT');
    c.close();
  };
  // Page capture's cost does not depend on how many rows change: an UPDATE of one row shows its fixed part.
  const ONE_ROW = 'UPDATE items SET qty = qty + 1 WHERE id = 5000';
  try {
    const r = await measure('sqlite', grant, plain(UPDATE));
    const onePages = await measure('sqlite', grant, plain(ONE_ROW), ONE_ROW, 1);
    process.env.POSTHOC_SQLITE_CAPTURE = 'triggers';
    const triggers = await measure('sqlite', grant, plain(UPDATE));
    const oneTriggers = await measure('sqlite', grant, plain(ONE_ROW), ONE_ROW, 1);
    delete process.env.POSTHOC_SQLITE_CAPTURE;
    const others = [
      { label: 'with trigger capture (files over the page-capture limit)', r: triggers },
      { label: 'one-row UPDATE, page capture', r: onePages },
      { label: 'one-row UPDATE, trigger capture', r: oneTriggers },
    ];
    return { ...r, floor: median(floor), others };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres(): Promise<Result | string> {
  let db: PgTestDb;
  try {
    db = await createPgDatabase('posthoc_bench');
  } catch (error) {
    return `PostgreSQL skipped: no test server (${error instanceof Error ? error.message : String(error)}); start one with: sudo bash scripts/setup-test-env.sh postgres`;
  }
  const setup = await db.connect();
  try {
    await setup.query('CREATE TABLE items (id integer PRIMARY KEY, sku text NOT NULL UNIQUE, name text NOT NULL, price numeric(10, 2) NOT NULL, qty integer NOT NULL, note text)');
    await setup.query(`INSERT INTO items SELECT i, 'SKU-' || i, 'Item ' || i, 100 + i % 997, i % 13, CASE WHEN i % 3 = 0 THEN 'note ' || i END FROM generate_series(0, ${ROWS - 1}) i`);
    await setup.query('VACUUM ANALYZE items');
    const password = (await pgSecrets('test-pg-password'))!;
    const url = new URL(db.url);
    url.password = encodeURIComponent(password);
    return await measure('postgres', db.grant({ name: 'bench', maxRowsAffected: 1_000_000 }), async () => {
      const c = new pg.Client({ connectionString: url.toString() });
      await c.connect();
      await c.query('BEGIN');
      await c.query(UPDATE);
      await c.query('COMMIT');
      await c.end();
    });
  } finally {
    await setup.end();
    await db.drop();
  }
}

async function mariadb(): Promise<Result | string> {
  let db: MyTestDb;
  try {
    db = await createMyDatabase('posthoc_test_bench');
  } catch (error) {
    return `MySQL/MariaDB skipped: no test server (${error instanceof Error ? error.message : String(error)}); start one with: sudo bash scripts/setup-test-env.sh mysql`;
  }
  const setup = await db.connect();
  try {
    await setup.query('CREATE TABLE items (id integer PRIMARY KEY, sku varchar(40) NOT NULL UNIQUE, name text NOT NULL, price decimal(10, 2) NOT NULL, qty integer NOT NULL, note text) ENGINE=InnoDB');
    await setup.query(`INSERT INTO items SELECT seq, CONCAT('SKU-', seq), CONCAT('Item ', seq), 100 + seq % 997, seq % 13, IF(seq % 3 = 0, CONCAT('note ', seq), NULL) FROM seq_0_to_${ROWS - 1}`);
    await setup.query('ANALYZE TABLE items');
    const u = new URL(db.grant().location);
    const connect = () => mysql.createConnection({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username), password: MY_PASSWORD, database: u.pathname.slice(1) });
    // The floor of per-row capture by triggers: the plain UPDATE with one trigger that does nothing but run
    // (MariaDB runs a trigger body per row), made before and dropped after the timer.
    const floor: number[] = [];
    const c = await connect();
    await c.query('CREATE TRIGGER bench_floor AFTER UPDATE ON items FOR EACH ROW SET @posthoc_bench = 1');
    for (let round = 0; round <= ROUNDS; round++) {
      const t = performance.now();
      await c.query('START TRANSACTION');
      await c.query(UPDATE);
      await c.query('COMMIT');
      if (round > 0) floor.push(performance.now() - t);
    }
    await c.query('DROP TRIGGER bench_floor');
    await c.end();
    // Capture through the binary log and by triggers, asked for by the grant's URL, in the same rounds.
    const grant = (capture: string) => {
      const g = db.grant({ name: 'bench', maxRowsAffected: 1_000_000 });
      const at = new URL(g.location);
      at.searchParams.set('capture', capture);
      return { ...g, location: at.toString() };
    };
    const [binlog, triggers] = await measureEach('mysql', [grant('binlog'), grant('triggers')], async () => {
      const p = await connect();
      await p.query('START TRANSACTION');
      await p.query(UPDATE);
      await p.query('COMMIT');
      await p.end();
    });
    return { ...binlog!, floor: median(floor), others: [{ label: 'capture by triggers', r: triggers! }] };
  } finally {
    await setup.end();
    await db.drop();
  }
}

async function main(): Promise<void> {
  console.log(`UPDATE of ${ROWS} rows, ${ROUNDS} rounds (+1 warm-up), medians; SQLite capture: ${sqliteCaptureDescription()}`);
  const results: Result[] = [];
  // BENCH_ONLY=mysql (or sqlite, postgres; comma-separated) measures those engines alone.
  const only = process.env.BENCH_ONLY?.split(',');
  for (const run of [sqlite, postgres, mariadb].filter((f) => !only || only.includes(f === mariadb ? 'mysql' : f.name))) {
    const r = await run();
    if (typeof r === 'string') {
      console.log(r);
      continue;
    }
    results.push(r);
    console.log(`${r.engine.padEnd(8)} plain (driver alone):   ${ms(r.plain)}`);
    if (r.floor !== undefined) console.log(`${r.engine.padEnd(8)} plain + one ${r.engine === 'mysql' ? 'empty' : 'logging'} trigger (floor of per-row capture): ${ms(r.floor)}`);
    console.log(`${r.engine.padEnd(8)} Posthoc with capture:  ${ms(r.capture)}`);
    console.log(`${r.engine.padEnd(8)} undo of it:            ${ms(r.undo)}`);
    const counted = [...r.steps.values()].reduce((a, b) => a + b, 0);
    console.log(`${r.engine.padEnd(8)} capture, by step (medians): ${[...r.steps].map(([step, t]) => `${step} ${t.toFixed(2)}`).join(' · ')} · elsewhere ${(r.capture - counted).toFixed(2)}`);
    for (const o of r.others ?? []) {
      console.log(`${r.engine.padEnd(8)} ${o.label}: plain ${ms(o.r.plain)}, Posthoc ${ms(o.r.capture)} (${(o.r.capture / o.r.plain).toFixed(2)}x), undo ${ms(o.r.undo)}`);
      if (o.r.steps.size > 0) console.log(`${r.engine.padEnd(8)} ${o.label}, by step (medians): ${[...o.r.steps].map(([step, t]) => `${step} ${t.toFixed(2)}`).join(' · ')}`);
    }
  }
  for (const r of results) console.log(`${r.engine} capture/plain ratio: ${(r.capture / r.plain).toFixed(2)}`);
  const worst = Math.max(...results.map((r) => r.capture / r.plain));
  console.log(`capture/plain ratio: ${worst.toFixed(2)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
