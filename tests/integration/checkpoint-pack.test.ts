// A first checkpoint is written as git packs (pack-file.ts), its files read ahead by worker threads
// (file-readers.ts): checked here with native git (fsck, cat-file), read back through every path that reads
// objects (trees, blobs whole, in part, streamed, restores), and against hostile timing: files changing or
// vanishing while the workers read them, and a process killed while it writes its packs.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointStore, type Checkpoint } from '../../main/effects/fs/checkpoint-store';
import { ReadAheadQueue } from '../../main/effects/fs/file-readers';
import { GrantedFolder } from '../../main/effects/fs/beneath';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());
const BUDGET = 1024 * 1024 * 1024;
const git = (gitdir: string, ...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { encoding: 'utf8', stdio: 'pipe', maxBuffer: 64 << 20 });
const gitBytes = (gitdir: string, ...args: string[]) => execFileSync('git', ['--git-dir', gitdir, ...args], { stdio: 'pipe', maxBuffer: 64 << 20 });

/** A folder of `count` files in nested folders: text, binary, empty, duplicates, an executable, a link, a large file. */
function makeFolder(root: string, count: number): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const put = (rel: string, content: Buffer) => {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), content);
    files.set(rel, content);
  };
  for (let i = 0; i < count; i++) {
    const content = i % 7 === 0 ? randomBytes(100 + (i % 3000)) : i % 11 === 0 ? Buffer.from('same content\n') : Buffer.from(`file ${i}\n`.repeat(1 + (i % 50)));
    put(`d${i % 13}/s${i % 5}/f${i}.txt`, content);
  }
  put('empty.txt', Buffer.alloc(0));
  put('bin/run.sh', Buffer.from('#!/bin/sh\necho hi\n'));
  chmodSync(join(root, 'bin/run.sh'), 0o755);
  put('large.bin', randomBytes(300 * 1024)); // over largeFileBytes below: written as a loose object
  symlinkSync('d0/s0/f0.txt', join(root, 'link'));
  return files;
}

async function firstCheckpoint(ws: string, racyWindowMs?: number) {
  const data = dirs.make('posthoc-data-');
  // Reading ahead starts at 8,000 files by default; tests lower it so a small folder takes that path too.
  const store = await CheckpointStore.open(ws, join(data, 'checkpoints'), { largeFileBytes: 256 * 1024, parallelMinFiles: 10, racyWindowMs });
  const first = await store.snapshot('first', { budgetBytes: BUDGET });
  await store.pin('first', first.commit);
  return { store, first, gitdir: store.gitdir };
}

function packsOf(gitdir: string): string[] {
  const dir = join(gitdir, 'objects', 'pack');
  return existsSync(dir) ? readdirSync(dir) : [];
}

function looseCount(gitdir: string): number {
  const objects = join(gitdir, 'objects');
  let n = 0;
  for (const d of readdirSync(objects)) if (/^[0-9a-f]{2}$/.test(d)) n += readdirSync(join(objects, d)).length;
  return n;
}

