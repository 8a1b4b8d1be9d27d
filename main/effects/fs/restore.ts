// Makes paths of a granted folder hold given checkpoint entries. Every file is replaced atomically
// (written next to its target, flushed, renamed over it), so a crash leaves each path either as it was or
// as it should be, never half-written. Each step is idempotent: running the same operations again after
// a crash finishes the job, and running the inverse operations rolls it back.
//
// Nothing is touched by its full path: each step opens the path's folder beneath the granted folder without
// following a link (beneath.ts), then removes, creates, writes and renames relative to that folder's handle.
// A folder swapped for a symbolic link between two steps (by a process of the sandbox) is refused, so a
// restore can never be steered into writing outside the folder.
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fchownSync, fsyncSync, writeSync } from 'node:fs';
import { type EntryStat, type FolderDir, type FolderIdentity, GrantedFolder, isDir, isRegular } from './beneath';
import type { ShadowRepo } from './git-objects';
import { checkRelative, PathOutsideWorkspace } from './path-guard';
import { defaultPerms } from './private-modes';
import { depthOf, RESTORE_TEMP_PREFIX, type Entry } from './tree-model';

/** `permsFrom`: the path whose recorded private bits the content takes (a kept copy takes its file's); default `path`. */
export type RestoreOp = { path: string; to: Entry | null; permsFrom?: string };
export type RestoreHooks = {
  /** Called after each step; tests use it to stop a restore half-way as a crash would. */
  afterStep?: (steps: number) => void | Promise<void>;
};
export type RestoreOutcome = { written: string[]; removed: string[]; skipped: string[] };

export type RestoreOptions = {
  hooks?: RestoreHooks;
  /** The permission bits recorded for a content seen private at a path (private-modes.ts), or null. */
  privatePerms?: (path: string, oid: string) => number | null;
  /** What the folder must be (GrantedFolder.open): a folder replaced since is never written. */
  identity?: FolderIdentity | null;
};

export async function applyOps(
  workspace: string,
  repo: ShadowRepo,
  ops: readonly RestoreOp[],
  tag: string,
  { hooks = {}, privatePerms = () => null, identity = null }: RestoreOptions = {},
): Promise<RestoreOutcome> {
  const outcome: RestoreOutcome = { written: [], removed: [], skipped: [] };
  let steps = 0;
  const step = async () => {
    steps++;
    await hooks.afterStep?.(steps);
  };
  const folder = GrantedFolder.open(workspace, identity);
  try {
    // 1. Remove what must go, deepest first, so folders are empty when their turn comes.
    const removals = [...ops].sort((a, b) => depthOf(b.path) - depthOf(a.path) || (a.path < b.path ? 1 : -1));
    for (const op of removals) {
      const [parent, name] = split(op.path);
      let removed: boolean;
      try {
        removed = inFolder(folder, parent, op.path, (dir) => {
          const st = dir?.stat(name) ?? null;
          if (!dir || !st) return false;
          const onDiskIsDir = isDir(st);
          if (op.to !== null && onDiskIsDir === (op.to.kind === 'dir')) return false;
          if (op.to !== null && op.to.kind === 'uncovered') return false; // cannot be written: leave it
          dir.remove(name, onDiskIsDir);
          return true;
        });
      } catch (error) {
        // A link where a folder on the way should be: nothing of this path is inside the folder, and the
        // link itself is one of the operations (removed at its own, shallower, turn). Anything else refuses.
        if (!(error instanceof PathOutsideWorkspace) || !ops.some((o) => op.path.startsWith(`${o.path}/`))) throw error;
        removed = false;
      }
      if (!removed) continue;
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
      const [parent, name] = split(op.path);
      const content = entry.kind === 'dir' ? null : await repo.readBlob(entry.oid);
      const wrote = inFolder(folder, parent, op.path, (dir) => {
        if (!dir) throw new Error(`Cannot write ${op.path}: the folder ${parent} it goes in is not there.`);
        if (content === null) return makeDir(dir, name);
        writeEntry(dir, name, entry, content, tag, entry.kind === 'link' ? null : privatePerms(op.permsFrom ?? op.path, entry.oid));
        return true;
      });
      if (!wrote) continue;
      outcome.written.push(op.path);
      await step();
    }
  } finally {
    folder.close();
  }
  return outcome;
}

