// The stat cache on disk: a binary whole and a journal of checksummed frames. What is saved is what a
// load gives back; a torn journal ends where it tears; the journal never passes its bound; anything that
// is not a cache reads as an empty one (a full re-read), never as a crash.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JOURNAL_FLOOR_BYTES, JOURNAL_FRACTION, StatCache, type CachedChild, type DirState } from '../../main/effects/fs/stat-cache';
import { decodeRecord, encodeRecord, frame } from '../../main/effects/fs/stat-cache-format';

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
function folder(n: number, children: CachedChild[]): DirState {
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

  it("keeps a folder's clean listing (order, kinds, stat fields; subfolders' own), and not one that was not clean", () => {
    const file = cacheFile();
    const cache = sample();
    const root = cache.dirs.get('')!;
    // Listed as b, a: the subfolders first (their listing stat fields are the folder's own, not the entry's zeros).
    const [a, escaped, sub] = root.children as [CachedChild, CachedChild, CachedChild];
    const order = [sub, escaped, a];
    const stats = new Float64Array(15);
    stats.set([4096, 1.5, 2.5, 77, 0o40755], 0);
    stats.set([4096, 3.5, 4.5, 78, 0o40755], 5);
    stats.set([a.size, a.mtimeMs, a.ctimeMs, a.ino, a.mode], 10);
    root.listed = { names: order.map((c) => c.name).join('\0'), order, kinds: Uint8Array.from([0, 0, 1]), stats, clean: true };
    const subState = cache.dirs.get('sub')!;
    subState.listed = { names: subState.children.map((c) => c.name).join('\0'), order: subState.children, kinds: new Uint8Array(3), stats: new Float64Array(15), clean: false };
    cache.save(file);
    const loaded = StatCache.load(file);
    const listed = loaded.dirs.get('')!.listed!;
    expect(listed.names).toBe(root.listed.names);
    expect([...listed.kinds]).toEqual([0, 0, 1]);
    expect([...listed.stats]).toEqual([...stats]);
    expect(listed.clean).toBe(true);
    // The listing's entries are the loaded folder's own entry objects (what the scanner compares by identity).
    const children = loaded.dirs.get('')!.children;
    expect(listed.order.map((c) => children.indexOf(c!))).toEqual([2, 1, 0]);
    expect(loaded.dirs.get('sub')!.listed).toBeUndefined();
    // A listing that is not what its entries give back (a file's stat fields differ) is not kept either.
    stats[10] = a.size + 1;
    const other = new StatCache();
    other.setDir('', root);
    other.markChanged();
    const otherFile = cacheFile();
    other.save(otherFile);
    expect(StatCache.load(otherFile).dirs.get('')!.listed).toBeUndefined();
  });

  it('journals a folder set again only when its tree, its entries or the order of its clean listing changed', () => {
    const file = cacheFile();
    const cache = new StatCache();
    const [a, b] = [child('a', 1), child('b', 2)];
    const listed = (order: CachedChild[], clean = true) => ({
      names: order.map((c) => c.name).join('\0'),
      order,
      kinds: Uint8Array.from([1, 1]),
      stats: Float64Array.from(order.flatMap((c) => [c.size, c.mtimeMs, c.ctimeMs, c.ino, c.mode])),
      clean,
    });
    cache.setDir('x', { tree: oid(9), children: [a, b], listed: listed([a, b]) });
    cache.markChanged();
    cache.save(file);
    const journal = () => (existsSync(`${file}.log`) ? statSync(`${file}.log`).size : 0);
    const setAndSave = (state: DirState) => {
      cache.setDir('x', state);
      cache.markChanged();
      cache.save(file);
    };
    setAndSave({ tree: oid(9), children: [a, b], listed: listed([a, b]) }); // as a fresh process's walk finds it
    const quiet = journal(); // the large table only
    setAndSave({ tree: oid(9), children: [a, b], listed: listed([a, b], false) });
    expect(journal()).toBe(quiet * 2);
    setAndSave({ tree: oid(9), children: [a, b], listed: listed([b, a]) });
    expect(journal()).toBeGreaterThan(quiet * 3);
    expect(StatCache.load(file).dirs.get('x')!.listed!.names).toBe('b\0a');
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
