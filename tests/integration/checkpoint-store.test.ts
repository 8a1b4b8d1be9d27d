// Checkpoints against a real git object store, checked with native git too: what a checkpoint covers,
// what it costs (only changed files are read), and restoring paths from it.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { appendFileSync, chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointStore, type Checkpoint } from '../../main/effects/fs/checkpoint-store';
import { PRIVATE_MODES_FILE } from '../../main/effects/fs/private-modes';
import { StatCache } from '../../main/effects/fs/stat-cache';
import { decodeRecord, encodeRecord, frame, frames } from '../../main/effects/fs/stat-cache-format';
import { planRevert } from '../../main/effects/fs/revert-plan';
import { listerDescription, nativeLister } from '../../main/effects/fs/native-lister';
import { KIND_DIR, KIND_LINK, KIND_OTHER, listFolders, type Listing } from '../../main/effects/fs/stat-lister';
import { summarize } from '../../main/effects/fs/tree-diff';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());
const BUDGET = 1024 * 1024 * 1024;

async function setup(options: { racyWindowMs?: number; largeFileBytes?: number } = {}) {
  const ws = dirs.make('posthoc-ws-');
  const data = dirs.make('posthoc-data-');
  writeFileSync(join(ws, 'notes.txt'), 'mine\n');
  mkdirSync(join(ws, 'src'));
  writeFileSync(join(ws, 'src', 'main.py'), 'print(1)\n');
  const checkpoints = join(data, 'checkpoints');
  const store = await CheckpointStore.open(ws, checkpoints, options);
  const snap = (message: string, parent?: Checkpoint, budgetBytes = BUDGET) => store.snapshot(message, { parent: parent?.commit, budgetBytes });
  return { ws, store, snap, checkpoints };
}