describe('first checkpoint written as packs', () => {
  it('writes valid git packs that git and the store read back byte for byte', async () => {
    const ws = dirs.make('posthoc-ws-');
    const files = makeFolder(ws, 600);
    const { store, first, gitdir } = await firstCheckpoint(ws);

    expect(packsOf(gitdir).filter((f) => f.endsWith('.pack')).length).toBeGreaterThan(0);
    expect(packsOf(gitdir).every((f) => /^pack-[0-9a-f]{40}\.(pack|idx)$/.test(f))).toBe(true);
    // Loose: the commit and the large file only.
    expect(looseCount(gitdir)).toBe(2);
    git(gitdir, 'fsck', '--strict', '--full', '--no-dangling');
    for (const pack of packsOf(gitdir).filter((f) => f.endsWith('.idx'))) git(gitdir, 'verify-pack', join(gitdir, 'objects', 'pack', pack));

    for (const [rel, content] of files) {
      expect(gitBytes(gitdir, 'cat-file', 'blob', `${first.commit}:${rel}`).equals(content)).toBe(true);
      const entry = store.lookup(first.tree, rel)!;
      expect((await store.readBlob(entry.oid)).equals(content)).toBe(true);
      expect(await store.blobSize(entry.oid)).toBe(content.length);
      const head = await store.readBlobHead(entry.oid, 10);
      expect(head.content.equals(content.subarray(0, 10))).toBe(true);
    }
    expect(git(gitdir, 'ls-tree', first.commit, 'bin/run.sh')).toMatch(/^100755 /);
    expect(git(gitdir, 'cat-file', '-p', `${first.commit}:link`)).toBe('d0/s0/f0.txt');
    expect(git(gitdir, 'rev-parse', `${first.commit}^{tree}`).trim()).toBe(first.tree);
  });

  it('writes the same tree as a checkpoint of loose objects, and later checkpoints write only what changed, loose', async () => {
    const ws = dirs.make('posthoc-ws-');
    makeFolder(ws, 300);
    const { store, first, gitdir } = await firstCheckpoint(ws, 0);
    // The same folder into a store that already holds an object: no packing there.
    const data = dirs.make('posthoc-data-');
    const loose = await CheckpointStore.open(ws, join(data, 'checkpoints'), { largeFileBytes: 256 * 1024, parallelMinFiles: 1_000_000 });
    loose.repo.writeBlob(Buffer.from('already here'));
    loose.repo.startPacking();
    loose.repo.endPacking(true);
    expect((await loose.snapshot('loose', { budgetBytes: BUDGET })).tree).toBe(first.tree);

    const packs = packsOf(gitdir).length;
    const before = looseCount(gitdir);
    writeFileSync(join(ws, 'd1/s1/f1.txt'), 'changed\n');
    const second = await store.snapshot('second', { parent: first.commit, budgetBytes: BUDGET });
    expect(second.hashed).toBe(1);
    expect(packsOf(gitdir).length).toBe(packs);
    // The blob, its folder's tree, the two above it, the commit.
    expect(looseCount(gitdir) - before).toBe(5);
    git(gitdir, 'fsck', '--strict', '--no-dangling');
  });

  it('restores files from a packed checkpoint byte for byte', async () => {
    const ws = dirs.make('posthoc-ws-');
    const files = makeFolder(ws, 200);
    const { store, first } = await firstCheckpoint(ws);
    const changed = ['d0/s0/f0.txt', 'd3/s3/f3.txt', 'empty.txt', 'bin/run.sh'];
    for (const rel of changed) writeFileSync(join(ws, rel), 'overwritten\n');
    rmSync(join(ws, 'd7/s2/f7.txt'));
    const paths = [...changed, 'd7/s2/f7.txt'];
    await store.restore(
      paths.map((path) => ({ path, to: store.lookup(first.tree, path) })),
      't',
      paths.map((path) => store.lookup(first.tree, path)),
    );
    for (const rel of paths) expect(readFileSync(join(ws, rel)).equals(files.get(rel)!)).toBe(true);
    const again = await store.snapshot('again', { budgetBytes: BUDGET });
    expect(again.tree).toBe(first.tree);
  });

  it('files changing and vanishing while they are read: the checkpoint holds what each path held, and the next one sees the rest', async () => {
    const ws = dirs.make('posthoc-ws-');
    makeFolder(ws, 3000);
    // Another process rewrites, deletes and replaces files throughout the first checkpoint.
    const churn = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'); const root = process.argv[1]; let i = 0;
         const end = Date.now() + 4000;
         while (Date.now() < end) {
           const rel = 'd' + (i % 13) + '/s' + (i % 5) + '/f' + i + '.txt';
           try {
             if (i % 3 === 0) fs.rmSync(root + '/' + rel, { force: true });
             else if (i % 3 === 1) fs.writeFileSync(root + '/' + rel, 'rewritten ' + i + '\\n');
             else { fs.writeFileSync(root + '/' + rel + '.tmp', 'replaced ' + i + '\\n'); fs.renameSync(root + '/' + rel + '.tmp', root + '/' + rel); }
           } catch {}
           i = (i + 7) % 3000;
         }`,
        ws,
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => churn.on('exit', resolve));
    let store: CheckpointStore | null = null;
    let first: Checkpoint | null = null;
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ({ store, first } = await firstCheckpoint(ws));
    } finally {
      await exited;
    }
    git(store.gitdir, 'fsck', '--strict', '--no-dangling');
    // Whatever the first saw, each file it holds is one the path held: its content is a blob git can read.
    expect(git(store.gitdir, 'ls-tree', '-r', first.commit).split('\n').length).toBeGreaterThan(2000);
    // Settled: the next checkpoint is exactly the folder (nothing changed during the read was vouched for).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const settled = await store.snapshot('settled', { budgetBytes: BUDGET });
    const fresh = await firstCheckpoint(ws);
    expect(settled.tree).toBe(fresh.first.tree);
  }, 60_000);

  it('reading ahead hands back nothing for a path that is gone, a folder or a link (the walk reads those itself)', async () => {
    const ws = dirs.make('posthoc-ws-');
    mkdirSync(join(ws, 'dir'));
    writeFileSync(join(ws, 'file'), 'x');
    symlinkSync('file', join(ws, 'link'));
    const folder = GrantedFolder.open(ws);
    try {
      const access = folder.workerAccess;
      if (!access) return; // no addon: the walk reads every file itself
      const queue = new ReadAheadQueue(access, ['gone', 'dir', 'link', 'file'].map((rel) => ({ rel, size: 1 }))[Symbol.iterator]());
      expect(await queue.take('gone')).toBeNull();
      expect(await queue.take('dir')).toBeNull();
      expect(await queue.take('link')).toBeNull();
      const file = await queue.take('file');
      expect(file?.oid).toBe(execFileSync('git', ['hash-object', join(ws, 'file')], { encoding: 'utf8' }).trim());
      expect(await queue.take('not planned')).toBeNull();
      await queue.close();
    } finally {
      folder.close();
    }
  });

  it('a process killed while writing its packs leaves a valid store and no checkpoint; the next one is whole', async () => {
    const ws = dirs.make('posthoc-ws-');
    for (let i = 0; i < 1500; i++) {
      mkdirSync(join(ws, `d${i % 10}`), { recursive: true });
      writeFileSync(join(ws, `d${i % 10}`, `f${i}`), randomBytes(40_000)); // ~60 MB: two packs
    }
    const data = dirs.make('posthoc-data-');
    const checkpoints = join(data, 'checkpoints');
    const child = join(data, 'child.mts');
    writeFileSync(
      child,
      `import { CheckpointStore } from ${JSON.stringify(join(process.cwd(), 'main/effects/fs/checkpoint-store.ts'))};
       const store = await CheckpointStore.open(process.argv[2], process.argv[3], { parallelMinFiles: 10 });
       const c = await store.snapshot('first', { budgetBytes: 1e12 });
       await store.pin('first', c.commit);
       process.stdout.write('done');`,
    );
    const gitdir = CheckpointStore.gitdirFor(ws, checkpoints);
    const proc = spawn(process.execPath, ['--import', 'tsx', child, ws, checkpoints], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    // Killed once its first pack is in place: the walk is half-way.
    for (let i = 0; i < 600 && !packsOf(gitdir).some((f) => f.endsWith('.idx')) && proc.exitCode === null; i++) await new Promise((r) => setTimeout(r, 50));
    proc.kill('SIGKILL');
    await new Promise((resolve) => proc.on('exit', resolve));
    expect(out).toBe('');
    expect(packsOf(gitdir).some((f) => f.endsWith('.idx'))).toBe(true);
    git(gitdir, 'fsck', '--strict');
    expect(() => git(gitdir, 'rev-parse', '--verify', '-q', 'refs/posthoc/first')).toThrow();

    const store = await CheckpointStore.open(ws, checkpoints, { parallelMinFiles: 10 });
    const first = await store.snapshot('first', { budgetBytes: BUDGET });
    await store.pin('first', first.commit);
    git(gitdir, 'fsck', '--strict', '--no-dangling');
    for (const rel of ['d0/f0', 'd9/f1499', 'd5/f775']) expect(gitBytes(gitdir, 'cat-file', 'blob', `${first.commit}:${rel}`).equals(readFileSync(join(ws, rel)))).toBe(true);
  }, 120_000);
});
