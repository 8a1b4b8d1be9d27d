// The path beside OAuth, on a provider's card: a personal access token (GitHub's fine-grained token, Slack's bot
// or user token, Discord's bot token, Dropbox's generated token) pasted once and sent to main (connection:token),
// which stores it in the keychain bound to the provider's API origins and defines the provider's services to send
// it. The value never comes back.
import { useId, useState, type FormEvent } from 'react';
import type { ConnectionView, PersonalTokenPath } from '../../../shared/domain/connections';

export function PersonalTokenForm({ connection: c, path, onSaved, onCancel }: { connection: ConnectionView; path: PersonalTokenPath; onSaved(view: ConnectionView): void; onCancel(): void }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const errorId = useId();
  const label = path.label.charAt(0).toUpperCase() + path.label.slice(1);

  async function save(event: FormEvent): Promise<void> {
    event.preventDefault();
    if (!token.trim()) return setError(`Paste the ${path.label} here.`);
    setBusy(true);
    const result = await window.posthoc.connectionToken({ provider: c.provider, token: token.trim() });
    setBusy(false);
    if (!result.ok) return setError(result.error.message);
    setToken('');
    onSaved(result.value);
  }

  return (
    <form className="connection-setup token-form" onSubmit={(e) => void save(e)} data-testid="connection-token-form">
      <p className="setup-hint">
        Create one at{' '}
        <a href={path.createUrl} target="_blank" rel="noopener noreferrer">
          {path.createUrl}
        </a>
        . {path.hint}
      </p>
      <label className="field">
        {label}
        <input
          type="password"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          autoComplete="off"
          autoFocus
          data-testid="connection-token"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
        />
      </label>
      {error && (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="button button-small button-primary" disabled={busy} data-testid="connection-token-save">
          Save token
        </button>
        <button type="button" className="button button-small" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
