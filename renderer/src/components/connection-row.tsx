// One OAuth provider on the Connections page: status, account, scopes and expiry; the client the person
// registered (the redirect URI to give the provider); Connect and Disconnect.
import { useState, type FormEvent } from 'react';
import type { ConnectionView } from '../../../shared/domain/connections';
import { statusWords } from '../model/connection-forms';

export function ConnectionRow({ connection: c, onChange }: { connection: ConnectionView; onChange(view: ConnectionView): void }) {
  const [clientId, setClientId] = useState(c.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [signIn, setSignIn] = useState<{ url: string; opened: boolean; userCode?: string; verificationUri?: string } | null>(null);
  const [setup, setSetup] = useState(false);

  async function save(event: FormEvent): Promise<void> {
    event.preventDefault();
    setBusy(true);
    const result = await window.posthoc.connectionConfigure({
      provider: c.provider,
      clientId: clientId.trim() || undefined,
      clientSecret: clientSecret === '' ? undefined : clientSecret,
    });
    setBusy(false);
    if (!result.ok) return setError(result.error.message);
    setError(null);
    setClientSecret('');
    setSetup(false);
    onChange(result.value);
  }

  async function connect(): Promise<void> {
    setBusy(true);
    setError(null);
    const result = await window.posthoc.connectionConnect({ provider: c.provider });
    setBusy(false);
    if (!result.ok) return setError(result.error.message);
    const { authorizationUrl, opened, userCode, verificationUri } = result.value;
    setSignIn({ url: authorizationUrl, opened, userCode, verificationUri });
  }

  async function disconnect(): Promise<void> {
    setBusy(true);
    const result = await window.posthoc.connectionDisconnect({ provider: c.provider });
    setBusy(false);
    setSignIn(null);
    if (!result.ok) return setError(result.error.message);
    onChange(result.value);
  }

  const connected = c.status === 'connected';
  return (
    <li className="connection-row" data-testid={`connection-${c.provider}`} data-status={c.status}>
      <div className="connection-main">
        <span className={`status-dot status-dot-${connected ? 'done' : c.status === 'connecting' ? 'running' : c.status === 'expired' ? 'failed' : 'cancelled'}`} aria-hidden />
        <strong className="connection-name">{c.displayName}</strong>
        <span className="connection-status" data-testid="connection-status">
          {c.clientId === null && c.status === 'not-connected' ? 'not set up: register an app, then give its client id' : statusWords[c.status]}
          {c.account ? ` as ${c.account}` : ''}
        </span>
        <span className="connection-actions">
          {c.clientId !== null && !connected && (
            <button type="button" className="button button-primary button-small" data-testid="connection-connect" disabled={busy} onClick={() => void connect()}>
              {c.status === 'connecting' ? 'Connect again' : 'Connect'}
            </button>
          )}
          {connected && (
            <button type="button" className="button button-small" data-testid="connection-disconnect" disabled={busy} onClick={() => void disconnect()}>
              Disconnect
            </button>
          )}
          <button type="button" className="button button-small" onClick={() => setSetup(!setup)} aria-expanded={setup}>
            Set up
          </button>
        </span>
      </div>
      {(connected || c.scopes.length > 0) && (
        <p className="connection-details muted">
          {c.scopes.length > 0 && <>Scopes: {c.scopes.join(' ')}. </>}
          {c.expiresAt && <>Token until {new Date(c.expiresAt).toLocaleString()}, refreshed automatically. </>}
          {c.services.length > 0 && <>Services: {c.services.join(', ')}.</>}
        </p>
      )}
      {signIn?.userCode && c.status === 'connecting' && (
        <p className="note" data-testid="connection-device-code">
          {signIn.opened ? 'In the page that opened, enter the code ' : 'Enter the code '}
          <strong className="device-code">{signIn.userCode}</strong>{' '}
          <button type="button" className="button button-small" onClick={() => void navigator.clipboard?.writeText(signIn.userCode!)}>
            Copy
          </button>{' '}
          at{' '}
          <a href={signIn.url} target="_blank" rel="noopener noreferrer" data-testid="connection-sign-in-link">
            {signIn.verificationUri}
          </a>
          , then allow Posthoc. No redirect address is needed.
        </p>
      )}
      {signIn && !signIn.userCode && c.status === 'connecting' && (
        <p className="note" data-testid="connection-sign-in">
          {signIn.opened ? 'Finish signing in in your browser. ' : 'Sign in here: '}
          <a href={signIn.url} target="_blank" rel="noopener noreferrer" data-testid="connection-sign-in-link">
            open the {c.displayName} sign-in page
          </a>
        </p>
      )}
      {c.error && <p className="note note-warn" data-testid="connection-error">{c.error}</p>}
      {error && <p className="form-error" role="alert">{error}</p>}
      {setup && (
        <form className="connection-setup" onSubmit={(e) => void save(e)}>
          <p className="field-hint">
            Register an app{c.setupUrl ? <> at <code>{c.setupUrl}</code></> : ' with the provider'} with the redirect URI <code>{c.redirectUri}</code>
            {c.redirectUri.endsWith('127.0.0.1/callback') ? ' (any port)' : ''}, then give Posthoc its client id. See docs/CONNECTIONS.md.
          </p>
          <label className="field">
            Client id
            <input value={clientId} onChange={(e) => setClientId(e.target.value)} data-testid="connection-client-id" autoComplete="off" />
          </label>
          <label className="field">
            Client secret {c.needsClientSecret ? '(this provider insists on one)' : '(optional)'} {c.clientSecretSet && <span className="key-stored">stored in the keychain</span>}
            <input type="password" value={clientSecret} onChange={(e) => setClientSecret(e.target.value)} autoComplete="off" placeholder={c.clientSecretSet ? 'leave empty to keep' : ''} />
          </label>
          <div className="form-actions">
            <button type="submit" className="button button-small" disabled={busy} data-testid="connection-save">
              Save
            </button>
          </div>
        </form>
      )}
    </li>
  );
}
