// The stat cache holds a folder's entries packed (no object per file) and compares a folder listed exactly
// as before in one step. Every kind of change must still reach the next checkpoint, in the process that
// made the cache and in a fresh one that read it from disk (including a cache of the previous format): each
// checkpoint is compared with one made from scratch, in a store with no cache, of the same folder.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../main/effects/fs/checkpoint-store';
import { StatCache } from '../../main/effects/fs/stat-cache';
import { asV2, encodeV2 } from '../support/stat-cache-v2';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());
const BUDGET = 1024 * 1024 * 1024;
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const DEEP = Array.from({ length: 12 }, (_, i) => `level${i}`).join('/');

function makeFolder(): string {
  const ws = dirs.make('posthoc-sc-ws-');
  for (let d = 0; d < 3; d++) {
    mkdirSync(join(ws, `d${d}`, 'inner'), { recursive: true });
    for (let f = 0; f < 6; f++) writeFileSync(join(ws, `d${d}`, `f${f}.txt`), `folder ${d} file ${f}\n`);
    writeFileSync(join(ws, `d${d}`, 'inner', 'x.txt'), `inner ${d}\n`);
  }
  mkdirSync(join(ws, DEEP), { recursive: true });
  writeFileSync(join(ws, DEEP, 'bottom.txt'), 'at the bottom\n');
  writeFileSync(join(ws, 'top.txt'), 'top\n');
  return ws;
}

/** The tree a store with no cache writes for the folder as it is now. */
async function fromScratch(ws: string): Promise<string> {
  const store = await CheckpointStore.open(ws, join(dirs.make('posthoc-sc-scratch-'), 'checkpoints'), { racyWindowMs: 0 });
  return (await store.snapshot('scratch', { budgetBytes: BUDGET })).tree;
}

/** Rewrites a file and puts its modification time back: only its size, or only its change time, tells. */
function rewriteKeepingMtime(path: string, content: string): void {
  const st = statSync(path);
  writeFileSync(path, content);
  utimesSync(path, st.atime, st.mtime);
}

const CHANGES: Array<[string, (ws: string) => void]> = [
  ['a change of size only (mtime put back)', (ws) => rewriteKeepingMtime(join(ws, 'd1', 'f2.txt'), 'longer than it was before\n')],
  ['a change of mtime only (same size, same content)', (ws) => utimesSync(join(ws, 'd1', 'f3.txt'), new Date(), new Date(Date.now() - 86_400_000))],
  ['a change of ctime only (same size, mtime put back, other bytes)', (ws) => rewriteKeepingMtime(join(ws, 'd2', 'f0.txt'), 'FOLDER 2 FILE 0\n')],
  ['a chmod (ctime and mode only)', (ws) => chmodSync(join(ws, 'd0', 'f1.txt'), 0o755)],
  [
    'a file replaced by a folder',
    (ws) => {
      rmSync(join(ws, 'd0', 'f4.txt'));
      mkdirSync(join(ws, 'd0', 'f4.txt'));
      writeFileSync(join(ws, 'd0', 'f4.txt', 'in.txt'), 'now a folder\n');
    },
  ],
  [
    'a folder replaced by a file',
    (ws) => {
      rmSync(join(ws, 'd2', 'inner'), { recursive: true });
      writeFileSync(join(ws, 'd2', 'inner'), 'now a file\n');
    },
  ],
  ['a rename within a folder', (ws) => renameSync(join(ws, 'd1', 'f5.txt'), join(ws, 'd1', 'f9.txt'))],
  ['two files swapping names', (ws) => {
    renameSync(join(ws, 'd0', 'f2.txt'), join(ws, 'd0', 'tmp'));
    renameSync(join(ws, 'd0', 'f3.txt'), join(ws, 'd0', 'f2.txt'));
    renameSync(join(ws, 'd0', 'tmp'), join(ws, 'd0', 'f3.txt'));
  }],
  ['a new file in a folder whose other entries are the same', (ws) => writeFileSync(join(ws, 'd2', 'new.txt'), 'new\n')],
  ['a file removed', (ws) => rmSync(join(ws, 'd1', 'f0.txt'))],
  ['a change twelve folders deep', (ws) => writeFileSync(join(ws, DEEP, 'bottom.txt'), 'changed at the bottom\n')],
  ['a new file twelve folders deep', (ws) => writeFileSync(join(ws, DEEP, 'another.txt'), 'another\n')],
  ['an empty folder added deep', (ws) => mkdirSync(join(ws, DEEP, 'empty'))],
];

type Mode = 'same process' | 'fresh process' | 'fresh process, cache of version 2';

/** Writes the store's saved cache again as version 2 wrote it (entries in git order, clean listings as orders). */
function rewriteAsV2(gitdir: string): void {
  const file = join(gitdir, 'posthoc-stat-cache.bin');
  const cache = StatCache.load(file);
  const v2 = encodeV2([...cache.dirs].map(([rel, s]) => [rel, asV2(s.tree, s.children)]), [...cache.large]);
  rmSync(`${file}.log`, { force: true });
  writeFileSync(file, v2);
  expect(readFileSync(file).readUInt32LE(4)).toBe(2);
}

describe('the stat cache sees every change', () => {
  for (const mode of ['same process', 'fresh process', 'fresh process, cache of version 2'] as Mode[]) {
    it(`${mode}: each change reaches the next checkpoint, which matches one made from scratch`, async () => {
      const ws = makeFolder();
      const checkpoints = join(dirs.make('posthoc-sc-data-'), 'checkpoints');
      let store = await CheckpointStore.open(ws, checkpoints, { racyWindowMs: 0 });
      await settle();
      let last = await store.snapshot('first', { budgetBytes: BUDGET });
      // Twice: the second walk vouches for every file and records every listing clean.
      last = await store.snapshot('second', { budgetBytes: BUDGET });
      for (const [what, change] of CHANGES) {
        if (mode !== 'same process') {
          store.saveCache();
          if (mode === 'fresh process, cache of version 2') rewriteAsV2(store.gitdir);
          store = await CheckpointStore.open(ws, checkpoints, { racyWindowMs: 0 });
          // Nothing changed yet: nothing is read again, and the tree is the last one.
          const quiet = await store.snapshot(`before ${what}`, { budgetBytes: BUDGET });
          expect(quiet.hashed, what).toBe(0);
          expect(quiet.tree, what).toBe(last.tree);
          store.saveCache();
          if (mode === 'fresh process, cache of version 2') rewriteAsV2(store.gitdir);
          store = await CheckpointStore.open(ws, checkpoints, { racyWindowMs: 0 });
        }
        change(ws);
        await settle();
        const next = await store.snapshot(what, { budgetBytes: BUDGET });
        expect(next.tree, what).toBe(await fromScratch(ws));
        // The tree moved (the mtime-only change keeps the content: its file is read again, the tree stays).
        if (what.startsWith('a change of mtime only')) expect(next.hashed, what).toBe(1);
        else expect(next.tree, what).not.toBe(last.tree);
        last = next;
        // And the checkpoint after it, with nothing changed, reads nothing and keeps the tree.
        const again = await store.snapshot(`after ${what}`, { budgetBytes: BUDGET });
        expect(again.hashed, what).toBe(0);
        expect(again.tree, what).toBe(last.tree);
      }
    });
  }
});