/** Runs `fn` in the folder `parent` of `path`; a link on the way is refused, naming the path. */
function inFolder<T>(folder: GrantedFolder, parent: string, path: string, fn: (dir: FolderDir | null) => T): T {
  try {
    return folder.withDir(parent, fn);
  } catch (error) {
    if (error instanceof PathOutsideWorkspace && parent !== path) throw new PathOutsideWorkspace(`Cannot restore ${path}: ${error.message}`);
    throw error;
  }
}

/** A path's folder and name: "a/b/c" → ["a/b", "c"]. */
function split(path: string): [string, string] {
  const parts = checkRelative(path);
  const name = parts.pop()!;
  return [parts.join('/'), name];
}

function makeDir(dir: FolderDir, name: string): boolean {
  if (isDir(dir.stat(name))) return false;
  dir.mkdir(name, 0o777); // less the umask, as mkdir(1) would
  // A re-created folder belongs to whoever owns the folder it is in, not to a Posthoc running as root.
  const owner = foreignOwner(dir.self());
  if (owner) dir.chown(name, owner.uid, owner.gid);
  return true;
}

function writeEntry(dir: FolderDir, name: string, entry: Entry, content: Buffer, tag: string, recorded: number | null): void {
  const temp = `${RESTORE_TEMP_PREFIX}${tag}-${randomBytes(5).toString('hex')}`;
  const replaced = dir.stat(name);
  const owner = foreignOwner(replaced ?? dir.self());
  try {
    if (entry.kind === 'link') {
      dir.symlink(content, temp);
      if (owner) dir.chown(temp, owner.uid, owner.gid);
    } else {
      const mode = modeFor(replaced, entry.kind === 'exec', recorded);
      const fd = dir.createFile(temp, mode);
      try {
        let offset = 0;
        while (offset < content.length) offset += writeSync(fd, content, offset, content.length - offset);
        fsyncSync(fd);
        fchmodSync(fd, mode); // the umask narrowed the mode it was created with
        if (owner) fchownSync(fd, owner.uid, owner.gid);
      } finally {
        closeSync(fd);
      }
    }
    dir.rename(temp, name);
  } catch (error) {
    try {
      dir.remove(temp, false);
    } catch {
      // never created, or already renamed
    }
    throw error;
  }
}

/**
 * Checkpoints keep only the executable bit (as git does). A content recorded private at its path
 * (private-modes.ts: 0600, 0640…) gets those bits back; otherwise a file being replaced keeps its
 * permission bits, and a file brought back gets 0644 or 0755. Never set-user-ID, set-group-ID or sticky:
 * a restore must not hand out a program that runs as the folder's owner.
 */
export function modeFor(replaced: EntryStat | null, executable: boolean, recorded: number | null = null): number {
  if (recorded === null && !isRegular(replaced)) return defaultPerms(executable);
  const perms = (recorded ?? replaced!.mode) & 0o777;
  return executable ? perms | ((perms & 0o444) >> 2) | 0o100 : perms & ~0o111;
}

/**
 * When Posthoc runs as root (a CI machine), what it writes would belong to root while the folder and the
 * sandbox's files belong to someone else: give it the owner of what it replaces, or of the folder it is
 * in. A person's own Posthoc writes as the person, like the sandbox does, and changes nothing here.
 */
function foreignOwner(of: EntryStat): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0 || of.uid === 0) return null;
  return { uid: of.uid, gid: of.gid };
}

/**
 * Removes the temporary files a crashed restore tagged `tag` left next to `paths`: names starting
 * with RESTORE_TEMP_PREFIX + tag + "-", except those `existedBefore` says were there before the restore
 * began (an action may create such a name too; checkpoints record it like any other file).
 */
export function removeRestoreTemps(
  workspace: string,
  paths: readonly string[],
  tag: string,
  existedBefore: (path: string) => boolean,
  identity: FolderIdentity | null = null,
): void {
  const dirs = new Set(paths.map((p) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '')));
  const folder = GrantedFolder.open(workspace, identity);
  try {
    for (const rel of dirs) {
      let dir: FolderDir | null;
      try {
        dir = folder.openDir(rel);
      } catch {
        continue; // a link now: a restore never wrote through it
      }
      if (!dir) continue;
      try {
        for (const name of dir.names()) {
          if (!name.startsWith(`${RESTORE_TEMP_PREFIX}${tag}-`) || existedBefore(rel ? `${rel}/${name}` : name)) continue;
          if (!isDir(dir.stat(name))) dir.remove(name, false);
        }
      } finally {
        dir.close();
      }
    }
  } finally {
    folder.close();
  }
}
