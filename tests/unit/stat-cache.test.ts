// The stat cache on disk: a binary whole and a journal of checksummed frames. What is saved is what a
// load gives back; a torn journal ends where it tears; the journal never passes its bound; anything that
// is not a cache reads as an empty one (a full re-read), never as a crash.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DirState, JOURNAL_FLOOR_BYTES, JOURNAL_FRACTION, StatCache, type CachedChild } from '../../main/effects/fs/stat-cache';
import { decodeRecord, encodeRecord, frame, VERSION, writeRecordFile } from '../../main/effects/fs/stat-cache-format';
import { encodeV2 } from '../support/stat-cache-v2';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function cacheFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'posthoc-stat-cache-'));
  made.push(dir);
  return join(dir, 'posthoc-stat-cache.bin');
}

const oid = (n: number) => n.toString(16).padStart(40, '0');
function child(name: string, n: number, over: Partial<CachedChild> = {}): CachedChild {
  const kind = over.kind ?? 'file';
  const stored = name.toLowerCase() === '.git' ? `.posthoc-esc-${name}` : name;
  return {
    name,
    kind,
    oid: oid(n),
    size: 1000 + n,
    mtimeMs: 1_700_000_000_123.456 + n,
    ctimeMs: 1_700_000_001_000.5 + n,
    ino: 2 ** 40 + n,
    mode: 0o100644,
    trusted: true,
    key: kind === 'dir' ? `${stored}/` : stored,
    ...over,
  };
}
function folder(n: number, children: CachedChild[]) {
  return { tree: oid(1_000_000 + n), children };
}
/** What a load must give back: the saved fields, not the in-memory-only ones. */
function persisted(cache: StatCache) {
  return [...cache.dirs].map(([rel, s]) => [rel, s.tree, s.children.map((c) => ({ ...c }))]);
}
function sample(): StatCache {
  const cache = new StatCache();
  cache.setDir('', folder(0, [child('a.txt', 1), child('.git', 2, { kind: 'dir', size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0, mode: 0, trusted: false }), child('sub', 3, { kind: 'dir' })]));
  cache.setDir('.git', folder(1, [child('config', 4, { kind: 'exec', mode: 0o100755 })]));
  cache.setDir('sub', folder(2, [child('été ✓ 日本.txt', 5, { trusted: false }), child('link', 6, { kind: 'link', mode: 0o120777 }), child('big.bin', 7, { kind: 'uncovered' })]));
  cache.setDir('sub/empty', folder(3, []));
  cache.large.set(oid(7), 9 * 1024 * 1024);
  cache.markChanged();
  return cache;
}

