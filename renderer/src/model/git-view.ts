// An action's changed files with each git repository's internals taken out and summarised (what happened
// to the repository: commits, branches, HEAD), for the card, the timeline's file list and the change count.
// Pure; no React.
import { describeGitRepo, isGitInternal, summarizeGit, type GitRepoSummary } from '../../../shared/undo/git-internals';
import type { Change } from './action-summary';

export type GitRepoChange = { where: string; summary: GitRepoSummary; text: string };

/** The changes that are not git's own, and one entry per repository (per granted folder) whose internals changed. */
export function foldGitChanges(changes: readonly Change[]): { files: Change[]; repos: GitRepoChange[] } {
  const files: Change[] = [];
  const byFolder = new Map<string, { added: string[]; modified: string[]; deleted: string[] }>();
  for (const change of changes) {
    // A rename into or out of .git is rare enough to be listed as it is.
    if (change.channel !== 'fs' || change.mark === 'renamed' || !isGitInternal(change.path)) {
      files.push(change);
      continue;
    }
    let lists = byFolder.get(change.where);
    if (lists === undefined) byFolder.set(change.where, (lists = { added: [], modified: [], deleted: [] }));
    lists[change.mark].push(change.path);
  }
  const repos = [...byFolder].flatMap(([where, lists]) =>
    summarizeGit(lists).repos.map((summary) => ({ where, summary, text: describeGitRepo(summary) })),
  );
  return { files, repos };
}
