// A git repository in a granted folder is shown as what happened to it, never as its object files: the
// summary from the changed paths under .git (the lists below are what git 2.39 changes for each command,
// taken from a real repository), the card's and timeline's count, the undo plan and the outcome text.
import { describe, expect, it } from 'vitest';
import type { Effect, FsEffect } from '../../shared/domain';
import { describeGitRepo, foldGitLines, foldGitPaths, summarizeGit } from '../../shared/undo/git-internals';
import { describeReversePlan, reversePlanOf } from '../../shared/undo/reverse-plan';
import { listChanges } from '../../renderer/src/model/action-summary';
import { foldGitChanges } from '../../renderer/src/model/git-view';
import { changeCount, describeOutcome, externalNote } from '../../renderer/src/model/timeline-view';
import { actionFixture } from '../support/action-fixture';
import { formatAction } from '../../main/cli/format';

const OBJECTS = ['.git/objects/18/7438d7d3fbee49dba13a50af1a6af1f1c7c17c', '.git/objects/29/02ed4293e85752b7ab4c8e51ae6db6185bf2fb', '.git/objects/42/2c2b7ab3b3c668038da977e4e93a5fc623169c'];
const HASH = /[0-9a-f]{38}/;

/** git commit -am two && git checkout -b feature, in a repository that had one commit on main. */
const commitThenBranch = {
  added: ['.git/logs/refs/heads/feature', ...OBJECTS, '.git/refs/heads/feature'],
  modified: ['.git/COMMIT_EDITMSG', '.git/HEAD', '.git/index', '.git/logs/HEAD', '.git/logs/refs/heads/main', '.git/refs/heads/main', 'a.txt'],
  deleted: [] as string[],
};

/** git init -b main && git add a.txt && git commit -m one. */
const initAndCommit = {
  added: ['.git/', '.git/refs/', '.git/refs/tags/', '.git/objects/18/', '.git/HEAD', '.git/config', '.git/description', '.git/hooks/pre-commit.sample', '.git/info/exclude', '.git/index', '.git/COMMIT_EDITMSG', '.git/logs/HEAD', '.git/logs/refs/heads/main', '.git/refs/heads/main', ...OBJECTS, 'a.txt'],
  modified: [] as string[],
  deleted: [] as string[],
};

function fsEffect(lists: { added: string[]; modified: string[]; deleted: string[] }): FsEffect {
  return { channel: 'fs', workspace: '/home/me/site', ...lists, renamed: [], checkpointBefore: 'c0', checkpointAfter: 'c1' };
}

describe('the git summary', () => {
  it('reads a commit, a new branch and HEAD moving from the paths under .git, and keeps the other files apart', () => {
    const { repos, rest } = summarizeGit(commitThenBranch);
    expect(rest).toEqual({ added: [], modified: ['a.txt'], deleted: [] });
    expect(repos).toHaveLength(1);
    const [repo] = repos;
    expect(repo).toMatchObject({ repo: '', created: false, committedTo: ['main'], branchesCreated: ['feature'], headMoved: true, objects: 3, files: 11 });
    expect(describeGitRepo(repo!)).toBe('git repository: branch feature created, committed to main, HEAD moved (11 files in .git)');
  });

  it('a commit on a branch just made lands on it; a failed commit (message, no objects) is no commit', () => {
    const branchThenCommit = {
      added: ['.git/logs/refs/heads/feature', '.git/refs/heads/feature', ...OBJECTS],
      modified: ['.git/COMMIT_EDITMSG', '.git/HEAD', '.git/index', '.git/logs/HEAD'],
      deleted: [],
    };
    expect(summarizeGit(branchThenCommit).repos.map(describeGitRepo)).toEqual(['git repository: branch feature created, committed to feature, HEAD moved (9 files in .git)']);
    const nothingToCommit = { ...branchThenCommit, added: ['.git/logs/refs/heads/feature', '.git/refs/heads/feature'] };
    expect(summarizeGit(nothingToCommit).repos.map(describeGitRepo)).toEqual(['git repository: branch feature created, HEAD moved (6 files in .git)']);
  });

  it('says a new repository was created with its first commit, not that a branch was made', () => {
    const [repo] = summarizeGit(initAndCommit).repos;
    expect(describeGitRepo(repo!)).toBe('git repository: created, committed to main (13 files in .git)');
  });

  it('tells a reset (the branch moved, no commit message) and tags and deleted branches, per repository', () => {
    const { repos } = summarizeGit({
      added: ['web/.git/refs/tags/v1', 'web/.git/ORIG_HEAD'],
      modified: ['.git/refs/heads/main', '.git/logs/HEAD', '.git/ORIG_HEAD'],
      deleted: ['.git/refs/heads/old', '.git/logs/refs/heads/old'],
    });
    expect(repos.map(describeGitRepo)).toEqual([
      'git repository: main moved to another commit, branch old deleted (5 files in .git)',
      'git repository in web/: tag v1 created (2 files in web/.git)',
    ]);
  });

  it('takes .gitignore and a folder named like a repository for what they are', () => {
    expect(summarizeGit({ added: ['.gitignore', 'my.git/HEAD', 'docs/.github/x'], modified: [], deleted: [] })).toEqual({ repos: [], rest: { added: ['.gitignore', 'my.git/HEAD', 'docs/.github/x'], modified: [], deleted: [] } });
  });

  it('folds path lists and step lines into one entry per repository', () => {
    expect(foldGitPaths(['a.txt', ...OBJECTS, '.git/objects/18/', 'site/.git/index'])).toEqual(['a.txt', 'the git repository (3 files in .git)', 'the git repository in site/ (1 file in site/.git)']);
    expect(foldGitLines(['a.txt put back', ...OBJECTS.map((p) => `${p} removed`), '.git/HEAD put back'])).toEqual([
      'a.txt put back',
      'the git repository: 3 files in .git removed',
      'the git repository: 1 file in .git put back',
    ]);
  });
});

