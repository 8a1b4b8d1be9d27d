// The files an action added (+), modified (~), deleted (−) or renamed (→). Given the action, each file
// opens its diff. A git repository's internals (.git/objects/… and the rest) fold into one line saying what
// happened to the repository.
import { changeMarker, type Change } from '../model/action-summary';
import { foldGitChanges } from '../model/git-view';
import { timelineActions } from '../state/timeline-store';
import './changed-files.css';

export function ChangedFiles({ changes, actionId, compact = false }: { changes: readonly Change[]; actionId?: string; compact?: boolean }) {
  const places = new Set(changes.map((change) => change.where));
  const { files, repos } = foldGitChanges(changes);
  const shown = compact ? files.slice(0, 12) : files;
  return (
    <div className={`changed-files${compact ? ' changed-files-compact' : ''}`} data-testid="changed-files">
      {changes.length === 0 ? (
        <p className="muted">No files changed.</p>
      ) : (
        <ul>
          {shown.map((change) => {
            const label = places.size > 1 ? `${change.where}/${change.path}` : change.path;
            const text = change.from !== undefined ? `${places.size > 1 ? `${change.where}/` : ''}${change.from} \u2192 ${label}` : label;
            return (
              <li
                key={`${change.where}\u0000${change.mark}\u0000${change.path}`}
                className={`change change-${change.mark}`}
                data-mark={change.mark}
              >
                <span className="change-marker" aria-label={change.mark} title={change.mark}>
                  {changeMarker[change.mark]}
                </span>
                {actionId !== undefined && change.channel === 'fs' && !change.path.endsWith('/') ? (
                  <button
                    type="button"
                    className="change-open"
                    data-testid="open-diff"
                    title="Show what changed in this file"
                    onClick={() => void timelineActions.openDiff({ actionId, path: change.path, workspace: change.where })}
                  >
                    <code>{text}</code>
                  </button>
                ) : (
                  <code>{text}</code>
                )}
              </li>
            );
          })}
          {repos.map((repo) => (
            <li key={`git\u0000${repo.where}\u0000${repo.summary.repo}`} className="change change-git" data-testid="git-summary" data-mark="git">
              <span className="change-marker" aria-hidden="true">
                ⎇
              </span>
              <span className="change-git-text">
                {places.size > 1 ? `${repo.where}: ` : ''}
                {repo.text}
              </span>
            </li>
          ))}
          {shown.length < files.length && <li className="muted">and {files.length - shown.length} more</li>}
        </ul>
      )}
    </div>
  );
}
