// The files an action added (+), modified (~) or deleted (−).
import { changeMarker, type Change } from '../model/action-summary';

export function ChangedFiles({ changes }: { changes: readonly Change[] }) {
  const places = new Set(changes.map((change) => change.where));
  return (
    <div className="changed-files" data-testid="changed-files">
      {changes.length === 0 ? (
        <p className="muted">No files changed.</p>
      ) : (
        <ul>
          {changes.map((change) => (
            <li
              key={`${change.where}\u0000${change.mark}\u0000${change.path}`}
              className={`change change-${change.mark}`}
              data-mark={change.mark}
            >
              <span className="change-marker" aria-label={change.mark} title={change.mark}>
                {changeMarker[change.mark]}
              </span>
              <code>{places.size > 1 ? `${change.where}/${change.path}` : change.path}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
