// The last way out of a refused undo: keep a copy of the person's edit ("NAME (your edit).ext" beside the
// file), then undo (or rewind). One button for the timeline's way out, its outcome box and the card; all of
// them call timelineActions.keepCopyAnd, and the kept copies are named the same way everywhere.
import { useEffect, useRef, useState } from 'react';
import type { Action, KeptCopy } from '../../../shared/domain';
import { keepCopyTitle } from '../model/timeline-view';
import type { OperationOutcome } from '../state/timeline-state';
import { timelineActions } from '../state/timeline-store';
import './timeline-strip.css';

/** The focus is nowhere (on the page itself, or on a button that was disabled or removed meanwhile). */
export function focusLost(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || !active.isConnected || (active instanceof HTMLButtonElement && active.disabled);
}

export function KeepCopyButton({
  operation,
  paths,
  seq,
  rewindSeqs,
  disabled,
  working,
  testId,
  onClick,
}: {
  operation: 'undo' | 'rewind';
  /** The person's edited files the copies are made of. */
  paths: readonly string[];
  seq: number;
  rewindSeqs?: readonly number[];
  disabled: boolean;
  working: boolean;
  testId: string;
  onClick(): void;
}) {
  return (
    <button
      type="button"
      className="button button-small keep-copy"
      data-testid={testId}
      data-operation={operation}
      disabled={disabled}
      title={keepCopyTitle(operation, paths, seq, rewindSeqs)}
      onClick={onClick}
    >
      {working ? (operation === 'undo' ? 'Keeping a copy and undoing…' : 'Keeping a copy and rewinding…') : operation === 'undo' ? 'Keep a copy of your edit and undo' : 'Keep a copy and rewind'}
    </button>
  );
}

/** Where each edit was kept, the names as code. */
export function KeptCopies({ copies }: { copies: readonly KeptCopy[] }) {
  if (copies.length === 0) return null;
  return (
    <ul className="kept-copies" data-testid="kept-copies">
      {copies.map((c) => (
        <li key={c.copy} data-testid="kept-copy" data-path={c.path} data-copy={c.copy}>
          Your edit of <code>{c.path}</code> is kept in <code>{c.copy}</code>.
        </li>
      ))}
    </ul>
  );
}

/**
 * Under an action card whose Undo (or the rewind it offered) was refused by the person's edits only: the
 * same way out as the timeline's, then how it went (the copies named).
 */
export function KeepCopyOffer({
  action,
  paths,
  operation = 'undo',
  rewindSeqs,
  onStart,
  onSettled,
}: {
  action: Action;
  paths: readonly string[];
  operation?: 'undo' | 'rewind';
  rewindSeqs?: readonly number[];
  /** For the card around it: the operation started, and how it went (the card's message stands while the action keeps the status it left). */
  onStart?: () => void;
  onSettled?: (outcome: OperationOutcome) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<OperationOutcome | null>(null);
  const box = useRef<HTMLDivElement>(null);
  // The button went away with its click: the focus goes to how it went.
  useEffect(() => {
    if (outcome !== null && focusLost()) box.current?.focus();
  }, [outcome]);
  if (outcome !== null) {
    return (
      <div ref={box} tabIndex={-1} className={`keep-copy-outcome tone-${outcome.tone}`} data-testid="keep-copy-outcome" data-tone={outcome.tone}>
        <span>{outcome.text}</span>
        {outcome.paths.length > 0 && (
          <ul className="conflict-paths">
            {outcome.paths.map((p) => (
              <li key={p}>
                <code>{p}</code>
              </li>
            ))}
          </ul>
        )}
        <KeptCopies copies={outcome.copies ?? []} />
      </div>
    );
  }
  return (
    <KeepCopyButton
      operation={operation}
      paths={paths}
      seq={action.seq}
      rewindSeqs={rewindSeqs}
      disabled={busy}
      working={busy}
      testId="action-keep-copy"
      onClick={() => {
        setBusy(true);
        onStart?.();
        void timelineActions.keepCopyAnd(action.taskId, action.id, operation).then((o) => {
          setOutcome(o);
          setBusy(false);
          onSettled?.(o);
        });
      }}
    />
  );
}
