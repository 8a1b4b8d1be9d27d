// Ask more of a finished task: the agent continues with the same folders and the whole conversation.
import { useState } from 'react';
import { appActions } from '../state/app-store';
import { submitHandlers } from './submit-handlers';

export function FollowUpForm({ taskId }: { taskId: string }) {
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
        aria-label="Follow-up"
        data-testid="follow-up-input"
        rows={2}
        placeholder="Ask for more, or correct the agent…"
        value={prompt}
        onChange={(e) => setPrompt(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <button type="submit" className="button button-primary" data-testid="follow-up-submit" disabled={busy}>
        {busy ? 'Sending…' : 'Send'}
      </button>
      {error !== null && (
        <p className="form-error" role="alert" data-testid="follow-up-error">
          {error}
        </p>
      )}
    </form>
  );
}
