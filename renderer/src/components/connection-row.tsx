// One OAuth provider as a card of the Connections gallery: its mark, what it lets the agent do and what undo
// takes back, its status, and one main button. Connect signs in (a code to enter on the provider's page where it
// offers the device sign-in, else the browser); a provider not set up yet opens a guided setup first: its
// registration page, the exact redirect URI to paste (none for the device sign-in), the client id, then
// Save and connect.
import { useState, type FormEvent } from 'react';
import type { ConnectionView } from '../../../shared/domain/connections';
import { statusWords } from '../model/connection-forms';
import './connections-gallery.css';

type SignIn = { url: string; opened: boolean; userCode?: string; verificationUri?: string };

export function ConnectionRow({ connection: c, onChange }: { connection: ConnectionView; onChange(view: ConnectionView): void }) {
  const [clientId, setClientId] = useState(c.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [signIn, setSignIn] = useState<SignIn | null>(null);
  const [setup, setSetup] = useState(false);

  async function save(event: FormEvent, thenConnect: boolean): Promise<void> {
    event.preventDefault();
    if (thenConnect && clientId.trim() === '') return setError(`Paste the client id of the app you registered with ${c.displayName}.`);
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
    if (thenConnect) await connect();
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
  const notSetUp = c.clientId === null;
  const device = c.deviceFlow === true;
  return (
    <li className="connection-row provider-card" data-testid={`connection-${c.provider}`} data-status={c.status}>
      <div className="provider-card-head">
        <span className={`provider-mark provider-mark-${c.builtIn ? c.provider : 'custom'}`} aria-hidden>
          {c.displayName.charAt(0).toUpperCase()}
        </span>
        <div className="provider-card-title">
          <strong className="connection-name">{c.displayName}</strong>
          <span className={`status-dot status-dot-${connected ? 'done' : c.status === 'connecting' ? 'running' : c.status === 'expired' ? 'failed' : 'cancelled'}`} aria-hidden />
          <span className="connection-status" data-testid="connection-status">
            {notSetUp && c.status === 'not-connected' ? 'not set up' : signIn?.userCode && c.status === 'connecting' ? 'waiting for you to enter the code…' : statusWords[c.status]}
            {c.account ? ` as ${c.account}` : ''}
          </span>
        </div>
      </div>
      <p className="provider-about">{c.about ?? 'Your own OAuth 2 / OpenID provider: define services that use this connection below.'}</p>
      {(connected || c.scopes.length > 0) && (
        <p className="connection-details muted">
          {c.scopes.length > 0 && <>Access: {c.scopes.join(' ')}. </>}
          {c.expiresAt && <>Token until {new Date(c.expiresAt).toLocaleString()}, refreshed automatically. </>}
          {c.services.length > 0 && <>Services: {c.services.join(', ')}.</>}
        </p>
      )}
      <div className="connection-actions provider-card-actions">
        {connected ? (
          <button type="button" className="button button-small" data-testid="connection-disconnect" disabled={busy} onClick={() => void disconnect()}>
            Disconnect
          </button>
        ) : notSetUp ? (
          <button type="button" className="button button-primary button-small" data-testid="connection-connect" disabled={busy} aria-expanded={setup} onClick={() => setSetup(true)}>
            Connect
          </button>
        ) : (
          <button type="button" className="button button-primary button-small" data-testid="connection-connect" disabled={busy} onClick={() => void connect()}>
            {c.status === 'connecting' ? 'Connect again' : 'Connect'}
          </button>
        )}
        {!notSetUp && (
          <button type="button" className="button button-small" onClick={() => setSetup(!setup)} aria-expanded={setup}>
            App settings
          </button>
        )}
      </div>
      {signIn?.userCode && c.status === 'connecting' && (
        <p className="device-note" data-testid="connection-device-code">
          {signIn.opened ? 'In the page that opened, enter the code ' : 'Enter the code '}
          <strong className="device-code">{signIn.userCode}</strong>{' '}
          <button type="button" className="button button-small" onClick={() => void navigator.clipboard?.writeText(signIn.userCode!)}>
            Copy
          </button>{' '}
          at{' '}
          <a href={signIn.url} target="_blank" rel="noopener noreferrer" data-testid="connection-sign-in-link">
            {signIn.verificationUri}
          </a>
          , then allow Posthoc.
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
        <form className="connection-setup" onSubmit={(e) => void save(e, notSetUp)} data-testid="connection-setup">
          <ol className="setup-steps">
            <li>
              Register an app with {c.displayName}
              {c.setupUrl ? (
                <>
                  {' '}at{' '}
                  <a href={c.setupUrl} target="_blank" rel="noopener noreferrer">
                    {c.setupUrl}
                  </a>
                </>
              ) : null}
              .
            </li>
            {device ? (
              <li>Tick “Enable Device Flow” in its settings. No redirect address is needed: you will enter a code on {c.displayName}’s page.</li>
            ) : (
              <li>
                Give it this redirect address: <code data-testid="connection-redirect-uri">{c.redirectUri}</code>{' '}
                <button type="button" className="button button-small" onClick={() => void navigator.clipboard?.writeText(c.redirectUri)}>
                  Copy
                </button>
                {c.redirectUri.endsWith('127.0.0.1/callback') ? ' (any port is accepted).' : '.'}
              </li>
            )}
            <li>Paste the app’s client id here{c.needsClientSecret && !device ? ', and its client secret' : ''}.</li>
          </ol>
          <label className="field">
            Client id
            <input value={clientId} onChange={(e) => setClientId(e.target.value)} data-testid="connection-client-id" autoComplete="off" />
          </label>
          {!device && (
            <label className="field">
              Client secret {c.needsClientSecret ? `(${c.displayName} asks for one)` : '(optional)'} {c.clientSecretSet && <span className="key-stored">stored in the keychain</span>}
              <input type="password" value={clientSecret} onChange={(e) => setClientSecret(e.target.value)} autoComplete="off" placeholder={c.clientSecretSet ? 'leave empty to keep' : ''} />
            </label>
          )}
          <div className="form-actions">
            <button type="submit" className="button button-small button-primary" disabled={busy} data-testid="connection-save">
              {notSetUp ? 'Save and connect' : 'Save'}
            </button>
            <button type="button" className="button button-small" onClick={() => setSetup(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </li>
  );
}
