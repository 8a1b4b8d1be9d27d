// What the last checkpoint learned about each folder: for every entry its stat fields (size, mtime,
// ctime, inode, mode) and the object id they vouch for, and for every folder the tree id of its entries.
// A file whose stat fields are unchanged is not read again; a folder whose entries are unchanged keeps
// its tree id. Saved next to the shadow repository so a fresh process (the CLI) starts warm.
//
// Stale is safe: an entry only vouches for an id while every stat field still matches, and entries
// hashed within RACY_WINDOW_MS of the snapshot that made them (mtime granularity) never vouch at all.
//
// On disk: the whole cache as JSON, plus a journal (FILE.log) of the folders that changed since, one JSON
// line each, appended by every save; when the journal grows past a quarter of the whole, the next save
// writes the whole cache again. A torn last line (a crash while appending) is ignored: every line is one
// folder's complete state, so any prefix of the journal is a cache that is merely older in places.
import { appendFileSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

const FORMAT = 1;
const KINDS: Kind[] = ['file', 'exec', 'link', 'dir', 'uncovered'];

type Row = [string, number, string, number, number, number, number, number, number, string];
type DirRecord = [string, string, Row[]];
/** A journal line: a folder's state, a folder removed, or the large-blob table. */
type JournalLine = { d: DirRecord } | { x: string } | { l: Array<[string, number]> };

export class StatCache {
  readonly dirs = new Map<string, DirState>();
  /** Large blobs stored for this folder (id → size), counted against its storage budget. */
  readonly large = new Map<string, number>();
  private changed = false;
  /** Folders set or removed since the last save. */
  private readonly dirty = new Set<string>();
  private baseBytes = 0;
  private journalBytes = 0;

  static load(file: string): StatCache {
    const cache = new StatCache();
    let raw: string;
    try {
      raw = readFileSync(file, 'utf8');
    } catch {
      return cache;
    }
    try {
      const data = JSON.parse(raw) as { v: number; large: Array<[string, number]>; dirs: DirRecord[] };
      if (data.v !== FORMAT) return cache;
      for (const [oid, size] of data.large) cache.large.set(oid, size);
      for (const record of data.dirs) cache.apply({ d: record });
      cache.baseBytes = raw.length;
    } catch {
      // A damaged cache only costs a full re-read; start empty.
      cache.dirs.clear();
      cache.large.clear();
      return cache;
    }
    let journal = '';
    try {
      journal = readFileSync(`${file}.log`, 'utf8');
    } catch {
      return cache; // no journal: nothing changed since the whole was written
    }
    cache.journalBytes = journal.length;
    for (const line of journal.split('\n')) {
      if (line === '') continue;
      try {
        cache.apply(JSON.parse(line) as JournalLine);
      } catch {
        // Torn by a crash (or not ours): what came before stands, and the next save writes the whole
        // cache again so that lines appended after this one are not lost behind it.
        cache.baseBytes = 0;
        break;
      }
    }
    return cache;
  }

  private apply(line: JournalLine): void {
    if ('x' in line) {
      this.dirs.delete(line.x);
    } else if ('l' in line) {
      this.large.clear();
      for (const [oid, size] of line.l) this.large.set(oid, size);
    } else {
      const [rel, tree, rows] = line.d;
      this.dirs.set(rel, {
        tree,
        children: rows.map(([name, kind, oid, size, mtimeMs, ctimeMs, ino, mode, trusted, key]) => ({
          name,
          kind: KINDS[kind]!,
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
    }
  }

  markChanged(): void {
    this.changed = true;
  }

  get isChanged(): boolean {
    return this.changed;
  }

  /** Records a folder's state (saved with the next save). */
  setDir(rel: string, state: DirState): void {
    this.dirs.set(rel, state);
    this.dirty.add(rel);
  }

  /**
   * Saves what changed since the last save: appended to the journal, or the whole cache written again
   * (atomically, the journal removed first) when there is none yet or the journal has grown large.
   */
  save(file: string): void {
    if (!this.changed) return;
    if (this.baseBytes === 0 || this.journalBytes > Math.max(1 << 20, this.baseBytes / 4)) {
      this.saveWhole(file);
    } else {
      const lines: string[] = [];
      for (const rel of this.dirty) {
        const state = this.dirs.get(rel);
        lines.push(JSON.stringify(state ? { d: record(rel, state) } : { x: rel }));
      }
      lines.push(JSON.stringify({ l: [...this.large] }));
      const text = `${lines.join('\n')}\n`;
      appendFileSync(`${file}.log`, text);
      this.journalBytes += text.length;
    }
    this.dirty.clear();
    this.changed = false;
  }

  private saveWhole(file: string): void {
    const dirs: DirRecord[] = [];
    for (const [rel, state] of this.dirs) dirs.push(record(rel, state));
    const text = JSON.stringify({ v: FORMAT, large: [...this.large], dirs });
    // Journal first: a crash in between leaves the older whole, which is stale but safe.
    rmSync(`${file}.log`, { force: true });
    const temp = `${file}.tmp-${process.pid}`;
    writeFileSync(temp, text);
    renameSync(temp, file);
    this.baseBytes = text.length;
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

function record(rel: string, state: DirState): DirRecord {
  return [rel, state.tree, state.children.map((c) => [c.name, KINDS.indexOf(c.kind), c.oid, c.size, c.mtimeMs, c.ctimeMs, c.ino, c.mode, c.trusted ? 1 : 0, c.key])];
}
