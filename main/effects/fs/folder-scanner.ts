// Walks a granted folder and writes its state as a git tree, costing what changed: a file whose stat
// fields match the cache is not read, a folder whose entries match keeps its tree id. Symbolic links are
// read as links (lstat, readlink) and never followed.
//
// Two phases: list every folder with its entries' stat fields (stat-lister.ts: synchronous calls, spread
// over worker threads on large folders), then build the trees here, reading only files whose stat fields
// changed. Building yields to the event loop every few milliseconds.
//
// File contents are read through handles opened beneath the folder without following links (beneath.ts),
// and each handle must be the regular file the listing saw (fstat: same inode), so a folder swapped for a
// link between listing and reading never puts a file from outside the folder into a checkpoint.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { closeSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { compareEntries, serializeTree, type ShadowRepo, type TreeEntry } from './git-objects';
import { GrantedFolder, GrantMoved, type FolderIdentity } from './beneath';
import { DirState, sameFloats, type CachedChild, type StatCache } from './stat-cache';
import { nativeLister } from './native-lister';
import { ReadAheadQueue, type ReadAhead } from './file-readers';
import { KIND_DIR, KIND_FILE, KIND_LINK, KIND_OTHER, listerThreads, listFolders, listInParallel, type ListJob, type Listing } from './stat-lister';
import { isPrivate, type ModeSighting } from './private-modes';
import { modeOf, storedName, type Kind, type NotCovered } from './tree-model';

/** The stat fields a checkpoint compares. */
type StatFields = { size: number; mtimeMs: number; ctimeMs: number; ino: number; mode: number; link: boolean };
/** What a file's path held when read: its stat fields (the listing's, or the handle's when replaced), kind and blob. */
type EntryRead = { fields: StatFields; kind: Kind; oid: string } | 'unreadable' | 'disk-full' | null;
/** Below this many files a folder is listed in one thread (a worker's round trip would cost more). */
const PARALLEL_MIN_FILES = 8000;
/** Bins of the native lister: libuv runs four at once; two per core even out bins that take longer. */
const NATIVE_BINS = Math.max(1, Math.min(4, 2 * availableParallelism()));

/** Files modified this recently are hashed but never vouched for by their stat fields ("racy git"). */
export const RACY_WINDOW_MS = 2000;
const YIELD_EVERY_MS = 25;

export type ScanLimits = {
  /** Files at least this large count against the budget. */
  largeFileBytes: number;
  /** Bytes of large files this folder's checkpoints may hold. */
  budgetBytes: number;
  /** Folders with at least this many files are listed in parallel (tests lower it). */
  parallelMinFiles?: number;
  /** Use the JavaScript lister even when the native one is built. */
  javascriptLister?: boolean;
  /**
   * Report every file read in `sightings`, not only private ones (default): false when the private-modes
   * record does not exist yet, so it holds no key a file with default bits would remove (a first
   * checkpoint of a million files then keeps no million sightings).
   */
  sightAll?: boolean;
};

/** `sightings`: every file the scan read, with its mode (for the private modes record; files vouched for by the cache are not read). */
export type ScanResult = { tree: string; notCovered: NotCovered[]; hashed: number; sightings: ModeSighting[] };

export class FolderScanner {
  private now = 0;
  private lastYield = 0;
  private notCovered: NotCovered[] = [];
  private hashed = 0;
  private sightings: ModeSighting[] = [];
  private listings = new Map<string, Listing>();
  private folder: GrantedFolder | null = null;
  private readAhead: ReadAheadQueue | null = null;

  constructor(
    private readonly repo: ShadowRepo,
    private readonly cache: StatCache,
    private readonly root: string,
    private readonly limits: ScanLimits,
    private readonly racyWindowMs = RACY_WINDOW_MS,
    /** What the folder must be (GrantedFolder.open); null: whatever is at the path, with no link on it. */
    private readonly identity: FolderIdentity | null = null,
  ) {}

  /** Where the listers read the folder: its checked handle while it is open (GrantedFolder.listRoot). */
  private get listRoot(): string {
    return this.folder?.listRoot ?? this.root;
  }

