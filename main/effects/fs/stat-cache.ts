// What the last checkpoint learned about each folder: for every entry its stat fields (size, mtime,
// ctime, inode, mode) and the object id they vouch for, and for every folder the tree id of its entries.
// A file whose stat fields are unchanged is not read again; a folder whose entries are unchanged keeps
// its tree id. Saved next to the shadow repository so a fresh process (the CLI) starts warm.
//
// Stale is safe: an entry only vouches for an id while every stat field still matches, and entries
// hashed within RACY_WINDOW_MS of the snapshot that made them (mtime granularity) never vouch at all.
//
// In memory a folder is one DirState: its names as one NUL-joined string and its ids, stat fields and flags
// in typed arrays, in the order the walk listed them — no JavaScript object per file. A walk compares a
// folder listed exactly as before in one step and looks only into its subfolders (folder-scanner.ts,
// sameListing); entry objects (CachedChild) are decoded only for a folder in which something changed.
// Loaded from disk, every folder's arrays are views of the file's one buffer.
//
// On disk (stat-cache-format.ts): the whole cache as one binary record (FILE), plus a journal (FILE.log)
// of the folders that changed since, one checksummed frame per save. A save appends a frame, unless the
// journal would then pass an eighth of the whole (at least JOURNAL_FLOOR_BYTES): then it writes the whole
// cache again (a temporary file renamed over it, the journal removed first), so a load never reads more
// journal than an eighth of the whole (or the floor) on top of it. A torn or damaged frame (a crash while appending) ends the
// journal: every frame is whole folders' states, so any prefix of the journal is a cache that is merely
// older in places; the next save writes the whole cache again, as it does after a load that found the
// journal past its bound. A whole that cannot be read (damaged, another version) is an empty cache: the next
// walk reads every file again. A cache in the JSON of earlier versions (`legacyJson`) is read once and
// replaced by the binary one at the next save.
import { appendFileSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { decodeRecord, encodeRecord, frame, frames, writeRecordFile, type CacheRecord } from './stat-cache-format';
import { storedName, type Kind } from './tree-model';

export type CachedChild = {
  name: string;
  kind: Kind;
  oid: string;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
  /** The stat fields may vouch for `oid` next time. */
  trusted: boolean;
  /** Git sort key of the stored name (folders end with '/'). */
  key: string;
};

/** Entry flags: the kind (bits 0–2, an index into KINDS) and whether the stat fields vouch for the id (bit 3). */
export const KINDS: Kind[] = ['file', 'exec', 'link', 'dir', 'uncovered'];
export const KIND_MASK = 7;
export const TRUSTED = 8;
const DIR_FLAG = KINDS.indexOf('dir');
const UNCOVERED_FLAG = KINDS.indexOf('uncovered');

/** A folder's state as plain entry objects (tests, the JSON cache of earlier versions): packed by DirState.of. */
export type DirStateLike = DirState | { tree: string; children: readonly CachedChild[] };

/**
 * A folder's state, packed: no JavaScript object per entry. Entries are kept in the order the walk listed
 * them, so a folder whose listing is unchanged compares in one step (`sameListing`): its NUL-joined names
 * are the listing's names, and every entry's stat fields — a subfolder's as its folder's listing saw them —
 * are the listing's stat fields. Entry objects (CachedChild) are decoded only for a folder a walk must look
 * into entry by entry (something in it changed).
 */
export class DirState {
  /** Files in this folder and below (in memory only; counted from the entries when missing). */
  files?: number;

  constructor(
    /** The folder's tree id. */
    readonly tree: string,
    /** Entry names joined by NUL (which no name contains), in listing order; '' when there is none. */
    readonly names: string,
    /** 20 bytes per entry: the id its stat fields vouch for (a subfolder's tree). */
    readonly oids: Buffer,
    /** 5 per entry: size, mtimeMs, ctimeMs, ino, mode. */
    readonly stats: Float64Array,
    /** 1 per entry: kind | TRUSTED. */
    readonly flags: Uint8Array,
  ) {}

  get count(): number {
    return this.flags.length;
  }

  /** Packs entry objects (in the order given). */
  static of(tree: string, children: readonly CachedChild[]): DirState {
    const n = children.length;
    // Not from Node's buffer pool: a small slice kept for long would keep the whole pool slab alive (43 MB of
    // slabs for 2 MB of ids at 100k files).
    const oids = Buffer.alloc(n * 20);
    const stats = new Float64Array(n * 5);
    const flags = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const c = children[i]!;
      if (c.oid.length !== 40 || oids.write(c.oid, i * 20, 20, 'hex') !== 20) throw new Error(`not an object id: ${c.oid}`);
      const o = i * 5;
      stats[o] = c.size;
      stats[o + 1] = c.mtimeMs;
      stats[o + 2] = c.ctimeMs;
      stats[o + 3] = c.ino;
      stats[o + 4] = c.mode;
      flags[i] = KINDS.indexOf(c.kind) | (c.trusted ? TRUSTED : 0);
    }
    return new DirState(tree, children.map((c) => c.name).join('\0'), oids, stats, flags);
  }

  static from(like: DirStateLike): DirState {
    return like instanceof DirState ? like : DirState.of(like.tree, like.children);
  }

  kind(i: number): Kind {
    return KINDS[this.flags[i]! & KIND_MASK]!;
  }

  isDir(i: number): boolean {
    return (this.flags[i]! & KIND_MASK) === DIR_FLAG;
  }

  /** A file entry whose stat fields vouch for its id, and stored (not left out for the budget). */
  isVouched(i: number): boolean {
    const f = this.flags[i]!;
    return (f & TRUSTED) !== 0 && (f & KIND_MASK) !== UNCOVERED_FLAG && (f & KIND_MASK) !== DIR_FLAG;
  }

  oid(i: number): string {
    return this.oids.toString('hex', i * 20, i * 20 + 20);
  }

  nameList(): string[] {
    return this.names === '' ? [] : this.names.split('\0');
  }

  /** Each subfolder's name and entry index, without decoding the other entries (none: no look at the names). */
  subdirs(): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    const flags = this.flags;
    let i = 0;
    while (i < flags.length && (flags[i]! & KIND_MASK) !== DIR_FLAG) i++;
    if (i === flags.length) return out;
    // Skip to the i-th name, then take each subfolder's.
    let at = 0;
    for (let k = 0; k < i; k++) at = this.names.indexOf('\0', at) + 1;
    for (; i < flags.length; i++) {
      let end = this.names.indexOf('\0', at);
      if (end < 0) end = this.names.length;
      if ((flags[i]! & KIND_MASK) === DIR_FLAG) out.push([this.names.slice(at, end), i]);
      at = end + 1;
    }
    return out;
  }

  /** The entries as objects (new ones at every call). */
  get children(): CachedChild[] {
    const names = this.nameList();
    const out: CachedChild[] = new Array(names.length);
    const hex = this.oids.toString('hex');
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const kind = this.kind(i);
      const o = i * 5;
      const stored = storedName(name);
      out[i] = {
        name,
        kind,
        oid: hex.slice(i * 40, i * 40 + 40),
        size: this.stats[o]!,
        mtimeMs: this.stats[o + 1]!,
        ctimeMs: this.stats[o + 2]!,
        ino: this.stats[o + 3]!,
        mode: this.stats[o + 4]!,
        trusted: (this.flags[i]! & TRUSTED) !== 0,
        key: kind === 'dir' ? `${stored}/` : stored,
      };
    }
    return out;
  }

  /** Every id the entries vouch for (stored ones; not an uncovered file's stand-in). */
  *entryOids(): Generator<string> {
    const hex = this.oids.toString('hex');
    for (let i = 0; i < this.flags.length; i++) if ((this.flags[i]! & KIND_MASK) !== UNCOVERED_FLAG) yield hex.slice(i * 40, i * 40 + 40);
  }

  /** The same tree and entries, in the same order, with the same stat fields and flags. */
  equals(other: DirState): boolean {
    if (this === other) return true;
    return (
      this.tree === other.tree &&
      this.names === other.names &&
      this.oids.equals(other.oids) &&
      this.flags.length === other.flags.length &&
      Buffer.from(this.flags.buffer, this.flags.byteOffset, this.flags.length).equals(Buffer.from(other.flags.buffer, other.flags.byteOffset, other.flags.length)) &&
      sameFloats(this.stats, other.stats)
    );
  }

  /** Every file vouched for (none uncovered), so a listing with these names, kinds and stat fields shows nothing changed. */
  clean(): boolean {
    for (let i = 0; i < this.flags.length; i++) if (!this.isDir(i) && !this.isVouched(i)) return false;
    return true;
  }

  /** A copy whose files' stat fields vouch for nothing. */
  distrusted(): DirState {
    const flags = new Uint8Array(this.flags.length);
    for (let i = 0; i < flags.length; i++) flags[i] = this.flags[i]! & KIND_MASK;
    return new DirState(this.tree, this.names, this.oids, this.stats, flags);
  }
}

