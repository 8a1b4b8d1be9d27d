// npm run bench:sqlite-size — SQLite capture and undo against the plain UPDATE, by file size and rows changed.
// Files of ~1 MiB, ~64 MiB and (BENCH_LARGE=1) ~1 GiB, each a table items (id, sku, name, price, qty, note).
// For each file: an UPDATE of one row and an UPDATE of a million rows (every row of the 1 MiB file), each
// run plainly (better-sqlite3 alone: open, BEGIN IMMEDIATE, UPDATE, COMMIT, close) and as a Posthoc action
// (DbChannel.run with capture: classification, capture, undo log before COMMIT, the card's statements),
// rounds interleaved (plain, Posthoc, undo of Posthoc's), one warm-up round; medians. The undo of each
// action is timed too (the conflict check of every row, the compensation, its checks). Also, once per file,
// the session extension (node:sqlite: createSession, the UPDATE, changeset()) against the same plain UPDATE
// — measured, not used. Prints the load average before and after (the machine may be shared). Temporary
// files are removed as the bench goes (each action's images, then each file).
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DbEffect } from '../shared/domain';
import { DbChannel } from '../main/effects/db/db-channel';
import { sqliteCaptureDescription } from '../main/effects/db/sqlite/sqlite-pages';
import { stepTimer } from '../main/effects/db/step-timer';
import { dbEngines } from '../tests/support/db-engines';
import { sqliteGrant } from '../tests/support/shop-db';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const MILLION = 1_000_000;
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`);

/** Rows for a file of about `mib` MiB (~60 bytes a row here). */
const SIZES: Array<{ label: string; rows: number; rounds: number }> = [
  { label: '1 MiB', rows: 17_000, rounds: ROUNDS },
  { label: '64 MiB', rows: 1_100_000, rounds: Math.min(ROUNDS, 3) },
  ...(process.env.BENCH_LARGE === '1' ? [{ label: '1 GiB', rows: 17_500_000, rounds: Math.min(ROUNDS, 2) }] : []),
];

function makeFile(path: string, rows: number): void {
  const db = new Database(path);
  db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL, price INTEGER NOT NULL, qty INTEGER NOT NULL, note TEXT)');
  db.exec(
    `WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < ${rows - 1})
     INSERT INTO items (sku, name, price, qty, note) SELECT 'SKU-' || i, 'Item ' || i, 100 + i % 997, i % 13, CASE WHEN i % 3 THEN NULL ELSE 'note ' || i END FROM c`,
  );
  db.close();
}

function plain(file: string, sql: string): number {
  const t = performance.now();
  const c = new Database(file, { fileMustExist: true });
  c.pragma('foreign_keys = ON');
  c.exec('BEGIN IMMEDIATE');
  c.prepare(sql).run();
  c.exec('COMMIT');
  c.close();
  return performance.now() - t;
}

async function session(file: string, sql: string): Promise<number | string> {
  let sqlite: typeof import('node:sqlite');
  try {
    sqlite = await import('node:sqlite');
  } catch (error) {
    return `node:sqlite is not available (${error instanceof Error ? error.message : String(error)})`;
  }
  const t = performance.now();
  const c = new sqlite.DatabaseSync(file);
  c.exec('BEGIN IMMEDIATE');
  const s = c.createSession();
  c.exec(sql);
  const changeset = s.changeset();
  c.exec('COMMIT');
  c.close();
  if (changeset.length === 0) throw new Error('the session recorded nothing');
  return performance.now() - t;
}

type Case = { plain: number[]; capture: number[]; undo: number[]; steps: Map<string, number[]> };

async function measureCase(file: string, dataDir: string, channel: DbChannel, sql: string, rows: number, rounds: number, tag: string): Promise<Case> {
  const out: Case = { plain: [], capture: [], undo: [], steps: new Map() };
  const grant = sqliteGrant(file, { name: 'bench', maxRowsAffected: 100_000_000 });
  for (let round = 0; round <= rounds; round++) {
    const p = plain(file, sql);
    const steps = stepTimer.start();
    const t = performance.now();
    const r = await channel.run({ taskId: 'bench', actionId: `${tag}-${round}`, grant, sql, params: null, via: 'sql', approved: true, timeoutMs: 3_600_000 });
    const c = performance.now() - t;
    stepTimer.stop();
    if (r.status !== 'done') throw new Error(r.stderr);
    const effect: DbEffect = r.effect;
    if (effect.rowsAffected !== rows) throw new Error(`captured ${effect.rowsAffected} rows, expected ${rows}`);
    const u0 = performance.now();
    await channel.undo(effect);
    const u = performance.now() - u0;
    // Bounded disk: each action's images go once it is undone.
    rmSync(join(dataDir, 'databases'), { recursive: true, force: true });
    if (round === 0) continue;
    out.plain.push(p);
    out.capture.push(c);
    out.undo.push(u);
    for (const [step, ts] of steps) out.steps.set(step, [...(out.steps.get(step) ?? []), ts]);
  }
  return out;
}

async function main(): Promise<void> {
  console.log(`SQLite at any size; ${ROUNDS} rounds (+1 warm-up; fewer for the larger files), medians; capture: ${sqliteCaptureDescription()}`);
  console.log(`load average at start: ${load()}`);
  const dir = mkdtempSync(join(tmpdir(), 'posthoc-bench-size-'));
  try {
    for (const size of SIZES) {
      const file = join(dir, `items-${size.rows}.db`);
      makeFile(file, size.rows);
      const bytes = statSync(file).size;
      const dataDir = mkdtempSync(join(tmpdir(), 'posthoc-bench-size-data-'));
      const channel = new DbChannel(dataDir, dbEngines());
      try {
        const many = Math.min(MILLION, size.rows);
        const cases = [
          { what: 'one row', sql: `UPDATE items SET qty = qty + 1 WHERE id = ${Math.floor(size.rows / 2)}`, rows: 1 },
          { what: `${many.toLocaleString('en')} rows`, sql: `UPDATE items SET price = price + 1, qty = qty + 1 WHERE id <= ${many}`, rows: many },
        ];
        for (const k of cases) {
          const r = await measureCase(file, dataDir, channel, k.sql, k.rows, size.rounds, `${size.rows}-${k.rows}`);
          const pm = median(r.plain);
          const cm = median(r.capture);
          const um = median(r.undo);
          const steps = [...r.steps].map(([s, ts]) => `${s} ${median(ts).toFixed(1)}`).join(' · ');
          console.log(`${size.label} (${(bytes / 1048576).toFixed(1)} MiB), ${k.what}: plain ${ms(pm)}, Posthoc ${ms(cm)} (${(cm / pm).toFixed(2)}x), undo ${ms(um)} (${(um / pm).toFixed(2)}x the UPDATE) [load ${load()}]`);
          console.log(`    capture by step (ms, medians): ${steps}`);
        }
        const s = await session(file, cases[1]!.sql);
        const p = plain(file, cases[1]!.sql);
        console.log(typeof s === 'string' ? `    session extension: ${s}` : `    session extension (node:sqlite createSession + changeset(), not used), ${cases[1]!.what}: ${ms(s)} against plain ${ms(p)} (${(s / p).toFixed(2)}x)`);
      } finally {
        await channel.shutdown();
        rmSync(dataDir, { recursive: true, force: true });
        for (const f of readdirSync(dir)) rmSync(join(dir, f), { force: true });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`load average at end: ${load()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
