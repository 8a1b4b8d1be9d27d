// A task a restart of Posthoc interrupted: what happened, in words that are not the person's Stop, and
// Continue, which resumes the conversation with the record of what ran (task:continue). Above the composer,
// so Continue is in view at any window size.
import { useState } from 'react';
import type { Task } from '../../../shared/domain';
import { appActions } from '../state/app-store';
import './interrupted-notice.css';

export function InterruptedNotice({ task }: { task: Task }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function resume(): Promise<void> {
    setBusy(true);
    const result = await appActions.continueTask(task.id);
    setBusy(false);
    setError(result.ok ? null : result.error.message);
  }

  return (
    <section className="interrupted-notice" data-testid="task-interrupted" aria-labelledby={`interrupted-${task.id}`}>
      <div className="interrupted-text">
        <strong id={`interrupted-${task.id}`}>Interrupted when Posthoc stopped</strong>
        <span className="muted"> (a restart or a quit), not by you. What ran is recorded above and stays undoable; Continue picks the task up from there.</span>
      </div>
      <button type="button" className="button button-primary" data-testid="task-continue" disabled={busy} onClick={() => void resume()}>
        {busy ? 'Continuing…' : 'Continue'}
      </button>
      {error !== null && (
        <p className="form-error" role="alert" data-testid="continue-error">
          {error}
        </p>
      )}
    </section>
  );
}