/** Puts back every path that changed between two checkpoints, as undo does. */
async function revert(store: CheckpointStore, before: Checkpoint, after: Checkpoint) {
  const now = await store.snapshot('now', { budgetBytes: BUDGET });
  const plan = planRevert(store, now.tree, [{ actionId: 'a', fromTree: before.tree, toTree: after.tree, paths: store.diff(before.tree, after.tree).map((c) => c.path) }]);
  if (plan.conflicts.length > 0) return { conflicts: plan.conflicts.map((c) => c.path) };
  await store.restore(plan.ops, 't');
  await store.restore(plan.finalOps, 't');
  return { conflicts: [], notRestored: plan.notRestored };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const git = (gitdir: string, ...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8' });

describe('CheckpointStore', () => {
  it('records added, modified, deleted and renamed paths and restores the state before', async () => {
    const { ws, store, snap } = await setup();
    const before = await snap('before');
    writeFileSync(join(ws, 'hello.txt'), 'hi\n');
    writeFileSync(join(ws, 'src', 'main.py'), 'print(2)\n');
    renameSync(join(ws, 'notes.txt'), join(ws, 'renamed notes.txt'));
    mkdirSync(join(ws, 'new', 'deep'), { recursive: true });
    writeFileSync(join(ws, 'new', 'deep', 'file name with spaces ü.txt'), 'x');
    const after = await snap('after', before);

    expect(summarize(store.diff(before.tree, after.tree))).toEqual({
      added: ['hello.txt', 'new/deep/file name with spaces ü.txt'],
      modified: ['src/main.py'],
      deleted: [],
      renamed: [{ from: 'notes.txt', to: 'renamed notes.txt' }],
    });

    expect(await revert(store, before, after)).toMatchObject({ conflicts: [] });
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(ws, 'src', 'main.py'), 'utf8')).toBe('print(1)\n');
    expect(existsSync(join(ws, 'hello.txt'))).toBe(false);
    expect(existsSync(join(ws, 'renamed notes.txt'))).toBe(false);
    expect(existsSync(join(ws, 'new'))).toBe(false); // folders the action created are gone too
  });

  it('a folder moved away and a link put in its place: the rename and the added link, and revert brings the folder back', async () => {
    const { ws, store, snap } = await setup();
    const outside = dirs.make('posthoc-outside-');
    const before = await snap('before');
    renameSync(join(ws, 'src'), join(ws, 'src.real'));
    symlinkSync(outside, join(ws, 'src'));
    const after = await snap('after', before);
    expect(summarize(store.diff(before.tree, after.tree))).toEqual({ added: ['src'], modified: [], deleted: [], renamed: [{ from: 'src/', to: 'src.real/' }] });
    expect(await revert(store, before, after)).toMatchObject({ conflicts: [] });
    expect(readFileSync(join(ws, 'src', 'main.py'), 'utf8')).toBe('print(1)\n');
    expect(lstatSync(join(ws, 'src')).isDirectory()).toBe(true);
    expect(existsSync(join(ws, 'src.real'))).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('shows a moved folder as one rename and brings a deleted tree back whole', async () => {
    const { ws, store, snap } = await setup();
    mkdirSync(join(ws, 'photos', '2024'), { recursive: true });
    for (let i = 0; i < 5; i++) writeFileSync(join(ws, 'photos', '2024', `p${i}.jpg`), Buffer.from([i, 0, 255]));
    const before = await snap('before');
    renameSync(join(ws, 'photos'), join(ws, 'archive'));
    const moved = await snap('moved', before);
    expect(summarize(store.diff(before.tree, moved.tree))).toEqual({ added: [], modified: [], deleted: [], renamed: [{ from: 'photos/', to: 'archive/' }] });

    rmSync(join(ws, 'archive'), { recursive: true });
    const gone = await snap('gone', moved);
    expect(summarize(store.diff(moved.tree, gone.tree)).deleted).toHaveLength(5);
    await revert(store, moved, gone);
    expect(readFileSync(join(ws, 'archive', '2024', 'p3.jpg'))).toEqual(Buffer.from([3, 0, 255]));
  });

  it('covers empty folders, names with newlines, the executable bit and symlinks (never followed)', async () => {
    const { ws, store, snap } = await setup();
    const outside = dirs.make('posthoc-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'outside the folder');
    const before = await snap('before');
    mkdirSync(join(ws, 'empty', 'nested'), { recursive: true });
    writeFileSync(join(ws, 'line\nbreak.txt'), 'odd name');
    writeFileSync(join(ws, 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(ws, 'run.sh'), 0o755);
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'link-out'));
    symlinkSync(outside, join(ws, 'dir-link'));
    const after = await snap('after', before);
    expect(store.lookup(after.tree, 'run.sh')?.kind).toBe('exec');
    expect(store.lookup(after.tree, 'link-out')?.kind).toBe('link');
    expect(store.lookup(after.tree, 'dir-link')?.kind).toBe('link');
    expect(store.lookup(after.tree, 'dir-link/secret.txt')).toBeNull(); // not followed
    expect(store.lookup(after.tree, 'empty/nested')?.kind).toBe('dir');
    expect(summarize(store.diff(before.tree, after.tree)).added).toEqual(['dir-link', 'empty/nested/', 'line\nbreak.txt', 'link-out', 'run.sh']);

    // Deleting them all and undoing that brings back links (not copies), the mode, the empty folders.
    for (const name of ['run.sh', 'link-out', 'dir-link', 'line\nbreak.txt']) rmSync(join(ws, name));
    rmSync(join(ws, 'empty'), { recursive: true });
    const gone = await snap('deleted', after);
    await revert(store, after, gone);
    expect(statSync(join(ws, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(readlinkSync(join(ws, 'link-out'))).toBe(join(outside, 'secret.txt'));
    expect(lstatSync(join(ws, 'dir-link')).isSymbolicLink()).toBe(true);
    expect(statSync(join(ws, 'empty', 'nested')).isDirectory()).toBe(true);
    expect(readFileSync(join(ws, 'line\nbreak.txt'), 'utf8')).toBe('odd name');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside the folder');
  });

  it('never writes through a symlinked folder planted inside the workspace', async () => {
    const { ws, store, snap } = await setup();
    const outside = dirs.make('posthoc-outside-');
    const before = await snap('before');
    mkdirSync(join(ws, 'sub'));
    writeFileSync(join(ws, 'sub', 'f.txt'), 'x');
    const after = await snap('after', before);
    rmSync(join(ws, 'sub'), { recursive: true });
    const deleted = await snap('deleted', after);
    symlinkSync(outside, join(ws, 'sub'));
    // Undo of "delete sub/f.txt" would write sub/f.txt: sub is now a link, which the plan sees as a conflict.
    expect((await revert(store, after, deleted)).conflicts).toContain('sub');
    // Even a forced restore through the link is refused by the path guard.
    await expect(store.restore([{ path: 'sub/f.txt', to: store.lookup(after.tree, 'sub/f.txt') }], 't')).rejects.toThrow(/symbolic link/);
    expect(existsSync(join(outside, 'f.txt'))).toBe(false);
  });

  it('holds a .git folder inside the workspace and writes a repository native git can read', async () => {
    const { ws, store, snap } = await setup();
    execFileSync('git', ['init', '-q', ws]);
    const before = await snap('before');
    execFileSync('git', ['-C', ws, '-c', 'user.name=a', '-c', 'user.email=a@b', 'add', '-A']);
    execFileSync('git', ['-C', ws, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'first']);
    const after = await snap('after', before);
    const changed = summarize(store.diff(before.tree, after.tree));
    expect(changed.added).toContain('.git/index');
    expect(changed.modified.concat(changed.added).some((p) => p.startsWith('.git/refs/heads/'))).toBe(true);

    await store.pin('actions/test/after', after.commit);
    expect(git(store.gitdir, 'log', '--format=%s', 'refs/posthoc/actions/test/after').trim().split('\n')).toEqual(['after', 'before']);
    expect(git(store.gitdir, 'diff', '--name-status', before.commit, after.commit)).toContain('A\t.posthoc-esc-.git/index');
    expect(git(store.gitdir, 'ls-tree', after.commit, 'src').trim()).toMatch(/^040000 tree [0-9a-f]{40}\tsrc$/);
    git(store.gitdir, 'fsck', '--no-dangling', '--strict');

    // Undoing the commit gives back the person's repository exactly as it was: no commits.
    await revert(store, before, after);
    expect(() => execFileSync('git', ['-C', ws, 'rev-parse', 'HEAD'], { stdio: 'pipe' })).toThrow();
    execFileSync('git', ['-C', ws, 'fsck'], { stdio: 'pipe' });
  });

  it('reads only changed files, keeps unchanged folder trees, and starts warm in a new process', async () => {
    const { ws, store, snap, checkpoints } = await setup({ racyWindowMs: 0 });
    for (let d = 0; d < 5; d++) {
      mkdirSync(join(ws, `d${d}`));
      for (let f = 0; f < 20; f++) writeFileSync(join(ws, `d${d}`, `f${f}.txt`), `${d}-${f}\n`);
    }
    await settle(); // files written in the same millisecond as a checkpoint are never trusted to the cache
    const first = await snap('first');
    expect(first.hashed).toBe(102);
    const same = await snap('same');
    expect(same.hashed).toBe(0);
    expect(same.tree).toBe(first.tree);
    writeFileSync(join(ws, 'd3', 'f7.txt'), 'changed\n');
    await settle();
    const third = await snap('third');
    expect(third.hashed).toBe(1);
    expect(store.lookup(third.tree, 'd1')!.oid).toBe(store.lookup(first.tree, 'd1')!.oid);
    expect(store.lookup(third.tree, 'd3')!.oid).not.toBe(store.lookup(first.tree, 'd3')!.oid);

    store.saveCache();
    const fresh = await CheckpointStore.open(ws, checkpoints, { racyWindowMs: 0 });
    const warm = await fresh.snapshot('warm', { budgetBytes: BUDGET });
    expect(warm.hashed).toBe(0);
    expect(warm.tree).toBe(third.tree);
  });

  it('saves the stat cache as a journal of changed folders that a new process replays, ignoring a torn last frame', async () => {
    const { ws, store, snap, checkpoints } = await setup({ racyWindowMs: 0 });
    for (let d = 0; d < 4; d++) {
      mkdirSync(join(ws, `d${d}`));
      for (let f = 0; f < 10; f++) writeFileSync(join(ws, `d${d}`, `f${f}.txt`), `${d}-${f}\n`);
    }
    await settle();
    await snap('first');
    store.saveCache(); // the whole cache
    const cacheFile = join(store.gitdir, 'posthoc-stat-cache.bin');
    expect(existsSync(`${cacheFile}.log`)).toBe(false);
    const whole = readFileSync(cacheFile);
    writeFileSync(join(ws, 'd2', 'f3.txt'), 'changed\n');
    rmSync(join(ws, 'd1'), { recursive: true });
    await settle();
    const second = await snap('second');
    store.saveCache(); // only what changed: d2, d1 removed, the root
    expect(readFileSync(cacheFile).equals(whole)).toBe(true);
    const journal = [...frames(readFileSync(`${cacheFile}.log`))].map(decodeRecord);
    expect(journal).toHaveLength(1);
    expect(journal[0]!.dirs.map(([rel]) => rel).sort()).toEqual(['', 'd2']);
    expect(journal[0]!.removed).toEqual(['d1']);
    expect(journal[0]!.large).toEqual([]);
    const torn = frame(encodeRecord({ dirs: [['d0', { tree: second.tree, children: [] }]], removed: [], large: null }));
    appendFileSync(`${cacheFile}.log`, torn.subarray(0, torn.length - 3)); // a crash while appending
    const fresh = await CheckpointStore.open(ws, checkpoints, { racyWindowMs: 0 });
    const warm = await fresh.snapshot('warm', { budgetBytes: BUDGET });
    expect(warm.hashed).toBe(0);
    expect(warm.tree).toBe(second.tree);
    // After a torn frame the next save writes the whole cache again (and drops the journal).
    writeFileSync(join(ws, 'd0', 'f0.txt'), 'changed again\n');
    await settle();
    await fresh.snapshot('after the crash', { budgetBytes: BUDGET });
    fresh.saveCache();
    expect(existsSync(`${cacheFile}.log`)).toBe(false);
    const third = await CheckpointStore.open(ws, checkpoints, { racyWindowMs: 0 });
    expect((await third.snapshot('third', { budgetBytes: BUDGET })).hashed).toBe(0);
  });

  it('a fresh process that finds nothing changed journals nothing, and a change journals only its folders', async () => {
    const { ws, store, snap, checkpoints } = await setup({ racyWindowMs: 0 });
    for (let d = 0; d < 4; d++) {
      mkdirSync(join(ws, `d${d}`));
      for (let f = 0; f < 10; f++) writeFileSync(join(ws, `d${d}`, `f${f}.txt`), `${d}-${f}\n`);
    }
    await settle();
    await snap('first');
    store.saveCache();
    const cacheFile = join(store.gitdir, 'posthoc-stat-cache.bin');
    const fresh = await CheckpointStore.open(ws, checkpoints, { racyWindowMs: 0 });
    expect((await fresh.snapshot('no change', { budgetBytes: BUDGET })).hashed).toBe(0);
    writeFileSync(join(ws, 'd3', 'f1.txt'), 'changed\n');
    await settle();
    expect((await fresh.snapshot('one change', { budgetBytes: BUDGET })).hashed).toBe(1);
    fresh.saveCache();
    // Not every folder the fresh process walked: only the changed one and the folders above it.
    const journal = [...frames(readFileSync(`${cacheFile}.log`))].map(decodeRecord);
    expect(journal.flatMap((r) => r.dirs.map(([rel]) => rel)).sort()).toEqual(['', 'd3']);
  });

  it('reads a stat cache in the JSON of earlier versions once, then replaces it with the binary one', async () => {
    const { ws, store, snap, checkpoints } = await setup({ racyWindowMs: 0 });
    mkdirSync(join(ws, 'd'));
    for (let f = 0; f < 5; f++) writeFileSync(join(ws, 'd', `f${f}.txt`), `${f}\n`);
    await settle();
    const first = await snap('first');
    store.saveCache();
    // The same cache as the JSON version wrote it (format 1: rows of name, kind, id, stat fields, trusted, key).
    const cache = StatCache.load(join(store.gitdir, 'posthoc-stat-cache.bin'));
    const kinds = ['file', 'exec', 'link', 'dir', 'uncovered'];
    const dirs = [...cache.dirs].map(([rel, s]) => [rel, s.tree, s.children.map((c) => [c.name, kinds.indexOf(c.kind), c.oid, c.size, c.mtimeMs, c.ctimeMs, c.ino, c.mode, c.trusted ? 1 : 0, c.key])]);
    const legacy = join(store.gitdir, 'posthoc-stat-cache.json');
    writeFileSync(legacy, JSON.stringify({ v: 1, large: [], dirs }));
    rmSync(join(store.gitdir, 'posthoc-stat-cache.bin'));
    const migrated = await CheckpointStore.open(ws, checkpoints, { racyWindowMs: 0 });
    const warm = await migrated.snapshot('warm', { budgetBytes: BUDGET });
    expect(warm.hashed).toBe(0);
    expect(warm.tree).toBe(first.tree);
    migrated.saveCache();
    expect(existsSync(legacy)).toBe(false);
    expect(existsSync(join(store.gitdir, 'posthoc-stat-cache.bin'))).toBe(true);
    const again = await CheckpointStore.open(ws, checkpoints, { racyWindowMs: 0 });
    expect((await again.snapshot('again', { budgetBytes: BUDGET })).hashed).toBe(0);
  });

  it('lists a large folder in parallel (native lister and JavaScript worker threads) and finds the same state as one thread does', async () => {
    const { ws, store, checkpoints } = await setup({ racyWindowMs: 0 });
    for (let d = 0; d < 30; d++) {
      mkdirSync(join(ws, `d${d}`, 'deep'), { recursive: true });
      for (let f = 0; f < 300; f++) writeFileSync(join(ws, `d${d}`, f % 2 ? 'deep' : '', `f${f}.txt`), `${d}/${f}\n`);
    }
    await settle();
    const first = await store.snapshot('first', { budgetBytes: BUDGET }); // no counts yet: one thread
    const parallel = await store.snapshot('parallel', { budgetBytes: BUDGET }); // 9,002 files: several threads
    expect(parallel.tree).toBe(first.tree);
    expect(parallel.hashed).toBe(0);
    writeFileSync(join(ws, 'd17', 'deep', 'f201.txt'), 'changed deep inside\n');
    rmSync(join(ws, 'd3'), { recursive: true });
    await settle();
    const changed = await store.snapshot('changed', { budgetBytes: BUDGET });
    const summary = summarize(store.diff(first.tree, changed.tree));
    expect(summary.modified).toEqual(['d17/deep/f201.txt']);
    expect(summary.deleted).toHaveLength(300);
    const single = await CheckpointStore.open(ws, join(checkpoints, 'other'), { parallelMinFiles: Number.MAX_SAFE_INTEGER });
    expect((await single.snapshot('single', { budgetBytes: BUDGET })).tree).toBe(changed.tree);
    // The JavaScript lister (used where the native one is not built): one thread, then worker threads.
    const js = await CheckpointStore.open(ws, join(checkpoints, 'js'), { javascriptLister: true, racyWindowMs: 0 });
    expect((await js.snapshot('js first', { budgetBytes: BUDGET })).tree).toBe(changed.tree);
    const jsParallel = await js.snapshot('js parallel', { budgetBytes: BUDGET });
    expect(jsParallel.tree).toBe(changed.tree);
    expect(jsParallel.hashed).toBe(0);
  });

  it('uses the native lister here, and it lists exactly what the JavaScript lister lists', async () => {
    expect(listerDescription()).toBe('native lister');
    const ws = dirs.make('posthoc-ws-');
    mkdirSync(join(ws, 'empty'));
    mkdirSync(join(ws, 'a b', 'ünï cødé', 'deep'), { recursive: true });
    writeFileSync(join(ws, 'a b', 'ünï cødé', 'deep', 'x.txt'), 'x');
    writeFileSync(join(ws, 'line\nbreak.txt'), 'newline in the name');
    writeFileSync(join(ws, 'run.sh'), '#!/bin/sh\n');
    chmodSync(join(ws, 'run.sh'), 0o755);
    writeFileSync(Buffer.concat([Buffer.from(ws + '/bad-'), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]), 'not utf-8');
    symlinkSync('a b', join(ws, 'link-to-dir'));
    symlinkSync('/nowhere/at/all', join(ws, 'dangling'));
    symlinkSync('run.sh', join(ws, 'link-to-file'));
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    for (let i = 0; i < 40; i++) writeFileSync(join(ws, 'empty', `..${i}`), String(i).repeat(i));
    rmSync(join(ws, 'empty'), { recursive: true });
    mkdirSync(join(ws, 'empty'));
    const jobs = [{ rel: '', recursive: true }, { rel: 'missing/folder', recursive: true }, { rel: 'a b', recursive: false }];
    // A name that is not UTF-8 reaches JavaScript with U+FFFD in it: the JavaScript lister's lstat of that
    // spelling finds nothing, the native one stats the real name. Either way the checkpoint names it as not
    // covered (the name cannot be written back), so its kind and stat fields are left out of the comparison.
    const byRel = (ls: Listing[]) =>
      new Map(
        ls.map((l) => {
          const bad = new Set(l.names.split('\0').flatMap((n, i) => (n.includes('\uFFFD') ? [i] : [])));
          const kinds = [...l.kinds].map((k, i) => (bad.has(i) ? -1 : k));
          const stats = [...l.stats].map((x, i) => (bad.has(Math.floor(i / 5)) ? -1 : x));
          return [l.rel, { ...l, kinds, stats, error: l.error === null ? null : 'error' }];
        }),
      );
    const native = byRel(await nativeLister()!.list(ws, jobs));
    const js = byRel(listFolders(fs, ws, jobs));
    expect([...native.keys()].sort()).toEqual([...js.keys()].sort());
    for (const [rel, l] of js) expect(native.get(rel), rel).toEqual(l);
    const top = native.get('')!;
    const names = top.names.split('\0');
    expect(names).toEqual([...names].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1)));
    expect(top.kinds[names.indexOf('pipe')]).toBe(KIND_OTHER);
    expect(top.kinds[names.indexOf('link-to-dir')]).toBe(KIND_LINK);
    expect(top.kinds[names.indexOf('empty')]).toBe(KIND_DIR);
    expect(native.get('missing/folder')!.error).toBe('error');
  });

  it('sees a same-size change made right after a checkpoint (recent files are never trusted to the cache)', async () => {
    const { ws, snap, store } = await setup();
    const first = await snap('first');
    writeFileSync(join(ws, 'notes.txt'), 'mone\n'); // same size, same second
    const second = await snap('second', first);
    expect(summarize(store.diff(first.tree, second.tree)).modified).toEqual(['notes.txt']);
  });

  it('stores large files up to the budget and names the rest as not covered', async () => {
    const { ws, store } = await setup({ largeFileBytes: 1000 });
    writeFileSync(join(ws, 'a.bin'), Buffer.alloc(3000, 1));
    writeFileSync(join(ws, 'b.bin'), Buffer.alloc(3000, 2));
    const cp = await store.snapshot('s', { budgetBytes: 4000 });
    const kinds = ['a.bin', 'b.bin'].map((p) => store.lookup(cp.tree, p)!.kind);
    expect(kinds.sort()).toEqual(['file', 'uncovered']);
    expect(cp.notCovered).toEqual([expect.objectContaining({ reason: 'budget', size: 3000 })]);
    expect(store.largeBytes()).toBe(3000);
    // The not-covered file is not read again while its stat fields stay the same.
    const again = await store.snapshot('again', { budgetBytes: 4000 });
    expect(again.tree).toBe(cp.tree);
    expect((await store.checkpoint(again.commit)).notCovered).toEqual(cp.notCovered);
  });

  it('names a not-covered file in every checkpoint, also once the cache vouches for it and its folder lists as before', async () => {
    const { ws, store } = await setup({ largeFileBytes: 1000, racyWindowMs: 0 });
    mkdirSync(join(ws, 'media'));
    writeFileSync(join(ws, 'media', 'a.bin'), Buffer.alloc(3000, 1));
    writeFileSync(join(ws, 'media', 'b.bin'), Buffer.alloc(3000, 2));
    await settle();
    const first = await store.snapshot('first', { budgetBytes: 4000 });
    expect(first.notCovered).toHaveLength(1);
    for (const name of ['second', 'third']) {
      const cp = await store.snapshot(name, { budgetBytes: 4000 });
      expect(cp.hashed).toBe(0);
      expect(cp.notCovered).toEqual(first.notCovered);
    }
  });

  it('garbage-collects checkpoints no pin reaches and keeps the pinned ones readable', async () => {
    const { ws, store, snap } = await setup();
    const keep = await snap('keep');
    await store.pin('actions/x/before', keep.commit);
    writeFileSync(join(ws, 'temp.txt'), 'short-lived content', { mode: 0o600 });
    chmodSync(join(ws, 'notes.txt'), 0o600);
    const dropped = await snap('dropped');
    // Both private files are recorded; the dropped content's bits go with its blob, the kept one's stay.
    const notes = store.lookup(keep.tree, 'notes.txt')!.oid;
    expect(privateModes(store).sort()).toEqual([['notes.txt', notes, 0o600], ['temp.txt', store.lookup(dropped.tree, 'temp.txt')!.oid, 0o600]].sort());
    writeFileSync(join(ws, 'temp.txt'), 'now different');
    rmSync(join(ws, 'temp.txt'));
    await snap('current');
    const blob = store.lookup(dropped.tree, 'temp.txt')!.oid;
    expect(privateModes(store)).toHaveLength(2); // deleted since, its record stays while a checkpoint may hold it
    expect(await store.collectGarbage()).toBeGreaterThan(0);
    await expect(store.readBlob(blob)).rejects.toThrow();
    expect((await store.readBlob(store.lookup(keep.tree, 'notes.txt')!.oid)).toString()).toBe('mine\n');
    expect(privateModes(store)).toEqual([['notes.txt', notes, 0o600]]);
    git(store.gitdir, 'fsck', '--no-dangling', '--connectivity-only');
  });
});

const privateModes = (store: CheckpointStore): Array<[string, string, number]> =>
  (JSON.parse(readFileSync(join(store.gitdir, PRIVATE_MODES_FILE), 'utf8')) as { files: Array<[string, string, number]> }).files;
