// A real checkpoint of a real 300 MB CSV: its preview shows the right first rows, and the diff view shows it by
// size and SHA-256, while the process's memory grows by nowhere near the file's size — the blob is read from
// its object's header and inflated as a stream only as far as each needs (issue 23: a 2 GB CSV took the web
// host to 4.3 GB for a 256 KiB preview). Images and workbooks over their caps are refused by size, unread.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DamagedObject } from '../../main/effects/fs/blob-stream';
import { CheckpointStore, type Checkpoint } from '../../main/effects/fs/checkpoint-store';
import { previewInCheckpoint } from '../../main/services/file-previews';
import { diffSide } from '../../main/services/undo-views';
import { tempDirs } from '../support/temp-dir';

const MIB = 1024 * 1024;
const CSV_BYTES = 300 * 1000 * 1000;
/**
 * Far below the file (300 MB) and what a whole read costs (the blob inflated, plus its compressed object), and
 * above the allocator's noise: the process's resident size moved by 65 MiB across a streamed hash once in CI
 * (memory the heap had not handed back yet), which a 64 MiB bound took for a whole read.
 */
const GROWTH_BOUND = 128 * MIB;

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

/** Streams a file of about `bytes` bytes to disk in 1 MiB blocks (never whole in memory); returns its size and SHA-256. */
async function writeStreamed(path: string, first: string, block: string, bytes: number): Promise<{ size: number; sha256: string }> {
  const out = createWriteStream(path);
  const hash = createHash('sha256');
  let size = 0;
  for (let piece = first; size < bytes; piece = block) {
    const buffer = Buffer.from(piece);
    hash.update(buffer);
    size += buffer.length;
    if (!out.write(buffer)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  return { size, sha256: hash.digest('hex') };
}

/** What the process holds and has ever held, so a whole read between two samples shows even after it is freed. */
function memory() {
  const { rss, arrayBuffers } = process.memoryUsage();
  return { rss, arrayBuffers, peakRss: process.resourceUsage().maxRSS * 1024 };
}

function expectNoGrowth(before: ReturnType<typeof memory>): void {
  const after = memory();
  expect(after.peakRss - before.peakRss).toBeLessThan(GROWTH_BOUND);
  expect(after.rss - before.rss).toBeLessThan(GROWTH_BOUND);
  expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(GROWTH_BOUND);
}

let store: CheckpointStore;
let snap: Checkpoint;
let csv: { size: number; sha256: string };

beforeAll(async () => {
  const ws = dirs.make('posthoc-ws-');
  const firstRows = ['id,name,value', ...Array.from({ length: 50_000 }, (_, i) => `${i},name ${i},${(i * 7) % 1000}`)].join('\n') + '\n';
  const filler = 'more,rows,0\n'.repeat(MIB / 12);
  csv = await writeStreamed(join(ws, 'big.csv'), firstRows, filler, CSV_BYTES);
  // An image and a workbook over their caps, by their first bytes what their names say.
  await writeStreamed(join(ws, 'huge.png'), '\x89PNG\r\n\x1a\n', 'x'.repeat(MIB), 20 * MIB);
  await writeStreamed(join(ws, 'huge.xlsx'), 'PK\x03\x04', 'x'.repeat(MIB), 20 * MIB);
  store = await CheckpointStore.open(ws, join(dirs.make('posthoc-data-'), 'checkpoints'));
  snap = await store.snapshot('after the action', { budgetBytes: 1024 * MIB });
}, 300_000);

describe('previews and diffs of a large file in a real checkpoint', () => {
  it('checkpointed the 300 MB CSV whole (as a large file), so a whole read would cost its size', () => {
    expect(csv.size).toBeGreaterThanOrEqual(CSV_BYTES);
    expect(store.lookup(snap.tree, 'big.csv')).toMatchObject({ kind: 'file' });
    expect(snap.notCovered).toEqual([]);
  });

  it('previews the CSV from its first rows, in memory far below its size', async () => {
    const before = memory();
    const shown = await previewInCheckpoint(store, snap.tree, 'big.csv');
    expectNoGrowth(before);
    expect(shown).toEqual({
      kind: 'table',
      truncated: true,
      rows: [['id', 'name', 'value'], ...Array.from({ length: 19 }, (_, i) => [String(i), `name ${i}`, String((i * 7) % 1000)])],
    });
  });

  it('refuses the image and the workbook over their caps by the size in their headers', async () => {
    const before = memory();
    expect(await previewInCheckpoint(store, snap.tree, 'huge.png')).toEqual({
      kind: 'none',
      reason: '20 MiB, larger than the 8 MiB a preview reads; open the file itself to see it',
    });
    expect(await previewInCheckpoint(store, snap.tree, 'huge.xlsx')).toEqual({
      kind: 'none',
      reason: '20 MiB, larger than the 16 MiB a preview reads; open the file itself to see it',
    });
    expectNoGrowth(before);
  });

  it('shows the CSV in the diff view by size and SHA-256, hashed as a stream', async () => {
    const before = memory();
    const side = await diffSide(store, store.lookup(snap.tree, 'big.csv'));
    expectNoGrowth(before);
    expect(side).toEqual({ kind: 'binary', reason: 'too-large', size: csv.size, sha256: csv.sha256, executable: false });
  });
});

describe('a text file too long to show, and a damaged copy', () => {
  it("calls a long UTF-8 file 'too-large' even when its 8,000th byte splits a character", async () => {
    const ws = dirs.make('posthoc-ws-');
    const text = `a${'é'.repeat(300_000)}`; // 600,001 bytes: byte 8,000 is the first half of an 'é'
    writeFileSync(join(ws, 'long.txt'), text);
    writeFileSync(join(ws, 'short.txt'), 'é'.repeat(10));
    const small = await CheckpointStore.open(ws, join(dirs.make('posthoc-data-'), 'checkpoints'));
    const at = await small.snapshot('s', { budgetBytes: 1024 * MIB });
    expect(await diffSide(small, small.lookup(at.tree, 'long.txt'))).toEqual({
      kind: 'binary',
      reason: 'too-large',
      size: 600_001,
      sha256: createHash('sha256').update(text).digest('hex'),
      executable: false,
    });
    expect(await diffSide(small, small.lookup(at.tree, 'short.txt'))).toEqual({ kind: 'text', text: 'é'.repeat(10), size: 20, executable: false });
  });

  it('says a damaged copy cannot be read: the preview in words, the diff with DamagedObject', async () => {
    const ws = dirs.make('posthoc-ws-');
    writeFileSync(join(ws, 'table.csv'), 'a,b\n1,2\n');
    const small = await CheckpointStore.open(ws, join(dirs.make('posthoc-data-'), 'checkpoints'));
    const at = await small.snapshot('s', { budgetBytes: 1024 * MIB });
    const entry = small.lookup(at.tree, 'table.csv');
    if (entry?.kind !== 'file') throw new Error('not stored as a file');
    expect(await previewInCheckpoint(small, at.tree, 'table.csv')).toEqual({ kind: 'table', rows: [['a', 'b'], ['1', '2']], truncated: false });
    const object = join(small.gitdir, 'objects', entry.oid.slice(0, 2), entry.oid.slice(2));
    // A first checkpoint packs its objects; a loose copy of the object is read before the packed one.
    rmSync(object, { force: true });
    mkdirSync(dirname(object), { recursive: true });
    writeFileSync(object, 'not deflated');
    expect(await previewInCheckpoint(small, at.tree, 'table.csv')).toEqual({ kind: 'none', reason: "the checkpoint's copy cannot be read: incorrect header check" });
    await expect(diffSide(small, entry)).rejects.toThrow(DamagedObject);
  });
});
