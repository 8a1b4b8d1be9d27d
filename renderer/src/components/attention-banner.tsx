// Above the composer while the task holds something for the person: what waits (a held action, a held
// service call), why, and Approve / Reject. The card says the same in its place; this is where the eye is.
import { useState } from 'react';
import { selectHeld, type Held } from '../state/attention';
import { appActions, useAppStore } from '../state/app-store';

export function AttentionBanner({ taskId }: { taskId: string }) {
  const held = useAppStore((s) => selectHeld(s.tasks, taskId));
  if (held.length === 0) return null;
  return (
    <section className="attention-banner" role="alert" aria-label="Waiting for you" data-testid="attention-banner">
      <strong className="attention-title">{held.length === 1 ? 'The agent waits for you' : `The agent waits for you (${held.length})`}</strong>
      <ul className="attention-list">
        {held.map((h) => (
          <HeldRow key={h.id} held={h} />
        ))}
      </ul>
    </section>
  );
}

function HeldRow({ held }: { held: Held }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function decide(approve: boolean): Promise<void> {
    setBusy(true);
    const result =
      held.kind === 'action'
        ? await (approve ? appActions.approveAction(held.id) : appActions.rejectAction(held.id))
        : await (approve ? window.posthoc.holdApprove({ holdId: held.id }) : window.posthoc.holdCancel({ holdId: held.id }));
    setError(result.ok ? null : result.error.message);
    setBusy(false);
  }
  return (
    <li className="attention-item" data-testid="attention-item" data-kind={held.kind} data-id={held.id}>
      <span className="attention-what">
        {held.kind === 'action' ? `${held.what} waits for your approval before it runs; nothing was changed yet.` : `A call waits for your approval before it is sent: ${held.what}.`}{' '}
        <span className="muted">{held.reason}</span>
      </span>
      <span className="attention-buttons">
        <button type="button" className="button button-primary" data-testid="attention-approve" disabled={busy} onClick={() => void decide(true)}>
          {busy ? 'Working…' : 'Approve'}
        </button>
        <button type="button" className="button" data-testid="attention-reject" disabled={busy} onClick={() => void decide(false)}>
          Reject
        </button>
      </span>
      {error !== null && (
        <span className="form-error" role="alert" data-testid="attention-error">
          {error}
        </span>
      )}
    </li>
  );
}
