// Which permission bits count as private, what a restore gives a file, and the record's own rules: the
// last sighting wins, nothing is written when nothing private was seen, garbage collection drops keys.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isPrivate, PrivateModes } from '../../main/effects/fs/private-modes';
import { modeFor } from '../../main/effects/fs/restore';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());
const K1 = '1'.repeat(40);
const K2 = '2'.repeat(40);
const AA = 'a'.repeat(40);
const regular = (perms: number) => ({ mode: 0o100000 | perms }) as Parameters<typeof modeFor>[0];

describe('private permission bits', () => {
  it('counts a file private when group or others lack what 0644 (0755 for a program) gives them', () => {
    expect([0o600, 0o640, 0o604, 0o400, 0o000].map((p) => isPrivate(p, false))).toEqual([true, true, true, true, true]);
    expect([0o644, 0o664, 0o666, 0o755, 0o444].map((p) => isPrivate(p, false))).toEqual([false, false, false, false, false]);
    expect([0o700, 0o750, 0o754, 0o744].map((p) => isPrivate(p, true))).toEqual([true, true, true, true]);
    expect([0o755, 0o775, 0o777].map((p) => isPrivate(p, true))).toEqual([false, false, false]);
  });

  it('gives a restored file its recorded bits first, then the replaced file’s, then 0644 or 0755; never set-user-ID', () => {
    expect(modeFor(null, false)).toBe(0o644);
    expect(modeFor(null, true)).toBe(0o755);
    expect(modeFor(null, false, 0o600)).toBe(0o600);
    expect(modeFor(null, true, 0o700)).toBe(0o700);
    expect(modeFor(null, true, 0o750)).toBe(0o750);
    expect(modeFor(regular(0o664), false)).toBe(0o664);
    expect(modeFor(regular(0o664), false, 0o640)).toBe(0o640);
    expect(modeFor(regular(0o4755), true)).toBe(0o755);
    expect(modeFor(null, false, 0o4600)).toBe(0o600);
    // A content recorded as a program's but coming back as a plain file loses its run bits, and the reverse.
    expect(modeFor(null, false, 0o700)).toBe(0o600);
    expect(modeFor(null, true, 0o600)).toBe(0o700);
  });

  it('records private sightings, lets the last one win, writes nothing for public files, and drops unkept contents', () => {
    const file = join(dirs.make('posthoc-modes-'), 'modes.json');
    const record = new PrivateModes(file);
    record.note([{ path: 'a.txt', oid: AA, mode: 0o100644, executable: false }]);
    expect(existsSync(file)).toBe(false);

    record.note([
      { path: 'key', oid: K1, mode: 0o100600, executable: false },
      { path: 'dir/with space', oid: K2, mode: 0o100640, executable: false },
    ]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    let read = record.reader();
    expect([read('key', K1), read('dir/with space', K2), read('key', K2), read('a.txt', AA)]).toEqual([0o600, 0o640, null, null]);

    // Opened to everyone since: the next sighting removes the key.
    record.note([{ path: 'key', oid: K1, mode: 0o100644, executable: false }]);
    read = record.reader();
    expect(read('key', K1)).toBeNull();

    expect(record.retain(new Set([K1]))).toBe(1);
    expect(record.reader()('dir/with space', K2)).toBeNull();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ v: 1, files: [] });
  });

  it('hostile: a record with rows it cannot trust gives only the rows it can', () => {
    const file = join(dirs.make('posthoc-modes-'), 'modes.json');
    const rows = [['good', K1, 0o600], ['suid', K1, 0o4700], ['negative', K1, -1], ['text', K1, '0600'], ['short', 'abc', 0o600], [7, K1, 0o600], ['three', K1]];
    writeFileSync(file, JSON.stringify({ v: 1, files: rows }));
    const read = new PrivateModes(file).reader();
    expect(['good', 'suid', 'negative', 'text', 'three'].map((p) => read(p, K1))).toEqual([0o600, null, null, null, null]);
    expect(read('short', 'abc')).toBeNull();
    writeFileSync(file, JSON.stringify({ v: 2, files: rows }));
    expect(new PrivateModes(file).reader()('good', K1)).toBeNull();
  });
});
