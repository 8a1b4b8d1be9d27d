// Comparing and editing checkpoint trees without flattening them: folders whose tree ids are equal are
// skipped, so a diff costs what changed, not the size of the folder.
import { compareEntries, EMPTY_TREE, type ShadowRepo, type TreeEntry } from './git-objects';
import { entryOf, isFileLike, modeOf, realName, storedName, type Entry } from './tree-model';

/** One path whose entry differs; folders appear when they are added, removed or change type. */
export type Change = { path: string; before: Entry | null; after: Entry | null };

export type ChangeSummary = {
  added: string[];
  modified: string[];
  deleted: string[];
  renamed: Array<{ from: string; to: string }>;
};

const byName = new WeakMap<TreeEntry[], Map<string, TreeEntry>>();

function index(entries: TreeEntry[]): Map<string, TreeEntry> {
  let map = byName.get(entries);
  if (!map) {
    map = new Map(entries.map((e) => [realName(e.name), e]));
    byName.set(entries, map);
  }
  return map;
}

const join = (prefix: string, name: string) => (prefix ? `${prefix}/${name}` : name);

/** Every path whose entry differs between two trees (null = nothing), sorted by path. */
export function diffTrees(repo: ShadowRepo, before: string | null, after: string | null): Change[] {
  const out: Change[] = [];
  diffInto(repo, before, after, '', out);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function diffInto(repo: ShadowRepo, a: string | null, b: string | null, prefix: string, out: Change[]): void {
  if (a === b) return;
  const ea = a ? index(repo.readTree(a)) : new Map<string, TreeEntry>();
  const eb = b ? index(repo.readTree(b)) : new Map<string, TreeEntry>();
  for (const [name, x] of ea) {
    const y = eb.get(name);
    const path = join(prefix, name);
    if (y && x.mode === y.mode && x.oid === y.oid) continue;
    const bx = entryOf(x);
    const by = y ? entryOf(y) : null;
    if (bx.kind === 'dir' && by?.kind === 'dir') {
      diffInto(repo, x.oid, y!.oid, path, out);
      continue;
    }
    out.push({ path, before: bx, after: by });
    if (bx.kind === 'dir') diffInto(repo, x.oid, null, path, out);
    if (by?.kind === 'dir') diffInto(repo, null, y!.oid, path, out);
  }
  for (const [name, y] of eb) {
    if (ea.has(name)) continue;
    const path = join(prefix, name);
    const by = entryOf(y);
    out.push({ path, before: null, after: by });
    if (by.kind === 'dir') diffInto(repo, null, y.oid, path, out);
  }
}

/** The entry at a path of a tree, or null. */
export function lookup(repo: ShadowRepo, tree: string, path: string): Entry | null {
  let current: Entry = { kind: 'dir', oid: tree };
  for (const part of path.split('/')) {
    if (current.kind !== 'dir') return null;
    const next = index(repo.readTree(current.oid)).get(part);
    if (!next) return null;
    current = entryOf(next);
  }
  return current;
}

/**
 * A new tree: `tree` with each path set to an entry or removed. Folders are created as needed; a folder
 * entry keeps what is already there (its contents come from the other changes). Writes only the trees
 * on the changed paths.
 */
export function applyChanges(repo: ShadowRepo, tree: string, changes: ReadonlyArray<{ path: string; to: Entry | null }>): string {
  return rebuild(repo, tree, changes.map((c) => ({ parts: c.path.split('/'), to: c.to }))) ?? EMPTY_TREE;
}

type Edit = { parts: string[]; to: Entry | null };

function rebuild(repo: ShadowRepo, tree: string | null, edits: Edit[]): string {
  const entries = new Map(tree ? [...index(repo.readTree(tree))] : []);
  const nested = new Map<string, Edit[]>();
  const direct = new Map<string, Entry | null>();
  for (const edit of edits) {
    const [head, ...rest] = edit.parts;
    if (rest.length === 0) direct.set(head!, edit.to);
    if (rest.length > 0) {
      const list = nested.get(head!) ?? [];
      list.push({ parts: rest, to: edit.to });
      nested.set(head!, list);
    } else if (edit.to === null) {
      entries.delete(head!);
    } else if (edit.to.kind === 'dir') {
      const existing = entries.get(head!);
      if (!existing || existing.mode !== '040000') entries.set(head!, { name: storedName(head!), mode: '040000', oid: EMPTY_TREE });
    } else {
      entries.set(head!, { name: storedName(head!), mode: modeOf(edit.to.kind), oid: edit.to.oid });
    }
  }
  for (const [name, list] of nested) {
    // Removals inside a folder that is itself removed (or replaced by a file) are already done.
    if (direct.has(name) && direct.get(name)?.kind !== 'dir') continue;
    const existing = entries.get(name);
    const base = existing && existing.mode === '040000' ? existing.oid : null;
    entries.set(name, { name: storedName(name), mode: '040000', oid: rebuild(repo, base, list) });
  }
  const sorted = [...entries.values()].sort(compareEntries);
  return repo.writeTree(sorted);
}

/** Every changed path, files and folders. */
export function changedPaths(changes: readonly Change[]): string[] {
  return changes.map((c) => c.path);
}

/**
 * What a person reads: files added, modified, deleted, and renames (same content and kind under a new
 * name, or a whole folder moved). Folders are listed ("name/") only when nothing inside them changed,
 * which is how an empty folder shows up.
 */
export function summarize(changes: readonly Change[]): ChangeSummary {
  const withInside = new Set<string>();
  for (const c of changes) {
    let i = c.path.lastIndexOf('/');
    while (i > 0) {
      withInside.add(c.path.slice(0, i));
      i = c.path.lastIndexOf('/', i - 1);
    }
  }
  const renamed: Array<{ from: string; to: string }> = [];
  const hidden = new Set<string>();
  // Whole folders moved: a removed folder and an added one with the same tree.
  const removedDirs = new Map<string, string[]>();
  for (const c of changes) {
    if (c.before?.kind === 'dir' && c.after?.kind !== 'dir' && c.before.oid !== EMPTY_TREE) {
      const list = removedDirs.get(c.before.oid) ?? [];
      list.push(c.path);
      removedDirs.set(c.before.oid, list);
    }
  }
  const renameSources = new Set<string>();
  for (const c of changes) {
    if (c.after?.kind !== 'dir' || c.before?.kind === 'dir' || isHidden(c.path, hidden)) continue;
    const from = removedDirs.get(c.after.oid)?.shift();
    if (from === undefined) continue;
    renamed.push({ from: `${from}/`, to: `${c.path}/` });
    hidden.add(from);
    hidden.add(c.path);
    renameSources.add(from);
  }
  const added: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  for (const c of changes) {
    if (isHidden(c.path, hidden)) {
      // A folder moved away and something else — a file, a link — took its name: that is an addition.
      if (renameSources.has(c.path) && isFileLike(c.after)) added.push(c.path);
      continue;
    }
    const was = isFileLike(c.before);
    const is = isFileLike(c.after);
    if (was && is) modified.push(c.path);
    else {
      if (was) deleted.push(c.path);
      if (is) added.push(c.path);
    }
    if (!withInside.has(c.path)) {
      if (c.before?.kind === 'dir' && c.after?.kind !== 'dir') deleted.push(`${c.path}/`);
      if (c.after?.kind === 'dir' && c.before?.kind !== 'dir') added.push(`${c.path}/`);
    }
  }
  // Files moved: same content and kind, one deleted and one added.
  const gone = new Map<string, string[]>();
  const beforeOf = new Map(changes.map((c) => [c.path, c.before]));
  for (const path of deleted) {
    const entry = beforeOf.get(path);
    if (!entry || entry.kind === 'dir' || entry.kind === 'uncovered') continue;
    const key = `${entry.kind}:${entry.oid}`;
    gone.set(key, [...(gone.get(key) ?? []), path]);
  }
  const movedFrom = new Set<string>();
  const movedTo = new Set<string>();
  if (gone.size > 0) {
    const afterOf = new Map(changes.map((c) => [c.path, c.after]));
    for (const path of added) {
      const entry = afterOf.get(path);
      if (!entry || entry.kind === 'dir' || entry.kind === 'uncovered') continue;
      const candidates = gone.get(`${entry.kind}:${entry.oid}`);
      if (!candidates || candidates.length === 0) continue;
      const base = path.slice(path.lastIndexOf('/') + 1);
      let pick = candidates.findIndex((p) => p.slice(p.lastIndexOf('/') + 1) === base);
      if (pick < 0) pick = 0;
      const [from] = candidates.splice(pick, 1);
      renamed.push({ from: from!, to: path });
      movedFrom.add(from!);
      movedTo.add(path);
    }
  }
  return {
    added: added.filter((p) => !movedTo.has(p)).sort(),
    modified: modified.sort(),
    deleted: deleted.filter((p) => !movedFrom.has(p)).sort(),
    renamed: renamed.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0)),
  };
}

function isHidden(path: string, hidden: Set<string>): boolean {
  if (hidden.size === 0) return false;
  if (hidden.has(path)) return true;
  let i = path.indexOf('/');
  while (i >= 0) {
    if (hidden.has(path.slice(0, i))) return true;
    i = path.indexOf('/', i + 1);
  }
  return false;
}
