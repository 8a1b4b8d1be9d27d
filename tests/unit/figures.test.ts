// The host's intake of figures (main/effects/figures/): what the sandbox hands over is checked again — count,
// size, PNG signature and IHDR, dimensions read here — and stored with the action in the data folder, against
// a real app database in a temporary folder. Hostile bytes are refused one by one and said on the card.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIGURE_LIMITS, FigureUnavailable, Figures } from '../../main/effects/figures/figures';
import { checkPng, crc32, NotAFigure } from '../../main/effects/figures/png-check';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { FigureStore } from '../../main/store/figure-store';
import { TaskStore } from '../../main/store/task-store';
import { makePng } from '../support/png';

let dir: string;
let db: AppDatabase;
let store: TaskStore;
let figures: Figures;

function newAction(): string {
  const task = store.createTask({ title: 't', workspaces: [], model: 'm' });
  const id = `a-${Math.random().toString(16).slice(2)}`;
  store.saveAction({
    id, taskId: task.id, seq: 1, kind: 'code', language: 'python', source: 'plt.show()', status: 'done',
    output: { stdout: '', stderr: '', exitCode: 0, timedOut: false, truncated: false }, effects: [], messageId: null,
    confinement: { level: 'reversible', reason: 'r' }, startedAt: new Date().toISOString(), finishedAt: null, undoneAt: null,
  });
  return id;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'posthoc-figures-'));
  db = openDatabase(dir);
  store = new TaskStore(db);
  figures = new Figures(join(dir, 'figures'), new FigureStore(db));
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('checkPng', () => {
  it('reads the dimensions from the IHDR of a real PNG', () => {
    expect(checkPng(makePng(640, 480))).toEqual({ width: 640, height: 480 });
  });

  it('refuses bytes that are not a PNG, a wrong IHDR checksum, no pixels and an image bomb', () => {
    expect(() => checkPng(Buffer.from('<svg onload="alert(1)"></svg>'.repeat(3)))).toThrow(NotAFigure);
    expect(() => checkPng(Buffer.from('GIF89a' + 'x'.repeat(60)))).toThrow(/no PNG signature/);
    const bad = makePng(10, 10);
    bad[20] = bad[20]! ^ 1; // a width bit, so the IHDR's CRC no longer matches
    expect(() => checkPng(bad)).toThrow(/checksum/);
    const huge = makePng(1, 1);
    huge.writeUInt32BE(100_000, 16);
    huge.writeUInt32BE(100_000, 20);
    huge.writeUInt32BE(crc32(huge.subarray(12, 29)), 29);
    expect(() => checkPng(huge)).toThrow(/over the limit/);
    const none = makePng(1, 1);
    none.writeUInt32BE(0, 16);
    none.writeUInt32BE(crc32(none.subarray(12, 29)), 29);
    expect(() => checkPng(none)).toThrow(/no pixels/);
  });
});

describe('Figures', () => {
  it('stores each figure as DATA/figures/ACTION/N.png with its SHA-256 and dimensions, and the action lists them', async () => {
    const id = newAction();
    const one = makePng(64, 48);
    const two = makePng(10, 20, { rgb: [255, 0, 0] });
    const { figures: kept, notes } = await figures.take(id, { files: [one, two], refused: [] });
    expect(notes).toEqual([]);
    expect(kept).toEqual([
      { n: 1, mime: 'image/png', bytes: one.length, sha256: createHash('sha256').update(one).digest('hex'), width: 64, height: 48, released: false },
      { n: 2, mime: 'image/png', bytes: two.length, sha256: createHash('sha256').update(two).digest('hex'), width: 10, height: 20, released: false },
    ]);
    expect(readdirSync(join(dir, 'figures', id)).sort()).toEqual(['1.png', '2.png']);
    expect(readFileSync(join(dir, 'figures', id, '2.png')).equals(two)).toBe(true);
    expect(statSync(join(dir, 'figures', id, '1.png')).mode & 0o777).toBe(0o600);
    expect(store.getAction(id)!.figures).toEqual(kept);
    expect((await figures.read(id, 2)).bytes.equals(two)).toBe(true);
  });

  it('keeps at most 20, refuses one over 8 MiB and bytes that are not a PNG, and says so once each', async () => {
    const id = newAction();
    const small = makePng(4, 4);
    const big = makePng(4, 4, { pad: FIGURE_LIMITS.bytes });
    const files = [Buffer.from('not a png at all, but long enough to have a header'), big, ...Array.from({ length: 25 }, () => small)];
    const { figures: kept, notes } = await figures.take(id, { files, refused: ['a figure that was not a regular file'] });
    expect(kept).toHaveLength(FIGURE_LIMITS.count);
    expect(kept.map((f) => f.n)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(notes).toEqual([
      'a figure that was not a regular file',
      'a figure that was not a PNG (no PNG signature)',
      'a figure over 8 MiB',
      'more than 20 figures: the rest were not kept',
    ]);
    expect(readdirSync(join(dir, 'figures', id))).toHaveLength(20);
  });

  it('reads figure N only while it is there and unchanged, and says how many there are otherwise', async () => {
    const id = newAction();
    await figures.take(id, { files: [makePng(8, 8)], refused: [] });
    await expect(figures.read(id, 2)).rejects.toThrow('No figure 2: this action drew 1 (1 to 1).');
    await expect(figures.read(newAction(), 1)).rejects.toThrow('This action drew no figures.');
    await expect(figures.read('../../etc', 1)).rejects.toThrow(FigureUnavailable);
    const file = join(dir, 'figures', id, '1.png');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, makePng(9, 9));
    await expect(figures.read(id, 1)).rejects.toThrow(/changed there/);
  });

  it('release deletes the files; the figures stay listed, released, and cannot be read', async () => {
    const id = newAction();
    await figures.take(id, { files: [makePng(8, 8), makePng(9, 9)], refused: [] });
    await figures.release(id);
    expect(() => statSync(join(dir, 'figures', id))).toThrow();
    expect(store.getAction(id)!.figures!.map((f) => f.released)).toEqual([true, true]);
    await expect(figures.read(id, 1)).rejects.toThrow('Figure 1 was released when the action was kept.');
  });
});
