// Honest levels (issue 23): an action with anything undo does not cover is never "reversible — restored
// exactly by undo", and the level says why in the person's words. On real folders and checkpoints: a disk
// that fills up while the checkpoint after the action keeps a copy (a small tmpfs under the checkpoints,
// when the tests run as root; otherwise the same error from writing the copy, ENOSPC, raised where the
// checkpoint writes it), a special file the action made, and a large file over the budget it changed or
// left alone.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatAction } from '../../main/cli/format';
import { ShadowRepo } from '../../main/effects/fs/git-objects';
import type { FsEffect } from '../../shared/domain';
import { tempDirs } from '../support/temp-dir';
import { undoHarnessesPerTest } from '../support/undo-harness';

const { harness } = undoHarnessesPerTest();
const dirs = tempDirs();
const isRoot = process.getuid?.() === 0;
const mounts: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of mounts.splice(0)) spawnSync('umount', [dir]);
  dirs.cleanup();
});

const notCoveredOf = (effects: readonly { channel: string }[]) => (effects.find((e): e is FsEffect => e.channel === 'fs')?.notCovered ?? []);

/** A data folder whose checkpoints live on a disk with `bytes` of room (root), or whose copies of files over `bytes` fail with ENOSPC. */
function smallDisk(bytes: number): string {
  const dataDir = dirs.make('posthoc-full-data-');
  const checkpoints = join(dataDir, 'checkpoints');
  mkdirSync(checkpoints);
  if (isRoot) {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', checkpoints]);
    mounts.push(checkpoints);
  } else {
    const write = ShadowRepo.prototype.writeBlob;
    vi.spyOn(ShadowRepo.prototype, 'writeBlob').mockImplementation(function (this: ShadowRepo, content: Buffer) {
      if (content.length > bytes) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: 'ENOSPC' });
      return write.call(this, content);
    });
  }
  return dataDir;
}

describe('honest levels', () => {
  it('a file the checkpoint after could not keep because the disk was full: not covered (disk full) on the card, and the level is confined, saying so', async () => {
    const h = await harness({ dataDir: smallDisk(1024 * 1024) });
    const ws = h.workspace;
    writeFileSync(join(ws, 'notes.txt'), 'mine\n');
    const action = await h.act(() => {
      writeFileSync(join(ws, 'notes.txt'), 'changed\n');
      writeFileSync(join(ws, 'data.csv'), randomBytes(3 * 1024 * 1024)); // incompressible: its copy does not fit
    });
    expect(notCoveredOf(action.effects)).toEqual([expect.objectContaining({ path: 'data.csv', reason: 'disk-full', when: 'after' })]);
    expect(action.confinement.level).toBe('confined');
    expect(action.confinement.reason).toMatch(/^data\.csv is not covered by undo \(the disk was full when Posthoc tried to keep a copy\): it is there after this action, so undo cannot take it back exactly/);
    // The CLI's line for it says the same in words.
    expect(formatAction(action)).toContain('! data.csv: not covered by undo (the disk was full when Posthoc tried to keep a copy)');
  });

  it('a special file the action made (a named pipe): not reversible, "a special file"', async () => {
    const h = await harness();
    const ws = h.workspace;
    const action = await h.act(() => {
      writeFileSync(join(ws, 'a.txt'), 'a\n');
      execFileSync('mkfifo', [join(ws, 'pipe')]);
    });
    expect(notCoveredOf(action.effects)).toEqual([expect.objectContaining({ path: 'pipe', reason: 'special', when: 'after' })]);
    expect(action.confinement.level).toBe('confined');
    expect(action.confinement.reason).toMatch(/^pipe is not covered by undo \(a special file \(socket, pipe or device\)\)/);
    // The next action did not touch it, but no checkpoint looks into a pipe: still not "restored exactly".
    const next = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'b\n'));
    expect(next.confinement.level).toBe('confined');
    expect(next.confinement.reason).toMatch(/^pipe is not covered by undo .*Posthoc cannot tell whether this action changed it/);
  });

  it('a large file over the budget: confined when the action changed it; reversible, naming it, when the action left it alone', async () => {
    const h = await harness({ checkpoints: { largeFileBytes: 10_000 }, budgetBytes: 5_000 });
    const ws = h.workspace;
    writeFileSync(join(ws, 'huge.bin'), Buffer.alloc(30_000, 2));
    const other = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'a\n'));
    expect(other.confinement.level).toBe('reversible');
    expect(other.confinement.reason).toMatch(/restored exactly by undo; huge\.bin \(over the folder’s undo storage budget, not covered by undo\) was left untouched\.$/);
    const change = await h.act(() => writeFileSync(join(ws, 'huge.bin'), Buffer.alloc(30_000, 3)));
    expect(change.confinement.level).toBe('confined');
    expect(change.confinement.reason).toMatch(/^huge\.bin is not covered by undo \(over the folder’s undo storage budget\): this action changed it/);
  });
});
