// The databases channel on a real PostgreSQL server (scripts/setup-test-env.sh postgres): capture through
// transition tables, exact undo and redo of rows and schema changes (the trash schema), conflicts named,
// confinement enforced by PostgreSQL itself.
import Database from 'better-sqlite3';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseGrant, DbEffect } from '../../shared/domain';
import { DbChannel, PREVIEW_STATEMENTS } from '../../main/effects/db/db-channel';
import { dbEngines } from '../support/db-engines';
import { applyPg } from '../../main/effects/db/postgres/pg-undo';
import { DbConflict } from '../../main/effects/db/db-errors';
import { createPgDatabase, fillPgShop, PG_SHOP, pgDump, pgSecrets, resetPgSchema, type PgTestDb } from '../support/shop-db';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let db: PgTestDb;
let other: pg.Client;
let channel: DbChannel;
let seq = 0;

beforeAll(async () => {
  db = await createPgDatabase();
});
afterAll(async () => {
  await db.drop();
});
beforeEach(async () => {
  other = await db.connect();
  await resetPgSchema(other);
  await other.query(PG_SHOP);
  await fillPgShop(other);
  channel = new DbChannel(dirs.make('posthoc-data-'), dbEngines(pgSecrets));
});
afterEach(async () => {
  await channel.shutdown();
  await other.end();
  dirs.cleanup();
});

