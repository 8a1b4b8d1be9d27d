// What the last checkpoint learned about each folder: for every entry its stat fields (size, mtime,
// ctime, inode, mode) and the object id they vouch for, and for every folder the tree id of its entries.
// A file whose stat fields are unchanged is not read again; a folder whose entries are unchanged keeps
// its tree id. Saved next to the shadow repository so a fresh process (the CLI) starts warm.
//
// Stale is safe: an entry only vouches for an id while every stat field still matches, and entries
// hashed within RACY_WINDOW_MS of the snapshot that made them (mtime granularity) never vouch at all.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
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
  /** The last listing's names (NUL-joined, in listing order) and each one's entry; in memory only. */
  listed?: { names: string; order: Array<CachedChild | null> };
};

const FORMAT = 1;
const KINDS: Kind[] = ['file', 'exec', 'link', 'dir', 'uncovered'];

export class StatCache {
  readonly dirs = new Map<string, DirState>();
  /** Large blobs stored for this folder (id → size), counted against its storage budget. */
  readonly large = new Map<string, number>();
  private changed = false;

  static load(file: string): StatCache {
    const cache = new StatCache();
    let raw: string;
    try {
      raw = readFileSync(file, 'utf8');
    } catch {
      return cache;
    }
    try {
      const data = JSON.parse(raw) as {
        v: number;
        large: Array<[string, number]>;
        dirs: Array<[string, string, Array<[string, number, string, number, number, number, number, number, number, string]>]>;
      };
      if (data.v !== FORMAT) return cache;
      for (const [oid, size] of data.large) cache.large.set(oid, size);
      for (const [rel, tree, rows] of data.dirs) {
        cache.dirs.set(rel, {
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
    } catch {
      // A damaged cache only costs a full re-read; start empty.
      cache.dirs.clear();
      cache.large.clear();
    }
    return cache;
  }

  markChanged(): void {
    this.changed = true;
  }

  get isChanged(): boolean {
    return this.changed;
  }

  /** Writes the cache atomically if anything changed since the last save. */
  save(file: string): void {
    if (!this.changed) return;
    const dirs: unknown[] = [];
    for (const [rel, state] of this.dirs) {
      dirs.push([
        rel,
        state.tree,
        state.children.map((c) => [c.name, KINDS.indexOf(c.kind), c.oid, c.size, c.mtimeMs, c.ctimeMs, c.ino, c.mode, c.trusted ? 1 : 0, c.key]),
      ]);
    }
    const temp = `${file}.tmp-${process.pid}`;
    writeFileSync(temp, JSON.stringify({ v: FORMAT, large: [...this.large], dirs }));
    renameSync(temp, file);
    this.changed = false;
  }

  /** Forgets a folder and everything under it. */
  dropSubtree(rel: string): void {
    const state = this.dirs.get(rel);
    if (!state) return;
    this.dirs.delete(rel);
    for (const child of state.children) if (child.kind === 'dir') this.dropSubtree(rel ? `${rel}/${child.name}` : child.name);
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
