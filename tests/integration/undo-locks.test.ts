// One checkpoint or restore at a time per folder, across processes: a lock file naming its owner's pid.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderLocks, FolderLockTimeout } from '../../main/effects/fs/folder-lock';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

describe('folder locks', () => {
  it('queue callers in this process, and release the lock file afterwards', async () => {
    const gitdir = dirs.make('posthoc-lock-');
    const locks = new FolderLocks();
    const order: string[] = [];
    const slow = locks.with([gitdir], async () => {
      order.push('first starts');
      await new Promise((r) => setTimeout(r, 30));
      expect(readFileSync(join(gitdir, 'posthoc.lock'), 'utf8').trim()).toBe(String(process.pid));
      order.push('first ends');
    });
    const fast = locks.with([gitdir], async () => void order.push('second'));
    await Promise.all([slow, fast]);
    expect(order).toEqual(['first starts', 'first ends', 'second']);
    expect(existsSync(join(gitdir, 'posthoc.lock'))).toBe(false);
  });

  it("waits for another live process's lock, says which process holds it, and takes over once it is gone", async () => {
    const gitdir = dirs.make('posthoc-lock-');
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      writeFileSync(join(gitdir, 'posthoc.lock'), `${other.pid}\n`);
      await expect(new FolderLocks(300).with([gitdir], async () => 'never')).rejects.toThrow(FolderLockTimeout);
      await expect(new FolderLocks(300).with([gitdir], async () => 'never')).rejects.toThrow(new RegExp(`pid ${other.pid}`));
    } finally {
      other.kill('SIGKILL');
      await new Promise((r) => other.once('exit', r));
    }
    // The owner is dead: its lock is stale.
    expect(await new FolderLocks(300).with([gitdir], async () => 'ran')).toBe('ran');
  });
});
