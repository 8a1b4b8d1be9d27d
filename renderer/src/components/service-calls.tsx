// The calls an action made to services through the gateway, refused ones included: how credentials were
// added (names only), the exact call undo will send to take each back, and calls the gateway keeps back
// (a send's window, or a wait for approval) with Cancel and Approve while they wait.
import { useState } from 'react';
import type { ServiceCall } from '../model/action-summary';

function HoldControls({ call }: { call: ServiceCall }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const hold = call.hold!;
  const decide = async (verb: 'cancel' | 'approve') => {
    setBusy(true);
    const result = verb === 'cancel' ? await window.posthoc.holdCancel({ holdId: hold.id }) : await window.posthoc.holdApprove({ holdId: hold.id });
    setBusy(false);
    if (!result.ok) setError(result.error.message);
  };
  if (hold.state !== 'waiting') {
    const word = { sent: 'left after its hold window', approved: 'approved', cancelled: 'cancelled: never sent', abandoned: 'not sent (the action ended)', waiting: '' }[hold.state];
    return <span className="call-hold muted" data-testid="call-hold" data-state={hold.state}>{word}</span>;
  }
  return (
    <span className="call-hold" data-testid="call-hold" data-state="waiting">
      {hold.kind === 'window' ? `held until ${new Date(hold.until!).toLocaleTimeString()}: it can never be taken back` : 'waits for your approval'}{' '}
      <button type="button" className="button button-small button-danger" data-testid="call-cancel" disabled={busy} onClick={() => void decide('cancel')}>
        Cancel
      </button>{' '}
      <button type="button" className="button button-small" data-testid="call-approve" disabled={busy} onClick={() => void decide('approve')}>
        {hold.kind === 'window' ? 'Send now' : 'Approve'}
      </button>
      {error && <span className="form-error"> {error}</span>}
    </span>
  );
}

export function ServiceCalls({ calls }: { calls: ServiceCall[] }) {
  if (calls.length === 0) return null;
  return (
    <div className="service-calls" data-testid="service-calls">
      <div className="section-label">Service calls</div>
      <ul>
        {calls.map((call, i) => (
          <li key={i} data-testid="service-call" data-refused={call.refused !== null} data-mutating={call.mutating}>
            <code>
              {call.method} svc/{call.service}
              {call.path}
            </code>{' '}
            {call.hold?.state === 'waiting' ? null : call.refused !== null ? (
              <span className="call-refused">refused ({call.status}): {call.refused}</span>
            ) : (
              <span className={call.status < 400 ? 'call-ok' : 'call-error'}>HTTP {call.status}</span>
            )}
            {call.auth && <span className="call-auth muted"> · {call.auth}</span>}
            {call.hold && (
              <>
                {' '}
                <HoldControls call={call} />
              </>
            )}
            {call.inverse && call.refused === null && (
              <div className="call-inverse" data-testid="call-inverse">
                ↶ undo sends <code>{call.inverse.method} svc/{call.inverse.service}{call.inverse.path}</code>
                {call.inverse.body && <code className="call-inverse-body"> {call.inverse.body}</code>} — {call.inverse.summary}
                {call.undone && (
                  <span className={call.undone.error ? 'call-error' : 'call-ok'} data-testid="call-undone">
                    {' '}
                    {call.undone.error ? `failed: ${call.undone.error}` : `sent (HTTP ${call.undone.status})`}
                  </span>
                )}
              </div>
            )}
            {!call.inverse && call.mutating && call.refused === null && call.status > 0 && (
              <div className="call-inverse muted">no known inverse: this call cannot be undone</div>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
