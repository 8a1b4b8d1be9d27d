// Checkpoints against a real git object store written by isomorphic-git, checked with native git too.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointConflict, CheckpointStore } from '../../main/effects/fs/checkpoint-store';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

async function setup() {
  const ws = dirs.make('posthoc-ws-');
  const data = dirs.make('posthoc-data-');
  writeFileSync(join(ws, 'notes.txt'), 'mine\n');
  mkdirSync(join(ws, 'src'));
  writeFileSync(join(ws, 'src', 'main.py'), 'print(1)\n');
  const store = await CheckpointStore.open(ws, join(data, 'checkpoints'));
  return { ws, store };
}

describe('CheckpointStore', () => {
  it('records added, modified and deleted paths and restores the state before', async () => {
    const { ws, store } = await setup();
    const before = await store.snapshot('before');
    writeFileSync(join(ws, 'hello.txt'), 'hi\n');
    writeFileSync(join(ws, 'src', 'main.py'), 'print(2)\n');
    rmSync(join(ws, 'notes.txt'));
    mkdirSync(join(ws, 'new', 'deep'), { recursive: true });
    writeFileSync(join(ws, 'new', 'deep', 'file name with spaces ü.txt'), 'x');
    const after = await store.snapshot('after', before);

    expect(await store.diff(before, after)).toEqual({
      added: ['hello.txt', 'new/deep/file name with spaces ü.txt'],
      modified: ['src/main.py'],
      deleted: ['notes.txt'],
    });

    const result = await store.restore(before, after);
    expect(result.removed.sort()).toEqual(['hello.txt', 'new/deep/file name with spaces ü.txt']);
    expect(result.restored.sort()).toEqual(['notes.txt', 'src/main.py']);
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(ws, 'src', 'main.py'), 'utf8')).toBe('print(1)\n');
    expect(existsSync(join(ws, 'hello.txt'))).toBe(false);
    expect(existsSync(join(ws, 'new'))).toBe(false); // folders the action created are gone too
  });

  it('refuses to undo, writing nothing, when a changed path was edited since', async () => {
    const { ws, store } = await setup();
    const before = await store.snapshot('before');
    writeFileSync(join(ws, 'hello.txt'), 'agent wrote this\n');
    writeFileSync(join(ws, 'other.txt'), 'agent too\n');
    const after = await store.snapshot('after', before);
    writeFileSync(join(ws, 'hello.txt'), 'the person edited this\n');

    await expect(store.restore(before, after)).rejects.toBeInstanceOf(CheckpointConflict);
    await expect(store.restore(before, after)).rejects.toMatchObject({ paths: ['hello.txt'] });
    expect(readFileSync(join(ws, 'hello.txt'), 'utf8')).toBe('the person edited this\n');
    expect(existsSync(join(ws, 'other.txt'))).toBe(true);
  });

  it('keeps the executable bit and stores symlinks as links without following them', async () => {
    const { ws, store } = await setup();
    const outside = dirs.make('posthoc-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'outside the folder');
    const before = await store.snapshot('before');
    writeFileSync(join(ws, 'run.sh'), '#!/bin/sh\necho hi\n');
    chmodSync(join(ws, 'run.sh'), 0o755);
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'link-out'));
    const after = await store.snapshot('after', before);
    const flat = await store.flatten(after);
    expect(flat.get('run.sh')?.mode).toBe('100755');
    expect(flat.get('link-out')?.mode).toBe('120000');

    // Deleting both and undoing that brings back a link (not a copy of the target) and the mode.
    rmSync(join(ws, 'run.sh'));
    rmSync(join(ws, 'link-out'));
    const gone = await store.snapshot('deleted', after);
    await store.restore(after, gone);
    expect(statSync(join(ws, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(lstatSync(join(ws, 'link-out')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(ws, 'link-out'))).toBe(join(outside, 'secret.txt'));
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('outside the folder');
  });

  it('never writes through a symlinked folder planted inside the workspace', async () => {
    const { ws, store } = await setup();
    const outside = dirs.make('posthoc-outside-');
    const before = await store.snapshot('before');
    mkdirSync(join(ws, 'sub'));
    writeFileSync(join(ws, 'sub', 'f.txt'), 'x');
    const after = await store.snapshot('after', before);
    // Undo of "delete sub/f.txt" would write sub/f.txt; make sub a link to a folder outside first.
    rmSync(join(ws, 'sub'), { recursive: true });
    const deleted = await store.snapshot('deleted', after);
    symlinkSync(outside, join(ws, 'sub'));
    await expect(store.restore(after, deleted)).rejects.toThrow();
    expect(existsSync(join(outside, 'f.txt'))).toBe(false);
  });

  it('leaves the person\'s own .git alone and writes a repository native git can read', async () => {
    const { ws, store } = await setup();
    mkdirSync(join(ws, '.git'));
    writeFileSync(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const before = await store.snapshot('before');
    writeFileSync(join(ws, 'a.txt'), 'a\n');
    const after = await store.snapshot('after', before);
    expect([...(await store.flatten(after)).keys()].some((p) => p.startsWith('.git'))).toBe(false);
    await store.pin('actions/test/after', after);
    const log = execFileSync('git', ['--git-dir', store.gitdir, 'log', '--format=%s', 'refs/posthoc/actions/test/after'], { encoding: 'utf8' });
    expect(log.trim().split('\n')).toEqual(['after', 'before']);
    const names = execFileSync('git', ['--git-dir', store.gitdir, 'diff', '--name-status', before, after], { encoding: 'utf8' });
    expect(names.trim()).toBe('A\ta.txt');
    execFileSync('git', ['--git-dir', store.gitdir, 'fsck', '--no-dangling'], { stdio: 'pipe' });
  });

  it('sees a change made within the same second as the previous checkpoint (no stale stat cache)', async () => {
    const { ws, store } = await setup();
    const first = await store.snapshot('first');
    writeFileSync(join(ws, 'notes.txt'), 'mone\n'); // same size, same second
    const second = await store.snapshot('second', first);
    expect((await store.diff(first, second)).modified).toEqual(['notes.txt']);
  });
});
