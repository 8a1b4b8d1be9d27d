// SQLite files over the page-capture size limit (8 MiB): actions touching many pages are captured by pages
// read from the rollback journal, few-row actions by triggers, WAL files by their own rule; undo and redo of
// many rows run set by set (sqlite-bulk.ts) and stay exact. Hostile cases: the person's edit to another row
// on the same page survives undo, an edit to a row the action wrote refuses naming it, a cascade into a row
// the person added since refuses, foreign keys and the person's triggers come back as they were.
import Database from 'better-sqlite3';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DbEffect } from '../../shared/domain';
import { DbChannel } from '../../main/effects/db/db-channel';
import { DbConflict } from '../../main/effects/db/db-errors';
import { PAGE_CAPTURE_LIMIT_BYTES } from '../../main/effects/db/sqlite/sqlite-pages';
import { dbEngines } from '../support/db-engines';
import { sqliteFileDump, sqliteGrant } from '../support/shop-db';
import { tempDirs } from '../support/temp-dir';

const ITEMS = 40_000;
const dirs = tempDirs();
let file: string;
let channel: DbChannel;
let seq = 0;

/** ~10 MiB: 400 parents, 40,000 items of ~220 bytes pointing at them (ON DELETE CASCADE, indexed), a trigger auditing price changes. */
function createLarge(path: string, wal = false): void {
  const db = new Database(path);
  if (wal) db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE parents (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE items (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parents(id) ON DELETE CASCADE, sku TEXT NOT NULL UNIQUE, price INTEGER NOT NULL, note TEXT, body TEXT);
    CREATE INDEX items_parent ON items (parent_id);
    CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, what TEXT NOT NULL);
    CREATE TRIGGER items_audit AFTER UPDATE OF price ON items BEGIN INSERT INTO audit (what) VALUES ('price of ' || new.id); END;
    WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 400) INSERT INTO parents SELECT i, 'parent ' || i FROM s;
    WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${ITEMS})
      INSERT INTO items SELECT i, 1 + i % 400, 'SKU-' || i, 100 + i % 997, CASE WHEN i % 3 = 0 THEN NULL ELSE 'n' || i END, printf('%.200c', char(65 + i % 26)) FROM s;
  `);
  db.close();
}

beforeEach(() => {
  file = join(dirs.make('posthoc-sqlite-size-'), 'large.db');
  channel = new DbChannel(dirs.make('posthoc-data-'), dbEngines());
});
afterEach(async () => {
  await channel.shutdown();
  delete process.env.POSTHOC_SQLITE_CAPTURE;
  dirs.cleanup();
});

const dump = () => sqliteFileDump(file);

function other<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(file);
  db.pragma('foreign_keys = ON');
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

async function done(sql: string): Promise<DbEffect> {
  const r = await channel.run({ taskId: 'task-1', actionId: `action-${++seq}`, grant: sqliteGrant(file, { maxRowsAffected: 1_000_000 }), sql, params: null, via: 'sql', approved: false, timeoutMs: 120_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe('done');
  return r.effect;
}

/** 'pages' when the action's rows are the file's images, 'triggers' when they are the capture triggers' log. */
function capturedBy(effect: DbEffect): 'pages' | 'triggers' {
  const files = readdirSync(channel.logs.dir).filter((f) => f.startsWith(effect.undo.logId!) && !f.endsWith('.json'));
  return files.some((f) => f.endsWith('.pages-before')) ? 'pages' : 'triggers';
}

describe('SQLite files over the page-capture limit', () => {
  it('captures an UPDATE of every row (and what the trigger wrote) by pages from the rollback journal; undo and redo are exact', async () => {
    createLarge(file);
    expect(statSync(file).size).toBeGreaterThan(PAGE_CAPTURE_LIMIT_BYTES);
    const original = dump();
    const effect = await done('UPDATE items SET price = price + 1');
    expect(effect.rowsAffected).toBe(2 * ITEMS); // the items and the audit rows the trigger inserted
    expect(capturedBy(effect)).toBe('pages');
    expect(effect.undo.statementCount).toBe(2 * ITEMS + 1); // and the AUTOINCREMENT counter of audit
    expect(effect.undo.statements[0]).toMatch(/^(UPDATE "items" SET "price" = \d+ WHERE "id" = \d+;|DELETE FROM "audit" WHERE "id" = \d+;)$/);
    const after = dump();
    const undone = await channel.undo(effect);
    expect(undone.restored.at(-1)).toMatch(/and \d+ more rows/);
    expect(dump()).toBe(original);
    await channel.redo(effect);
    expect(dump()).toBe(after);
    await channel.undo(effect);
    expect(dump()).toBe(original);
  });

  it('leaves an action on a few rows to triggers (the journal names few pages) and undoes it exactly', async () => {
    createLarge(file);
    const original = dump();
    const effect = await done("UPDATE items SET note = 'few' WHERE id BETWEEN 100 AND 160");
    expect(capturedBy(effect)).toBe('triggers');
    expect(effect.rowsAffected).toBe(61);
    await channel.undo(effect);
    expect(dump()).toBe(original);
  });

  it("keeps the person's edit to another row on the same page through undo, and refuses, naming the row, when the person edited a row the action wrote", async () => {
    createLarge(file);
    const effect = await done('UPDATE items SET price = price * 2 WHERE id % 2 = 0');
    expect(capturedBy(effect)).toBe('pages');
    // Rows 1001 and 1000 share a page; the action wrote 1000, not 1001.
    other((db) => db.exec("UPDATE items SET note = 'mine' WHERE id = 1001"));
    other((db) => db.exec("UPDATE items SET note = 'mine too' WHERE id = 1000"));
    const before = dump();
    const refusal = await channel.undo(effect).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(DbConflict);
    expect((refusal as DbConflict).message).toMatch(/items \(id = 1000\): changed since/);
    expect(dump()).toBe(before);
    // The person takes back their edit of the action's row; undo now goes through and keeps the other edit.
    other((db) => db.exec("UPDATE items SET note = 'n1000' WHERE id = 1000"));
    await channel.undo(effect);
    other((db) => {
      expect(db.prepare('SELECT note FROM items WHERE id = 1001').pluck().get()).toBe('mine');
      expect(db.prepare('SELECT price FROM items WHERE id = 1000').pluck().get()).toBe(100 + (1000 % 997));
      expect(db.prepare('SELECT count(*) FROM items WHERE price <> 100 + id % 997').pluck().get()).toBe(0);
    });
  });

  it('undoes exactly after the person edited another row and rewrote the whole file (VACUUM moves every page, so undo checks row by row)', async () => {
    createLarge(file);
    const original = dump();
    const effect = await done('UPDATE items SET price = price + 3 WHERE id % 4 <> 0');
    expect(capturedBy(effect)).toBe('pages');
    other((db) => db.exec("UPDATE items SET note = 'mine' WHERE id = 4; VACUUM"));
    await channel.undo(effect);
    other((db) => {
      expect(db.prepare('SELECT note FROM items WHERE id = 4').pluck().get()).toBe('mine');
      db.exec("UPDATE items SET note = 'n4' WHERE id = 4");
    });
    expect(dump()).toBe(original);
  });

  it('refuses, naming rows, when the person deleted a row the action wrote or took a key it deleted', async () => {
    createLarge(file);
    const effect = await done('DELETE FROM items WHERE id > 20000; UPDATE items SET price = 0 WHERE id <= 20000');
    other((db) => db.exec('DELETE FROM items WHERE id = 5; INSERT INTO items (id, parent_id, sku, price) VALUES (30000, 1, \'NEW\', 1)'));
    const refusal = (await channel.undo(effect).catch((e: unknown) => e)) as DbConflict;
    expect(refusal).toBeInstanceOf(DbConflict);
    expect(refusal.message).toMatch(/items \(id = 5\): deleted since/);
    expect(refusal.message).toMatch(/items \(id = 30000\): another row has its key now/);
  });

  it('brings back parents, the rows their deletion cascaded into and the foreign keys between them; refuses an undo whose DELETE would cascade into a row the person added since', async () => {
    createLarge(file);
    const original = dump();
    const cascade = await done('DELETE FROM parents WHERE id % 2 = 0');
    expect(cascade.rowsAffected).toBe(200 + ITEMS / 2);
    expect(capturedBy(cascade)).toBe('pages');
    await channel.undo(cascade);
    expect(dump()).toBe(original);
    other((db) => expect(db.prepare('SELECT count(*) FROM pragma_foreign_key_check').pluck().get()).toBe(0));

    const added = await done("INSERT INTO parents (id, name) SELECT id + 1000, 'new ' || id FROM parents");
    other((db) => db.exec("INSERT INTO items (id, parent_id, sku, price) VALUES (50001, 1002, 'PERSON', 1)"));
    const refusal = (await channel.undo(added).catch((e: unknown) => e)) as DbConflict;
    expect(refusal).toBeInstanceOf(DbConflict);
    expect(refusal.message).toMatch(/items \(id = 50001\)/);
    other((db) => expect(db.prepare('SELECT count(*) FROM items WHERE id = 50001').pluck().get()).toBe(1));
  });

  it('a WAL file keeps WAL: over the limit its actions are captured by triggers (or by pages when forced), undone exactly', async () => {
    createLarge(file, true);
    const original = dump();
    const byTriggers = await done('UPDATE items SET price = price + 1');
    expect(capturedBy(byTriggers)).toBe('triggers');
    await channel.undo(byTriggers);
    expect(dump()).toBe(original);
    process.env.POSTHOC_SQLITE_CAPTURE = 'pages';
    const byPages = await done('UPDATE items SET price = price + 1 WHERE id % 3 = 0; DELETE FROM items WHERE id % 7 = 0');
    expect(capturedBy(byPages)).toBe('pages');
    const after = dump();
    await channel.undo(byPages);
    expect(dump()).toBe(original);
    await channel.redo(byPages);
    expect(dump()).toBe(after);
    other((db) => expect(db.pragma('journal_mode', { simple: true })).toBe('wal'));
  });
});
