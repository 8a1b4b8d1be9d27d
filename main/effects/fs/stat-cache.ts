// What the last checkpoint learned about each folder: for every entry its stat fields (size, mtime,
// ctime, inode, mode) and the object id they vouch for, and for every folder the tree id of its entries.
// A file whose stat fields are unchanged is not read again; a folder whose entries are unchanged keeps
// its tree id. Saved next to the shadow repository so a fresh process (the CLI) starts warm.
//
// Stale is safe: an entry only vouches for an id while every stat field still matches, and entries
// hashed within RACY_WINDOW_MS of the snapshot that made them (mtime granularity) never vouch at all.
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
import { appendFileSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { decodeRecord, encodeRecord, frame, frames, type CacheRecord } from './stat-cache-format';
import type { Kind } from './tree-model';

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

export type DirState = {
  tree: string;
  children: CachedChild[];
  /**
   * The last listing (names NUL-joined in listing order, kinds, stat fields) and each entry's cached
   * child; `clean` when every entry has one, every file's stat fields vouch for it and none is left out
   * of checkpoints (not covered). In memory only.
   */
  /** Files in this folder and below (in memory only; counted from the children when missing). */
  files?: number;
  listed?: { names: string; order: Array<CachedChild | null>; kinds: Uint8Array; stats: Float64Array; clean: boolean };
};

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
   * tree, the same entries and, when the listing is clean, listed in the same order — as a walk in a fresh
   * process finds every folder nothing changed in).
   */
  setDir(rel: string, state: DirState): void {
    const prev = this.dirs.get(rel);
    this.dirs.set(rel, state);
    // A clean listing in another order (or none saved before) is saved, so the next process compares it in one step.
    const sameListing = !state.listed?.clean || (prev?.listed?.clean === true && prev.listed.names === state.listed.names);
    if (prev && prev.tree === state.tree && sameEntries(prev.children, state.children) && sameListing) return;
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
    const bytes = encodeRecord({ dirs: [...this.dirs], removed: [], large: [...this.large] });
    // Journal first: a crash in between leaves the older whole, which is stale but safe.
    rmSync(`${file}.log`, { force: true });
    const temp = `${file}.tmp-${process.pid}`;
    writeFileSync(temp, bytes);
    renameSync(temp, file);
    if (this.legacyJson !== undefined) {
      rmSync(this.legacyJson, { force: true });
      rmSync(`${this.legacyJson}.log`, { force: true });
    }
    this.baseBytes = bytes.length;
    this.journalBytes = 0;
  }

  /** Forgets a folder and everything under it. */
  dropSubtree(rel: string): void {
    const state = this.dirs.get(rel);
    if (!state) return;
    this.dirs.delete(rel);
    this.dirty.add(rel);
    for (const child of state.children) if (child.kind === 'dir') this.dropSubtree(rel ? `${rel}/${child.name}` : child.name);
    this.changed = true;
  }

  /** Makes every file be read again by the next scan (its stat fields vouch for nothing). */
  distrust(): void {
    for (const state of this.dirs.values()) {
      state.listed = undefined;
      for (const c of state.children) c.trusted = false;
    }
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
      for (const c of state.children) if (c.kind !== 'uncovered') out.add(c.oid);
    }
    return out;
  }
}

/** The same entry objects in the same order (a walk keeps the object of every entry it did not read again). */
function sameEntries(a: readonly CachedChild[], b: readonly CachedChild[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const LEGACY_KINDS: Kind[] = ['file', 'exec', 'link', 'dir', 'uncovered'];
type LegacyRow = [string, number, string, number, number, number, number, number, number, string];
type LegacyDir = [string, string, LegacyRow[]];

/** Reads the JSON cache (format 1) and its journal of JSON lines, as earlier versions wrote them; false when there is none. */
function loadLegacy(cache: StatCache, file: string): boolean {
  const setDir = ([rel, tree, rows]: LegacyDir) =>
    cache.dirs.set(rel, {
      tree,
      children: rows.map(([name, kind, oid, size, mtimeMs, ctimeMs, ino, mode, trusted, key]) => ({
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
    });
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
