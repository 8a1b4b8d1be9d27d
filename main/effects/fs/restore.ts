// Makes paths of a granted folder hold given checkpoint entries. Every file is replaced atomically
// (written next to its target, flushed, renamed over it), so a crash leaves each path either as it was or
// as it should be, never half-written. Each step is idempotent: running the same operations again after
// a crash finishes the job, and running the inverse operations rolls it back.
import { randomBytes } from 'node:crypto';
import { type Stats, chmodSync, lchownSync, closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmdirSync, rmSync, symlinkSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ShadowRepo } from './git-objects';
import { resolveInside } from './path-guard';
import { depthOf, RESTORE_TEMP_PREFIX, type Entry } from './tree-model';

export type RestoreOp = { path: string; to: Entry | null };
export type RestoreHooks = {
  /** Called after each step; tests use it to stop a restore half-way as a crash would. */
  afterStep?: (steps: number) => void | Promise<void>;
};
export type RestoreOutcome = { written: string[]; removed: string[]; skipped: string[] };

export async function applyOps(
  workspace: string,
  repo: ShadowRepo,
  ops: readonly RestoreOp[],
  tag: string,
  hooks: RestoreHooks = {},
): Promise<RestoreOutcome> {
  const outcome: RestoreOutcome = { written: [], removed: [], skipped: [] };
  let steps = 0;
  const step = async () => {
    steps++;
    await hooks.afterStep?.(steps);
  };

  // 1. Remove what must go, deepest first, so folders are empty when their turn comes.
  const removals = [...ops].sort((a, b) => depthOf(b.path) - depthOf(a.path) || (a.path < b.path ? 1 : -1));
  for (const op of removals) {
    const target = await resolveInside(workspace, op.path);
    const st = lstatOrNull(target);
    if (!st) continue;
    const onDiskIsDir = st.isDirectory();
    const wantDir = op.to?.kind === 'dir';
    if (op.to !== null && onDiskIsDir === wantDir) continue;
    if (op.to !== null && op.to.kind === 'uncovered') continue; // cannot be written: leave it
    if (onDiskIsDir) rmdirSync(target);
    else unlinkSync(target);
    outcome.removed.push(op.path);
    await step();
  }

  // 2. Create folders and write files, shallowest first.
  const writes = [...ops].filter((op) => op.to !== null).sort((a, b) => depthOf(a.path) - depthOf(b.path) || (a.path < b.path ? -1 : 1));
  for (const op of writes) {
    const entry = op.to!;
    if (entry.kind === 'uncovered') {
      outcome.skipped.push(op.path);
      continue;
    }
    const target = await resolveInside(workspace, op.path);
    if (entry.kind === 'dir') {
      const st = lstatOrNull(target);
      if (!st?.isDirectory()) {
        mkdirSync(target);
        keepOwner(target, target);
        outcome.written.push(op.path);
        await step();
      }
      continue;
    }
    await writeEntry(repo, target, entry, tag);
    outcome.written.push(op.path);
    await step();
  }
  return outcome;
}

async function writeEntry(repo: ShadowRepo, target: string, entry: Entry, tag: string): Promise<void> {
  const content = await repo.readBlob(entry.oid);
  const temp = join(dirname(target), `${RESTORE_TEMP_PREFIX}${tag}-${randomBytes(5).toString('hex')}`);
  try {
    if (entry.kind === 'link') {
      symlinkSync(content, temp);
    } else {
      const mode = modeFor(target, entry.kind === 'exec');
      const fd = openSync(temp, 'wx', mode);
      try {
        let offset = 0;
        while (offset < content.length) offset += writeSync(fd, content, offset, content.length - offset);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      chmodSync(temp, mode);
    }
    keepOwner(temp, target);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * Checkpoints keep only the executable bit (as git does). A file being replaced keeps its other
 * permission bits; a file brought back gets 0644 or 0755.
 */
function modeFor(target: string, executable: boolean): number {
  const st = lstatOrNull(target);
  if (!st?.isFile()) return executable ? 0o755 : 0o644;
  const perms = st.mode & 0o7777;
  return executable ? perms | ((perms & 0o444) >> 2) | 0o100 : perms & ~0o111;
}

/**
 * When Posthoc runs as root (a CI machine), what it writes would belong to root while the folder and the
 * sandbox's files belong to someone else: give it the owner of what it replaces, or of the folder it is
 * in. A person's own Posthoc writes as the person, like the sandbox does, and changes nothing here.
 */
function keepOwner(path: string, target: string): void {
  if (process.getuid?.() !== 0) return;
  const owner = lstatOrNull(target) ?? lstatOrNull(dirname(target));
  if (owner && owner.uid !== 0) lchownSync(path, owner.uid, owner.gid);
}

/** What is at a path, or null when nothing is (also when a folder on the way is now a file). */
function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/** Removes temporary files a crashed restore left in the folders it was writing to. */
export function removeRestoreTemps(workspace: string, paths: readonly string[], tag: string): void {
  const dirs = new Set(paths.map((p) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '')));
  for (const dir of dirs) {
    const abs = dir ? join(workspace, dir) : workspace;
    let names: string[];
    try {
      names = readdirSync(abs);
    } catch {
      continue;
    }
    for (const name of names) if (name.startsWith(`${RESTORE_TEMP_PREFIX}${tag}-`)) rmSync(join(abs, name), { force: true });
  }
}