  async scan(): Promise<ScanResult> {
    this.now = Date.now();
    this.lastYield = performance.now();
    this.notCovered = [];
    this.hashed = 0;
    this.sightings = [];
    this.listings = new Map();
    let tree: string | null;
    try {
      this.folder = GrantedFolder.open(this.root, this.identity);
    } catch (error) {
      if (error instanceof GrantMoved) throw error;
      throw new Error(`The folder ${this.root} is gone or cannot be read, so it cannot be checkpointed.`);
    }
    // A first walk (no cache) writes every file: into packs, not a loose file each (git-objects.ts).
    const packing = this.cache.dirs.size === 0;
    if (packing) this.repo.startPacking();
    this.repo.beginWalk();
    let done = false;
    try {
      for (const l of await this.list()) this.listings.set(l.rel, l);
      if (packing) this.startReadAhead();
      tree = await this.scanDir('');
      done = true;
    } finally {
      await this.readAhead?.close();
      this.readAhead = null;
      this.repo.endWalk();
      if (packing) this.repo.endPacking(done);
      this.folder.close();
      this.folder = null;
      this.listings = new Map();
    }
    if (tree === null) throw new Error(`The folder ${this.root} is gone or cannot be read, so it cannot be checkpointed.`);
    return { tree, notCovered: this.notCovered, hashed: this.hashed, sightings: this.sightings };
  }

  /**
   * On a large first walk, worker threads read, hash and deflate the files ahead of the walk (file-readers.ts),
   * in the order the walk will ask for them.
   */
  private startReadAhead(): void {
    const access = this.folder?.workerAccess;
    if (!access || !ReadAheadQueue.available()) return;
    let files = 0;
    for (const l of this.listings.values()) for (const k of l.kinds) if (k === KIND_FILE) files++;
    if (files < (this.limits.parallelMinFiles ?? PARALLEL_MIN_FILES)) return;
    this.readAhead = new ReadAheadQueue(access, this.plannedReads(''));
  }

