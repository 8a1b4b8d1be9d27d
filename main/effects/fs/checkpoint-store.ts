// Checkpoints of a granted folder in a git-format shadow repository (a bare repo in the data directory),
// written with isomorphic-git so `git --git-dir=... log` and `git diff` can inspect them.
//
// What is covered: regular files (content and the executable bit) and symbolic links (stored as links,
// never followed). A `.git` folder inside the granted folder is skipped for now: it is never read into a
// checkpoint and never written by a restore, so the person's own repository is never touched.
//
// A stat cache (size, mtime, ctime, inode, mode → blob id) means only files that changed are read and hashed.
import git from 'isomorphic-git';
import * as fs from 'node:fs';
import { lstat, mkdir, readFile, readdir, readlink, rename, rm, rmdir, symlink, writeFile, chmod } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { resolveInside } from './path-guard';

export type Entry = { mode: '100644' | '100755' | '120000'; oid: string };
/** Path (relative, '/'-separated) → entry. Directories are implied by their files. */
export type FlatTree = Map<string, Entry>;

export type FsChange = { added: string[]; modified: string[]; deleted: string[] };

type StatKey = { size: number; mtimeMs: number; ctimeMs: number; ino: number; mode: number };
type CacheEntry = StatKey & { oid: string };

const AUTHOR = { name: 'Posthoc', email: 'checkpoints@posthoc.invalid', timestamp: 0, timezoneOffset: 0 };
const SKIPPED_NAMES = new Set(['.git']);
/** Files modified this recently are not trusted to the stat cache (mtime granularity, "racy git"). */
const RACY_WINDOW_MS = 2000;

export class CheckpointConflict extends Error {
  constructor(readonly paths: string[]) {
    super(
      `Undo refused: ${paths.length} path(s) changed after this action and undo would overwrite them: ${paths.join(', ')}`,
    );
  }
}

export class CheckpointStore {
  private readonly statCache = new Map<string, CacheEntry>();
  private readonly flatCache = new Map<string, FlatTree>();

  private constructor(
    readonly workspace: string,
    readonly gitdir: string,
  ) {}

  /** Opens (creating if needed) the shadow repository for `workspace` under `checkpointsDir`. */
  static async open(workspace: string, checkpointsDir: string): Promise<CheckpointStore> {
    const id = createHash('sha256').update(workspace).digest('hex').slice(0, 16);
    const gitdir = join(checkpointsDir, `${id}.git`);
    if (!fs.existsSync(join(gitdir, 'HEAD'))) {
      await mkdir(gitdir, { recursive: true });
      await git.init({ fs, gitdir, bare: true, defaultBranch: 'checkpoints' });
      await writeFile(join(gitdir, 'description'), `Posthoc checkpoints of ${workspace}\n`);
    }
    return new CheckpointStore(workspace, gitdir);
  }

  /** Records the folder's current state; returns the checkpoint's commit id. */
  async snapshot(message: string, parent?: string): Promise<string> {
    const startedAt = Date.now();
    const flat: FlatTree = new Map();
    const tree = await this.writeDir(this.workspace, '', flat, startedAt);
    const oid = await git.writeCommit({
      fs,
      gitdir: this.gitdir,
      commit: {
        message: `${message}\n`,
        tree,
        parent: parent ? [parent] : [],
        author: { ...AUTHOR, timestamp: Math.floor(startedAt / 1000) },
        committer: { ...AUTHOR, timestamp: Math.floor(startedAt / 1000) },
      },
    });
    this.flatCache.set(oid, flat);
    return oid;
  }

  /** Keeps a checkpoint reachable (and so safe from garbage collection) under a named ref. */
  async pin(ref: string, oid: string): Promise<void> {
    await git.writeRef({ fs, gitdir: this.gitdir, ref: `refs/posthoc/${ref}`, value: oid, force: true });
  }

  async flatten(commit: string): Promise<FlatTree> {
    const cached = this.flatCache.get(commit);
    if (cached) return cached;
    const { commit: c } = await git.readCommit({ fs, gitdir: this.gitdir, oid: commit });
    const flat: FlatTree = new Map();
    await this.flattenTree(c.tree, '', flat);
    this.flatCache.set(commit, flat);
    return flat;
  }

  async diff(before: string, after: string): Promise<FsChange> {
    return diffFlat(await this.flatten(before), await this.flatten(after));
  }

  /**
   * Puts back, for every path the action changed, the content it had at `before`. Refuses (and writes
   * nothing) when any of those paths no longer holds what the action left at `after`: someone else
   * changed it since, and undo never destroys another edit.
   */
  async restore(before: string, after: string): Promise<{ restored: string[]; removed: string[] }> {
    const conflicts = await this.conflicts(before, after);
    if (conflicts.length > 0) throw new CheckpointConflict(conflicts);
    const beforeTree = await this.flatten(before);
    const paths = changedPaths(diffFlat(beforeTree, await this.flatten(after)));

    const restored: string[] = [];
    const removed: string[] = [];
    for (const path of paths) {
      const target = await resolveInside(this.workspace, path);
      const entry = beforeTree.get(path);
      if (!entry) {
        await rm(target, { force: true });
        removed.push(path);
        await this.removeEmptyParents(path, beforeTree);
      } else {
        await this.writeEntry(target, entry);
        restored.push(path);
      }
      this.statCache.delete(path);
    }
    return { restored, removed };
  }

