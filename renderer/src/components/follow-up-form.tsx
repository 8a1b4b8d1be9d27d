// Ask more of a finished task: the agent continues with the same folders and the whole conversation. While
// the agent works, the same form steers it: the message reaches the model at its next turn (no need to stop).
import { useId, useState } from 'react';
import { appActions } from '../state/app-store';
import { SEND_HINT, submitHandlers } from './submit-handlers';
import './composer.css';

export function FollowUpForm({ taskId, steering = false }: { taskId: string; steering?: boolean }) {
  const hintId = useId();
  const [prompt, setPrompt] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(): Promise<void> {
    if (busy) return;
    setBusy(true);
    setError(null);
    const result = await appActions.sendFollowUp(taskId, prompt);
    setBusy(false);
    if (result.ok) setPrompt('');
    else setError(result.error.message);
  }

  const { onSubmit, onKeyDown } = submitHandlers(submit);

  return (
    <form className="follow-up-form" onSubmit={onSubmit} noValidate>
      <textarea
        aria-label={steering ? 'Message to the working agent' : 'Follow-up'}
        data-testid="follow-up-input"
        rows={2}
        placeholder={steering ? 'Tell the agent something; it reads it at its next step…' : 'Ask for more, or correct the agent…'}
        value={prompt}
        onChange={(e) => setPrompt(e.target.value)}
        onKeyDown={onKeyDown}
        aria-describedby={hintId}
      />
      <button type="submit" className="button button-primary" data-testid="follow-up-submit" disabled={busy}>
        {busy ? 'Sending…' : 'Send'}
      </button>
      <p className="field-hint composer-hint" id={hintId} data-testid="follow-up-hint">
        {SEND_HINT}
      </p>
      {error !== null && (
        <p className="form-error" role="alert" data-testid="follow-up-error">
          {error}
        </p>
      )}
    </form>
  );
}
