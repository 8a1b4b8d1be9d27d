// One OAuth provider as a card of the Connections gallery: its mark, what it lets the agent do and what undo
// takes back, what connecting needs (said before anything is clicked, from the same setup connect uses), its
// status, and one main button. Where this distribution ships a public client, Connect signs in at once (a code
// to enter on the provider's page where it offers the device sign-in, else the browser). Otherwise Connect opens
// the setup with exactly the provider's fields — the client id, and a client secret only where the provider
// requires one — and a missing field is pointed at where it is filled in. A personal access token is the path
// beside OAuth wherever the provider issues one.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { ConnectionView } from '../../../shared/domain/connections';
import { statusWords } from '../model/connection-forms';
import { PersonalTokenForm } from './personal-token-form';
import './connections-gallery.css';

type SignIn = { url: string; opened: boolean; userCode?: string; verificationUri?: string };
type Field = 'clientId' | 'clientSecret';

/** What connecting needs, in one sentence, before anything is clicked (null when nothing is left to say). */
export function needsLine(c: ConnectionView): string | null {
  const s = c.setup;
  const token = c.personalToken ? ` Or use a ${c.personalToken.label}.` : '';
  if (s.client === 'shipped') {
    return `Connects in one click: you then ${s.flow === 'device' ? `enter a code on ${c.displayName}’s page` : `sign in to ${c.displayName} in your browser`}.${token}`;
  }
  if (s.missing.includes('clientId')) {
    const secret = s.clientSecret === 'required' ? ' and client secret' : '';
    const noSecret = s.clientSecret === 'none' ? '; no client secret' : s.clientSecret === 'optional' ? '; a client secret is optional' : '';
    return `Needs the client id${secret} of an app you register with ${c.displayName}${noSecret}.${token}`;
  }
  if (s.missing.includes('clientSecret')) return `Needs your app’s client secret too: ${c.displayName} requires one.${token}`;
  return null;
}

