// The databases channel on real SQLite files: capture while statements run, exact undo and redo (rows,
// cascades, the person's triggers, schema changes through snapshots), conflicts named, and confinement
// enforced by SQLite itself.
import Database from 'better-sqlite3';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseGrant, DbEffect } from '../../shared/domain';
import { DbChannel, PREVIEW_STATEMENTS } from '../../main/effects/db/db-channel';
import { dbEngines } from '../support/db-engines';
import { DbConflict } from '../../main/effects/db/db-errors';
import { PAGE_CAPTURE_LIMIT_BYTES } from '../../main/effects/db/sqlite/sqlite-pages';
import { createSqliteShop, sqliteFileDump, LARGE_TEXT, sqliteGrant } from '../support/shop-db';
import { CAPTURE_MODES, useSqliteCapture, type SqliteCapture } from '../support/sqlite-capture';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();

/** The files beside an action's undo log that hold its rows: SQLite's capture log, or the file's images (page capture). */
function rowLogFiles(effect: DbEffect, mode: SqliteCapture): string[] {
  const id = effect.undo.logId!;
  return mode === 'triggers' ? [`${id}.capture`] : [`${id}.pages-before`, `${id}.pages-after`];
}
let file: string;
let channel: DbChannel;
let seq = 0;
/** What the channel's held transactions say expired (given to the channel when it is built). */
let heldExpired: (ids: string[]) => void = () => undefined;

beforeEach(() => {
  const dir = dirs.make('posthoc-sqlite-');
  file = join(dir, 'shop.db');
  createSqliteShop(file);
  heldExpired = () => undefined;
  channel = new DbChannel(dirs.make('posthoc-data-'), dbEngines(), (ids) => heldExpired(ids));
});
afterEach(async () => {
  await channel.shutdown();
  dirs.cleanup();
});

function dump(): string {
  return sqliteFileDump(file);
}

function other<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(file);
  db.pragma('foreign_keys = ON');
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** The numbers 1..n as table s(value), for INSERT … ${series(n)} SELECT … FROM s. */
function series(n: number): string {
  return `WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE value < ${n})`;
}

async function run(sql: string, grant: DatabaseGrant = sqliteGrant(file), approved = false) {
  return channel.run({ taskId: 'task-1', actionId: `action-${++seq}`, grant, sql, params: null, via: 'sql', approved, timeoutMs: 30_000 });
}

async function done(sql: string, grant?: DatabaseGrant): Promise<DbEffect> {
  const r = await run(sql, grant);
  expect(r.stderr).toBe('');
  expect(r.status).toBe('done');
  return r.effect;
}

