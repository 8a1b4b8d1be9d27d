// One action on the undo timeline: status, level, what it changed (each file opens its diff), what is
// not covered by undo, and Undo, Redo, Rewind-to-here, with the reason when one is not possible and the
// explanation (and the offer to rewind) when an undo is refused.
import { isApplied } from '../../../shared/domain';
import type { TimelineEntry } from '../../../shared/domain/undo';
import { canUndo, listChanges } from '../model/action-summary';
import { changeCount, describeBlocker, statusWords } from '../model/timeline-view';
import { timelineActions, useTimelineStore } from '../state/timeline-store';
import { ChangedFiles } from './changed-files';
import { NotCovered } from './not-covered';

type ActionEntry = Extract<TimelineEntry, { kind: 'action' }>;

export function TimelineActionRow({ taskId, entry }: { taskId: string; entry: ActionEntry }) {
  const { action, undo, redo, rewind } = entry;
  const busy = useTimelineStore((s) => s.busy);
  const outcome = useTimelineStore((s) => s.outcomes[action.id]);
  const count = changeCount(action);
  // The same test as the card's Undo: a query, or an action that changed nothing, has nothing to undo.
  const changedSomething = canUndo(action);
  const anyBusy = busy !== null;
  const mine = busy?.actionId === action.id ? busy.operation : null;
  const applied = isApplied(action.status);
  const laterSeqs = rewind.actionSeqs.filter((s) => s !== action.seq);

  return (
    <li
      className={`tl-entry tl-action tl-status-${action.status}`}
      data-testid="timeline-action"
      data-action-id={action.id}
      data-seq={action.seq}
      data-status={action.status}
    >
      <div className="tl-line">
        <span className={`tl-dot tl-dot-${action.status}`} aria-hidden="true" />
        <span className="tl-seq">Action {action.seq}</span>
        <span className={`tl-status tl-status-word-${action.status}`} data-testid="timeline-status">
          {statusWords[action.status]}
        </span>
        <span className={`tl-level confinement-${action.confinement.level}`} title={action.confinement.reason} data-testid="timeline-level">
          {action.confinement.level}
        </span>
      </div>
      <p className="tl-changes muted" data-testid="timeline-changes">
        {count.text}
      </p>
      {count.total > 0 && <ChangedFiles changes={listChanges(action.effects)} actionId={action.id} compact />}
      <NotCovered effects={action.effects} />

      <div className="tl-buttons">
        <button
          type="button"
          className="button button-small"
          data-testid="timeline-undo"
          disabled={!undo.possible || !changedSomething || anyBusy}
          title={!undo.possible ? (undo.reason ?? '') : changedSomething ? 'Put back what this action changed' : 'It changed nothing undo could take back.'}
          onClick={() => void timelineActions.undo(taskId, action.id)}
        >
          {mine === 'undo' ? 'Undoing…' : 'Undo'}
        </button>
        <button
          type="button"
          className="button button-small"
          data-testid="timeline-redo"
          disabled={!redo.possible || anyBusy}
          title={redo.possible ? 'Apply this action’s changes again' : (redo.reason ?? '')}
          onClick={() => void timelineActions.redo(taskId, action.id)}
        >
          {mine === 'redo' ? 'Redoing…' : 'Redo'}
        </button>
        <button
          type="button"
          className="button button-small"
          data-testid="timeline-rewind"
          disabled={!rewind.possible || anyBusy || laterSeqs.length === 0}
          title={
            laterSeqs.length === 0
              ? 'Nothing after this action to rewind: use Undo'
              : rewind.possible
                ? `Undo actions ${rewind.actionSeqs.join(', ')}, newest first`
                : (rewind.reason ?? '')
          }
          onClick={() => void timelineActions.rewind(taskId, action.id)}
        >
          {mine === 'rewind' ? 'Rewinding…' : 'Rewind to here'}
        </button>
        {applied && (
          <button
            type="button"
            className="button button-small tl-keep"
            data-testid="timeline-keep"
            disabled={anyBusy}
            title="Make this action final and release its checkpoints"
            onClick={() => void timelineActions.keep(taskId, action.id)}
          >
            Keep
          </button>
        )}
      </div>

      {applied && !undo.possible && undo.blockers.length > 0 && outcome === undefined && (
        <div className="tl-blocked" data-testid="timeline-blocked">
          <span>Undo alone would overwrite later changes:</span>
          <ul className="tl-paths">
            {undo.blockers.slice(0, 6).map((b) => (
              <li key={`${b.path}\u0000${b.by}`}>
                <code>{b.path}</code> <span className="muted">— {describeBlocker(b)}</span>
              </li>
            ))}
            {undo.blockers.length > 6 && <li className="muted">and {undo.blockers.length - 6} more</li>}
          </ul>
          {rewind.possible && laterSeqs.length > 0 && <span className="muted">Rewind to here undoes actions {rewind.actionSeqs.join(', ')} instead.</span>}
        </div>
      )}

      {outcome !== undefined && (
        <div className={`tl-outcome tone-${outcome.tone}`} role="status" data-testid="timeline-outcome" data-tone={outcome.tone}>
          <span>{outcome.text}</span>
          {outcome.paths.length > 0 && (
            <ul className="tl-paths">
              {outcome.paths.map((p) => (
                <li key={p}>
                  <code>{p}</code>
                </li>
              ))}
            </ul>
          )}
          {outcome.canRewind && rewind.possible && (
            <button
              type="button"
              className="button button-small"
              data-testid="timeline-offer-rewind"
              disabled={anyBusy}
              onClick={() => void timelineActions.rewind(taskId, action.id)}
            >
              Rewind to before action {action.seq}
            </button>
          )}
        </div>
      )}
    </li>
  );
}
