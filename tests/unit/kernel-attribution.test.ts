// The kernel's account matched to a folder's changes (main/effects/fs/kernel-attribution.ts), with handles
// made up per path: what a tool did lands on the path it has now, whoever touched a path outside the
// container makes it theirs or both, and an incomplete account tells nothing apart.
import { describe, expect, it } from 'vitest';
import { attributeByKernel } from '../../main/effects/fs/kernel-attribution';
import type { Change } from '../../main/effects/fs/tree-diff';
import { entryKey, FAN, fnv1a64, objectKey, parseWatchLog, type KernelLog, type KernelRecord } from '../../main/effects/fs/watch-log';

const file = { kind: 'file', id: 'x', mode: '100644' } as const;
const dir = { kind: 'dir', id: 't' } as const;
const added = (path: string): Change => ({ path, before: null, after: { ...file } }) as unknown as Change;
const addedDir = (path: string): Change => ({ path, before: null, after: { ...dir } }) as unknown as Change;
const modified = (path: string): Change => ({ path, before: { ...file }, after: { ...file, id: 'y' } }) as unknown as Change;
const deleted = (path: string): Change => ({ path, before: { ...file }, after: null }) as unknown as Change;

/** Handles of the folder as it is now: one per path listed (the root is "1:00"); `ctimes` when each last changed. */
function handles(paths: Record<string, string>, ctimes: Record<string, bigint> = {}) {
  return (rel: string) => {
    const handle = rel === '' ? '1:00' : paths[rel];
    return handle === undefined ? null : { handle, ctimeNs: ctimes[rel] ?? 100n };
  };
}
const rec = (mask: number, dir: string | null, name: string | null, object: string | null): KernelRecord => ({ mask, dir, name, object });
const account = (inside: KernelRecord[], outside: string[] = [], more: Partial<KernelLog> = {}): KernelLog => ({
  complete: true,
  outsideComplete: true,
  inside,
  outside: new Set(outside),
  ...more,
});
const W = FAN.MODIFY | FAN.CLOSE_WRITE;

describe('kernel attribution', () => {
  it("gives the action what it wrote in a folder made under a temporary name and renamed into place (pytest's cache)", () => {
    // mkdtemp → tmp (handle 1:aa), tmp/v (1:bb), tmp/v/lastfailed written, then tmp renamed to .pytest_cache.
    const changes = [addedDir('.pytest_cache'), addedDir('.pytest_cache/v'), added('.pytest_cache/v/lastfailed'), added('.pytest_cache/README.md')];
    const log = account([
      rec(FAN.CREATE | FAN.ONDIR | FAN.MOVED_FROM, '1:00', 'pytest-cache-files-x1', '1:aa'),
      rec(FAN.MOVED_TO | FAN.ONDIR, '1:00', '.pytest_cache', '1:aa'),
      rec(FAN.CREATE | FAN.ONDIR, '1:aa', 'v', '1:bb'),
      rec(FAN.CREATE | W, '1:bb', 'lastfailed', '1:cc'),
      rec(FAN.CREATE | W, '1:aa', 'README.md', '1:dd'),
    ]);
    const got = attributeByKernel(changes, log, handles({ '.pytest_cache': '1:aa', '.pytest_cache/v': '1:bb', '.pytest_cache/v/lastfailed': '1:cc', '.pytest_cache/README.md': '1:dd' }));
    expect(got.mine.map((c) => c.path)).toEqual(changes.map((c) => c.path));
    expect(got.theirs).toEqual([]);
  });

  it("leaves the person's changes to them, and makes a path both changed ambiguous", () => {
    const changes = [modified('notes.txt'), added('person.txt'), added('action.txt')];
    const log = account(
      [rec(W, '1:00', 'notes.txt', '1:n1'), rec(FAN.CREATE | W, '1:00', 'action.txt', '1:a1')],
      [entryKey('1:00', 'notes.txt'), objectKey('1:n1'), entryKey('1:00', 'person.txt'), objectKey('1:p1')],
    );
    const got = attributeByKernel(changes, log, handles({ 'notes.txt': '1:n1', 'person.txt': '1:p1', 'action.txt': '1:a1' }));
    expect(got.mine.map((c) => c.path)).toEqual(['notes.txt', 'action.txt']);
    expect(got.theirs.map((c) => c.path)).toEqual(['notes.txt', 'person.txt']);
    expect(got.ambiguous).toEqual(['notes.txt']);
  });

  it('claims by a change, not by an open: a file only opened for writing is the action\'s only when nobody else touched it', () => {
    const log = (outside: string[]) => account([rec(FAN.CLOSE_WRITE, '1:00', 'notes.txt', '1:n1')], outside);
    const h = handles({ 'notes.txt': '1:n1' });
    // Opened for appending, the person wrote meanwhile: theirs, and undo keeps their line.
    expect(attributeByKernel([modified('notes.txt')], log([objectKey('1:n1')]), h)).toMatchObject({ mine: [], ambiguous: [] });
    // Nobody else: written through mmap, which the kernel shows only as the close after writing.
    expect(attributeByKernel([modified('notes.txt')], log([]), h).mine.map((c) => c.path)).toEqual(['notes.txt']);
  });

  it("finds what a removed folder held by the handle its removal named (rm -rf), and a hard link's file by its object", () => {
    const changes = [deleted('build/a.o'), deleted('build/sub/b.o'), added('copy.txt')];
    const log = account([
      rec(FAN.DELETE, '1:b0', 'a.o', '1:a0'),
      rec(FAN.DELETE, '1:s0', 'b.o', '1:b1'),
      rec(FAN.DELETE | FAN.ONDIR, '1:b0', 'sub', '1:s0'),
      rec(FAN.DELETE | FAN.ONDIR, '1:00', 'build', '1:b0'),
      // A hard link made under another name the host never sees in the changes; the object is the file's.
      rec(FAN.CREATE, '1:99', 'elsewhere', '1:c0'),
    ]);
    const got = attributeByKernel(changes, log, handles({ 'copy.txt': '1:c0' }));
    expect(got.mine.map((c) => c.path)).toEqual(['build/a.o', 'build/sub/b.o', 'copy.txt']);
  });

  it('tells nothing apart from an incomplete account, and takes a path for touched outside when that set was cut', () => {
    const changes = [added('a.txt'), added('b.txt')];
    const inside = [rec(FAN.CREATE | W, '1:00', 'a.txt', '1:a1')];
    const h = handles({ 'a.txt': '1:a1', 'b.txt': '1:b1' });
    expect(attributeByKernel(changes, account(inside, [], { complete: false }), h)).toMatchObject({ ambiguous: ['a.txt', 'b.txt'] });
    const cut = attributeByKernel(changes, account(inside, [], { outsideComplete: false }), h);
    expect(cut.mine.map((c) => c.path)).toEqual(['a.txt']);
    expect(cut.ambiguous).toEqual(['a.txt']);
  });

  it("takes a path changed after the action's end (its ctime, while the container was frozen) for touched outside", () => {
    const changes = [modified('notes.txt'), added('out.txt'), deleted('old/gone.txt'), modified('later.txt')];
    const log = account(
      [
        rec(W, '1:00', 'notes.txt', '1:n1'),
        rec(FAN.CREATE | W, '1:00', 'out.txt', '1:o1'),
        rec(FAN.DELETE, '1:d0', 'gone.txt', '1:g1'),
        rec(FAN.CLOSE_WRITE, '1:00', 'later.txt', '1:l1'),
      ],
      [],
      { endedAtNs: 1_000n },
    );
    // notes.txt and the folder that held gone.txt changed after the action ended; out.txt did not.
    const h = handles({ 'notes.txt': '1:n1', 'out.txt': '1:o1', old: '1:d0', 'later.txt': '1:l1' }, { 'notes.txt': 1_500n, 'out.txt': 900n, old: 1_200n, 'later.txt': 1_001n });
    const got = attributeByKernel(changes, log, h);
    expect(got.ambiguous).toEqual(['notes.txt', 'old/gone.txt']);
    // Opened for writing only, then changed after the action ended: the person's.
    expect(got.mine.map((c) => c.path)).toEqual(['notes.txt', 'out.txt', 'old/gone.txt']);
    expect(got.theirs.map((c) => c.path)).toEqual(['notes.txt', 'old/gone.txt', 'later.txt']);
    // Without the moment the action ended, nothing is read from ctimes.
    expect(attributeByKernel(changes, { ...log, endedAtNs: undefined }, h).ambiguous).toEqual([]);
  });

  it('takes a path as touched outside when the person moved a folder above it', () => {
    const changes = [modified('src/main.c')];
    const log = account([rec(W, '1:s0', 'main.c', '1:m0')], [entryKey('1:00', 'src')]);
    expect(attributeByKernel(changes, log, handles({ src: '1:s0', 'src/main.c': '1:m0' })).ambiguous).toEqual(['src/main.c']);
  });
});

