// A git repository inside a granted folder, as the person thinks of it: not the hundred files under .git
// (objects named by their hash, the index, the reflogs) but what happened to the repository — created,
// committed to a branch, a branch created, moved or deleted, a tag, HEAD moved to another branch — read from
// which of its files an action (or an undo) added, changed or deleted: refs/, HEAD, logs/, COMMIT_EDITMSG.
// The card, the undo text, the timeline and the CLI fold every .git path through here. Pure; a leaf.

/** `.git` or a path under it: the folder holding the repository ('' for the granted folder itself) and the path inside `.git` ('' for `.git` itself). */
export function splitGitPath(path: string): { repo: string; inner: string } | null {
  const match = /^(?:(.*)\/)?\.git(?:\/(.*))?$/.exec(path);
  if (match === null) return null;
  return { repo: match[1] ?? '', inner: match[2] ?? '' };
}

export const isGitInternal = (path: string): boolean => splitGitPath(path) !== null;

/** `.git` itself or a folder in it (the checkpoint names a folder with a trailing slash). */
const isFolder = (inner: string): boolean => inner === '' || inner.endsWith('/');

export type GitLists = { added: readonly string[]; modified: readonly string[]; deleted: readonly string[] };

/** What happened to one repository, from the paths under its `.git`. */
export type GitRepoSummary = {
  /** The folder holding `.git`, '' for the granted folder itself. */
  repo: string;
  /** `.git/HEAD` appeared: the repository was made (git init, git clone). */
  created: boolean;
  /** `.git/HEAD` went: the repository was deleted. */
  removed: boolean;
  /** Branches a commit was made on (their ref changed, a commit message and new objects were written). */
  committedTo: string[];
  branchesCreated: string[];
  /** Branches whose ref moved without a commit (reset, merge fast-forward, fetch into a branch). */
  branchesMoved: string[];
  branchesDeleted: string[];
  tagsCreated: string[];
  tagsDeleted: string[];
  /** HEAD itself changed: another branch or commit was checked out. */
  headMoved: boolean;
  /** Object files (loose objects and packs) added or deleted. */
  objects: number;
  /** Every path under `.git` that changed. */
  files: number;
};

function emptySummary(repo: string): GitRepoSummary {
  return { repo, created: false, removed: false, committedTo: [], branchesCreated: [], branchesMoved: [], branchesDeleted: [], tagsCreated: [], tagsDeleted: [], headMoved: false, objects: 0, files: 0 };
}

/** The repositories the lists touched, each summarised, and the paths that are not git's own, in the same lists. */
export function summarizeGit(lists: GitLists): { repos: GitRepoSummary[]; rest: { added: string[]; modified: string[]; deleted: string[] } } {
  const byRepo = new Map<string, { summary: GitRepoSummary; refs: Map<string, 'added' | 'modified' | 'deleted'>; message: boolean }>();
  const rest = { added: [] as string[], modified: [] as string[], deleted: [] as string[] };
  const kinds = ['added', 'modified', 'deleted'] as const;
  for (const kind of kinds) {
    for (const path of lists[kind]) {
      const split = splitGitPath(path);
      if (split === null) {
        rest[kind].push(path);
        continue;
      }
      let repo = byRepo.get(split.repo);
      if (repo === undefined) {
        repo = { summary: emptySummary(split.repo), refs: new Map(), message: false };
        byRepo.set(split.repo, repo);
      }
      const { summary } = repo;
      const inner = split.inner;
      // A folder (the checkpoint names one with a trailing slash) is no news and no file.
      if (isFolder(inner)) continue;
      summary.files++;
      if (inner === 'HEAD') {
        if (kind === 'added') summary.created = true;
        else if (kind === 'deleted') summary.removed = true;
        else summary.headMoved = true;
      } else if (inner.startsWith('refs/heads/') || inner.startsWith('refs/tags/')) {
        repo.refs.set(inner, kind);
      } else if (inner === 'COMMIT_EDITMSG' && kind !== 'deleted') {
        repo.message = true;
      } else if (inner.startsWith('objects/') && kind !== 'modified') {
        summary.objects++;
      }
    }
  }
  const repos = [...byRepo.values()].map(({ summary, refs, message }) => {
    // A commit writes its message and new objects ("nothing to commit" writes the message alone).
    const committed = message && summary.objects > 0;
    const sorted = [...refs].sort(([a], [b]) => a.localeCompare(b));
    const branchMoved = sorted.some(([ref, kind]) => ref.startsWith('refs/heads/') && kind === 'modified');
    for (const [ref, kind] of sorted) {
      const tag = ref.startsWith('refs/tags/');
      const name = ref.slice(tag ? 'refs/tags/'.length : 'refs/heads/'.length);
      if (tag) (kind === 'deleted' ? summary.tagsDeleted : summary.tagsCreated).push(name);
      else if (kind === 'deleted') summary.branchesDeleted.push(name);
      else if (kind === 'added') {
        // A new repository's first branch exists because of its first commit: that is the news.
        if (summary.created) (committed ? summary.committedTo : summary.branchesCreated).push(name);
        else {
          summary.branchesCreated.push(name);
          // git checkout -b NAME, then a commit: it landed on the new branch.
          if (committed && !branchMoved) summary.committedTo.push(name);
        }
      } else (committed ? summary.committedTo : summary.branchesMoved).push(name);
    }
    return summary;
  });
  return { repos: repos.sort((a, b) => a.repo.localeCompare(b.repo)), rest };
}

