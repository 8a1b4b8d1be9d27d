// Secrets in the OS keychain, by name and kind. A value can be stored or replaced here; it is never
// shown, and never comes back from main.
import { useState, type FormEvent } from 'react';
import type { SecretEntry } from '../../../shared/domain/connections';

export function SecretsPanel({ secrets, onChange }: { secrets: SecretEntry[] | string; onChange(): void }) {
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function store(event: FormEvent): Promise<void> {
    event.preventDefault();
    const result = await window.posthoc.secretSet({ name: name.trim(), value });
    if (!result.ok) return setError(result.error.message);
    setError(null);
    setName('');
    setValue('');
    onChange();
  }

  async function remove(entry: string): Promise<void> {
    const result = await window.posthoc.secretRemove({ name: entry });
    setError(result.ok ? null : result.error.message);
    onChange();
  }

  return (
    <div data-testid="secrets">
      {typeof secrets === 'string' ? (
        <p className="status-problem">{secrets}</p>
      ) : secrets.length === 0 ? (
        <p className="muted">No secrets yet.</p>
      ) : (
        <ul className="secret-list" data-testid="secret-list">
          {secrets.map((s) => (
            <li key={s.name}>
              {describeSecret(s)}{' '}
              {!s.name.startsWith('oauth:') && s.kind !== 'llm-api-key' && (
                <button type="button" className="button button-small" onClick={() => void remove(s.name)}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <form className="field-row" onSubmit={(e) => void store(e)}>
        <label className="field">
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="github-token" data-testid="secret-name" autoComplete="off" />
        </label>
        <label className="field">
          Value
          <input type="password" value={value} onChange={(e) => setValue(e.target.value)} data-testid="secret-value" autoComplete="off" />
        </label>
        <div className="form-actions">
          <button type="submit" className="button" data-testid="secret-submit" disabled={!name.trim() || !value}>
            Store in keychain
          </button>
        </div>
      </form>
      {error && <p className="form-error" role="alert">{error}</p>}
    </div>
  );
}

/** A keychain entry in plain words: Posthoc's own entries by what they are, the person's by the name they gave. */
function describeSecret(entry: SecretEntry) {
  const oauth = /^oauth:([^:]+):/.exec(entry.name);
  switch (entry.kind) {
    case 'llm-api-key': {
      const provider = entry.name.split(':')[1];
      return <span>{provider ? <>The API key of the model provider <code>{provider}</code></> : "The model's API key"}</span>;
    }
    case 'oauth-access-token':
      return <span>Sign-in token for {oauth?.[1] ?? 'a service'}</span>;
    case 'oauth-refresh-token':
      return <span>Token that renews the sign-in to {oauth?.[1] ?? 'a service'}</span>;
    case 'oauth-client-secret':
      return <span>App secret for signing in to {oauth?.[1] ?? 'a service'}</span>;
    case 'database-password':
      return (
        <span>
          <code>{entry.name}</code> <span className="muted">database password</span>
        </span>
      );
    default:
      return (
        <span>
          <code>{entry.name}</code> <span className="muted">secret</span>
        </span>
      );
  }
}
