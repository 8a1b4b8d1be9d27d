// Checkpoints of one granted folder in a git-format shadow repository (a bare repository in the data
// directory), readable with `git --git-dir=… log` and `git diff`.
//
// A checkpoint is a commit whose tree is the folder: regular files with their executable bit, symbolic
// links as links (never followed), empty folders (empty trees), any name (a `.git` folder inside is
// stored as ".posthoc-esc-.git"), and large files up to the folder's storage budget. What it cannot hold
// is listed in the commit message ("Not-Covered: …") and stored as a gitlink placeholder.
//
// Git's tree modes keep only a file's executable bit; the permission bits of private files (0600, 0640…)
// are kept beside the repository (private-modes.ts) and given back by restores.
//
// Commits chain at most two deep (after → before, undone → before undo) so garbage collection can drop
// any checkpoint no undoable action needs.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { folderIdentity, GrantedFolder, type FolderIdentity } from './beneath';
import type { BlobVisitor } from './blob-stream';
import { FolderScanner, RACY_WINDOW_MS, type ScanLimits } from './folder-scanner';
import { ShadowRepo } from './git-objects';
import { PRIVATE_MODES_FILE, PrivateModes } from './private-modes';
import { applyOps, type RestoreHooks, type RestoreOp, type RestoreOutcome } from './restore';
import { StatCache } from './stat-cache';
import { applyChanges, diffTrees, lookup, type Change } from './tree-diff';
import type { Entry, NotCovered } from './tree-model';

export type Checkpoint = {
  commit: string;
  tree: string;
  notCovered: NotCovered[];
  /** Files read and hashed by the walk that made it (the rest came from the stat cache). */
  hashed?: number;
};

export type CheckpointOptions = {
  /** Files at least this large count against the folder's storage budget (default 8 MiB). */
  largeFileBytes?: number;
  racyWindowMs?: number;
  restoreHooks?: RestoreHooks;
  /** Folders with at least this many files are listed by several threads (default 8000; tests lower it). */
  parallelMinFiles?: number;
  /** List with the JavaScript lister even when the native one is built (tests compare the two). */
  javascriptLister?: boolean;
};

export const DEFAULT_LARGE_FILE_BYTES = 8 * 1024 * 1024;
const NOT_COVERED = 'Not-Covered: ';
const CACHE_FILE = 'posthoc-stat-cache.bin';
/** Where versions before the binary cache kept it (read once, then replaced). */
const LEGACY_CACHE_FILE = 'posthoc-stat-cache.json';
/** The folder's identity (device and inode): every host read and write checks the folder is still it. */
const IDENTITY_FILE = 'posthoc-folder-identity.json';

export class CheckpointStore {
  private readonly cache: StatCache;
  private readonly modes: PrivateModes;
  private readonly checkpoints = new Map<string, Checkpoint>();
  private folderId: FolderIdentity | null;

  private constructor(
    readonly workspace: string,
    readonly repo: ShadowRepo,
    private readonly options: CheckpointOptions,
  ) {
    this.cache = StatCache.load(join(repo.gitdir, CACHE_FILE), join(repo.gitdir, LEGACY_CACHE_FILE));
    this.modes = new PrivateModes(join(repo.gitdir, PRIVATE_MODES_FILE));
    // Checkpointed before private modes were recorded: the next walk reads every file once, so it sees them all.
    if (!this.modes.exists()) this.cache.distrust();
    this.folderId = readIdentity(join(repo.gitdir, IDENTITY_FILE));
  }

  /**
   * What the folder is: recorded by the first checkpoint (or from its grant), then checked before every walk
   * and every restore, so a folder replaced since (by a link to elsewhere, or another folder) is never read
   * into a checkpoint nor written by an undo.
   */
  identity(): FolderIdentity {
    if (!this.folderId) this.setIdentity(folderIdentity(this.workspace));
    return this.folderId!;
  }

  /**
   * The identity recorded when the folder was granted: the folder must be it now (GrantMoved if not); a
   * store that knew another folder at this path (the person replaced it before granting it again) takes it.
   */
  expectIdentity(granted: FolderIdentity): void {
    const known = this.folderId;
    if (known && known.dev === granted.dev && known.ino === granted.ino) return;
    GrantedFolder.open(this.workspace, granted).close();
    this.setIdentity(granted);
  }

  private setIdentity(identity: FolderIdentity): void {
    writeFileSync(join(this.repo.gitdir, IDENTITY_FILE), `${JSON.stringify(identity)}\n`);
    this.folderId = identity;
  }

  get gitdir(): string {
    return this.repo.gitdir;
  }

