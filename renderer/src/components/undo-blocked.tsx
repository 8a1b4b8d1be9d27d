// Under a card whose Undo the timeline already knows is refused (the person's edit, or a later action, in the
// way): why, in words, and the same way out as the timeline's — keep a copy of the edit and undo (or
// rewind), or rewind past the later actions. A disabled button's title is not enough: it cannot be read by
// keyboard, and below 1200 px the timeline is a folded rail.
import type { UndoBlocker } from '../../../shared/domain';
import { rewindSeqsOf } from '../../../shared/domain/undo';
import { describeBlocker, isPersonsEdit, keepCopyOffer } from '../model/timeline-view';
import type { OperationOutcome } from '../state/timeline-state';
import { useTimelineStore } from '../state/timeline-store';
import type { UndoEntry } from '../state/undo-truth';
import { KeepCopyOffer } from './keep-copy';
import { RewindOffer } from './rewind-offer';

const SHOWN = 6;

export function UndoBlocked({
  entry,
  settled,
  onStart,
  onSettled,
}: {
  entry: UndoEntry;
  /** A way out from here ran: only its outcome stays (the blockers are history). */
  settled: boolean;
  onStart(): void;
  onSettled(outcome: OperationOutcome): void;
}) {
  const { action, undo, rewind } = entry;
  const offer = keepCopyOffer(entry);
  const paths = (offer === 'rewind' ? rewind.blockers : undo.blockers).filter(isPersonsEdit).map((b) => b.path);
  // The rewind's list (the offer's title) from the timeline's rewind order, given once for every row.
  const rewindOrder = useTimelineStore((s) => s.byTask[action.taskId]?.timeline?.rewindOrder);
  const canRewind = offer === null && rewind.possible && rewind.count > 1;
  return (
    // Once a way out ran, its outcome carries its own tone: no warning around it.
    <div className={settled ? 'undo-blocked-settled' : 'undo-result undo-blocked tone-warn'} data-testid="action-undo-blocked" data-tone={settled ? undefined : 'warn'}>
      {!settled && (
        <>
          <span>Undo would overwrite {undo.blockers.length === 1 ? 'a later change' : 'later changes'}:</span>
          <BlockerList blockers={undo.blockers} />
        </>
      )}
      {offer !== null && <KeepCopyOffer action={action} paths={paths} operation={offer} rewindSeqs={rewindSeqsOf(rewindOrder ?? [], entry)} onStart={onStart} onSettled={onSettled} />}
      {canRewind && <RewindOffer action={action} onStart={onStart} onSettled={onSettled} />}
    </div>
  );
}

function BlockerList({ blockers }: { blockers: readonly UndoBlocker[] }) {
  return (
    <ul className="conflict-paths">
      {blockers.slice(0, SHOWN).map((b) => (
        <li key={`${b.path}\u0000${b.by}`}>
          <code>{b.path}</code> <span className="muted">— {describeBlocker(b)}</span>
        </li>
      ))}
      {blockers.length > SHOWN && <li className="muted">and {blockers.length - SHOWN} more</li>}
    </ul>
  );
}