describe.each(CAPTURE_MODES)('capture and exact undo, %s', (mode) => {
  useSqliteCapture(mode);

  it("undoes an UPDATE and what the person's trigger did with it, and redoes both", async () => {
    const original = dump();
    const effect = await done("UPDATE products SET price_cents = price_cents * 2 WHERE sku IN ('TEA-1', 'MUG-1')");
    expect(effect).toMatchObject({ rowsAffected: 4, tables: expect.arrayContaining(['products', 'price_history']), undo: { kind: 'rows', statementCount: 4 } });
    expect(effect.statements).toEqual([expect.objectContaining({ kind: 'dml', rowsAffected: 2 })]);
    expect(effect.undo.statements).toEqual(
      expect.arrayContaining(['UPDATE "products" SET "price_cents" = 450 WHERE "id" = 1;', 'DELETE FROM "price_history" WHERE "id" = 1;']),
    );
    const changed = dump();
    expect(other((db) => db.prepare('SELECT count(*) FROM price_history').pluck().get())).toBe(2);

    await channel.undo(effect);
    expect(dump()).toBe(original);
    await channel.redo(effect);
    expect(dump()).toBe(changed);
    await channel.undo(effect);
    expect(dump()).toBe(original);
  });

  it('undoes a DELETE that cascaded into orders and order items (a WITHOUT ROWID table), rowids and all', async () => {
    const original = dump();
    const effect = await done('DELETE FROM customers WHERE id = 1');
    expect(other((db) => db.prepare('SELECT count(*) FROM orders').pluck().get())).toBe(2);
    expect(effect.rowsAffected).toBe(1 + 2 + 3);
    expect(effect.statements[0]!.rowsAffected).toBe(1);
    await channel.undo(effect);
    expect(dump()).toBe(original);
  });

  it('keeps blobs with NUL bytes, unicode, large text, exact reals and integers beyond 2^53 exact through undo', async () => {
    const original = dump();
    const effect = await done(`
      UPDATE customers SET avatar = x'00', name = 'x', note = 'y', loyalty = 1;
      UPDATE products SET weight = 1.5, description = NULL;`);
    expect(effect.rowsAffected).toBe(3 + 4);
    await channel.undo(effect);
    expect(dump()).toBe(original);
    const row = other((db) => db.prepare('SELECT avatar, loyalty, note FROM customers WHERE id = ?').safeIntegers(true).get(1)) as { avatar: Buffer; loyalty: bigint };
    expect([...row.avatar]).toEqual([0, 1, 2, 255, 0]);
    expect(row.loyalty).toBe(9007199254740993n);
    expect(other((db) => db.prepare('SELECT weight FROM products WHERE sku = ?').pluck().get('TEA-1'))).toBe(0.1 + 0.2);
    expect(other((db) => db.prepare('SELECT note FROM customers WHERE id = 3').pluck().get())).toBe(LARGE_TEXT);
  });

  it('undoes INSERT OR REPLACE over an existing row (SQLite deletes it without firing delete triggers)', async () => {
    const original = dump();
    const effect = await done("INSERT OR REPLACE INTO customers (id, email, name) VALUES (2, 'new@example.com', 'Replaced')");
    expect(other((db) => db.prepare('SELECT name FROM customers WHERE id = 2').pluck().get())).toBe('Replaced');
    await channel.undo(effect);
    expect(dump()).toBe(original);
  });

  it('undoes a primary-key change that cascaded ON UPDATE into orders', async () => {
    const original = dump();
    const effect = await done('UPDATE customers SET id = 7 WHERE id = 2');
    expect(other((db) => db.prepare('SELECT customer_id FROM orders WHERE id = 12').pluck().get())).toBe(7);
    await channel.undo(effect);
    expect(dump()).toBe(original);
  });

  it('undoes a row moved to a new key while a new row took its old key and unique value (deletes must go first)', async () => {
    const original = dump();
    const effect = await done(`UPDATE customers SET id = 9, email = 'moved@example.com' WHERE id = 2;
      INSERT INTO customers (id, email, name) VALUES (2, 'li@example.com', 'New Li')`);
    expect(other((db) => db.prepare('SELECT customer_id FROM orders WHERE id = 12').pluck().get())).toBe(9);
    const changed = dump();
    await channel.undo(effect);
    expect(dump()).toBe(original);
    await channel.redo(effect);
    expect(dump()).toBe(changed);
  });

  it('restores the AUTOINCREMENT counter when nobody moved it since', async () => {
    const original = dump();
    const effect = await done("INSERT INTO products (sku, name, price_cents) VALUES ('NEW-1', 'New', 1), ('NEW-2', 'Newer', 2)");
    expect(dump()).not.toBe(original);
    await channel.undo(effect);
    expect(dump()).toBe(original);
  });

  it("the card shows the first statements undo runs, and counts only rows that changed, when the rows stay in SQLite's log until undo", async () => {
    other((db) => db.exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, qty INTEGER, price REAL);
      INSERT INTO items (sku, qty, price) ${series(60)} SELECT 'S-' || value, value % 3, value * 0.1 FROM s`));
    const original = dump();
    const effect = await done('UPDATE items SET qty = qty * 2, price = price + 0.1');
    expect(effect.rowsAffected).toBe(60);
    // Rows an UPDATE leaves as they were are no change: none here, and 10 of the next 30 (qty was 0 already).
    const same = await done('UPDATE items SET qty = qty * 1 WHERE id <= 30');
    expect(same.undo.kind).toBe('none');
    const some = await done('UPDATE items SET qty = 0 WHERE id <= 30');
    expect(some.rowsAffected).toBe(20);
    expect(some.undo.statementCount).toBe(20);
    // The rows stayed in SQLite (its own log, or the file's images), beside the undo log, until read here.
    expect(readdirSync(channel.logs.dir)).toEqual(expect.arrayContaining([...rowLogFiles(effect, mode), ...rowLogFiles(some, mode)]));
    for (const e of [effect, some]) {
      const full = channel.compensatingSql(channel.logs.read(e.undo.logId!));
      expect(e.undo.statements).toEqual(full.first.slice(0, PREVIEW_STATEMENTS));
      expect(e.undo.statementCount).toBe(full.count);
    }
    expect(effect.undo.statements).toHaveLength(PREVIEW_STATEMENTS);
    await channel.undo(some);
    await channel.undo(effect);
    expect(dump()).toBe(original);
    await channel.redo(effect);
    await channel.undo(effect);
    expect(dump()).toBe(original);
  });

  it('merges a row the action touched twice, and one its own trigger changed again, into one entry each', async () => {
    other((db) => db.exec(`CREATE TRIGGER products_touch AFTER UPDATE OF name ON products BEGIN UPDATE products SET description = 'renamed' WHERE id = new.id; END`));
    const original = dump();
    const effect = await done(`UPDATE products SET price_cents = price_cents + 1 WHERE id = 1;
      UPDATE products SET price_cents = price_cents + 1 WHERE id = 1;
      UPDATE products SET name = 'Renamed' WHERE id = 2`);
    // products 1 and 2, and two price_history rows from the audit trigger.
    expect(effect.rowsAffected).toBe(4);
    expect(effect.undo.statements).toEqual(expect.arrayContaining(['UPDATE "products" SET "price_cents" = 450 WHERE "id" = 1;']));
    const changed = dump();
    await channel.undo(effect);
    expect(dump()).toBe(original);
    await channel.redo(effect);
    expect(dump()).toBe(changed);
  });

  it('refuses to undo, changing nothing, when the row log beside the undo log is missing', async () => {
    other((db) => db.exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, v INTEGER); INSERT INTO items (v) ${series(5)} SELECT value FROM s`));
    const effect = await done('UPDATE items SET v = v + 1');
    const changed = dump();
    const undoDir = join(channel.logs.dir);
    const captures = readdirSync(undoDir).filter((f) => !f.endsWith('.json'));
    expect(captures.sort()).toEqual(rowLogFiles(effect, mode).sort());
    rmSync(join(undoDir, captures[0]!));
    await expect(channel.undo(effect)).rejects.toThrow(/missing from Posthoc's data folder/);
    expect(dump()).toBe(changed);
  });

  it('keep removes the row log with the undo log', async () => {
    other((db) => db.exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, v INTEGER); INSERT INTO items (v) ${series(5)} SELECT value FROM s`));
    const effect = await done('UPDATE items SET v = v + 1');
    await channel.keep(effect);
    expect(readdirSync(channel.logs.dir)).toEqual([]);
  });

  it('an action that fails half-way changes nothing and has nothing to undo', async () => {
    const original = dump();
    const r = await run("UPDATE products SET price_cents = 1; UPDATE products SET price_cents = -1 WHERE sku = 'MUG-1'");
    expect(r.status).toBe('failed');
    expect(r.stderr).toMatch(/CHECK constraint failed/);
    expect(r.stderr).toMatch(/rolled back/);
    expect(r.effect.undo.kind).toBe('none');
    expect(dump()).toBe(original);
  });
});

describe.each(CAPTURE_MODES)('conflicts with later writes, %s', (mode) => {
  useSqliteCapture(mode);

  it("refuses, naming the row, when another client changed a row the action wrote; the other client's write survives", async () => {
    const effect = await done("UPDATE customers SET note = 'agent' WHERE id = 2");
    other((db) => db.prepare("UPDATE customers SET note = 'mine' WHERE id = 2").run());
    const before = dump();
    expect(await channel.conflicts(effect)).toEqual(['customers (id = 2): changed since']);
    await expect(channel.undo(effect)).rejects.toThrow(DbConflict);
    await expect(channel.undo(effect)).rejects.toThrow(/customers \(id = 2\)/);
    expect(dump()).toBe(before);
  });

  it("undoes around another client's writes to other rows, which survive", async () => {
    const effect = await done("UPDATE products SET name = 'Tea' WHERE sku = 'TEA-1'");
    other((db) => db.prepare("UPDATE products SET name = 'Big mug' WHERE sku = 'MUG-1'").run());
    await channel.undo(effect);
    expect(other((db) => db.prepare('SELECT sku, name FROM products ORDER BY id LIMIT 2').raw().all())).toEqual([
      ['TEA-1', 'Green tea'],
      ['MUG-1', 'Big mug'],
    ]);
  });

  it('refuses an undo whose DELETE would cascade into a row another client added since', async () => {
    const effect = await done("INSERT INTO customers (id, email, name) VALUES (50, 'new@example.com', 'New')");
    other((db) => db.prepare("INSERT INTO orders (id, customer_id, placed_at) VALUES (99, 50, '2025-01-01')").run());
    const before = dump();
    await expect(channel.undo(effect)).rejects.toThrow(/orders \(id = 99\)/);
    expect(dump()).toBe(before);
  });

  it('refuses a snapshot undo after any later change, and names it', async () => {
    const effect = await done('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES (\'a\')');
    other((db) => db.prepare("UPDATE customers SET name = 'Changed' WHERE id = 3").run());
    await expect(channel.undo(effect)).rejects.toThrow(/customers \(rowid = 3\)/);
  });
});

describe('page capture', () => {
  /** How the action was captured, by the files beside its undo log (triggers write a capture file only when some rows stay in their log). */
  function capturedBy(effect: DbEffect): SqliteCapture {
    const files = readdirSync(channel.logs.dir).filter((f) => f.startsWith(effect.undo.logId!) && !f.endsWith('.json'));
    if (files.sort().join() === rowLogFiles(effect, 'pages').sort().join()) return 'pages';
    expect(files).toEqual(files.length === 0 ? [] : rowLogFiles(effect, 'triggers'));
    return 'triggers';
  }

  it('captures rowid tables by pages, and runs an action again with triggers when it changed a WITHOUT ROWID table or moved rows to other keys; all undo exactly', async () => {
    const original = dump();
    // The person's audit trigger writes price_history; the 100 KB note lives in overflow pages.
    const priced = await done('UPDATE products SET price_cents = price_cents + 1');
    const noted = await done("UPDATE customers SET note = note || '!' WHERE id = 3");
    const cancelled = await done('DELETE FROM orders WHERE id = 12');
    const moved = await done('UPDATE customers SET id = 7 WHERE id = 2');
    expect([priced, noted, cancelled, moved].map(capturedBy)).toEqual(['pages', 'pages', 'triggers', 'triggers']);
    expect(priced).toMatchObject({ rowsAffected: 8, tables: ['price_history', 'products'] });
    expect(priced.undo.statements).toContain('UPDATE "products" SET "price_cents" = 450 WHERE "id" = 1;');
    expect(priced.undo.statements).toContain('DELETE FROM "price_history" WHERE "id" = 1;');
    expect(noted.undo.statements).toEqual([`UPDATE "customers" SET "note" = '${LARGE_TEXT}' WHERE "id" = 3;`]);
    expect(cancelled.tables).toEqual(expect.arrayContaining(['orders', 'order_items']));
    // The image after is kept as the pages that differ from the image before.
    const [beforeFile, afterFile] = rowLogFiles(priced, 'pages').map((f) => statSync(join(channel.logs.dir, f)).size);
    expect(afterFile!).toBeLessThan(beforeFile! / 4);
    const changed = dump();
    for (const e of [moved, cancelled, noted, priced]) await channel.undo(e);
    expect(dump()).toBe(original);
    for (const e of [priced, noted, cancelled, moved]) await channel.redo(e);
    expect(dump()).toBe(changed);
    await channel.undo(noted);
    await channel.undo(priced);
    expect(other((db) => db.prepare('SELECT note FROM customers WHERE id = 3').pluck().get())).toBe(LARGE_TEXT);
  });

  it('runs an action that moves a row to another key again with triggers: undo moves the row back, with what columns added since hold on it', async () => {
    // In the images, customer 2 moving to 9 and a new customer 2 look like customer 2's content replaced.
    const moved = await done("UPDATE customers SET id = 9 WHERE id = 2; INSERT INTO customers (id, email, name) VALUES (2, 'new@example.com', 'New')");
    expect(capturedBy(moved)).toBe('triggers');
    await done('ALTER TABLE customers ADD COLUMN tier TEXT; UPDATE customers SET tier = name');
    await channel.undo(moved);
    expect(other((db) => db.prepare('SELECT id, name, tier FROM customers WHERE id IN (2, 9)').raw().all())).toEqual([[2, '李小龍', '李小龍']]);
    expect(other((db) => db.prepare('SELECT customer_id FROM orders WHERE id = 12').pluck().get())).toBe(2);
  });

  it('copies nothing for queries: the image before is taken at the first statement that may write', async () => {
    const original = dump();
    const query = await done('SELECT count(*) FROM products');
    expect(query.undo).toMatchObject({ kind: 'none', logId: null });
    expect(existsSync(channel.logs.dir) ? readdirSync(channel.logs.dir) : []).toEqual([]);
    const mixed = await done("SELECT count(*) FROM products; UPDATE products SET name = 'Tea' WHERE id = 1; SELECT name FROM products WHERE id = 1");
    expect(capturedBy(mixed)).toBe('pages');
    expect(mixed.statements.map((x) => x.kind)).toEqual(['query', 'dml', 'query']);
    expect(mixed.undo.statements).toEqual([`UPDATE "products" SET "name" = 'Green tea' WHERE "id" = 1;`]);
    await channel.undo(mixed);
    expect(dump()).toBe(original);
  });

  it('refuses to undo, changing nothing, when the image after is damaged', async () => {
    const effect = await done("UPDATE customers SET note = 'x' WHERE id = 1");
    const changed = dump();
    const after = join(channel.logs.dir, rowLogFiles(effect, 'pages')[1]!);
    writeFileSync(after, readFileSync(after).subarray(0, -100));
    await expect(channel.undo(effect)).rejects.toThrow(/page delta of this action is damaged/);
    expect(dump()).toBe(changed);
  });

  it('takes a file in WAL mode, where the latest pages are in the -wal file', async () => {
    other((db) => db.pragma('journal_mode = WAL'));
    const keep = new Database(file); // keeps the -wal file from being folded back in
    try {
      keep.prepare("UPDATE products SET name = 'Sencha' WHERE id = 1").run();
      const original = dump();
      const effect = await done("UPDATE products SET description = 'wal' WHERE id <= 2");
      expect(capturedBy(effect)).toBe('pages');
      expect(effect.rowsAffected).toBe(2);
      await channel.undo(effect);
      expect(dump()).toBe(original);
    } finally {
      keep.close();
    }
  });

  it('leaves files over the page-capture limit to triggers', async () => {
    other((db) => db.exec(`CREATE TABLE attachments (body BLOB); INSERT INTO attachments VALUES (zeroblob(${PAGE_CAPTURE_LIMIT_BYTES + 1024}))`));
    const original = dump();
    const effect = await done("UPDATE customers SET name = 'Big' WHERE id = 1");
    expect(capturedBy(effect)).toBe('triggers');
    await channel.undo(effect);
    expect(dump()).toBe(original);
  });

  it('forgets rows handed to code when the action starts over with triggers', async () => {
    const rows: Array<Array<string | null>> = [];
    let restarts = 0;
    const r = await channel.run({
      taskId: 'task-1',
      actionId: `action-${++seq}`,
      grant: sqliteGrant(file),
      sql: 'SELECT sku FROM products ORDER BY id; DELETE FROM order_items WHERE order_id = 10',
      params: null,
      via: 'gateway',
      approved: false,
      timeoutMs: 30_000,
      onRow: (_statement, row) => rows.push(row),
      onRestart: () => {
        restarts++;
        rows.length = 0;
      },
    });
    expect(r.status).toBe('done');
    expect(restarts).toBe(1);
    expect(rows).toEqual([['TEA-1'], ['MUG-1'], ['BAG-1'], ['OLD-1']]);
  });
});

describe('schema changes', () => {
  it('undoes and redoes CREATE TABLE, data migration, ALTER TABLE and DROP TABLE through snapshots', async () => {
    const original = dump();
    const effect = await done(`
      CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
      INSERT INTO categories (name) VALUES ('drinks'), ('kitchen');
      ALTER TABLE products ADD COLUMN category_id INTEGER REFERENCES categories(id);
      UPDATE products SET category_id = 1 WHERE sku = 'TEA-1';
      DROP VIEW order_totals;`);
    expect(effect.undo.kind).toBe('snapshot');
    // Two rows into the new table (in the snapshot only) and one product: SQLite's count, not the row log's.
    expect(effect.rowsAffected).toBe(3);
    expect(effect.tables).toEqual(expect.arrayContaining(['categories', 'products', 'order_totals']));
    expect(effect.undo.statements[0]).toMatch(/^-- restore "shop" from the snapshot/);
    const changed = dump();
    await channel.undo(effect);
    expect(dump()).toBe(original);
    await channel.redo(effect);
    expect(dump()).toBe(changed);
  });

  it('creates triggers whose bodies hold semicolons, as one statement', async () => {
    const effect = await done(`CREATE TRIGGER note_guard BEFORE UPDATE ON customers BEGIN
      SELECT CASE WHEN new.email = '' THEN RAISE(ABORT, 'empty; email') END;
    END; UPDATE customers SET note = 'ok' WHERE id = 1`);
    expect(effect.statements.map((s) => s.kind)).toEqual(['ddl', 'dml']);
  });
});

describe('confinement', () => {
  it('a read-only grant cannot write: SQLite itself refuses, and the file is unchanged', async () => {
    const bytes = readFileSync(file);
    const r = await run('UPDATE products SET price_cents = 0', sqliteGrant(file, { readOnly: true, statements: ['query'] }));
    expect(r.status).toBe('failed');
    expect(r.stderr).toMatch(/read-only, and SQLite refused the write \(attempt to write a readonly database\)/);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('a grant without DDL refuses schema changes, and without DML refuses row changes', async () => {
    const original = dump();
    const noDdl = await run('CREATE TABLE x (a)', sqliteGrant(file, { statements: ['query', 'dml'] }));
    expect(noDdl.status).toBe('failed');
    expect(noDdl.stderr).toMatch(/does not allow schema changes/);
    const noDml = await run("UPDATE products SET name = 'x'", sqliteGrant(file, { statements: ['query'] }));
    expect(noDml.stderr).toMatch(/does not allow row changes/);
    expect(dump()).toBe(original);
  });

  it('over the rows-affected limit the action is rolled back and waits; approved, it runs', async () => {
    const original = dump();
    const grant = sqliteGrant(file, { maxRowsAffected: 3 });
    const r = await run("UPDATE products SET name = name || '!'", grant);
    expect(r.status).toBe('awaiting-approval');
    expect(r.stderr).toMatch(/would change 4 rows in "shop", more than the 3/);
    expect(dump()).toBe(original);
    const approved = await run("UPDATE products SET name = name || '!'", grant, true);
    expect(approved.status).toBe('done');
    expect(approved.effect.rowsAffected).toBe(4);
  });

  it('refuses transaction control, ATTACH, TEMP objects and PRAGMAs that change settings', async () => {
    for (const [sql, message] of [
      ['COMMIT', /leave out BEGIN, COMMIT/],
      ["ATTACH 'other.db' AS o", /outside the grant/],
      ['CREATE TEMP TABLE scratch (a)', /TEMP tables/],
      ['PRAGMA foreign_keys = OFF', /only PRAGMAs that read/],
    ] as const) {
      const r = await run(sql);
      expect(r.status, sql).toBe('failed');
      expect(r.stderr, sql).toMatch(message);
    }
    expect((await done('PRAGMA table_info(products)')).statements[0]!.result?.rowCount).toBe(6);
  });
});

describe('query results', () => {
  it('keeps the first 50 rows with the count, values as text, NULL as null, blobs as hex', async () => {
    const effect = await done('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120) SELECT i, NULL AS empty, x\'00ff\' AS b FROM n');
    const result = effect.statements[0]!.result!;
    expect(result).toMatchObject({ columns: ['i', 'empty', 'b'], rowCount: 120, truncated: true });
    expect(result.rows).toHaveLength(50);
    expect(result.rows[0]).toEqual(['1', null, '\\x00ff']);
    expect(effect.undo.kind).toBe('none');
  });
});

describe('held-transaction mode', () => {
  it('holds changes until keep or undo, rolls back the newest first, and other writers wait meanwhile', async () => {
    const grant = sqliteGrant(file, { mode: 'held', heldTimeoutSeconds: 60 });
    const original = dump();
    const first = await run("UPDATE products SET name = 'held 1' WHERE id = 1", grant);
    expect(first.status).toBe('done');
    expect(first.stderr).toMatch(/stays open until the person keeps or undoes/);
    expect(first.effect.undo).toMatchObject({ kind: 'held', statements: [expect.stringMatching(/^ROLLBACK TO SAVEPOINT posthoc_action_/)] });
    const second = await run("UPDATE products SET name = 'held 2' WHERE id = 2", grant);
    expect(() => other((db) => db.pragma('busy_timeout = 50') && db.prepare("UPDATE products SET name = 'x' WHERE id = 3").run())).toThrow(/locked|busy/);
    await expect(channel.undo(first.effect)).rejects.toThrow(/undo them first/);
    await channel.undo(second.effect);
    await channel.undo(first.effect);
    expect(dump()).toBe(original);

    const kept = await run("UPDATE products SET name = 'kept' WHERE id = 1", grant);
    expect(await channel.keep(kept.effect)).toEqual([expect.any(String)]);
    expect(other((db) => db.prepare('SELECT name FROM products WHERE id = 1').pluck().get())).toBe('kept');
  });

  it('holds several gateway requests of one action in one savepoint: undo rolls them back together', async () => {
    const grant = sqliteGrant(file, { mode: 'held', heldTimeoutSeconds: 60 });
    const original = dump();
    const request = (sql: string) => channel.run({ taskId: 'task-1', actionId: 'python-action', grant, sql, params: null, via: 'gateway', approved: false, timeoutMs: 30_000 });
    const a = await request("UPDATE products SET name = 'one' WHERE id = 1");
    const b = await request("UPDATE products SET name = 'two' WHERE id = 2");
    const failing = await request('UPDATE products SET price_cents = -1 WHERE id = 3');
    expect([a.status, b.status, failing.status]).toEqual(['done', 'done', 'failed']);
    expect(a.effect.undo.logId).toBe(b.effect.undo.logId);
    await channel.undo(a.effect);
    expect(dump()).toBe(original);
  });

  it('rolls back a held transaction nobody kept when its timeout passes', async () => {
    const grant = sqliteGrant(file, { mode: 'held', heldTimeoutSeconds: 1 });
    const original = dump();
    const expired = new Promise<string[]>((resolve) => {
      heldExpired = resolve;
    });
    const r = await run("UPDATE products SET name = 'held' WHERE id = 1", grant);
    expect(await expired).toHaveLength(1);
    expect(dump()).toBe(original);
    expect(await channel.conflicts(r.effect)).toEqual(['the held transaction on shop is no longer open']);
  });
});