  static gitdirFor(workspace: string, checkpointsDir: string): string {
    const id = createHash('sha256').update(workspace).digest('hex').slice(0, 16);
    return join(checkpointsDir, `${id}.git`);
  }

  static async open(workspace: string, checkpointsDir: string, options: CheckpointOptions = {}): Promise<CheckpointStore> {
    const repo = await ShadowRepo.open(CheckpointStore.gitdirFor(workspace, checkpointsDir), `Posthoc checkpoints of ${workspace}`);
    return new CheckpointStore(workspace, repo, options);
  }

  /** Records the folder's current state as a commit. */
  async snapshot(message: string, input: { parent?: string; budgetBytes: number }): Promise<Checkpoint> {
    const limits: ScanLimits = {
      largeFileBytes: this.options.largeFileBytes ?? DEFAULT_LARGE_FILE_BYTES,
      budgetBytes: input.budgetBytes,
      parallelMinFiles: this.options.parallelMinFiles,
      javascriptLister: this.options.javascriptLister,
      sightAll: this.modes.exists(),
    };
    const scanner = new FolderScanner(this.repo, this.cache, this.workspace, limits, this.options.racyWindowMs ?? RACY_WINDOW_MS, this.identity());
    const { tree, notCovered, hashed, sightings } = await scanner.scan();
    this.modes.note(sightings);
    this.modes.ensure();
    return { ...(await this.commit(tree, message, input.parent ? [input.parent] : [], notCovered)), hashed };
  }

  /** Writes a commit for a tree built without a walk (the state an undo leaves). */
  async commit(tree: string, message: string, parents: string[], notCovered: NotCovered[]): Promise<Checkpoint> {
    const trailer = notCovered.map((n) => `${NOT_COVERED}${JSON.stringify(n)}`).join('\n');
    const commit = await this.repo.writeCommit({ tree, parents, message: trailer ? `${message}\n\n${trailer}` : message, at: new Date() });
    const checkpoint = { commit, tree, notCovered };
    this.checkpoints.set(commit, checkpoint);
    return checkpoint;
  }

  async checkpoint(commit: string): Promise<Checkpoint> {
    const cached = this.checkpoints.get(commit);
    if (cached) return cached;
    let read;
    try {
      read = await this.repo.readCommit(commit);
    } catch {
      throw new CheckpointMissing(commit);
    }
    const notCovered = read.message
      .split('\n')
      .filter((l) => l.startsWith(NOT_COVERED))
      .map((l) => JSON.parse(l.slice(NOT_COVERED.length)) as NotCovered);
    const checkpoint = { commit, tree: read.tree, notCovered };
    this.checkpoints.set(commit, checkpoint);
    return checkpoint;
  }

  diff(beforeTree: string, afterTree: string): Change[] {
    return diffTrees(this.repo, beforeTree, afterTree);
  }

  lookup(tree: string, path: string): Entry | null {
    return lookup(this.repo, tree, path);
  }

  applyChanges(tree: string, changes: ReadonlyArray<{ path: string; to: Entry | null }>): string {
    return applyChanges(this.repo, tree, changes);
  }

  readBlob(oid: string): Promise<Buffer> {
    return this.repo.readBlob(oid);
  }

  /** A blob's content in pieces, at most `maxBytes`, inflated only that far (ShadowRepo.streamBlob). */
  streamBlob(oid: string, maxBytes: number, visit: BlobVisitor): Promise<{ size: number; read: number }> {
    return this.repo.streamBlob(oid, maxBytes, visit);
  }

  /** A blob's size and at most its first `maxBytes` bytes. */
  readBlobHead(oid: string, maxBytes: number): Promise<{ size: number; content: Buffer }> {
    return this.repo.readBlobHead(oid, maxBytes);
  }

  /** A blob's size from its object's header, without reading its content. */
  blobSize(oid: string): Promise<number> {
    return this.repo.blobSize(oid);
  }

  /**
   * Makes paths of the folder hold the given entries (atomic per file; see restore.ts). `replaced` names
   * the entries being overwritten: their objects are flushed to disk first, so even a power cut half-way
   * leaves what rollback needs.
   */
  restore(ops: readonly RestoreOp[], tag: string, replaced: Iterable<Entry | null> = []): Promise<RestoreOutcome> {
    const blobs: string[] = [];
    for (const e of replaced) if (e && e.kind !== 'dir' && e.kind !== 'uncovered') blobs.push(e.oid);
    this.repo.makeDurable(blobs);
    return applyOps(this.workspace, this.repo, ops, tag, { hooks: this.options.restoreHooks, privatePerms: this.modes.reader(), identity: this.identity() });
  }

