// Offered under an action card when its undo was refused because later actions changed the same paths:
// rewind to before it, undoing those later actions too (newest first), and say how that went; a rewind
// the person's edits refused offers to keep a copy of them and rewind.
import { useState } from 'react';
import type { Action } from '../../../shared/domain';
import type { OperationOutcome } from '../state/timeline-state';
import { timelineActions } from '../state/timeline-store';
import { KeepCopyOffer } from './keep-copy';

export function RewindOffer({ action, onStart, onSettled }: { action: Action; onStart?: () => void; onSettled?: (outcome: OperationOutcome) => void }) {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<OperationOutcome | null>(null);
  if (outcome !== null) {
    return (
      <>
        <p className={`rewind-outcome tone-${outcome.tone}`} data-testid="rewind-outcome">
          {outcome.text}
        </p>
        {outcome.canKeepCopies === true && <KeepCopyOffer action={action} paths={outcome.keepCopyPaths ?? []} operation="rewind" onStart={onStart} onSettled={onSettled} />}
      </>
    );
  }
  return (
    <button
      type="button"
      className="button button-small"
      data-testid="action-rewind"
      disabled={busy}
      onClick={() => {
        setBusy(true);
        onStart?.();
        void timelineActions.rewind(action.taskId, action.id).then((o) => {
          setOutcome(o);
          setBusy(false);
          onSettled?.(o);
        });
      }}
    >
      {busy ? 'Rewinding…' : `Rewind to before action ${action.seq}`}
    </button>
  );
}