const dump = () => pgDump(other);
/** Schemas of Posthoc in the person's database (row logs, trash): none once actions are kept or undone. */
const posthocObjects = async () => (await other.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'posthoc%' ORDER BY 1")).rows.map((r: { nspname: string }) => r.nspname);

async function run(sql: string, grant: DatabaseGrant = db.grant(), approved = false, params: unknown[] | null = null) {
  return channel.run({ taskId: 'task-1', actionId: `action-${++seq}`, grant, sql, params, via: 'sql', approved, timeoutMs: 30_000 });
}

async function done(sql: string, grant?: DatabaseGrant): Promise<DbEffect> {
  const r = await run(sql, grant);
  expect(r.stderr).toBe('');
  expect(r.status).toBe('done');
  return r.effect;
}

describe('capture and exact undo', () => {
  it("undoes an UPDATE and the rows the person's trigger wrote, and redoes them", async () => {
    const original = await dump();
    const effect = await done("UPDATE products SET price = price * 1.1 WHERE sku IN ('TEA-1', 'MUG-1')");
    expect(effect).toMatchObject({ rowsAffected: 4, undo: { kind: 'rows', statementCount: 4 } });
    expect(effect.tables.sort()).toEqual(['price_history', 'products']);
    expect(effect.undo.statements).toEqual(expect.arrayContaining(['UPDATE "public"."products" SET "price" = \'4.50\' WHERE "id" = \'1\';']));
    const changed = await dump();
    await channel.undo(effect);
    expect(await dump()).toBe(original);
    await channel.redo(effect);
    expect(await dump()).toBe(changed);
  });

  it("the card shows the first statements undo runs and counts only rows that changed, while the rows wait in Posthoc's data folder, never in the database, until undo", async () => {
    await other.query(`CREATE TABLE items (id integer PRIMARY KEY, sku text NOT NULL UNIQUE, qty integer, price numeric(10, 2));
      INSERT INTO items SELECT i, 'S-' || i, i % 3, i * 0.1 FROM generate_series(1, 60) i`);
    const original = await dump();
    const effect = await done('UPDATE items SET qty = qty * 2, price = price + 0.1');
    expect(effect.rowsAffected).toBe(60);
    // Rows an UPDATE leaves as they were are no change: none here, and 10 of the next 30 (qty was 0 already).
    const same = await done('UPDATE items SET qty = qty * 1 WHERE id <= 30');
    expect(same.undo.kind).toBe('none');
    const some = await done('UPDATE items SET qty = 0 WHERE id <= 30');
    expect(some.rowsAffected).toBe(20);
    expect(some.undo.statementCount).toBe(20);
    // Each action's rows are in a row file of its own in the data folder; the database holds nothing of Posthoc.
    for (const e of [effect, some]) expect(existsSync(join(channel.logs.dir, `${e.undo.logId}.capture`))).toBe(true);
    expect(await posthocObjects()).toEqual([]);
    expect(await channel.describe([db.grant()])).not.toMatch(/posthoc_undo_log|log_/);
    expect(effect.undo.statements).toHaveLength(PREVIEW_STATEMENTS);
    // Newest first: a dry run reads every row from the log, and the card's statements are its first ones.
    for (const e of [some, effect]) {
      const read = await applyPg(db.grant(), channel.logs.read(e.undo.logId!), 'undo', pgSecrets, true);
      const full = channel.compensatingSql(read.log);
      expect(e.undo.statements).toEqual(full.first.slice(0, PREVIEW_STATEMENTS));
      expect(e.undo.statementCount).toBe(full.count);
      await channel.undo(e);
    }
    expect(await dump()).toBe(original);
    await channel.redo(effect);
    await channel.undo(effect);
    expect(await dump()).toBe(original);
    await channel.keep(effect);
    await channel.keep(some);
    expect(readdirSync(channel.logs.dir)).toEqual([]);
    expect(await posthocObjects()).toEqual([]);
  });

  it('keeps in the log the rows of a table several statements changed once each, and merges a table where one row changed twice', async () => {
    const original = await dump();
    const effect = await done(`UPDATE products SET name = name || '!' WHERE id = 1;
      UPDATE products SET name = name || '?' WHERE id = 2;
      UPDATE customers SET name = name || '!' WHERE id = 1;
      UPDATE customers SET name = name || '?' WHERE id = 1`);
    expect(effect.rowsAffected).toBe(3);
    const stored = channel.logs.read(effect.undo.logId!, { rows: false });
    const tables = stored.segments.flatMap((seg) => (seg.kind === 'rows' ? seg.tables : []));
    expect(tables.map((t) => [t.label, t.lazy?.count ?? null, t.rows.length])).toEqual([
      ['products', 2, 0],
      ['customers', null, 1],
    ]);
    await channel.undo(effect);
    expect(await dump()).toBe(original);
  });

  it('without the CREATE privilege on the database, keeps the row log in the session and still undoes exactly', async () => {
    await other.query(`REVOKE CREATE ON DATABASE ${db.name} FROM CURRENT_USER`);
    try {
      const original = await dump();
      const effect = await done("UPDATE products SET name = name || '!'; DELETE FROM order_items WHERE qty > 1");
      expect(effect.undo.kind).toBe('rows');
      expect((await other.query("SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'posthoc_undo_log'")).rows[0]).toEqual({ n: 0 });
      const changed = await dump();
      await channel.undo(effect);
      expect(await dump()).toBe(original);
      await channel.redo(effect);
      expect(await dump()).toBe(changed);
    } finally {
      await other.query(`GRANT CREATE ON DATABASE ${db.name} TO CURRENT_USER`);
    }
  });

  it('refuses to undo, changing nothing, when the row file in the data folder is gone', async () => {
    const effect = await done("UPDATE products SET name = name || '!'");
    const changed = await dump();
    rmSync(join(channel.logs.dir, `${effect.undo.logId}.capture`));
    await expect(channel.undo(effect)).rejects.toThrow(/row log of this database action .* is missing/);
    expect(await dump()).toBe(changed);
  });

  it('refuses to undo from a row file emptied since, and refuses an action that changes its own capture log', async () => {
    const effect = await done("UPDATE products SET name = name || '!'");
    const changed = await dump();
    // The action's log is a temporary table of its session: a statement that finds it and rewrites it is refused.
    const r = await run(`UPDATE products SET name = name || '?';
      DO $$ BEGIN EXECUTE (SELECT format('UPDATE %s SET o = NULL', c.oid::regclass) FROM pg_class c WHERE c.relname LIKE 'posthoc\\_log\\_%' AND pg_table_is_visible(c.oid)); END $$`);
    expect(r.status).toBe('failed');
    expect(r.stderr).toMatch(/changed Posthoc's change capture/);
    expect(await dump()).toBe(changed);
    await channel.undo(effect);
    await channel.redo(effect);
    const file = new Database(join(channel.logs.dir, `${effect.undo.logId}.capture`));
    file.exec('DELETE FROM pg_log_copy');
    file.close();
    await expect(channel.undo(effect)).rejects.toThrow(/holds 0 rows of products where the action changed 4/);
    expect(await dump()).toBe(changed);
  });

  it('merges rows touched twice, keys that moved and rows the same statement inserted and deleted into one entry each', async () => {
    const original = await dump();
    const effect = await done(`UPDATE products SET name = name || '!' WHERE id = 1;
      UPDATE products SET name = name || '?' WHERE id = 1;
      UPDATE customers SET id = 70 WHERE id = 2;
      INSERT INTO customers (id, email, name) VALUES (2, 'again@example.com', 'Again')`);
    // products 1 (once), customers 2 moved to 70 and a new 2, orders of 2 cascaded to 70.
    expect(effect.undo.statements).toEqual(expect.arrayContaining([expect.stringMatching(/^UPDATE "public"."products" SET "name" = 'Green tea' WHERE "id" = '1';$/)]));
    const changed = await dump();
    await channel.undo(effect);
    expect(await dump()).toBe(original);
    await channel.redo(effect);
    expect(await dump()).toBe(changed);
  });

  it('undoes a DELETE that cascaded into orders and order items', async () => {
    const original = await dump();
    const effect = await done('DELETE FROM customers WHERE id = 1');
    expect(effect.rowsAffected).toBe(1 + 2 + 3);
    await channel.undo(effect);
    expect(await dump()).toBe(original);
  });

  it('keeps bytea, arrays, unicode, large text, numerics, doubles and bigints exact', async () => {
    const original = await dump();
    const effect = await done(`UPDATE customers SET avatar = '\\x00', name = 'x', note = 'y', loyalty = 1, tags = '{z}';
      UPDATE products SET weight = 1.5, description = NULL, price = 0.01`);
    await channel.undo(effect);
    expect(await dump()).toBe(original);
    const row = await other.query("SELECT loyalty::text, encode(avatar, 'hex') AS a, tags FROM customers WHERE id = 1");
    expect(row.rows[0]).toEqual({ loyalty: '9007199254740993', a: '000102ff00', tags: ['vip', 'a,b', 'quote"d'] });
  });

  it('undoes changes to a table without a key (duplicate rows included)', async () => {
    const original = await dump();
    const effect = await done("UPDATE events SET kind = 'login' WHERE kind = 'signup'; INSERT INTO events VALUES ('x', NULL); DELETE FROM events WHERE kind IS NULL");
    await channel.undo(effect);
    expect(await dump()).toBe(original);
  });

  it('undoes a primary-key change that cascaded ON UPDATE into orders', async () => {
    const original = await dump();
    const effect = await done('UPDATE customers SET id = 7 WHERE id = 2');
    await channel.undo(effect);
    expect(await dump()).toBe(original);
  });

  it('undoes a row moved to a new key while a new row took its old key and unique value (deletes must go first)', async () => {
    const original = await dump();
    const effect = await done(`UPDATE customers SET id = 9, email = 'moved@example.com' WHERE id = 2;
      INSERT INTO customers (id, email, name) VALUES (2, 'li@example.com', 'New Li')`);
    const changed = await dump();
    await channel.undo(effect);
    expect(await dump()).toBe(original);
    await channel.redo(effect);
    expect(await dump()).toBe(changed);
  });

  it('runs a parameterised statement (the gateway path)', async () => {
    const r = await run('SELECT name FROM customers WHERE id = $1', db.grant(), false, [2]);
    expect(r.effect.statements[0]!.result).toMatchObject({ columns: ['name'], rows: [['李小龍']], rowCount: 1 });
  });
});

describe('conflicts with later writes', () => {
  it("refuses, naming the row, when another client changed it since; the other client's write survives", async () => {
    const effect = await done("UPDATE customers SET note = 'agent' WHERE id = 2");
    await other.query("UPDATE customers SET note = 'mine' WHERE id = 2");
    const before = await dump();
    expect(await channel.conflicts(effect)).toEqual(["customers (id = '2'): changed since"]);
    await expect(channel.undo(effect)).rejects.toThrow(DbConflict);
    expect(await dump()).toBe(before);
  });

  it('refuses an undo whose DELETE would cascade into a row another client added since', async () => {
    const effect = await done("INSERT INTO customers (id, email, name) VALUES (50, 'new@example.com', 'New')");
    await other.query("INSERT INTO orders (id, customer_id, placed_at) VALUES (99, 50, '2025-01-01')");
    const before = await dump();
    await expect(channel.undo(effect)).rejects.toThrow(/orders \(id = '99'\)/);
    expect(await dump()).toBe(before);
  });
});

describe('schema changes', () => {
  it('undoes and redoes a migration: new table, data moved in, new column with a foreign key, an index', async () => {
    const original = await dump();
    const effect = await done(`
      CREATE TABLE categories (id serial PRIMARY KEY, name text NOT NULL UNIQUE);
      INSERT INTO categories (name) VALUES ('drinks'), ('kitchen');
      ALTER TABLE products ADD COLUMN category_id integer REFERENCES categories(id);
      UPDATE products SET category_id = 1 WHERE sku = 'TEA-1';
      CREATE INDEX products_by_category ON products(category_id)`);
    expect(effect.statements.map((s) => s.kind)).toEqual(['ddl', 'dml', 'ddl', 'dml', 'ddl']);
    expect(effect.undo.statements).toEqual(expect.arrayContaining(['DROP INDEX "public"."products_by_category";']));
    const changed = await dump();
    await channel.undo(effect);
    expect(await dump()).toBe(original);
    await channel.redo(effect);
    expect(await dump()).toBe(changed);
    await channel.undo(effect);
    expect(await dump()).toBe(original);
  });

  it('keeps a dropped table in the trash schema and brings it back with its rows, indexes, triggers and sequence', async () => {
    const original = await dump();
    const effect = await done('DROP TABLE price_history; DROP INDEX orders_by_customer');
    expect((await other.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname LIKE 'posthoc\\_trash%'")).rows[0]).toEqual({ n: 1 });
    await channel.undo(effect);
    expect(await dump()).toBe(original);
    // The trash schema goes with the last table in it.
    expect(await posthocObjects()).toEqual([]);
    await channel.redo(effect);
    await channel.undo(effect);
    expect(await dump()).toBe(original);
    expect(await posthocObjects()).toEqual([]);
    // A created table waits in the trash while its action is undone, and goes when the action is kept.
    const created = await done('CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes VALUES (1, \'a\')');
    await channel.undo(created);
    expect(await posthocObjects()).toHaveLength(1);
    await channel.redo(created);
    expect(await posthocObjects()).toEqual([]);
    await channel.undo(created);
    await channel.keep(created);
    await channel.keep(effect);
    expect(await posthocObjects()).toEqual([]);
    expect(await dump()).toBe(original);
  });

  it('undoes and redoes renames of a table other tables point at, and of its columns, with row changes before and after', async () => {
    const original = await dump();
    const effects = [
      await done("UPDATE customers SET name = name || '!' WHERE id = 1"),
      await done('ALTER TABLE customers RENAME TO clients'),
      await done("UPDATE clients SET note = 'renamed' WHERE id = 2"),
      await done('ALTER TABLE clients RENAME COLUMN name TO full_name'),
      await done("INSERT INTO clients (id, email, full_name) VALUES (4, 'new@example.com', 'New'); INSERT INTO orders (id, customer_id, placed_at) VALUES (20, 4, '2025-01-01')"),
      await done('ALTER TABLE clients RENAME COLUMN id TO client_id'),
      await done("UPDATE clients SET full_name = 'Li' WHERE client_id = 2"),
    ];
    const changed = await dump();
    for (const e of [...effects].reverse()) await channel.undo(e);
    expect(await dump()).toBe(original);
    for (const e of effects) await channel.redo(e);
    expect(await dump()).toBe(changed);
    for (const e of [...effects].reverse()) await channel.undo(e);
    expect(await dump()).toBe(original);
    expect(await posthocObjects()).toEqual([]);
  });

  it('undoes and redoes a dropped column and type changes exactly, with its index and row changes before and after', async () => {
    const original = await dump();
    const effects = [
      await done("UPDATE products SET weight = 2.5 WHERE id = 2; UPDATE orders SET status = 'paid' WHERE id = 11"),
      await done('CREATE INDEX products_weight ON products (weight); ALTER TABLE products DROP COLUMN weight'),
      await done("UPDATE products SET description = 'no weight' WHERE id = 1"),
      await done('ALTER TABLE orders ALTER COLUMN placed_at TYPE timestamp'),
      await done("ALTER TABLE orders ALTER COLUMN status TYPE character(8); UPDATE orders SET status = 'new' WHERE id = 10"),
    ];
    expect(effects[1]!.undo.statements.join('\n')).toMatch(/ADD COLUMN "weight" double precision/);
    const changed = await dump();
    for (const e of [...effects].reverse()) await channel.undo(e);
    expect(await posthocObjects()).toEqual([]);
    for (const e of effects) await channel.redo(e);
    expect(await dump()).toBe(changed);
    for (const e of [...effects].reverse()) await channel.undo(e);
    // Every row and definition as it was; only products' columns are in another order (weight comes back last).
    const weightLast = (d: string) => d.replace(/(r public\.products: [^\n]*?)weight double precision, ([^\n]*?) constraints/, '$1$2, weight double precision constraints');
    const products = await other.query('SELECT id, weight::text AS weight, description FROM products ORDER BY id');
    expect(products.rows.map((r: { weight: string | null }) => r.weight)).toEqual(['0.30000000000000004', '0.35', null, '1e-300']);
    const rest = (d: string) => d.split('\nrows ').filter((part) => !part.startsWith('public.products')).join('\nrows ');
    expect(rest(await dump())).toBe(rest(weightLast(original)));
    expect(await posthocObjects()).toEqual([]);
  });

  it('refuses what it cannot undo exactly (TRUNCATE, a CASCADE into a view), rolled back', async () => {
    const original = await dump();
    for (const [sql, message] of [
      ['TRUNCATE events', /rewrote or emptied events/],
      ['DROP TABLE orders CASCADE', /dropped view order_totals/],
      ['CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$', /functions, types/],
    ] as const) {
      const r = await run(sql);
      expect(r.status, sql).toBe('failed');
      expect(r.stderr, sql).toMatch(message);
      expect(r.stderr, sql).toMatch(/held-transaction mode/);
    }
    expect(await dump()).toBe(original);
  });

  it('refuses a schema undo when the table changed since, naming it', async () => {
    const effect = await done("CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'a')");
    await other.query("INSERT INTO notes VALUES (2, 'mine')");
    await expect(channel.undo(effect)).rejects.toThrow(/notes changed since/);
    expect((await other.query('SELECT count(*)::int AS n FROM notes')).rows[0]).toEqual({ n: 2 });
  });
});

describe('confinement', () => {
  it('a read-only grant cannot write: PostgreSQL refuses inside a READ ONLY transaction', async () => {
    const original = await dump();
    const r = await run('UPDATE products SET price = 0', db.grant({ readOnly: true, statements: ['query'] }));
    expect(r.status).toBe('failed');
    expect(r.stderr).toMatch(/read-only, and PostgreSQL refused the write \(cannot execute UPDATE in a read-only transaction\)/);
    const escape = await run('SET TRANSACTION READ WRITE; UPDATE products SET price = 0', db.grant({ readOnly: true, statements: ['query'] }));
    expect(escape.status).toBe('failed');
    expect(await dump()).toBe(original);
  });

  it('a grant without DDL refuses schema changes; transaction control is refused before it runs', async () => {
    const original = await dump();
    const noDdl = await run('CREATE TABLE x (a int)', db.grant({ statements: ['query', 'dml'] }));
    expect(noDdl.stderr).toMatch(/does not allow schema changes/);
    const commit = await run("UPDATE products SET name = 'x'; COMMIT; UPDATE products SET name = 'y'");
    expect(commit.stderr).toMatch(/leave out BEGIN, COMMIT/);
    expect(await dump()).toBe(original);
  });

  it('over the rows-affected limit the action is rolled back and waits for approval', async () => {
    const original = await dump();
    const r = await run("UPDATE products SET name = name || '!'", db.grant({ maxRowsAffected: 2 }));
    expect(r.status).toBe('awaiting-approval');
    expect(await dump()).toBe(original);
  });
});

describe('held-transaction mode', () => {
  it('keeps the transaction open across actions; undo rolls back to the savepoint; keep commits', async () => {
    const grant = db.grant({ mode: 'held' });
    const original = await dump();
    const a = await run("UPDATE products SET name = 'held' WHERE id = 1", grant);
    expect(a.status).toBe('done');
    const b = await run('CREATE TABLE scratch (a int)', grant);
    expect(b.effect.statements[0]!.kind).toBe('ddl');
    expect(await dump()).toBe(original);
    await channel.undo(b.effect);
    await channel.undo(a.effect);
    expect(await dump()).toBe(original);
    const c = await run("UPDATE products SET name = 'kept' WHERE id = 1", grant);
    await channel.keep(c.effect);
    expect((await other.query('SELECT name FROM products WHERE id = 1')).rows[0]).toEqual({ name: 'kept' });
  });
});