describe("the watcher's log", () => {
  it("hashes as the watcher does (FNV-1a 64's published vectors)", () => {
    expect(fnv1a64(Buffer.from(''))).toBe('cbf29ce484222325');
    expect(fnv1a64(Buffer.from('a'))).toBe('af63dc4c8601ec8c');
    expect(fnv1a64(Buffer.from('foobar'))).toBe('85944171f73967e8');
  });

  it('reads records and keys, decodes names, and drops what does not parse', () => {
    const log = parseWatchLog(
      Buffer.from(
        [
          'W1\tinside=3\toutside=1\tflags=-\tat=1795851042122832363',
          'I\t10a\t0000000000000000\t1:aa\tnotes%09tab.txt\t1:bb',
          'I\t40000100\t0000000000000000\t1:aa\t%2D\t1:cc',
          'I\t2\t0000000000000000\t1:aa\t../x\t1:bb',
          'I\tzz\t0\t1:aa\tx\t1:bb',
          'O\t00000000000000ff',
          'O\tnot-a-key',
          'I\t2\t0000000000000000\t1:aa\tunfinished',
        ].join('\n'),
        'latin1',
      ),
    );
    expect(log).toMatchObject({ complete: true, outsideComplete: true, endedAtNs: 1795851042122832363n });
    expect(log.inside).toEqual([
      { mask: 0x10a, dir: '1:aa', name: 'notes\ttab.txt', object: '1:bb' },
      { mask: 0x40000100, dir: '1:aa', name: '-', object: '1:cc' },
    ]);
    expect([...log.outside]).toEqual(['00000000000000ff']);
  });

  it('says why it is incomplete: an overflowed queue, a cut table, a log it cannot read', () => {
    expect(parseWatchLog(Buffer.from('W1\tinside=0\toutside=0\tflags=overflow\n'))).toMatchObject({ complete: false, why: expect.stringContaining('overflowed') });
    expect(parseWatchLog(Buffer.from('W1\tinside=0\toutside=0\tflags=outside-cut\n'))).toMatchObject({ complete: true, outsideComplete: false });
    expect(parseWatchLog(Buffer.from('garbage\n'))).toMatchObject({ complete: false, outsideComplete: false });
  });
});
