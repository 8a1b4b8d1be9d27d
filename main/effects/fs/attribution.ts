// Which of the changes found after an action are the action's own, and which were made by someone else
// (the person, an editor, a build watcher) while it ran. docs/ARCHITECTURE.md, "Attribution", says why.
//
// The sandbox logs every path the action's processes wrote, created, renamed, removed, linked or made a
// folder of, with what the action left there (its "stamp": inode, size, mtime in ns). A change is the
// action's when its path is claimed, when it is a folder created above a claimed path, when it is the
// removal of something inside a claimed folder the action renamed away or removed, or when it is something
// inside a claimed folder that holds what a folder the action renamed away held. Everything else is the
// rest: recorded as an edit made outside Posthoc, which no undo reverts. A claimed path that no longer
// holds what the action left (its stamp differs now) was changed again by someone else after the action's
// last write: it is both, so undo refuses for it rather than guess.
import { lstatSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { checkRelative } from './path-guard';
import type { Change } from './tree-diff';
import { ancestorsOf, sameEntry, type Entry } from './tree-model';
import type { KernelLog } from './watch-log';

// These types mirror main/sandbox/claims.ts (ActionClaims) structurally: effects/ may not import
// sandbox/ (tests/unit/architecture.test.ts), and the services layer hands one to the other.
export type Stamp = { ino: number; size: number; mtimeNs: string };
export type ClaimedPath = { final: Stamp | 'absent' | null; dir: boolean };
export type FolderWriteClaims = { workspace: string; paths: ReadonlyMap<string, ClaimedPath> };
/** What the claim library in the sandbox logged (C library calls only). */
export type LibraryWriteClaims = { kind?: 'library'; complete: boolean; folders: readonly FolderWriteClaims[] };
/** What the kernel saw (watch-log.ts, matched by kernel-attribution.ts). */
export type KernelWriteClaims = { kind: 'kernel'; log: KernelLog };
export type WriteClaims = LibraryWriteClaims | KernelWriteClaims;

export type Attribution = {
  /** The action's changes (ambiguous paths included). */
  mine: Change[];
  /** Changes made while it ran that are not its own (ambiguous paths included). */
  theirs: Change[];
  /** Claimed paths changed again by someone else after the action's last write there. */
  ambiguous: string[];
};

/** The claims of one granted folder, by its name or host path; none when the action claimed nothing there. */
export function claimsFor(claims: LibraryWriteClaims, name: string, hostPath: string): Map<string, ClaimedPath> {
  const out = new Map<string, ClaimedPath>();
  for (const f of claims.folders) {
    if (f.workspace !== name && f.workspace !== hostPath) continue;
    for (const [raw, claim] of f.paths) {
      // The log comes from inside the sandbox: a path that is not plainly inside the folder claims nothing.
      const path = raw.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
      try {
        checkRelative(path);
      } catch {
        continue;
      }
      out.set(path, claim);
    }
  }
  return out;
}

/**
 * Splits the changes of one folder between the action and the rest. `before` looks a path up in the
 * checkpoint taken before the action; `folder` is read (lstat only) to compare the claimed paths' stamps
 * with what they hold now. Call it after the checkpoint after the action, so an edit made between that
 * walk and this comparison shows as a stamp that differs (ambiguous), never as the action's.
 */
export function attribute(
  folder: string,
  changes: readonly Change[],
  claimed: ReadonlyMap<string, ClaimedPath>,
  before: (path: string) => Entry | null,
): Attribution {
  const claimedAncestors = new Set<string>();
  for (const path of claimed.keys()) for (const a of ancestorsOf(path)) claimedAncestors.add(a);
  // Folders the action renamed away (or removed) and folders it holds now (created, or renamed into).
  const gone: string[] = [];
  const held: string[] = [];
  for (const [path, c] of claimed) {
    // A folder that is no longer a folder where the action last touched that name: removed, renamed away,
    // or replaced (by a link or a file) — the claim log keeps only the last step, so a folder renamed away
    // and a link put in its place claims a link.
    if (before(path)?.kind === 'dir' && (c.final === 'absent' || !c.dir)) gone.push(path);
    if (c.dir && c.final !== 'absent') held.push(path);
  }

  const isMine = (c: Change): boolean => {
    if (claimed.has(c.path)) return true;
    if (c.after?.kind === 'dir' && c.before?.kind !== 'dir' && claimedAncestors.has(c.path)) return true;
    if (c.after === null && gone.some((g) => c.path.startsWith(`${g}/`))) return true;
    if (c.after !== null && gone.length > 0) {
      for (const h of held) {
        if (!c.path.startsWith(`${h}/`)) continue;
        const rest = c.path.slice(h.length);
        if (gone.some((g) => sameEntry(before(`${g}${rest}`), c.after))) return true;
      }
    }
    return false;
  };

  const mine: Change[] = [];
  const theirs: Change[] = [];
  const ambiguous: string[] = [];
  for (const c of changes) {
    if (!isMine(c)) {
      theirs.push(c);
      continue;
    }
    mine.push(c);
    const claim = claimed.get(c.path);
    if (claim && !holdsWhatItLeft(folder, c.path, claim)) {
      ambiguous.push(c.path);
      theirs.push(c);
    }
  }
  return { mine, theirs, ambiguous };
}

/** Whether the path still holds what the action left there, as far as its claim says (unknown: yes). */
function holdsWhatItLeft(folder: string, path: string, claim: ClaimedPath): boolean {
  if (claim.final === null) return true;
  const st = lstatNow(join(folder, path));
  if (claim.final === 'absent') return st === undefined;
  if (st === undefined) return false;
  // A folder's size and mtime change whenever an entry inside it does, which is the contents' business
  // (each is a path of its own): a folder is the same while it is the same folder.
  if (claim.dir) return st.isDirectory() && Number(st.ino) === claim.final.ino;
  return Number(st.ino) === claim.final.ino && Number(st.size) === claim.final.size && st.mtimeNs.toString() === claim.final.mtimeNs;
}

/** The path's lstat, or undefined when nothing is there (also when a folder on the way is now a file). */
function lstatNow(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}
