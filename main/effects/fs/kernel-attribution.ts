// Which changes of one folder are the action's, from what the kernel saw (watch-log.ts): the sandbox's
// watcher reports, for every entry a process of the container changed, the handle of its folder, its name and
// the handle of the object; and keys of whatever processes outside the container changed. The host names the
// changed paths the same way — name_to_handle_at of each path and of each folder above it, beneath the
// granted folder — so a change is matched to the kernel's account by identity, not by a path the action
// chose: a file written under a temporary name in a folder renamed into place later (pytest's cache, build
// tools), a static binary's raw system calls, a hard link, all land on the path they have now.
//
// A change is the action's when the kernel saw a process of the container change its entry or its object
// (strong: written, created, removed, moved, chmod'ed), or change a folder above it as an entry (created,
// removed or moved it: what such a folder holds came or went with it). A file the container only opened for
// writing and closed (weak: FAN_CLOSE_WRITE with no FAN_MODIFY, which is also how a write through mmap shows)
// is the action's only when nobody outside touched it — a claim is made by a change, not by an open. A path
// that the container changed and that was also touched outside is both: undo refuses for it rather than
// guess. Anything else is the rest (the person's, their editor's): recorded as an edit no undo reverts.
// Between the action's end and the host's checkpoint after it the container is frozen, and so is the watcher:
// a path whose ctime is later than the moment the action's account was collected was changed in that gap by
// someone else (nothing of the action runs any more), and counts as touched outside.
import type { Attribution } from './attribution';
import type { Change } from './tree-diff';
import { ancestorsOf } from './tree-model';
import { DIRENT, FAN, Keys, objectKey, type HandleKey, type KernelLog } from './watch-log';

/**
 * The kernel's handle of a path in the granted folder ('' the folder itself), not following links, and when
 * it last changed (ctime, ns since the epoch); null when it is gone.
 */
export type HandleOf = (rel: string) => { handle: HandleKey; ctimeNs: bigint | null } | null;

const STRONG = FAN.MODIFY | FAN.ATTRIB | DIRENT;

export function attributeByKernel(changes: readonly Change[], log: KernelLog, handleOf: HandleOf): Attribution {
  if (!log.complete) return { mine: [...changes], theirs: [...changes], ambiguous: changes.map((c) => c.path) };
  const handles = new Handles(handleOf);
  const ended = log.endedAtNs;
  /** Whether the entry at `rel` changed after the action ended (its ctime); false when unknown. */
  const changedSince = (rel: string): boolean => {
    const c = ended === undefined ? null : handles.entry(rel)?.ctimeNs;
    return c !== null && c !== undefined && c > ended!;
  };
  // Folders by handle: every folder above a changed path that is there now...
  const dirPaths = new Map<HandleKey, Set<string>>();
  const addDir = (h: HandleKey | null, rel: string) => {
    if (h === null) return false;
    let paths = dirPaths.get(h);
    if (!paths) dirPaths.set(h, (paths = new Set()));
    if (paths.has(rel)) return false;
    paths.add(rel);
    return true;
  };
  for (const c of changes) {
    for (const a of ['', ...ancestorsOf(c.path)]) addDir(handles.of(a), a);
    if (c.after?.kind === 'dir') addDir(handles.of(c.path), c.path);
  }
  // ...and folders the records name by their parent's handle: a folder the action removed or moved away is
  // known by the record of its removal, and what was in it by that handle.
  const dirRecords = log.inside.filter((r) => r.dir !== null && r.object !== null && r.mask & FAN.ONDIR && r.mask & DIRENT);
  for (let pass = 0, grew = true; grew && pass < 64; pass++) {
    grew = false;
    for (const r of dirRecords) {
      for (const p of [...(dirPaths.get(r.dir!) ?? [])]) grew = addDir(r.object, join(p, r.name!)) || grew;
    }
  }
  const pathHandle = new Map<string, HandleKey>();
  for (const [h, paths] of dirPaths) for (const p of paths) if (!pathHandle.has(p)) pathHandle.set(p, h);

  // What the container changed, by path.
  const touched = new Map<string, number>();
  const touch = (rel: string, mask: number) => touched.set(rel, (touched.get(rel) ?? 0) | mask);
  const byObject = new Map<HandleKey, number>();
  for (const r of log.inside) {
    if (r.object !== null) byObject.set(r.object, (byObject.get(r.object) ?? 0) | r.mask);
    if (r.dir === null) continue;
    for (const p of dirPaths.get(r.dir) ?? []) touch(join(p, r.name!), r.mask);
  }
  for (const c of changes) {
    // Written through another name (a hard link) or a descriptor whose name moved meanwhile.
    const h = c.after ? handles.of(c.path) : null;
    const mask = h === null ? undefined : byObject.get(h);
    if (mask !== undefined) touch(c.path, mask);
  }

  // Whether a process outside touched a path or any folder above it (as an entry or an object); each folder
  // is asked once.
  const seenOutside = new Map<string, boolean>();
  const keys = new Keys();
  const outside = (rel: string): boolean => {
    if (!log.outsideComplete) return true;
    if (rel === '') return false;
    let found = seenOutside.get(rel);
    if (found === undefined) {
      const parent = parentOf(rel);
      const dir = pathHandle.get(parent) ?? handles.of(parent);
      const self = pathHandle.get(rel) ?? handles.of(rel);
      found =
        (dir !== null && log.outside.has(keys.entry(dir, nameOf(rel)))) ||
        (self !== null && log.outside.has(objectKey(self))) ||
        outside(parent);
      seenOutside.set(rel, found);
    }
    return found;
  };
  // Touched outside, or changed in the gap after the action's end: the path itself, or for a path that is gone,
  // the folder that held it (a removal changes the folder).
  const touchedOutside = (c: Change): boolean => {
    if (outside(c.path)) return true;
    return c.after !== null ? changedSince(c.path) : changedSince(parentOf(c.path));
  };

  const mine: Change[] = [];
  const theirs: Change[] = [];
  const ambiguous: string[] = [];
  for (const c of changes) {
    const own = touched.get(c.path) ?? 0;
    const strong = (own & STRONG) !== 0 || ancestorsOf(c.path).some((a) => ((touched.get(a) ?? 0) & DIRENT) !== 0);
    const weak = (own & FAN.CLOSE_WRITE) !== 0;
    if (!strong && !weak) {
      theirs.push(c);
      continue;
    }
    const alsoOutside = touchedOutside(c);
    if (!strong && alsoOutside) {
      theirs.push(c);
      continue;
    }
    mine.push(c);
    if (alsoOutside) {
      ambiguous.push(c.path);
      theirs.push(c);
    }
  }
  return { mine, theirs, ambiguous };
}

/** Handles looked up once per path. */
class Handles {
  private readonly cache = new Map<string, ReturnType<HandleOf>>();
  constructor(private readonly lookup: HandleOf) {}
  entry(rel: string): ReturnType<HandleOf> {
    let h = this.cache.get(rel);
    if (h === undefined) {
      h = this.lookup(rel);
      this.cache.set(rel, h);
    }
    return h;
  }
  of(rel: string): HandleKey | null {
    return this.entry(rel)?.handle ?? null;
  }
}

function join(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`;
}

function parentOf(rel: string): string {
  const i = rel.lastIndexOf('/');
  return i < 0 ? '' : rel.slice(0, i);
}

function nameOf(rel: string): string {
  return rel.slice(rel.lastIndexOf('/') + 1);
}
