// The files channel: what an action changed in the granted folders, between the checkpoints before and after
// it (main/effects/fs). Undo removes what it added, brings back what it changed or deleted and moves back what
// it moved, refusing for any path someone else changed since.
import { describeGitRepo, describeGitUndo, foldGitPaths, summarizeGit } from '../../undo/git-internals';
import { NOT_COVERED_WHY } from '../../undo/not-covered-words';
import { capitalize, list, type ChannelSpec } from '../channel-spec';
import { FilesStep, FsEffect } from './effect';

export const files: ChannelSpec<typeof FsEffect, typeof FilesStep> = {
  id: 'fs',
  label: 'files',
  heading: 'Files',
  effect: FsEffect,
  step: FilesStep,
  undo: 'local',
  checkpointed: true,
  plan: (effects) => ({ steps: effects.flatMap(stepOf), folders: effects.length }),
  words(steps, { folders }) {
    if (steps.length === 0) return [];
    const named = (workspace: string, path: string): string => (folders > 1 ? `${workspace}/${path}` : path);
    const words = steps.map((s) => {
      const movedTo = new Set(s.moveBack.map((m) => m.to));
      const movedFrom = new Set(s.moveBack.map((m) => m.from));
      const lost = new Set(s.leave);
      // A git repository's internals (objects named by hashes, refs, logs) are said as what happened to it.
      const git = summarizeGit({ added: s.remove.filter((p) => !movedTo.has(p)), modified: s.restore.filter((p) => !movedFrom.has(p) && !lost.has(p)), deleted: [] });
      const parts = [
        git.rest.added.length ? `delete ${list(git.rest.added)}` : '',
        s.moveBack.length ? `move ${list(s.moveBack.map((r) => `${r.to} back to ${r.from}`))}` : '',
        git.rest.modified.length ? `bring back the previous ${list(git.rest.modified)}` : '',
        ...git.repos.map(describeGitUndo),
        s.leave.length ? `leave ${list(foldGitPaths(s.leave))} as it is (not covered by undo)` : '',
      ].filter(Boolean);
      return parts.length ? `${parts.join(', ')}${folders > 1 ? ` in ${s.workspace}` : ''}` : '';
    });
    const sentences = [`${capitalize(words.filter(Boolean).join('; ') || 'change nothing')}.`];
    const both = foldGitPaths(steps.flatMap((s) => s.ambiguous.map((p) => named(s.workspace, p))));
    if (both.length) {
      sentences.push(
        `Undo is refused while ${list(both)} ${both.length === 1 ? 'holds' : 'hold'} an edit made outside Posthoc while the action ran: it cannot tell that edit from the action's.`,
      );
    }
    return sentences;
  },
  call: () => null,
  observe(effect) {
    const parts = [
      effect.added.length ? `added ${effect.added.join(', ')}` : '',
      effect.modified.length ? `modified ${effect.modified.join(', ')}` : '',
      effect.deleted.length ? `deleted ${effect.deleted.join(', ')}` : '',
      effect.renamed?.length ? `renamed ${effect.renamed.map((r) => `${r.from} to ${r.to}`).join(', ')}` : '',
    ].filter(Boolean);
    return `files changed in ${effect.workspace}: ${parts.length ? parts.join('; ') : 'none'}`;
  },
  lines(effect) {
    // A git repository's internals are one line per repository: what happened to it, its files counted.
    const git = summarizeGit(effect);
    return [
      ...git.rest.added.map((p) => `  + ${p}`),
      ...git.rest.modified.map((p) => `  ~ ${p}`),
      ...git.rest.deleted.map((p) => `  - ${p}`),
      ...git.repos.map((r) => `  ⎇ ${describeGitRepo(r)}`),
      ...(effect.renamed ?? []).map((r) => `  ${r.from} => ${r.to}`),
      ...(effect.notCovered ?? []).map((n) => `  ! ${n.path}: not covered by undo (${NOT_COVERED_WHY[n.reason]})${n.changed ? ', changed by this action' : ''}`),
      // Changed by someone else while the action ran: kept by undo (attribution, fs-channel.ts).
      ...whileRunningLines(effect),
    ];
  },
  level(effect, facts) {
    facts.fileChanges += changedCount(effect);
    for (const n of effect.notCovered ?? []) (n.changed || n.when === 'after' || n.reason !== 'budget' ? facts.notCovered : facts.untouched).push(n);
  },
  tally: { noun: 'file', always: true, of: changedCount },
};

function changedCount(e: FsEffect): number {
  return e.added.length + e.modified.length + e.deleted.length + (e.renamed?.length ?? 0);
}

function stepOf(e: FsEffect): FilesStep[] {
  const renamed = e.renamed ?? [];
  if (changedCount(e) === 0) return [];
  // Only the action's own paths: what others changed while it ran is theirs, and a path both changed is
  // left as it is (undo refuses for it rather than guess whose edit it holds).
  const ambiguous = e.whileRunning?.ambiguous ?? [];
  const both = new Set(ambiguous);
  return [
    {
      channel: 'fs',
      workspace: e.workspace,
      remove: [...e.added, ...renamed.map((r) => r.to)].filter((p) => !both.has(p)),
      restore: [...e.modified, ...e.deleted, ...renamed.map((r) => r.from)].filter((p) => !both.has(p)),
      moveBack: renamed,
      leave: (e.notCovered ?? []).filter((n) => n.changed).map((n) => n.path),
      ambiguous,
    },
  ];
}

function whileRunningLines(effect: FsEffect): string[] {
  const w = effect.whileRunning;
  if (!w) return [];
  const both = new Set(w.ambiguous);
  const mark = (p: string) => (both.has(p) ? ' (also written by this action: undo cannot tell the two apart and refuses for it)' : '');
  const paths = [...w.added, ...w.modified, ...w.deleted, ...w.renamed.map((r) => `${r.from} => ${r.to}`)];
  return paths.map((p) => `  ≈ ${p}: changed outside Posthoc while this action ran, kept by undo${mark(p)}`);
}
