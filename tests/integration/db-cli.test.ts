// The built CLI with database grants, as a person runs it: --db NAME=sqlite:PATH and a PostgreSQL URL with
// a password (moved to the real keychain, never printed, never in the data folder), undo from the CLI,
// usage errors that say what to do. Needs the D-Bus keychain session npm test provides.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, createSqliteShop, sqliteFileDump, fillPgShop, PG_PASSWORD, PG_SHOP, pgDump, type PgTestDb } from '../support/shop-db';
import { cliTestbed, jsonLines, runPosthoc } from '../support/posthoc-cli';

const { dirs, model } = cliTestbed();
const posthoc = runPosthoc;


function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

describe('posthoc run --db', () => {
  it('runs a SQL block on a granted SQLite file, prints the action, and posthoc undo restores the rows', async () => {
    const llm = await model(["```sql\nUPDATE products SET price_cents = price_cents + 100 WHERE sku = 'MUG-1';\nSELECT sku, price_cents FROM products WHERE sku = 'MUG-1';\n```", 'Raised the mug by one euro.']);
    const file = join(dirs.make('posthoc-db-'), 'shop.db');
    createSqliteShop(file);
    const read = () => sqliteFileDump(file);
    const original = read();
    const dataDir = dirs.make('posthoc-data-');
    const env = { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' };
    const run = await posthoc(['run', 'raise the mug price', '--db', `shop=sqlite:${file}`, '--db-max-rows', 'shop=10', '--data-dir', dataDir, '--json'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const [first, last] = jsonLines(run.stdout);
    expect(first!.action).toMatchObject({
      kind: 'sql',
      language: 'sql',
      status: 'done',
      effects: [{ channel: 'db', database: 'shop', rowsAffected: 2, undo: { kind: 'rows' } }],
      confinement: { level: 'reversible' },
    });
    expect(first!.action.output.stdout).toContain('MUG-1 | 1300');
    expect(last!.task).toMatchObject({ status: 'done', answer: 'Raised the mug by one euro.' });
    expect(llm.requests[0]!.messages[0]!.content).toContain('Database "shop" (SQLite; allows queries, row changes (INSERT/UPDATE/DELETE), schema changes (CREATE/ALTER/DROP); an action may change up to 10 rows');

    const text = await posthoc(['actions', '--data-dir', dataDir]);
    expect(text.stdout).toMatch(/2 row\(s\)/);
    const undo = await posthoc(['undo', first!.action.id, '--data-dir', dataDir, '--json']);
    expect(undo.code).toBe(0);
    expect(JSON.parse(undo.stdout)).toMatchObject({ outcome: 'undone' });
    expect(read()).toBe(original);
  });

  it('says what to do about a bad --db, before anything runs', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', POSTHOC_MODEL: 'm' };
    const bad = await posthoc(['run', 'x', '--db', 'shop', '--data-dir', dataDir], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--db takes NAME=URL/);
    const orphan = await posthoc(['run', 'x', '--db-read-only', 'crm', '--data-dir', dataDir], env);
    expect(orphan.code).toBe(2);
    expect(orphan.stderr).toMatch(/no database is granted with that name; add --db crm=/);
    const missing = await posthoc(['run', 'x', '--db', `shop=sqlite:${join(dataDir, 'nope.db')}`, '--data-dir', dirs.make()], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/does not exist/);
    const own = await posthoc(['run', 'x', '--db', `shop=sqlite:${join(dataDir, 'posthoc.sqlite3')}`, '--data-dir', dataDir], env);
    expect(own.code).toBe(2);
    expect(own.stderr).toMatch(/part of Posthoc's own data/);
  });

  describe('with PostgreSQL', () => {
    let db: PgTestDb;
    beforeAll(async () => {
      db = await createPgDatabase();
      const c = await db.connect();
      await c.query(PG_SHOP);
      await fillPgShop(c);
      await c.end();
    });
    afterAll(async () => {
      await db.drop();
    });

    it('moves the password in the URL to the keychain: it is never printed, sent to the model, or written to the data folder', async () => {
      const llm = await model(["```sql shop\nDELETE FROM orders WHERE placed_at < '2023-01-01';\n```", 'Deleted old orders.']);
      const url = new URL(db.url);
      url.password = PG_PASSWORD;
      const dataDir = dirs.make('posthoc-data-');
      const c = await db.connect();
      const original = await pgDump(c);
      const run = await posthoc(['run', 'delete old orders', '--db', `shop=${url.toString()}`, '--data-dir', dataDir, '--json'], {
        OPENAI_BASE_URL: llm.baseUrl,
        POSTHOC_MODEL: 'scripted',
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const [first] = jsonLines(run.stdout);
      expect(first!.action.effects[0]).toMatchObject({ channel: 'db', rowsAffected: 2 + 2 });
      expect(run.stdout).not.toContain(PG_PASSWORD);
      expect(JSON.stringify(llm.requests)).not.toContain(PG_PASSWORD);
      for (const f of filesUnder(dataDir)) expect(readFileSync(f).includes(PG_PASSWORD), f).toBe(false);

      // A later command reads the password back from the keychain to undo.
      const undo = await posthoc(['undo', first!.action.id, '--data-dir', dataDir, '--json']);
      expect(undo.stderr).toBe('');
      expect(JSON.parse(undo.stdout)).toMatchObject({ outcome: 'undone' });
      expect(await pgDump(c)).toBe(original);
      await c.end();
    });
  });
});
