// One action on the undo timeline, as a quiet line: status, what it changed, level, and one main control
// (Undo while it is applied, Redo once undone); Redo, Rewind to here and Keep in a "More" menu; the changed
// files behind the change count (each opens its diff). An action that changed nothing gets no control.
// When undo is not possible because later changes stand in the way, the row offers a way out: show the
// change in the way (the person's edit or the later action's diff), keep a copy of the person's edit and
// undo (or rewind), or rewind to before this action.
import { useEffect, useRef, useState, type MouseEvent, type ReactNode } from 'react';
import { isApplied, type UndoBlocker } from '../../../shared/domain';
import { rewindSeqsOf, type TimelineEntry } from '../../../shared/domain/undo';
import { canUndo, listChanges } from '../model/action-summary';
import { changeCount, describeBlocker, isPersonsEdit, keepCopyOffer, statusWords } from '../model/timeline-view';
import { timelineActions, useTimelineStore } from '../state/timeline-store';
import { ChangedFiles } from './changed-files';
import { focusLost, KeepCopyButton, KeptCopies } from './keep-copy';
import { NotCovered } from './not-covered';
import './timeline-strip.css';

type ActionEntry = Extract<TimelineEntry, { kind: 'action' }>;

/** `rewindOrder`: the timeline's, given once for every row; this row's rewind list is derived from it. */
export function TimelineActionRow({ taskId, entry, rewindOrder }: { taskId: string; entry: ActionEntry; rewindOrder: readonly number[] }) {
  const { action, undo, redo, rewind } = entry;
  const busy = useTimelineStore((s) => s.busy);
  const outcome = useTimelineStore((s) => s.outcomes[action.id]);
  const [showFiles, setShowFiles] = useState(false);
  const outcomeBox = useRef<HTMLDivElement>(null);
  // The button that ran the operation was disabled meanwhile and lost the focus: it goes to what happened,
  // so the keyboard carries on from there (Tab reaches the way out).
  useEffect(() => {
    if (outcome !== undefined && focusLost()) outcomeBox.current?.focus();
  }, [outcome]);
  const count = changeCount(action);
  // The same test as the card's Undo: a query, or an action that changed nothing, has nothing to undo.
  const changedSomething = canUndo(action);
  const changedAnything = changedSomething || count.text !== 'no changes' || action.reverse.steps.length > 0;
  const anyBusy = busy !== null;
  const mine = busy?.actionId === action.id ? busy.operation : null;
  const applied = isApplied(action.status);
  // What a rewind to here undoes (this action and the later ones), from the order the timeline gives once.
  const rewindSeqs = rewindSeqsOf(rewindOrder, entry);
  const later = rewind.count > 1;
  const blocked = applied && !undo.possible && undo.blockers.length > 0;
  const canRewindHere = rewind.possible && later;
  const offer = blocked ? keepCopyOffer(entry) : null;
  const keepCopy = (operation: 'undo' | 'rewind') => void timelineActions.keepCopyAnd(taskId, action.id, operation);
  const keeping = busy?.actionId === action.id && busy.keepCopies === true;
  // After a refused undo or rewind that a copy would get past (main checked the folder: the result says).
  const outcomeOffer = outcome?.canKeepCopies === true && outcome.operation !== 'redo' ? outcome.operation : null;

  const undoButton = (
    <button
      type="button"
      className="button button-small"
      data-testid="timeline-undo"
      disabled={!undo.possible || !changedSomething || anyBusy}
      title={!undo.possible ? (undo.reason ?? '') : changedSomething ? 'Put back what this action changed' : 'It changed nothing undo could take back.'}
      onClick={() => void timelineActions.undo(taskId, action.id)}
    >
      {mine === 'undo' && !keeping ? 'Undoing…' : 'Undo'}
    </button>
  );
  const redoButton = (
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
  );
  const main = !changedAnything ? null : applied ? undoButton : action.status === 'undone' ? redoButton : null;

  return (
    <li
      className={`tl-entry tl-action tl-status-${action.status}${changedAnything ? '' : ' tl-quiet'}`}
      data-testid="timeline-action"
      data-action-id={action.id}
      data-seq={action.seq}
      data-status={action.status}
      data-changed={changedAnything}
    >
      <div className="tl-line tl-strip-line">
        <span className={`tl-dot tl-dot-${action.status}`} aria-hidden="true" />
        <span className="tl-seq">{action.seq}</span>
        <span className={`tl-status tl-status-word-${action.status}`} data-testid="timeline-status">
          {statusWords[action.status]}
        </span>
        {count.total > 0 ? (
          <button
            type="button"
            className="tl-changes tl-changes-toggle"
            data-testid="timeline-changes"
            aria-expanded={showFiles}
            title={showFiles ? 'Hide the changed files' : 'Show the changed files (each opens its diff)'}
            onClick={() => setShowFiles((v) => !v)}
          >
            {count.text}
          </button>
        ) : (
          <span className="tl-changes muted" data-testid="timeline-changes">
            {count.text}
          </span>
        )}
        <span className={`tl-level confinement-${action.confinement.level}`} title={action.confinement.reason} data-testid="timeline-level">
          {action.confinement.level}
        </span>
        {changedAnything && (
          <span className="tl-controls">
            {main}
            <details className="tl-menu">
              <summary className="button button-small" data-testid="timeline-menu" aria-label={`More for action ${action.seq}`} title="Redo, rewind, keep">
                ⋯
              </summary>
              {/* A choice closes the menu. */}
              <div className="tl-menu-items" role="group" aria-label={`More for action ${action.seq}`} onClick={closeMenu}>
                {main !== undoButton && applied && undoButton}
                {main !== redoButton && redoButton}
                <button
                  type="button"
                  className="button button-small"
                  data-testid="timeline-rewind"
                  disabled={!rewind.possible || anyBusy || !later}
                  title={
                    !later
                      ? 'Nothing after this action to rewind: use Undo'
                      : rewind.possible
                        ? `Undo actions ${rewindSeqs.join(', ')}, newest first`
                        : (rewind.reason ?? '')
                  }
                  onClick={() => void timelineActions.rewind(taskId, action.id)}
                >
                  {mine === 'rewind' && !keeping ? 'Rewinding…' : 'Rewind to here'}
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
            </details>
          </span>
        )}
      </div>
      {showFiles && count.total > 0 && <ChangedFiles changes={listChanges(action.effects)} actionId={action.id} compact />}
      {changedAnything && <NotCovered effects={action.effects} />}

      {blocked && outcome === undefined && (
        <WayOut
          blockers={undo.blockers}
          actionId={action.id}
          rewind={canRewindHere ? rewindSeqs : null}
          seq={action.seq}
          busy={anyBusy}
          onRewind={() => void timelineActions.rewind(taskId, action.id)}
          keepCopy={
            offer === null ? null : (
              <KeepCopyButton
                operation={offer}
                paths={(offer === 'undo' ? undo.blockers : rewind.blockers).filter(isPersonsEdit).map((b) => b.path)}
                seq={action.seq}
                rewindSeqs={rewindSeqs}
                disabled={anyBusy}
                working={keeping}
                testId="timeline-way-out-keep-copy"
                onClick={() => keepCopy(offer)}
              />
            )
          }
        />
      )}

      {outcome !== undefined && (
        <div ref={outcomeBox} tabIndex={-1} className={`tl-outcome tone-${outcome.tone}`} role="status" data-testid="timeline-outcome" data-tone={outcome.tone}>
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
          {outcome.copies !== undefined && <KeptCopies copies={outcome.copies} />}
          <div className="tl-way-out">
            {outcome.tone !== 'ok' && applied && undo.blockers.length > 0 && <ShowTheEdit blockers={undo.blockers} actionId={action.id} />}
            {outcomeOffer !== null && applied && (
              <KeepCopyButton
                operation={outcomeOffer}
                paths={outcome.keepCopyPaths ?? []}
                seq={action.seq}
                rewindSeqs={rewindSeqs}
                disabled={anyBusy}
                working={keeping}
                testId="timeline-way-out-keep-copy"
                onClick={() => keepCopy(outcomeOffer)}
              />
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
        </div>
      )}
    </li>
  );
}

function closeMenu(event: MouseEvent<HTMLElement>): void {
  if ((event.target as HTMLElement).closest('button')) event.currentTarget.closest('details')?.removeAttribute('open');
}

/**
 * Why undo alone is not possible, and the ways out: see the change in the way, keep a copy of the person's
 * edit and undo (or rewind), or rewind past it.
 */
function WayOut({
  blockers,
  actionId,
  rewind,
  seq,
  busy,
  onRewind,
  keepCopy,
}: {
  blockers: readonly UndoBlocker[];
  actionId: string;
  rewind: readonly number[] | null;
  seq: number;
  busy: boolean;
  onRewind(): void;
  keepCopy: ReactNode;
}) {
  return (
    <div className="tl-blocked" data-testid="timeline-blocked">
      {/* A database, the memory or a service says why in its own words (its look before the click: UndoChannel.preview). */}
      <span>{blockers.some((b) => b.channel === undefined || b.channel === 'fs') ? 'Undo alone would overwrite later changes:' : 'Undo would be refused:'}</span>
      <ul className="tl-paths">
        {blockers.slice(0, 6).map((b) => (
          <li key={`${b.path}\u0000${b.by}`}>
            <code>{b.path}</code> <span className="muted">— {describeBlocker(b)}</span>
          </li>
        ))}
        {blockers.length > 6 && <li className="muted">and {blockers.length - 6} more</li>}
      </ul>
      <div className="tl-way-out">
        <ShowTheEdit blockers={blockers} actionId={actionId} />
        {keepCopy}
        {rewind !== null && (
          <button type="button" className="button button-small" data-testid="timeline-way-out-rewind" disabled={busy} onClick={onRewind} title={`Undo actions ${rewind.join(', ')}, newest first`}>
            Rewind to before action {seq}
          </button>
        )}
      </div>
      {blockers.some((b) => b.by !== 'action') && (
        <p className="tl-note muted">
          {keepCopy !== null
            ? 'An edit made outside Posthoc is never overwritten: keep a copy of it beside the file, and the file goes back.'
            : 'An edit made outside Posthoc is never overwritten.'}
        </p>
      )}
    </div>
  );
}

/**
 * Opens the change that stands in the way: the person's edit of a path since this action (what the action
 * left against the file now), or the later action's own change to it.
 */
function ShowTheEdit({ blockers, actionId }: { blockers: readonly UndoBlocker[]; actionId: string }) {
  const files = blockers.filter((b) => b.channel === undefined || b.channel === 'fs');
  const yours = files.find((b) => b.by === 'external' || b.by === 'content');
  const later = files.find((b) => b.by === 'action' && b.actionId !== null);
  if (yours !== undefined) {
    return (
      <button
        type="button"
        className="button button-small"
        data-testid="timeline-show-edit"
        title={`Show how ${yours.path} changed after this action`}
        onClick={() => void timelineActions.openDiff({ actionId, path: yours.path, since: true })}
      >
        Show the edit to {yours.path}
      </button>
    );
  }
  if (later === undefined) return null;
  return (
    <button
      type="button"
      className="button button-small"
      data-testid="timeline-show-edit"
      title={`Show what action ${later.actionSeq ?? '?'} changed in ${later.path}`}
      onClick={() => void timelineActions.openDiff({ actionId: later.actionId!, path: later.path })}
    >
      Show the change to {later.path}
    </button>
  );
}
