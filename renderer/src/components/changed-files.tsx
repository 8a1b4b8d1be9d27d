// The files an action added (+), modified (~), deleted (−) or renamed (→). Given the action, each file
// opens its diff.
import { changeMarker, type Change } from '../model/action-summary';
import { timelineActions } from '../state/timeline-store';

export function ChangedFiles({ changes, actionId, compact = false }: { changes: readonly Change[]; actionId?: string; compact?: boolean }) {
  const places = new Set(changes.map((change) => change.where));
  const shown = compact ? changes.slice(0, 12) : changes;
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
          {shown.length < changes.length && <li className="muted">and {changes.length - shown.length} more</li>}
        </ul>
      )}
    </div>
  );
}