describe('a git task on screen', () => {
  const action = actionFixture({ effects: [fsEffect(commitThenBranch)] as Effect[] });

  it('the card lists the repository as one line and the count says what happened, with no hash', () => {
    const { files, repos } = foldGitChanges(listChanges(action.effects));
    expect(files.map((f) => f.path)).toEqual(['a.txt']);
    expect(repos.map((r) => r.text)).toEqual(['git repository: branch feature created, committed to main, HEAD moved (11 files in .git)']);
    const count = changeCount(action);
    expect(count.text).toBe('1 file change (~1), git: branch feature created, committed to main, HEAD moved');
    expect(count.total).toBe(2);
  });

  it('"Undo will" names the repository going back, not its object files', () => {
    const words = describeReversePlan(reversePlanOf(action));
    expect(words).not.toMatch(HASH);
    expect(words).not.toContain('.git/objects');
    expect(words).toBe(
      'Bring back the previous a.txt, put the git repository back as it was, before it was branch feature created, committed to main, HEAD moved (11 files in .git).',
    );
    const created = describeReversePlan(reversePlanOf(actionFixture({ effects: [fsEffect(initAndCommit)] as Effect[] })));
    expect(created).toBe('Delete a.txt, delete the git repository it made (13 files in .git).');
  });

  it('the CLI prints the repository as one line too, and its undo line', () => {
    const text = formatAction(action);
    expect(text).toContain('  ~ a.txt');
    expect(text).toContain('  ⎇ git repository: branch feature created, committed to main, HEAD moved (11 files in .git)');
    expect(text).not.toMatch(HASH);
    expect(text).not.toContain('.git/');
  });

  it('a rewind\'s outcome folds the repository too', () => {
    const outcome = describeOutcome('rewind', {
      ok: true,
      value: { outcome: 'rewound', action, undone: [action], restored: ['a.txt', '.git/HEAD', '.git/refs/heads/main'], removed: OBJECTS, notRestored: [] },
    });
    expect(outcome.text).toBe('Rewound actions 1: removed the git repository (3 files in .git); restored a.txt, the git repository (2 files in .git).');
    expect(outcome.text).not.toMatch(HASH);
  });
});

describe('the timeline never says an edit was kept when an undo after it replaced the file', () => {
  const external = { kind: 'external' as const, at: '2026-01-01T00:00:01Z', workspace: '/w', changes: { added: [], modified: ['notes.txt', 'todo.txt'], deleted: [], renamed: [] } };
  const rewind = (items: string[]) => ({
    kind: 'operation' as const,
    at: '2026-01-01T00:00:02Z',
    operation: 'rewind' as const,
    actionSeqs: [2, 1],
    state: 'completed' as const,
    recovered: false,
    note: null,
    outcome: 'done' as const,
    steps: [{ channel: 'fs' as const, result: 'done' as const, items, detail: null }],
  });

  it('names the file the rewind put back, and where the edit was kept', () => {
    const note = externalNote([external, rewind(['notes.txt: your edit kept as notes (your edit).txt', 'notes.txt put back'])], 0);
    expect(note).toBe('notes.txt was put back by the rewind that followed; your edit is kept in notes (your edit).txt. todo.txt is kept as you left it.');
    expect(note).not.toContain('no undo reverts it');
  });

  it('says "kept as you left it" only while nothing after it replaced the files', () => {
    expect(externalNote([external], 0)).toBe('Kept as you left it: no undo reverts it.');
    expect(externalNote([external, { ...rewind(['notes.txt put back']), state: 'rolled-back' as const }], 0)).toBe('Kept as you left it: no undo reverts it.');
    expect(externalNote([external, rewind(['notes.txt put back', 'todo.txt removed'])], 0)).toBe('notes.txt was replaced by the rewind that followed. todo.txt was replaced by the rewind that followed.');
  });
});
