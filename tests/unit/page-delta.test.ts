// The image after a page-captured SQLite action is kept as the pages that differ from the image before:
// it must give back exactly the image after, and a damaged one must say so instead of giving a wrong image.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { applyPageDelta, isPageDelta, pageDelta } from '../../main/effects/db/sqlite/sqlite-pages';

function images(change: string): { before: Buffer; after: Buffer } {
  const db = new Database(':memory:');
  try {
    db.exec('CREATE TABLE t (a); WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 3000) INSERT INTO t SELECT randomblob(50) FROM s');
    const before = db.serialize();
    db.exec(change);
    return { before, after: db.serialize() };
  } finally {
    db.close();
  }
}

describe('page delta', () => {
  it('keeps only the pages that changed, and gives back the image after exactly', () => {
    const { before, after } = images('UPDATE t SET a = 1 WHERE rowid = 7');
    const delta = pageDelta(before, after);
    expect(isPageDelta(delta)).toBe(true);
    expect(delta.length).toBeLessThan(after.length / 10);
    expect(applyPageDelta(before, delta).equals(after)).toBe(true);
  });

  it('gives back a grown file, and keeps the whole image when most pages changed', () => {
    const grown = images("INSERT INTO t SELECT randomblob(50) FROM t LIMIT 500");
    expect(grown.after.length).toBeGreaterThan(grown.before.length);
    expect(applyPageDelta(grown.before, pageDelta(grown.before, grown.after)).equals(grown.after)).toBe(true);
    const all = images('UPDATE t SET a = randomblob(50)');
    const kept = pageDelta(all.before, all.after);
    expect(isPageDelta(kept)).toBe(false);
    expect(kept.equals(all.after)).toBe(true);
  });

  it('refuses a damaged delta instead of giving a wrong image', () => {
    const { before, after } = images('UPDATE t SET a = 1 WHERE rowid IN (7, 2900)');
    const delta = pageDelta(before, after);
    for (const cut of [delta.length - 1, delta.length - 4096, 30]) {
      expect(() => applyPageDelta(before, delta.subarray(0, cut))).toThrow(/page delta of this action is damaged/);
    }
    const badPage = Buffer.from(delta);
    badPage.writeUInt32BE(999_999, 29);
    expect(() => applyPageDelta(before, badPage)).toThrow(/damaged/);
    // The image before is the one damaged: the message says so.
    expect(() => applyPageDelta(Buffer.from('garbage'), delta)).toThrow(/image of the file before this action, kept for undo, is damaged/);
  });
});