describe('the stat cache on disk', () => {
  it('gives back every folder, entry, stat field, flag and large blob it saved', () => {
    const file = cacheFile();
    const cache = sample();
    cache.save(file);
    const loaded = StatCache.load(file);
    expect(persisted(loaded)).toEqual(persisted(cache));
    expect([...loaded.large]).toEqual([...cache.large]);
    expect(loaded.dirs.get('')!.children[1]!.key).toBe('.posthoc-esc-.git/');
    expect(loaded.oids()).toEqual(cache.oids());
    // Journal frames (changes, a folder removed, the large table emptied) replay onto the whole.
    loaded.setDir('sub/new', folder(4, [child('n.txt', 8)]));
    loaded.dropSubtree('.git');
    loaded.large.clear();
    loaded.markChanged();
    loaded.save(file);
    expect(existsSync(`${file}.log`)).toBe(true);
    const again = StatCache.load(file);
    expect(persisted(again)).toEqual(persisted(loaded));
    expect(again.large.size).toBe(0);
    expect(again.dirs.has('.git')).toBe(false);
  });

  it('keeps the entries in the order they were listed, a subfolder with its stat fields as listed, without an object per entry', () => {
    const file = cacheFile();
    const cache = new StatCache();
    const dirStats = { size: 4096, mtimeMs: 1.5, ctimeMs: 2.5, ino: 77, mode: 0o40755 };
    // Listed as sub, .git, a.txt (not git order): the order is kept as it was given.
    const order = [child('sub', 3, { kind: 'dir', ...dirStats, trusted: false }), child('.git', 2, { kind: 'dir', trusted: false }), child('a.txt', 1)];
    cache.setDir('', { tree: oid(1_000_000), children: order });
    cache.markChanged();
    cache.save(file);
    const loaded = StatCache.load(file).dirs.get('')!;
    expect(loaded).toBeInstanceOf(DirState);
    expect(loaded.names).toBe('sub\0.git\0a.txt');
    expect(loaded.count).toBe(3);
    expect(loaded.children.map((c) => ({ ...c }))).toEqual(order);
    expect([...loaded.stats.subarray(0, 5)]).toEqual([4096, 1.5, 2.5, 77, 0o40755]);
    expect([...loaded.subdirs()]).toEqual([
      ['sub', 0],
      ['.git', 1],
    ]);
    expect(loaded.oid(2)).toBe(oid(1));
    expect(loaded.kind(1)).toBe('dir');
    // Clean: every file vouched for; an untrusted or uncovered file makes the folder be looked into entry by entry.
    expect(loaded.clean()).toBe(true);
    expect(DirState.of(oid(1), [child('a', 1, { trusted: false })]).clean()).toBe(false);
    expect(DirState.of(oid(1), [child('a', 1, { kind: 'uncovered' })]).clean()).toBe(false);
    expect(loaded.distrusted().clean()).toBe(false);
    expect(loaded.distrusted().names).toBe(loaded.names);
  });

  it('journals a folder set again only when its tree, its entries, their order, stat fields or flags changed', () => {
    const file = cacheFile();
    const cache = new StatCache();
    const [a, b] = [child('a', 1), child('b', 2)];
    cache.setDir('x', { tree: oid(9), children: [a, b] });
    cache.markChanged();
    cache.save(file);
    const journal = () => (existsSync(`${file}.log`) ? statSync(`${file}.log`).size : 0);
    const setAndSave = (state: { tree: string; children: CachedChild[] }) => {
      cache.setDir('x', state);
      cache.markChanged();
      cache.save(file);
    };
    setAndSave({ tree: oid(9), children: [{ ...a }, { ...b }] }); // as a fresh process's walk finds it
    const quiet = journal(); // the large table only
    setAndSave({ tree: oid(9), children: [b, a] }); // another order
    expect(journal()).toBeGreaterThan(quiet * 2);
    let at = journal();
    setAndSave({ tree: oid(9), children: [b, { ...a, ctimeMs: a.ctimeMs + 1 }] }); // a stat field
    expect(journal()).toBeGreaterThan(at + quiet);
    at = journal();
    setAndSave({ tree: oid(9), children: [b, { ...a, ctimeMs: a.ctimeMs + 1, trusted: false }] }); // a flag
    expect(journal()).toBeGreaterThan(at + quiet);
    at = journal();
    setAndSave({ tree: oid(9), children: [b, { ...a, ctimeMs: a.ctimeMs + 1, trusted: false }] }); // the same again
    expect(journal()).toBe(at + quiet);
    expect(StatCache.load(file).dirs.get('x')!.names).toBe('b\0a');
  });

  it('reads a cache of version 2 (entries in git order, a clean listing as an order over them) as the same entries, in listing order', () => {
    const file = cacheFile();
    const a = child('a.txt', 1);
    const sub = child('sub', 3, { kind: 'dir', size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0, mode: 0, trusted: false });
    const listedStats = new Float64Array(10);
    listedStats.set([4096, 1.5, 2.5, 77, 0o40755], 0);
    listedStats.set([a.size, a.mtimeMs, a.ctimeMs, a.ino, a.mode], 5);
    const v2 = encodeV2([
      ['', { tree: oid(1_000_000), children: [a, sub], listed: { order: [1, 0], dirStats: [4096, 1.5, 2.5, 77, 0o40755] } }],
      ['sub', { tree: oid(3), children: [child('x', 4, { trusted: false })] }],
    ]);
    writeFileSync(file, v2);
    const loaded = StatCache.load(file);
    const root = loaded.dirs.get('')!;
    expect(root.names).toBe('sub\0a.txt');
    expect([...root.stats]).toEqual([...listedStats]);
    expect(root.children.map((c) => ({ ...c }))).toEqual([{ ...sub, size: 4096, mtimeMs: 1.5, ctimeMs: 2.5, ino: 77, mode: 0o40755 }, a]);
    expect(loaded.dirs.get('sub')!.children.map((c) => ({ ...c }))).toEqual([child('x', 4, { trusted: false })]);
    // Written back as version 3 by the next save of the whole.
    loaded.markChanged();
    (loaded as unknown as { baseBytes: number }).baseBytes = 0;
    loaded.save(file);
    expect(readFileSync(file).readUInt32LE(4)).toBe(VERSION);
    expect(persisted(StatCache.load(file))).toEqual(persisted(loaded));
  });

  it('writes the whole to a file section by section with the same bytes as the record in memory', () => {
    const file = cacheFile();
    const cache = sample();
    for (let d = 0; d < 500; d++) cache.setDir(`many/d${d}`, folder(d, Array.from({ length: 40 }, (_, i) => child(`f${i}-${'x'.repeat(d % 7)}.txt`, d * 100 + i))));
    const record = { dirs: [...cache.dirs], removed: ['gone', 'été'], large: [...cache.large] };
    const length = writeRecordFile(file, record);
    const bytes = readFileSync(file);
    expect(length).toBe(bytes.length);
    expect(bytes.length).toBeGreaterThan(1 << 20); // more than the staging buffer
    expect(bytes.equals(encodeRecord(record))).toBe(true);
    expect(decodeRecord(bytes).removed).toEqual(['gone', 'été']);
  });

  it('encodes a record without folders, and refuses an object id that is not one', () => {
    expect(decodeRecord(encodeRecord({ dirs: [], removed: ['x/y'], large: null }))).toEqual({ dirs: [], removed: ['x/y'], large: null });
    expect(() => encodeRecord({ dirs: [['', { tree: 'not hex', children: [] }]], removed: [], large: [] })).toThrow(/not an object id/);
  });

  it('ignores a torn last frame, keeps the frames before it, and writes the whole again at the next save', () => {
    const file = cacheFile();
    const cache = sample();
    cache.save(file);
    cache.setDir('sub/new', folder(4, [child('n.txt', 8)]));
    cache.markChanged();
    cache.save(file);
    const before = persisted(StatCache.load(file));
    const torn = frame(encodeRecord({ dirs: [['sub', folder(9, [])]], removed: ['sub/new'], large: [] }));
    for (const cut of [1, 7, 8, 20, torn.length - 1]) {
      const whole = readFileSync(`${file}.log`);
      appendFileSync(`${file}.log`, torn.subarray(0, cut));
      const loaded = StatCache.load(file);
      expect(persisted(loaded)).toEqual(before);
      expect(loaded.isChanged).toBe(true); // compacted at the next save
      writeFileSync(`${file}.log`, whole);
    }
    // A whole frame whose bytes were damaged counts as torn too.
    const damaged = Buffer.from(torn);
    damaged[damaged.length - 1]! ^= 0xff;
    appendFileSync(`${file}.log`, damaged);
    const loaded = StatCache.load(file);
    expect(persisted(loaded)).toEqual(before);
    loaded.save(file);
    expect(existsSync(`${file}.log`)).toBe(false);
    expect(persisted(StatCache.load(file))).toEqual(before);
  });

  it('never lets the journal pass an eighth of the whole (or the floor)', () => {
    const file = cacheFile();
    const cache = new StatCache();
    for (let d = 0; d < 400; d++) cache.setDir(`d${d}`, folder(d, Array.from({ length: 20 }, (_, i) => child(`f${i}.txt`, d * 100 + i))));
    cache.markChanged();
    cache.save(file);
    let wholes = 0;
    let base = statSync(file).size;
    for (let round = 0; round < 300; round++) {
      // Each save changes a few folders (the usual checkpoint), sometimes many.
      const changed = round % 50 === 49 ? 200 : 3;
      for (let k = 0; k < changed; k++) {
        const d = (round * 7 + k) % 400;
        cache.setDir(`d${d}`, folder(d, Array.from({ length: 20 }, (_, i) => child(`f${i}.txt`, round * 10_000 + d * 100 + i))));
      }
      cache.markChanged();
      cache.save(file);
      const size = statSync(file).size;
      if (size !== base || !existsSync(`${file}.log`)) wholes++;
      base = size;
      const journal = existsSync(`${file}.log`) ? statSync(`${file}.log`).size : 0;
      expect(journal).toBeLessThanOrEqual(Math.max(JOURNAL_FLOOR_BYTES, base * JOURNAL_FRACTION));
    }
    expect(wholes).toBeGreaterThan(0);
    expect(persisted(StatCache.load(file))).toEqual(persisted(cache));
  });

  it('compacts at the next save a journal found past its bound (appended by two processes, or an older version)', () => {
    const file = cacheFile();
    const cache = sample();
    cache.save(file);
    const big = new StatCache();
    for (let d = 0; d < 200; d++) big.setDir(`x${d}`, folder(d, Array.from({ length: 20 }, (_, i) => child(`f${i}.txt`, i))));
    appendFileSync(`${file}.log`, frame(encodeRecord({ dirs: [...big.dirs], removed: [], large: null })));
    const loaded = StatCache.load(file);
    expect(loaded.dirs.size).toBe(204);
    expect(loaded.isChanged).toBe(true);
    loaded.save(file);
    expect(existsSync(`${file}.log`)).toBe(false);
    expect(StatCache.load(file).dirs.size).toBe(204);
  });

  it('reads a damaged or foreign file as an empty cache (the next walk reads every file), without throwing', () => {
    const file = cacheFile();
    const good = (() => {
      sample().save(file);
      return readFileSync(file);
    })();
    const header = (word: number, value: number) => {
      const b = Buffer.from(good);
      b.writeUInt32LE(value, word * 4);
      return b;
    };
    const flipped = Buffer.from(good);
    flipped[flipped.length - 1] = 0xff; // the last string byte: no longer valid UTF-8, the lengths no longer add up
    const variants: Buffer[] = [
      Buffer.alloc(0),
      Buffer.from('{"v":1,"large":[],"dirs":[]}'),
      Buffer.from('garbage that is long enough to hold a header, but is not one'),
      good.subarray(0, good.length - 1),
      good.subarray(0, 40),
      Buffer.concat([good, Buffer.from([0])]),
      header(1, 99), // another version
      header(2, 0xffff_fff0), // folders beyond the file
      header(3, 0x7fff_ffff), // entries beyond the file
      header(6, 3), // string bytes that do not match
      header(8, 12345), // its checksum
      flipped,
    ];
    for (let seed = 1; seed <= 20; seed++) {
      const b = Buffer.from(good);
      for (let i = 0; i < 8; i++) {
        const at = (seed * 7919 * (i + 1)) % b.length;
        b[at] = b[at]! ^ (1 + ((seed + i) % 255));
      }
      variants.push(b);
    }
    for (const bytes of variants) {
      writeFileSync(file, bytes);
      writeFileSync(`${file}.log`, frame(encodeRecord({ dirs: [['lost', folder(5, [])]], removed: [], large: null })));
      let loaded: StatCache | undefined;
      expect(() => (loaded = StatCache.load(file))).not.toThrow();
      // Nothing at all (its checksum catches a flip in a stat field or an id, which would otherwise vouch
      // for the wrong content), and not the journal's folders on top of a whole it lost.
      expect(loaded!.dirs.size).toBe(0);
      expect(loaded!.large.size).toBe(0);
    }
    rmSync(file);
    rmSync(`${file}.log`);
    expect(StatCache.load(file).dirs.size).toBe(0);
  });
});