  /** Keeps a checkpoint reachable (safe from garbage collection) under refs/posthoc/NAME. */
  pin(name: string, commit: string): Promise<void> {
    return this.repo.setRef(name, commit);
  }

  unpin(name: string): Promise<void> {
    return this.repo.deleteRef(name);
  }

  pinned(): Promise<Array<{ name: string; oid: string }>> {
    return this.repo.listRefs();
  }

  /** Bytes of large files the folder's checkpoints hold (what the budget counts). */
  largeBytes(): number {
    return this.cache.largeBytes();
  }

  saveCache(): void {
    this.cache.save(join(this.gitdir, CACHE_FILE));
  }

  /**
   * Deletes every loose object no pinned checkpoint (and no stat-cache entry) reaches. Call it holding the
   * folder's lock. Returns how many objects were removed. Packed objects (a first checkpoint's) stay: at
   * most one copy of the folder as it was first checkpointed, most of it still named by later checkpoints.
   */
  async collectGarbage(): Promise<number> {
    this.saveCache();
    const keep = new Set<string>(this.cache.oids());
    // Another process may have saved a cache naming objects this one does not know.
    for (const oid of StatCache.load(join(this.gitdir, CACHE_FILE), join(this.gitdir, LEGACY_CACHE_FILE)).oids()) keep.add(oid);
    const commits = (await this.pinned()).map((r) => r.oid);
    const seenCommits = new Set<string>();
    const seenTrees = new Set<string>();
    while (commits.length > 0) {
      const oid = commits.pop()!;
      if (seenCommits.has(oid)) continue;
      seenCommits.add(oid);
      keep.add(oid);
      const c = await this.checkpointCommit(oid);
      if (!c) continue;
      this.markTree(c.tree, keep, seenTrees);
      commits.push(...c.parents);
    }
    this.modes.retain(keep);
    let removed = 0;
    for (const oid of this.repo.listLoose()) {
      if (keep.has(oid)) continue;
      this.repo.deleteLoose(oid);
      this.checkpoints.delete(oid);
      removed++;
    }
    for (const oid of [...this.cache.large.keys()]) {
      if (!keep.has(oid)) {
        this.cache.large.delete(oid);
        this.cache.markChanged();
      }
    }
    removeStaleTemps(join(this.gitdir, 'objects'));
    removeStaleTopTemps(this.gitdir);
    this.saveCache();
    return removed;
  }

  private async checkpointCommit(oid: string): Promise<{ tree: string; parents: string[] } | null> {
    try {
      return await this.repo.readCommit(oid);
    } catch {
      return null;
    }
  }

  private markTree(tree: string, keep: Set<string>, trees: Set<string>): void {
    const stack = [tree];
    while (stack.length > 0) {
      const oid = stack.pop()!;
      if (trees.has(oid)) continue;
      trees.add(oid);
      keep.add(oid);
      let entries;
      try {
        entries = this.repo.readTree(oid);
      } catch {
        continue;
      }
      for (const e of entries) {
        if (e.mode === '040000') {
          if (!trees.has(e.oid)) stack.push(e.oid);
        } else if (e.mode !== '160000') keep.add(e.oid);
      }
    }
  }
}

export class CheckpointMissing extends Error {
  constructor(readonly commit: string) {
    super(
      `The saved copy of these files is no longer stored: it was released when its action was kept, or Posthoc's checkpoints folder was removed.`,
    );
  }
}

/** Temporary files a crash left beside the repository's own (a ref being replaced, the stat cache being written). */
function removeStaleTopTemps(gitdir: string): void {
  const cutoff = Date.now() - 3_600_000;
  for (const name of readdirSync(gitdir)) {
    if (!/^posthoc-ref-.*\.tmp$|\.tmp-\d+$/.test(name)) continue;
    const path = join(gitdir, name);
    if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
  }
}

/** Temporary object and pack files older than an hour belong to a process that died while writing them. */
function removeStaleTemps(objects: string): void {
  const cutoff = Date.now() - 3_600_000;
  if (!existsSync(objects)) return;
  for (const dir of readdirSync(objects)) {
    if (!/^[0-9a-f]{2}$|^pack$/.test(dir)) continue;
    for (const name of readdirSync(join(objects, dir))) {
      if (!/^tmp_(obj|pack|idx)_/.test(name)) continue;
      const path = join(objects, dir, name);
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
    }
  }
}

function readIdentity(path: string): FolderIdentity | null {
  try {
    const raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<FolderIdentity>;
    return typeof raw.dev === 'string' && typeof raw.ino === 'string' && /^\d+$/.test(raw.dev) && /^\d+$/.test(raw.ino) ? { dev: raw.dev, ino: raw.ino } : null;
  } catch {
    return null;
  }
}