/** "the git repository" for the granted folder's own, "the git repository in site/" for one below it. */
export function repoName(repo: string): string {
  return repo === '' ? 'the git repository' : `the git repository in ${repo}/`;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const names = (list: readonly string[]): string => list.join(', ');

/** What happened to the repository, in words: "committed to main, branch feature created, HEAD moved". */
export function gitEvents(s: GitRepoSummary): string[] {
  if (s.removed) return ['deleted'];
  const events: string[] = [];
  if (s.created) events.push('created');
  if (s.branchesCreated.length > 0) events.push(`${s.branchesCreated.length === 1 ? 'branch' : 'branches'} ${names(s.branchesCreated)} created`);
  if (s.committedTo.length > 0) events.push(`committed to ${names(s.committedTo)}`);
  if (s.branchesMoved.length > 0) events.push(`${names(s.branchesMoved)} moved to another commit`);
  if (s.branchesDeleted.length > 0) events.push(`${s.branchesDeleted.length === 1 ? 'branch' : 'branches'} ${names(s.branchesDeleted)} deleted`);
  if (s.tagsCreated.length > 0) events.push(`${s.tagsCreated.length === 1 ? 'tag' : 'tags'} ${names(s.tagsCreated)} created`);
  if (s.tagsDeleted.length > 0) events.push(`${s.tagsDeleted.length === 1 ? 'tag' : 'tags'} ${names(s.tagsDeleted)} deleted`);
  if (s.headMoved) events.push('HEAD moved');
  if (events.length === 0) events.push(s.objects > 0 ? 'objects stored' : 'its index or settings changed');
  return events;
}

/** The repository's internals, folded into one count: "41 files in .git". */
export function gitFilesWords(s: GitRepoSummary): string {
  return `${plural(s.files, 'file')} in ${s.repo === '' ? '' : `${s.repo}/`}.git`;
}

/** One line for a card: "git repository: committed to main, HEAD moved (41 files in .git)". */
export function describeGitRepo(s: GitRepoSummary): string {
  const head = s.repo === '' ? 'git repository' : `git repository in ${s.repo}/`;
  return `${head}: ${gitEvents(s).join(', ')} (${gitFilesWords(s)})`;
}

/** What undo does to the repository, in words: "put the git repository back as it was before it was committed to main (41 files in .git)". */
export function describeGitUndo(s: GitRepoSummary): string {
  if (s.created) return `delete ${repoName(s.repo)} it made (${gitFilesWords(s)})`;
  if (s.removed) return `bring back ${repoName(s.repo)} (${gitFilesWords(s)})`;
  return `put ${repoName(s.repo)} back as it was, before it was ${gitEvents(s).join(', ')} (${gitFilesWords(s)})`;
}

/**
 * A list of paths with every repository's internals folded into one entry: ["a.txt", "the git repository
 * (41 files in .git)"]. For an outcome ("removed …; restored …") where the paths are all one kind.
 */
export function foldGitPaths(paths: readonly string[]): string[] {
  const counts = new Map<string, number>();
  const out: string[] = [];
  for (const path of paths) {
    const split = splitGitPath(path);
    if (split === null) out.push(path);
    else counts.set(split.repo, (counts.get(split.repo) ?? 0) + (isFolder(split.inner) ? 0 : 1));
  }
  for (const [repo, n] of counts) out.push(`${repoName(repo)} (${n === 0 ? 'folders' : plural(n, 'file')} in ${repo === '' ? '' : `${repo}/`}.git)`);
  return out;
}

/**
 * Lines that each begin with a path ("P put back", "P: your edit kept as C"), with the lines of each
 * repository's internals folded into one per repository and ending: "the git repository: 41 files in .git put back".
 */
export function foldGitLines(lines: readonly string[]): string[] {
  const groups = new Map<string, { repo: string; tail: string; n: number }>();
  const out: string[] = [];
  for (const line of lines) {
    const match = /^(\S*\.git\/\S*?)(:? .*)?$/.exec(line);
    const split = match === null ? null : splitGitPath(match[1]!);
    if (match === null || split === null) {
      out.push(line);
      continue;
    }
    const tail = match[2] ?? '';
    const key = `${split.repo}\u0000${tail}`;
    const group = groups.get(key);
    const n = isFolder(split.inner) ? 0 : 1; // a folder is not counted as a file
    if (group === undefined) {
      groups.set(key, { repo: split.repo, tail, n });
      out.push(key); // a placeholder, replaced below, so the folded line keeps its place
    } else group.n += n;
  }
  return out.map((line) => {
    const group = groups.get(line);
    if (group === undefined) return line;
    const tail = group.tail.startsWith(':') ? group.tail.slice(1) : group.tail;
    return `${repoName(group.repo)}: ${group.n === 0 ? 'folders' : plural(group.n, 'file')} in ${group.repo === '' ? '' : `${group.repo}/`}.git${tail}`;
  });
}