  /** The files the walk will read, in its order: regular files under the large-file size in folders the cache does not know. */
  private *plannedReads(rel: string): Generator<{ rel: string; size: number }> {
    const listing = this.listings.get(rel);
    if (!listing || listing.error !== null || listing.names === '') return;
    const known = this.cache.dirs.has(rel);
    const names = listing.names.split('\0');
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (name.includes('\uFFFD')) continue;
      const kind = listing.kinds[i];
      const childRel = rel ? `${rel}/${name}` : name;
      if (kind === KIND_DIR) yield* this.plannedReads(childRel);
      else if (kind === KIND_FILE && !known && listing.stats[i * 5]! < this.limits.largeFileBytes) yield { rel: childRel, size: listing.stats[i * 5]! };
    }
  }

  /** Phase 1: every folder's entries with their stat fields, in parallel when the folder is large. */
  private async list(): Promise<Listing[]> {
    const files = this.countFiles('');
    const native = this.limits.javascriptLister ? null : nativeLister();
    if (native) {
      // libuv's threads list the bins side by side; this thread waits (nothing to yield to meanwhile).
      const bins = files < (this.limits.parallelMinFiles ?? PARALLEL_MIN_FILES) ? [[{ rel: '', recursive: true }]] : this.planBins(NATIVE_BINS, files);
      return (await Promise.all(bins.filter((b) => b.length > 0).map((b) => native.list(this.listRoot, b)))).flat();
    }
    const threads = listerThreads();
    if (threads === 0 || files < (this.limits.parallelMinFiles ?? PARALLEL_MIN_FILES)) return listFolders(fs, this.listRoot, [{ rel: '', recursive: true }]);
    return listInParallel(this.listRoot, this.planBins(threads + 1, files));
  }

  /**
   * Splits the folder into subtrees of similar size (from the last checkpoint's counts): the largest
   * subtree is opened up (its own entries listed here, its subfolders become subtrees) until none holds
   * more than its share, then subtrees go to the least loaded bin. Bin 0 is this thread.
   */
  private planBins(count: number, total: number): ListJob[][] {
    const bins: ListJob[][] = Array.from({ length: count }, () => []);
    const load = new Array<number>(count).fill(0);
    let frontier: Array<{ rel: string; files: number }> = [{ rel: '', files: total }];
    const share = total / (count * 3);
    for (let opened = 0; opened < 200; opened++) {
      frontier.sort((a, b) => b.files - a.files);
      const big = frontier[0];
      if (!big || big.files <= share) break;
      frontier = frontier.slice(1);
      bins[0]!.push({ rel: big.rel, recursive: false });
      for (const [name] of this.cache.dirs.get(big.rel)?.subdirs() ?? []) {
        const rel = big.rel ? `${big.rel}/${name}` : name;
        frontier.push({ rel, files: this.countFiles(rel) });
      }
    }
    for (const job of frontier.sort((a, b) => b.files - a.files)) {
      const i = load.indexOf(Math.min(...load));
      bins[i]!.push({ rel: job.rel, recursive: true });
      load[i]! += job.files;
    }
    return bins;
  }

  /** Files under a folder at the last checkpoint (0 when it was not there); counted once per scan. */
  private countFiles(rel: string): number {
    const state = this.cache.dirs.get(rel);
    if (!state) return 0;
    if (state.files === undefined) {
      let n = 0;
      let dirs = 0;
      for (const [name] of state.subdirs()) {
        n += this.countFiles(rel ? `${rel}/${name}` : name);
        dirs++;
      }
      state.files = n + state.count - dirs;
    }
    return state.files;
  }

  private async scanDir(rel: string): Promise<string | null> {
    let listing = this.listings.get(rel);
    if (!listing) {
      // A folder that appeared since the plan was made: list it here (natively where built: the C lister
      // opens each folder relative to its parent and never through a link swapped in meanwhile).
      const native = this.limits.javascriptLister ? null : nativeLister();
      const found = native ? await native.list(this.listRoot, [{ rel, recursive: true }]) : listFolders(fs, this.listRoot, [{ rel, recursive: true }]);
      for (const l of found) this.listings.set(l.rel, l);
      listing = this.listings.get(rel)!;
    }
    if (listing.error !== null) {
      if (rel !== '') this.notCovered.push({ path: rel, reason: 'unreadable', size: null });
      this.cache.dropSubtree(rel);
      return null;
    }
    // The walk passes each folder once: its listing is not needed after this.
    this.listings.delete(rel);
    const prev = this.cache.dirs.get(rel);
    // Listed exactly as last time (the usual case): same names in the same order, kinds and stat fields.
    if (prev && prev.names === listing.names && sameKinds(prev, listing.kinds) && sameFloats(prev.stats, listing.stats) && prev.clean()) {
      return this.sameListing(rel, prev);
    }
    // Something in this folder changed: its entries as objects, entry i was entry i when the names are the same.
    const prevChildren = prev ? prev.children : [];
    const samePlaces = prev !== undefined && prev.names === listing.names;
    let prevByName: Map<string, CachedChild> | undefined;
    if (!samePlaces && prevChildren.length > 0) prevByName = new Map(prevChildren.map((c) => [c.name, c]));
    const prevAt = (i: number, name: string): CachedChild | undefined => (samePlaces ? prevChildren[i] : prevByName?.get(name));
    const children: CachedChild[] = [];
    const names = listing.names === '' ? [] : listing.names.split('\0');

    const st = listing.stats;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const kind = listing.kinds[i];
      const before = prevAt(i, name);
      const o = i * 5;
      if (before !== undefined && before.trusted && before.kind !== 'dir' && (kind === KIND_FILE || kind === KIND_LINK)) {
        // The stat fields still vouch for the stored entry.
        if (before.size === st[o] && before.mtimeMs === st[o + 1] && before.ctimeMs === st[o + 2] && before.ino === st[o + 3] && before.mode === st[o + 4]) {
          if (before.kind === 'uncovered') this.notCovered.push({ path: rel ? `${rel}/${name}` : name, reason: 'budget', size: before.size });
          children.push(before);
          continue;
        }
      }
      const childRel = rel ? `${rel}/${name}` : name;
      if (name.includes('\uFFFD')) {
        // Not valid UTF-8: the name cannot be written back exactly.
        this.notCovered.push({ path: childRel, reason: 'name', size: null });
        continue;
      }
      if (kind === KIND_DIR) {
        const child = await this.dirChild(name, childRel, st.subarray(o, o + 5));
        if (child) children.push(child);
      } else if (kind === KIND_FILE || kind === KIND_LINK) {
        const fields: StatFields = { size: st[o]!, mtimeMs: st[o + 1]!, ctimeMs: st[o + 2]!, ino: st[o + 3]!, mode: st[o + 4]!, link: kind === KIND_LINK };
        const child = await this.fileChild(name, childRel, fields, before);
        if (child) children.push(child);
      } else if (kind === KIND_OTHER) {
        this.notCovered.push({ path: childRel, reason: 'special', size: null });
      }
      // KIND_GONE: vanished while listing.
    }
    return this.finish(rel, prev, children);
  }

  /**
   * A folder listed exactly as last time (same names, kinds and stat fields, every file vouched for):
   * its files are what they were, so only its subfolders are looked into — no entry of it is decoded
   * unless a subfolder's tree changed.
   */
  private async sameListing(rel: string, prev: DirState): Promise<string | null> {
    let changed = false;
    const trees = new Map<number, string | null>();
    for (const [name, i] of prev.subdirs()) {
      const tree = await this.scanDir(rel ? `${rel}/${name}` : name);
      if (tree === prev.oid(i)) continue;
      changed = true;
      trees.set(i, tree);
    }
    if (!changed && this.repo.has(prev.tree)) {
      await this.maybeYield();
      return prev.tree;
    }
    const children: CachedChild[] = [];
    const entries = prev.children;
    for (let i = 0; i < entries.length; i++) {
      const c = entries[i]!;
      const tree = trees.get(i);
      if (tree === undefined) children.push(c);
      else if (tree !== null) children.push({ ...c, oid: tree, trusted: false });
    }
    return this.finish(rel, prev, children);
  }

  /**
   * Writes the folder's tree (or keeps the last one when its entries are the same) and records the entries
   * in listing order (a subfolder with its stat fields as listed, so the next identical listing compares in one step).
   */
  private async finish(rel: string, prev: DirState | undefined, children: CachedChild[]): Promise<string> {
    if (prev) {
      const dirsNow = new Set(children.filter((c) => c.kind === 'dir').map((c) => c.name));
      for (const [name] of prev.subdirs()) {
        if (!dirsNow.has(name)) this.cache.dropSubtree(rel ? `${rel}/${name}` : name);
      }
    }
    const entries: TreeEntry[] = children.map((c) => ({ name: storedName(c.name), mode: modeOf(c.kind), oid: c.oid }));
    entries.sort(compareEntries);
    let tree: string;
    if (prev && this.repo.hash('tree', serializeTree(entries)) === prev.tree && this.repo.has(prev.tree)) {
      tree = prev.tree;
    } else {
      tree = this.repo.writeTree(entries);
      this.cache.markChanged();
    }
    let files = 0;
    for (const c of children) files += c.kind === 'dir' ? this.countFiles(rel ? `${rel}/${c.name}` : c.name) : 1;
    const state = DirState.of(tree, children);
    state.files = files;
    this.cache.setDir(rel, state);
    await this.maybeYield();
    return tree;
  }

  private async dirChild(name: string, rel: string, listed: Float64Array): Promise<CachedChild | null> {
    const tree = await this.scanDir(rel);
    if (tree === null) return null;
    // Its stat fields as this listing saw them: an identical listing next time needs no look at this folder's entries.
    return { name, kind: 'dir', oid: tree, size: listed[0]!, mtimeMs: listed[1]!, ctimeMs: listed[2]!, ino: listed[3]!, mode: listed[4]!, trusted: false, key: `${storedName(name)}/` };
  }

  private async fileChild(name: string, rel: string, st: StatFields, prev: CachedChild | undefined): Promise<CachedChild | null> {
    if (
      prev &&
      prev.trusted &&
      prev.kind !== 'dir' &&
      prev.size === st.size &&
      prev.mtimeMs === st.mtimeMs &&
      prev.ctimeMs === st.ctimeMs &&
      prev.ino === st.ino &&
      prev.mode === st.mode
    ) {
      // Still not covered: every checkpoint names it, so a card shows it before the action too.
      if (prev.kind === 'uncovered') this.notCovered.push({ path: rel, reason: 'budget', size: st.size });
      return prev;
    }
    let read: EntryRead;
    try {
      read = await this.readEntry(rel, st, prev);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Keeping its copy failed for want of room (the data folder's disk, or its quota): not the file's fault.
      read = code === 'ENOENT' ? null : code === 'ENOSPC' || code === 'EDQUOT' ? 'disk-full' : 'unreadable';
    }
    if (read === null) return null;
    if (read === 'unreadable' || read === 'disk-full') {
      this.notCovered.push({ path: rel, reason: read, size: st.size });
      return null;
    }
    const { fields, kind, oid } = read;
    this.hashed++;
    if ((kind === 'file' || kind === 'exec') && (this.limits.sightAll !== false || isPrivate(fields.mode & 0o777, kind === 'exec'))) {
      this.sightings.push({ path: rel, oid, mode: fields.mode, executable: kind === 'exec' });
    }
    this.cache.markChanged();
    const racy = this.now - Math.max(fields.mtimeMs, fields.ctimeMs) < this.racyWindowMs;
    return {
      name,
      kind,
      oid,
      size: fields.size,
      mtimeMs: fields.mtimeMs,
      ctimeMs: fields.ctimeMs,
      ino: fields.ino,
      mode: fields.mode,
      // Read from another file than the listing saw: never vouched for, so the next checkpoint reads it again.
      trusted: !racy && fields === st,
      key: storedName(name),
    };
  }

  /**
   * Reads what the listing saw at `rel`: a link's target, or a regular file's content through a handle
   * opened beneath the folder. When the handle is another regular file (replaced since the listing), that
   * file is what the path holds now and is read with its own stat fields; a link now is read as a link;
   * anything else (a folder, a pipe) is reported unreadable for this checkpoint. Null when it is gone.
   */
  private async readEntry(rel: string, st: StatFields, prev: CachedChild | undefined): Promise<EntryRead> {
    const folder = this.folder!;
    if (!st.link && this.readAhead) {
      const ahead = await this.readAhead.take(rel);
      const read = ahead && this.readAheadEntry(st, ahead);
      if (read) return read;
    }
    if (st.link) return { fields: st, kind: 'link', oid: this.repo.writeBlob(folder.readlink(rel)) };
    const opened = folder.openFile(rel);
    if (opened === null) return null;
    if (opened === 'link') {
      const target = folder.readlink(rel); // throws when a folder on the way is the link: unreadable
      return { fields: { ...st, link: true, ino: 0 }, kind: 'link', oid: this.repo.writeBlob(target) };
    }
    try {
      const h = opened.stat;
      if (!h.isFile()) return 'unreadable';
      const fields: StatFields =
        h.ino === st.ino ? st : { size: h.size, mtimeMs: h.mtimeMs, ctimeMs: h.ctimeMs, ino: h.ino, mode: h.mode, link: false };
      let kind: Kind = fields.mode & 0o100 ? 'exec' : 'file';
      let oid: string;
      if (fields.size >= this.limits.largeFileBytes) {
        const large = await this.largeFile(opened.fd, fields, prev);
        if (large === null) {
          kind = 'uncovered';
          oid = uncoveredId(fields);
          this.notCovered.push({ path: rel, reason: 'budget', size: fields.size });
        } else {
          oid = large;
        }
      } else {
        oid = this.repo.writeBlob(readFileSync(opened.fd));
      }
      return { fields, kind, oid };
    } finally {
      closeSync(opened.fd);
    }
  }

  /**
   * What a reader thread read at a path, as readEntry would have read it: its handle's stat fields, or the
   * listing's when it is the file listed. Null when the walk must read it itself (it grew large, or its
   * content did not come).
   */
  private readAheadEntry(st: StatFields, a: ReadAhead): EntryRead {
    const fields: StatFields = a.ino === st.ino ? st : { size: a.size, mtimeMs: a.mtimeMs, ctimeMs: a.ctimeMs, ino: a.ino, mode: a.mode, link: false };
    if (fields.size >= this.limits.largeFileBytes || a.length >= this.limits.largeFileBytes) return null;
    if (!this.repo.addDeflatedBlob(a.oid, a.length, a.deflated)) return null;
    return { fields, kind: fields.mode & 0o100 ? 'exec' : 'file', oid: a.oid };
  }

  /**
   * A large file is stored while the folder's large blobs stay within its budget. One that was covered
   * before and kept its size is read again to see whether its content is already stored (no new cost).
   */
  private async largeFile(fd: number, st: StatFields, prev: CachedChild | undefined): Promise<string | null> {
    const used = this.cache.largeBytes();
    const fits = used + st.size <= this.limits.budgetBytes;
    const maybeStored = prev !== undefined && prev.kind !== 'uncovered' && prev.size === st.size && this.cache.large.has(prev.oid);
    if (!fits && !maybeStored) return null;
    const written = await this.repo.writeBlobFromFile(fd, st.size);
    if (written === null) return null;
    if (!this.cache.large.has(written.oid)) {
      if (!fits && written.created) {
        this.repo.deleteLoose(written.oid);
        return null;
      }
      this.cache.large.set(written.oid, st.size);
    }
    return written.oid;
  }

  private async maybeYield(): Promise<void> {
    const t = performance.now();
    if (t - this.lastYield < YIELD_EVERY_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.lastYield = performance.now();
  }
}

/** The listing's kinds are the entries' own (a stored file or an uncovered one lists as a file). */
function sameKinds(prev: DirState, kinds: Uint8Array): boolean {
  if (kinds.length !== prev.count) return false;
  for (let i = 0; i < kinds.length; i++) {
    const kind = prev.kind(i);
    const listed = kind === 'dir' ? KIND_DIR : kind === 'link' ? KIND_LINK : KIND_FILE;
    if (kinds[i] !== listed) return false;
  }
  return true;
}

/** A stand-in id for a file that is not stored: changes whenever its size or times change. */
export function uncoveredId(st: Pick<StatFields, 'size' | 'mtimeMs' | 'ctimeMs' | 'ino'>): string {
  return createHash('sha1').update(`posthoc-not-covered ${st.size} ${st.mtimeMs} ${st.ctimeMs} ${st.ino}`).digest('hex');
}
