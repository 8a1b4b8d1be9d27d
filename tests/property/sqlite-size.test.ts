// Exact undo and redo of SQLite actions over many rows: updates, deletes and inserts of one action over
// POSTHOC_SQLITE_ROWS rows (CI: 30,000; the nightly suite, scripts/test-nightly.mjs: a million), captured
// by pages and by triggers; after undo every row holds exactly what it held before (rowid, value and type),
// after redo what the action left. Correctness only: how long it takes is the benchmark's
// (npm run bench:sqlite-size).
import Database from 'better-sqlite3';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DbEffect } from '../../shared/domain';
import { DbChannel } from '../../main/effects/db/db-channel';
import { dbEngines } from '../support/db-engines';
import { sqliteGrant } from '../support/shop-db';
import { tempDirs } from '../support/temp-dir';

/** A multiple of 100 (the expected count below relies on it). */
const ROWS = Math.round(Number(process.env.POSTHOC_SQLITE_ROWS ?? 30_000) / 100) * 100;
const dirs = tempDirs();
afterAll(() => dirs.cleanup());

const COLUMNS = ['id', 'sku', 'name', 'price', 'qty', 'ratio', 'note', 'data'];

function create(path: string): void {
  const db = new Database(path);
  db.exec(`
    CREATE TABLE items (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL, price INTEGER NOT NULL, qty INTEGER, ratio REAL, note, data BLOB);
    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${ROWS})
      INSERT INTO items SELECT i, 'SKU-' || i, 'Item ' || i, 100 + i % 997, CASE WHEN i % 5 THEN i % 13 END, i / 7.0,
        CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN 'n' || i WHEN 2 THEN i ELSE 1.5 END, CASE WHEN i % 11 = 0 THEN randomblob(8) END FROM c;
  `);
  db.close();
}

/** Rows of `a` and `b` that differ (rowid, every value and its type): 0 when the files hold the same rows. */
function differences(a: string, b: string): number {
  const db = new Database(a, { readonly: true });
  try {
    db.prepare('ATTACH ? AS other').run(b);
    const row = `rowid, ${COLUMNS.map((c) => `${c}, typeof(${c}), CAST(${c} AS TEXT)`).join(', ')}`;
    const one = (x: string, y: string) => db.prepare(`SELECT count(*) FROM (SELECT ${row} FROM ${x}.items EXCEPT SELECT ${row} FROM ${y}.items)`).pluck().get() as number;
    return one('main', 'other') + one('other', 'main');
  } finally {
    db.close();
  }
}

describe.each(['pages', 'triggers'] as const)(`undo and redo of ${ROWS.toLocaleString('en')} rows, %s capture`, (mode) => {
  // 'pages' forces page capture whatever the file's size and the share of pages touched.
  beforeEach(() => {
    process.env.POSTHOC_SQLITE_CAPTURE = mode;
  });
  afterEach(() => {
    delete process.env.POSTHOC_SQLITE_CAPTURE;
  });

  it('leaves exactly the rows before after undo, and exactly the rows the action left after redo', async () => {
    const dir = dirs.make('posthoc-sqlite-rows-');
    const file = join(dir, 'items.db');
    create(file);
    copyFileSync(file, join(dir, 'before.db'));
    const channel = new DbChannel(dirs.make('posthoc-data-'), dbEngines());
    try {
      const sql = `
        UPDATE items SET price = price + 1, qty = qty * 2, ratio = ratio / 3, note = CASE WHEN id % 2 THEN note ELSE 'changed ' || id END WHERE id % 10 <> 9;
        DELETE FROM items WHERE id % 10 = 9;
        INSERT INTO items (id, sku, name, price, ratio) SELECT ${ROWS} + id, 'NEW-' || id, 'new', 1, 0.5 FROM items WHERE id <= ${Math.floor(ROWS / 10)};`;
      const r = await channel.run({ taskId: 'rows', actionId: `rows-${mode}`, grant: sqliteGrant(file, { maxRowsAffected: 100_000_000 }), sql, params: null, via: 'sql', approved: true, timeoutMs: 3_600_000 });
      expect(r.stderr).toBe('');
      const effect: DbEffect = r.effect;
      // Nine rows in ten updated, the tenth deleted, and new rows for the first tenth's survivors.
      expect(effect.rowsAffected).toBe(ROWS + (ROWS / 100) * 9);
      copyFileSync(file, join(dir, 'after.db'));
      expect(differences(file, join(dir, 'before.db'))).toBeGreaterThan(ROWS); // the comparison sees the action
      await channel.undo(effect);
      expect(differences(file, join(dir, 'before.db'))).toBe(0);
      await channel.redo(effect);
      expect(differences(file, join(dir, 'after.db'))).toBe(0);
      await channel.undo(effect);
      expect(differences(file, join(dir, 'before.db'))).toBe(0);
    } finally {
      await channel.shutdown();
    }
  });
});