  /** The paths the action changed that no longer hold what it left there. */
  async conflicts(before: string, after: string): Promise<string[]> {
    const afterTree = await this.flatten(after);
    const paths = changedPaths(diffFlat(await this.flatten(before), afterTree));
    if (paths.length === 0) return [];
    const current = await this.flatten(await this.snapshot('state before undo', after));
    return paths.filter((p) => !sameEntry(current.get(p), afterTree.get(p)));
  }

  private async writeEntry(target: string, entry: Entry): Promise<void> {
    await mkdir(dirname(target), { recursive: true });
    const { blob } = await git.readBlob({ fs, gitdir: this.gitdir, oid: entry.oid });
    const temp = join(dirname(target), `.posthoc-restore-${randomBytes(6).toString('hex')}`);
    if (entry.mode === '120000') {
      await symlink(Buffer.from(blob).toString('utf8'), temp);
    } else {
      await writeFile(temp, blob, { mode: entry.mode === '100755' ? 0o755 : 0o644 });
      await chmod(temp, entry.mode === '100755' ? 0o755 : 0o644);
    }
    try {
      const existing = await lstat(target).catch(() => undefined);
      if (existing?.isDirectory()) await rm(target, { recursive: true });
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  /** After removing an added file, removes the folders it lived in if they are empty and did not exist before. */
  private async removeEmptyParents(path: string, beforeTree: FlatTree): Promise<void> {
    const existedBefore = (dir: string): boolean => {
      for (const p of beforeTree.keys()) if (p.startsWith(`${dir}/`)) return true;
      return false;
    };
    let dir = dirname(path);
    while (dir !== '.' && dir !== '' && !existedBefore(dir)) {
      const abs = await resolveInside(this.workspace, dir);
      try {
        await rmdir(abs);
      } catch {
        return; // not empty, or already gone
      }
      dir = dirname(dir);
    }
  }

  private async writeDir(abs: string, rel: string, flat: FlatTree, startedAt: number): Promise<string> {
    const dirents = await readdir(abs, { withFileTypes: true });
    const entries: Array<{ mode: string; path: string; oid: string; type: 'blob' | 'tree' }> = [];
    for (const d of dirents) {
      if (SKIPPED_NAMES.has(d.name) || d.name.startsWith('.posthoc-restore-')) continue;
      const childAbs = join(abs, d.name);
      const childRel = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        const oid = await this.writeDir(childAbs, childRel, flat, startedAt);
        entries.push({ mode: '040000', path: d.name, oid, type: 'tree' });
      } else if (d.isFile() || d.isSymbolicLink()) {
        const entry = await this.hashEntry(childAbs, childRel, startedAt);
        if (!entry) continue;
        flat.set(childRel, entry);
        entries.push({ mode: entry.mode, path: d.name, oid: entry.oid, type: 'blob' });
      }
      // Sockets, FIFOs and devices are not content; they are left out of checkpoints.
    }
    entries.sort((a, b) => compareTreeNames(a.path, a.type, b.path, b.type));
    return git.writeTree({ fs, gitdir: this.gitdir, tree: entries as never });
  }

  private async hashEntry(abs: string, rel: string, startedAt: number): Promise<Entry | undefined> {
    const st = await lstat(abs).catch(() => undefined);
    if (!st) return undefined; // vanished while walking
    const mode: Entry['mode'] = st.isSymbolicLink() ? '120000' : st.mode & 0o111 ? '100755' : '100644';
    const key: StatKey = { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, mode: st.mode };
    const cached = this.statCache.get(rel);
    if (cached && sameStat(cached, key)) return { mode, oid: cached.oid };
    const content = st.isSymbolicLink() ? Buffer.from(await readlink(abs), 'utf8') : await readFile(abs);
    const oid = await git.writeBlob({ fs, gitdir: this.gitdir, blob: content });
    if (startedAt - st.mtimeMs > RACY_WINDOW_MS && startedAt - st.ctimeMs > RACY_WINDOW_MS) {
      this.statCache.set(rel, { ...key, oid });
    } else {
      this.statCache.delete(rel);
    }
    return { mode, oid };
  }

  private async flattenTree(oid: string, prefix: string, flat: FlatTree): Promise<void> {
    const { tree } = await git.readTree({ fs, gitdir: this.gitdir, oid });
    for (const e of tree) {
      const path = prefix ? `${prefix}/${e.path}` : e.path;
      if (e.type === 'tree') await this.flattenTree(e.oid, path, flat);
      else if (e.type === 'blob') flat.set(path, { mode: e.mode as Entry['mode'], oid: e.oid });
    }
  }
}

export function diffFlat(before: FlatTree, after: FlatTree): FsChange {
  const added: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  for (const [path, entry] of after) {
    const prev = before.get(path);
    if (!prev) added.push(path);
    else if (!sameEntry(prev, entry)) modified.push(path);
  }
  for (const path of before.keys()) if (!after.has(path)) deleted.push(path);
  return { added: added.sort(), modified: modified.sort(), deleted: deleted.sort() };
}

export function changedPaths(change: FsChange): string[] {
  return [...change.added, ...change.modified, ...change.deleted].sort();
}

function sameEntry(a: Entry | undefined, b: Entry | undefined): boolean {
  if (!a || !b) return a === b;
  return a.oid === b.oid && a.mode === b.mode;
}

function sameStat(a: StatKey, b: StatKey): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.mode === b.mode;
}

/** Git orders tree entries by name, comparing a folder's name as if it ended with '/'. */
function compareTreeNames(a: string, aType: string, b: string, bType: string): number {
  const ka = Buffer.from(aType === 'tree' ? `${a}/` : a);
  const kb = Buffer.from(bType === 'tree' ? `${b}/` : b);
  return Buffer.compare(ka, kb);
}
