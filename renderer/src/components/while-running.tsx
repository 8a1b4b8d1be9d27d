// What changed in a granted folder while the action ran that was not the action's own (the person's
// edits, another program's): kept by undo. Paths both wrote are named apart, since undo refuses there.
// When the changes could not be told apart, the card says so.
import type { Effect } from '../../../shared/domain';
import { listWhileRunning } from '../model/while-running';

export function WhileRunning({ effects }: { effects: readonly Effect[] }) {
  const { items, notes } = listWhileRunning(effects);
  if (items.length === 0 && notes.length === 0) return null;
  return (
    <div className="while-running" data-testid="while-running">
      {items.length > 0 && (
        <>
          <span className="while-running-label">Changed by someone else while it ran (kept by undo):</span>
          <ul>
            {items.map((o) => (
              <li key={o.key} data-ambiguous={o.both}>
                <code>{o.path}</code> <span className="muted">{o.what}</span>
                {o.both && <strong> · also written by this action: undo cannot tell the two apart and refuses for it</strong>}
              </li>
            ))}
          </ul>
        </>
      )}
      {notes.map((note) => (
        <p key={note} className="muted" data-testid="unattributed">
          {note}
        </p>
      ))}
    </div>
  );
}
