// One checkpoint or restore at a time per granted folder: in this process a promise chain, across
// processes (the app and a CLI command on the same folder) a lock file in the shadow repository that
// names its owner's pid. A lock whose process is gone is stale and taken over.
// Not proper-lockfile: its staleness is an mtime refreshed on a timer, so a checkpoint that blocks the
// event loop past the stale time loses its lock to another process, a crashed owner still blocks others
// until that time, and its lock names no owner, where ours asks whether the owner lives and names its pid.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../../platform/process-owner';

const WAIT_MS = 15_000;
const POLL_MS = 50;

export class FolderLockTimeout extends Error {}

export class FolderLocks {
  private readonly chains = new Map<string, Promise<unknown>>();

  /** `waitMs`: how long to wait for another process's lock before giving up with what to do. */
  constructor(private readonly waitMs = WAIT_MS) {}

  /** Runs `fn` holding the lock of every shadow repository listed (taken in sorted order: no deadlock). */
  async with<T>(gitdirs: string[], fn: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(gitdirs)].sort();
    const run = async (): Promise<T> => {
      const taken: string[] = [];
      try {
        for (const gitdir of sorted) {
          await acquireFileLock(gitdir, this.waitMs);
          taken.push(gitdir);
        }
        return await fn();
      } finally {
        for (const gitdir of taken.reverse()) releaseFileLock(gitdir);
      }
    };
    // Chain on every involved folder so in-process callers queue instead of polling the lock file.
    const previous = Promise.all(sorted.map((g) => this.chains.get(g) ?? Promise.resolve()));
    const next = previous.then(run, run);
    const settled = next.catch(() => undefined);
    for (const g of sorted) this.chains.set(g, settled);
    return next;
  }
}

function lockPath(gitdir: string): string {
  return join(gitdir, 'posthoc.lock');
}

async function acquireFileLock(gitdir: string, waitMs: number): Promise<void> {
  const path = lockPath(gitdir);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    // Our own pid: another handle in this process (its promise chain already serialises us) or a
    // crashed run of this process's earlier life; either way it is not a live foreign owner.
    if (!Number.isInteger(owner) || owner === process.pid || !processAlive(owner)) {
      rmSync(path, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new FolderLockTimeout(
        `Another Posthoc process (pid ${owner}) is checkpointing or restoring this folder. Try again when it has finished, or end that process.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function releaseFileLock(gitdir: string): void {
  const path = lockPath(gitdir);
  try {
    if (readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path, { force: true });
  } catch {
    // Already gone.
  }
}
