// PostgreSQL undo across schema changes on pgbench's schema (`pgbench -i -s 1`: 100,000 accounts): TPC-B
// transactions as actions, a 50,000-row UPDATE, ADD COLUMN and CREATE INDEX, then undo of everything,
// newest first (a rewind). Schema and rows must equal the start (pg_dump --schema-only and an ordered data
// dump), and nothing of Posthoc (row logs, trash schemas) may be left in the person's database.
import { execFileSync } from 'node:child_process';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbEffect } from '../../shared/domain';
import { DbChannel } from '../../main/effects/db/db-channel';
import { dbEngines } from '../support/db-engines';
import { createPgDatabase, PG_PASSWORD, pgSecrets, type PgTestDb } from '../support/shop-db';
import { tempDirs } from '../support/temp-dir';

const BIN = '/usr/lib/postgresql/15/bin';
const dirs = tempDirs();
let db: PgTestDb;
let client: pg.Client;

function tool(name: string, args: string[]): string {
  const url = new URL(db.url);
  const out = execFileSync(`${BIN}/${name}`, [...args, '-h', url.hostname, '-p', url.port || '5432', '-U', decodeURIComponent(url.username), db.name], {
    env: { ...process.env, PGPASSWORD: PG_PASSWORD },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  // pg_dump 15.14+ guards its output with a random \restrict key on each run.
  return out.replace(/^\\(un)?restrict .*$/gm, '');
}

const schemaDump = () => tool('pg_dump', ['--schema-only', '--no-owner']);
/** Every table's rows in key order (pgbench_history has no key: all its columns). */
async function dataDump(): Promise<string> {
  const out: string[] = [];
  for (const [t, order] of [['pgbench_branches', 'bid'], ['pgbench_tellers', 'tid'], ['pgbench_accounts', 'aid'], ['pgbench_history', 'x::text']] as const) {
    const res = await client.query({ text: `SELECT x::text FROM ${t} x ORDER BY ${order}`, rowMode: 'array' });
    out.push(`${t}: ${res.rows.length}`, ...(res.rows as string[][]).map((r) => r[0]!));
  }
  return out.join('\n');
}

beforeAll(async () => {
  db = await createPgDatabase('posthoc_bench');
  tool('pgbench', ['-i', '-s', '1', '-q']);
  client = await db.connect();
}, 120_000);
afterAll(async () => {
  await client?.end();
  await db?.drop();
  dirs.cleanup();
});

/** One TPC-B transaction of pgbench's built-in script, with fixed values. */
function tpcb(aid: number, tid: number, bid: number, delta: number): string {
  return `UPDATE pgbench_accounts SET abalance = abalance + ${delta} WHERE aid = ${aid};
SELECT abalance FROM pgbench_accounts WHERE aid = ${aid};
UPDATE pgbench_tellers SET tbalance = tbalance + ${delta} WHERE tid = ${tid};
UPDATE pgbench_branches SET bbalance = bbalance + ${delta} WHERE bid = ${bid};
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (${tid}, ${bid}, ${aid}, ${delta}, '2026-01-01 12:00:00')`;
}

describe("pgbench's schema across schema changes", () => {
  it('TPC-B transactions, a 50k-row UPDATE, ADD COLUMN, CREATE INDEX, more rows: undo all leaves schema and rows as they were, and nothing of Posthoc', async () => {
    const schema = schemaDump();
    const data = await dataDump();
    const channel = new DbChannel(dirs.make('posthoc-bench-'), dbEngines(pgSecrets));
    const grant = db.grant({ maxRowsAffected: 1_000_000 });
    const effects: DbEffect[] = [];
    const act = async (sql: string) => {
      const r = await channel.run({ taskId: 'bench', actionId: `a${effects.length}`, grant, sql, params: null, via: 'sql', approved: true, timeoutMs: 120_000 });
      expect(r.stderr).toBe('');
      expect(r.status).toBe('done');
      effects.push(r.effect);
    };
    await act(tpcb(17, 3, 1, 250));
    await act(tpcb(99_001, 7, 1, -40));
    await act('UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid <= 50000');
    await act('ALTER TABLE pgbench_accounts ADD COLUMN note text');
    await act('CREATE INDEX accounts_by_balance ON pgbench_accounts (abalance)');
    await act(`UPDATE pgbench_accounts SET note = 'checked', abalance = abalance - 5 WHERE aid % 1000 = 0`);
    await act(tpcb(17, 3, 1, 9));
    expect(effects[2]!.rowsAffected).toBe(50_000);
    const changed = await dataDump();
    const posthocObjects = async () => (await client.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'posthoc%' ORDER BY 1")).rows.map((r: { nspname: string }) => r.nspname);

    for (const e of [...effects].reverse()) await channel.undo(e);
    expect(schemaDump()).toBe(schema);
    expect(await dataDump()).toBe(data);
    expect(await posthocObjects()).toEqual([]);
    expect(schemaDump()).not.toMatch(/posthoc/);

    // Redo all, oldest first, then undo all again: the same both ways.
    for (const e of effects) await channel.redo(e);
    expect(await dataDump()).toBe(changed);
    for (const e of [...effects].reverse()) await channel.undo(e);
    expect(await dataDump()).toBe(data);
    expect(schemaDump()).toBe(schema);

    // Keep: the undone actions are final too; nothing of Posthoc stays.
    for (const e of effects) await channel.keep(e);
    expect(await posthocObjects()).toEqual([]);
    expect(tool('pg_dump', ['--no-owner'])).not.toMatch(/posthoc/);
    await channel.shutdown();
  }, 300_000);
});
