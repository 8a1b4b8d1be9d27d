// What a checkpoint holds at one path, and how real names map to stored tree names.
//
// Kinds map onto git's tree modes: regular file 100644, executable 100755, symbolic link 120000, folder
// 040000 (empty folders are stored as the empty tree), and a file too large for the folder's storage
// budget as a gitlink (160000) whose id is derived from its size and times: "not covered by undo".
import type { GitMode, TreeEntry } from './git-objects';

export type Kind = 'file' | 'exec' | 'link' | 'dir' | 'uncovered';
export type Entry = { kind: Kind; oid: string };

export type NotCoveredReason = 'budget' | 'special' | 'name' | 'unreadable' | 'disk-full';
/** A path a checkpoint could not hold: over the storage budget, a socket or device, an undecodable name. */
export type NotCovered = { path: string; reason: NotCoveredReason; size: number | null };

const MODE_OF: Record<Kind, GitMode> = {
  file: '100644',
  exec: '100755',
  link: '120000',
  dir: '040000',
  uncovered: '160000',
};
const KIND_OF: Record<GitMode, Kind> = {
  '100644': 'file',
  '100755': 'exec',
  '120000': 'link',
  '040000': 'dir',
  '160000': 'uncovered',
};

export const modeOf = (kind: Kind): GitMode => MODE_OF[kind];
export const kindOf = (mode: GitMode): Kind => KIND_OF[mode];
export const entryOf = (e: TreeEntry): Entry => ({ kind: KIND_OF[e.mode], oid: e.oid });
export const isFileLike = (e: Entry | null | undefined): boolean => e !== null && e !== undefined && e.kind !== 'dir';
export const sameEntry = (a: Entry | null | undefined, b: Entry | null | undefined): boolean =>
  (a ?? null) === null || (b ?? null) === null ? (a ?? null) === (b ?? null) : a!.kind === b!.kind && (a!.kind === 'dir' || a!.oid === b!.oid);

/**
 * Names git itself refuses inside a tree (".git", ".gitmodules") are stored with a prefix, and so are names
 * that already start with it, which keeps the mapping one-to-one. `git log` shows them as
 * ".posthoc-esc-.git/…".
 */
const ESCAPE = '.posthoc-esc-';
export function storedName(name: string): string {
  const lower = name.toLowerCase();
  return lower === '.git' || lower === '.gitmodules' || name.startsWith(ESCAPE) ? ESCAPE + name : name;
}
export function realName(stored: string): string {
  return stored.startsWith(ESCAPE) ? stored.slice(ESCAPE.length) : stored;
}

/**
 * The prefix of the files Posthoc itself writes next to a path while replacing it atomically (renamed
 * over the path within the same step). Checkpoints do not hide such names: an action can create them
 * too, and a hidden file would be invisible to its card and its undo. A crashed restore's leftovers are
 * removed by their exact journal tag before anything scans the folder (removeRestoreTemps).
 */
export const RESTORE_TEMP_PREFIX = '.posthoc-restore-';

export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function depthOf(path: string): number {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}

/** Every proper ancestor folder of a path: "a/b/c" → ["a", "a/b"]. */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  let i = path.indexOf('/');
  while (i >= 0) {
    out.push(path.slice(0, i));
    i = path.indexOf('/', i + 1);
  }
  return out;
}

/**
 * Two change sets touch the same thing when a path is in both, or one holds a folder the other changed
 * something inside (undoing "create folder a" would remove what another change put in a/).
 */
export class PathSet {
  private readonly exact: Set<string>;
  private readonly ancestors = new Set<string>();

  constructor(paths: Iterable<string>) {
    this.exact = new Set(paths);
    for (const p of this.exact) for (const a of ancestorsOf(p)) this.ancestors.add(a);
  }

  get size(): number {
    return this.exact.size;
  }

  has(path: string): boolean {
    return this.exact.has(path);
  }

  /** The path overlaps this set: equal to, inside, or holding one of its paths. */
  overlaps(path: string): boolean {
    if (this.exact.has(path) || this.ancestors.has(path)) return true;
    for (const a of ancestorsOf(path)) if (this.exact.has(a)) return true;
    return false;
  }

  /** The paths of `other` that overlap this set. */
  overlapping(other: Iterable<string>): string[] {
    const out: string[] = [];
    for (const p of other) if (this.overlaps(p)) out.push(p);
    return out;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.exact[Symbol.iterator]();
  }
}