export function sameFloats(a: Float64Array, b: Float64Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** The journal may always grow this large, however small the whole is. */
export const JOURNAL_FLOOR_BYTES = 64 * 1024;
/** ...and otherwise to this fraction of the whole. */
export const JOURNAL_FRACTION = 1 / 8;

export class StatCache {
  readonly dirs = new Map<string, DirState>();
  /** Large blobs stored for this folder (id → size), counted against its storage budget. */
  readonly large = new Map<string, number>();
  private changed = false;
  /** Folders set or removed since the last save. */
  private readonly dirty = new Set<string>();
  /** Size of the whole on disk; 0 when the next save must write the whole (none yet, or not to be trusted). */
  private baseBytes = 0;
  private journalBytes = 0;
  /** The JSON cache of earlier versions: removed once the binary one is written. */
  private legacyJson: string | undefined;

  /**
   * The cache saved at `file` (and its journal), or the JSON one of earlier versions at `legacyJson` when
   * there is none yet; an empty cache when neither can be read.
   */
  static load(file: string, legacyJson?: string): StatCache {
    const cache = new StatCache();
    cache.legacyJson = legacyJson;
    let whole: Buffer;
    try {
      whole = readFileSync(file);
    } catch {
      if (legacyJson !== undefined && loadLegacy(cache, legacyJson)) cache.changed = true; // replaced at the next save
      return cache;
    }
    try {
      cache.apply(decodeRecord(whole));
    } catch {
      // A damaged cache only costs a full re-read; start empty (its journal changed a whole we do not have).
      cache.dirs.clear();
      cache.large.clear();
      return cache;
    }
    cache.baseBytes = whole.length;
    let journal: Buffer;
    try {
      journal = readFileSync(`${file}.log`);
    } catch {
      return cache; // no journal: nothing changed since the whole was written
    }
    cache.journalBytes = journal.length;
    try {
      for (const record of frames(journal)) cache.apply(decodeRecord(record));
    } catch {
      // Torn by a crash (or not ours): what came before stands, and the next save writes the whole cache
      // again so that frames appended after this one are not lost behind it.
      cache.baseBytes = 0;
    }
    if (cache.journalBytes > cache.journalBound()) cache.baseBytes = 0;
    // Compacted at the next save, whether or not a walk changes anything.
    if (cache.baseBytes === 0) cache.changed = true;
    return cache;
  }

  private journalBound(): number {
    return Math.max(JOURNAL_FLOOR_BYTES, this.baseBytes * JOURNAL_FRACTION);
  }

  private apply(record: CacheRecord): void {
    for (const rel of record.removed) this.dirs.delete(rel);
    for (const [rel, state] of record.dirs) this.dirs.set(rel, state);
    if (record.large) {
      this.large.clear();
      for (const [oid, size] of record.large) this.large.set(oid, size);
    }
  }

  markChanged(): void {
    this.changed = true;
  }

  get isChanged(): boolean {
    return this.changed;
  }

  /**
   * Records a folder's state (saved with the next save, unless it is the state the cache holds: the same
   * tree and entries, in the same order, with the same stat fields and flags).
   */
  setDir(rel: string, like: DirStateLike): void {
    const state = DirState.from(like);
    const prev = this.dirs.get(rel);
    this.dirs.set(rel, state);
    if (prev && prev.equals(state)) {
      state.files ??= prev.files;
      return;
    }
    this.dirty.add(rel);
  }

  /**
   * Saves what changed since the last save: a frame appended to the journal, or the whole cache written
   * again (atomically, the journal removed first) when there is none yet or the journal would pass its bound.
   */
  save(file: string): void {
    if (!this.changed) return;
    let appended = false;
    if (this.baseBytes > 0) {
      const record: CacheRecord = { dirs: [], removed: [], large: [...this.large] };
      for (const rel of this.dirty) {
        const state = this.dirs.get(rel);
        if (state) record.dirs.push([rel, state]);
        else record.removed.push(rel);
      }
      const bytes = frame(encodeRecord(record));
      if (this.journalBytes + bytes.length <= this.journalBound()) {
        appendFileSync(`${file}.log`, bytes);
        this.journalBytes += bytes.length;
        appended = true;
      }
    }
    if (!appended) this.saveWhole(file);
    this.dirty.clear();
    this.changed = false;
  }

  private saveWhole(file: string): void {
    // Journal first: a crash in between leaves the older whole, which is stale but safe.
    rmSync(`${file}.log`, { force: true });
    const temp = `${file}.tmp-${process.pid}`;
    const length = writeRecordFile(temp, { dirs: [...this.dirs], removed: [], large: [...this.large] });
    renameSync(temp, file);
    if (this.legacyJson !== undefined) {
      rmSync(this.legacyJson, { force: true });
      rmSync(`${this.legacyJson}.log`, { force: true });
    }
    this.baseBytes = length;
    this.journalBytes = 0;
  }

  /** Forgets a folder and everything under it. */
  dropSubtree(rel: string): void {
    const state = this.dirs.get(rel);
    if (!state) return;
    this.dirs.delete(rel);
    this.dirty.add(rel);
    for (const [name] of state.subdirs()) this.dropSubtree(rel ? `${rel}/${name}` : name);
    this.changed = true;
  }

  /** Makes every file be read again by the next scan (its stat fields vouch for nothing). */
  distrust(): void {
    for (const [rel, state] of this.dirs) this.dirs.set(rel, state.distrusted());
    this.changed = true;
  }

  largeBytes(): number {
    let total = 0;
    for (const size of this.large.values()) total += size;
    return total;
  }

  /** Every object id the cache vouches for: garbage collection must keep them. */
  oids(): Set<string> {
    const out = new Set<string>(this.large.keys());
    for (const state of this.dirs.values()) {
      out.add(state.tree);
      for (const oid of state.entryOids()) out.add(oid);
    }
    return out;
  }
}

const LEGACY_KINDS = KINDS;
type LegacyRow = [string, number, string, number, number, number, number, number, number, string];
type LegacyDir = [string, string, LegacyRow[]];

/** Reads the JSON cache (format 1) and its journal of JSON lines, as earlier versions wrote them; false when there is none. */
function loadLegacy(cache: StatCache, file: string): boolean {
  const setDir = ([rel, tree, rows]: LegacyDir) =>
    cache.dirs.set(
      rel,
      DirState.of(
        tree,
        rows.map(([name, kind, oid, size, mtimeMs, ctimeMs, ino, mode, trusted, key]) => ({
        name,
        kind: LEGACY_KINDS[kind]!,
        oid,
        size,
        mtimeMs,
        ctimeMs,
        ino,
        mode,
        trusted: trusted === 1,
        key,
      })),
      ),
    );
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as { v: number; large: Array<[string, number]>; dirs: LegacyDir[] };
    if (data.v !== 1) return false;
    for (const [oid, size] of data.large) cache.large.set(oid, size);
    for (const d of data.dirs) setDir(d);
  } catch {
    cache.dirs.clear();
    cache.large.clear();
    return false;
  }
  let journal = '';
  try {
    journal = readFileSync(`${file}.log`, 'utf8');
  } catch {
    return true;
  }
  for (const line of journal.split('\n')) {
    if (line === '') continue;
    try {
      const entry = JSON.parse(line) as { d: LegacyDir } | { x: string } | { l: Array<[string, number]> };
      if ('x' in entry) cache.dirs.delete(entry.x);
      else if ('l' in entry) {
        cache.large.clear();
        for (const [oid, size] of entry.l) cache.large.set(oid, size);
      } else setDir(entry.d);
    } catch {
      break; // a torn last line: what came before stands
    }
  }
  return true;
}