export function ConnectionRow({ connection: c, onChange }: { connection: ConnectionView; onChange(view: ConnectionView): void }) {
  const [clientId, setClientId] = useState(c.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldError, setFieldError] = useState<{ field: Field; text: string } | null>(null);
  const [signIn, setSignIn] = useState<SignIn | null>(null);
  const [setup, setSetup] = useState(false);
  const [tokenForm, setTokenForm] = useState(false);
  const idInput = useRef<HTMLInputElement>(null);
  const secretInput = useRef<HTMLInputElement>(null);
  const ids = { clientId: useId(), clientSecret: useId(), prompt: useId() };

  const askSecret = c.setup.clientSecret !== 'none';
  const secretRequired = c.setup.clientSecret === 'required';

  // A field to fill is focused where it is filled in.
  useEffect(() => {
    if (!setup || !fieldError) return;
    (fieldError.field === 'clientId' ? idInput : secretInput).current?.focus();
  }, [setup, fieldError]);

  function pointAt(field: Field, text: string): void {
    setSetup(true);
    setTokenForm(false);
    setFieldError({ field, text });
  }

  async function save(event: FormEvent, thenConnect: boolean): Promise<void> {
    event.preventDefault();
    if (thenConnect && clientId.trim() === '') return pointAt('clientId', `Fill in the client id of the app you registered with ${c.displayName}.`);
    if (thenConnect && secretRequired && !c.clientSecretSet && clientSecret === '') {
      return pointAt('clientSecret', `Fill in the app’s client secret: ${c.displayName} requires one.`);
    }
    setBusy(true);
    const result = await window.posthoc.connectionConfigure({
      provider: c.provider,
      clientId: clientId.trim() || undefined,
      clientSecret: !askSecret || clientSecret === '' ? undefined : clientSecret,
    });
    setBusy(false);
    if (!result.ok) return setError(result.error.message);
    setError(null);
    setFieldError(null);
    setClientSecret('');
    setSetup(false);
    onChange(result.value);
    if (thenConnect) await connect(result.value);
  }

  async function connect(view: ConnectionView = c): Promise<void> {
    // Not ready: the setup opens at the first field still to fill, instead of a sign-in that cannot work.
    const missing = view.setup.missing[0];
    if (missing) {
      setSignIn(null);
      return pointAt(missing, missing === 'clientId' ? `Fill in the client id of the app you registered with ${view.displayName}.` : `Fill in the app’s client secret: ${view.displayName} requires one.`);
    }
    setBusy(true);
    setError(null);
    const result = await window.posthoc.connectionConnect({ provider: view.provider });
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
  const notSetUp = c.setup.missing.includes('clientId');
  const device = c.setup.flow === 'device';
  const needs = connected ? null : needsLine(c);
  const fieldNote = (field: Field) =>
    fieldError?.field === field ? (
      <span className="field-error" id={ids[field]} role="alert" data-testid={`connection-field-error-${field}`}>
        {fieldError.text}
      </span>
    ) : null;
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
      {needs && (
        <p className="provider-needs" data-testid="connection-needs">
          {needs}
        </p>
      )}
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
        ) : (
          <button type="button" className="button button-primary button-small" data-testid="connection-connect" disabled={busy} aria-expanded={c.setup.missing.length > 0 ? setup : undefined} onClick={() => void connect()}>
            {c.status === 'connecting' ? 'Connect again' : 'Connect'}
          </button>
        )}
        {c.setup.client !== 'none' && (
          // The person's own app, or one instead of the client this distribution ships (it then takes its place).
          <button type="button" className="button button-small" onClick={() => { setSetup(!setup); setTokenForm(false); }} aria-expanded={setup}>
            {c.setup.client === 'own' ? 'App settings' : 'Use your own app'}
          </button>
        )}
        {!connected && c.personalToken && (
          <button type="button" className="button button-small" data-testid="connection-token-toggle" aria-expanded={tokenForm} onClick={() => { setTokenForm(!tokenForm); setSetup(false); }}>
            Use a token instead
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
      {error && <p className="form-error" role="alert" data-testid="connection-connect-error">{error}</p>}
      {!connected && c.personalToken && (c.tokenServices?.length ?? 0) > 0 && (
        <p className="note" data-testid="connection-token-in-use">
          Your {c.personalToken.label} is in the keychain as {c.personalToken.secretName}; the agent reaches {c.displayName} through {c.tokenServices!.join(' and ')} with it.
        </p>
      )}
      {tokenForm && c.personalToken && (
        <PersonalTokenForm
          connection={c}
          path={c.personalToken}
          onCancel={() => setTokenForm(false)}
          onSaved={(view) => {
            setTokenForm(false);
            onChange(view);
          }}
        />
      )}
      {setup && (
        <form className="connection-setup" onSubmit={(e) => void save(e, notSetUp || c.setup.missing.length > 0)} data-testid="connection-setup" noValidate>
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
              <li>Tick “Enable Device Flow” in its settings. No redirect address and no client secret are needed: you will enter a code on {c.displayName}’s page.</li>
            ) : (
              <li>
                Give it this redirect address: <code data-testid="connection-redirect-uri">{c.redirectUri}</code>{' '}
                <button type="button" className="button button-small" onClick={() => void navigator.clipboard?.writeText(c.redirectUri)}>
                  Copy
                </button>
                {c.redirectUri.endsWith('127.0.0.1/callback') ? ' (any port is accepted).' : '.'}
              </li>
            )}
            <li>Paste the app’s client id here{secretRequired ? `, and its client secret (${c.displayName} requires one)` : ''}.</li>
          </ol>
          <label className="field">
            Client id
            <input
              ref={idInput}
              value={clientId}
              onChange={(e) => setClientId(e.target.value)}
              data-testid="connection-client-id"
              autoComplete="off"
              required
              aria-invalid={fieldError?.field === 'clientId' ? true : undefined}
              aria-describedby={fieldError?.field === 'clientId' ? ids.clientId : undefined}
            />
            {fieldNote('clientId')}
          </label>
          {askSecret && (
            <label className="field">
              Client secret {secretRequired ? `(required by ${c.displayName})` : '(optional)'} {c.clientSecretSet && <span className="key-stored">stored in the keychain</span>}
              <input
                ref={secretInput}
                type="password"
                value={clientSecret}
                onChange={(e) => setClientSecret(e.target.value)}
                autoComplete="off"
                data-testid="connection-client-secret"
                required={secretRequired && !c.clientSecretSet}
                placeholder={c.clientSecretSet ? 'leave empty to keep' : ''}
                aria-invalid={fieldError?.field === 'clientSecret' ? true : undefined}
                aria-describedby={fieldError?.field === 'clientSecret' ? ids.clientSecret : undefined}
              />
              {fieldNote('clientSecret')}
            </label>
          )}
          <div className="form-actions">
            <button type="submit" className="button button-small button-primary" disabled={busy} data-testid="connection-save">
              {notSetUp || c.setup.missing.length > 0 ? 'Save and connect' : 'Save'}
            </button>
            <button type="button" className="button button-small" onClick={() => { setSetup(false); setFieldError(null); }}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </li>
  );
}
