// Define a service the sandbox may call: where it lives, how the gateway authenticates it (a secret's
// name or an OAuth connection, never a value), whose provider data says how its calls are undone, and
// the person's rules for its calls.
import { useState, type FormEvent } from 'react';
import type { ConnectionView } from '../../../shared/domain/connections';
import { serviceInput, type ServiceFormFields } from '../model/connection-forms';
import { RulePresets, type RuleLines } from './rule-presets';

const APIS = ['slack', 'github', 'gmail', 'spotify', 'dropbox', 'dropbox-content', 'discord'];

const empty: ServiceFormFields = {
  name: '', baseUrl: '', auth: 'bearer', secret: '', authName: '', provider: '', api: '', allow: '', bodyRules: '', hold: '', sends: '', outside: 'refuse', irreversible: 'allow',
};

/** A credential the service would send to an origin it is not bound to: the person must say yes first. */
type OriginQuestion = { credential: string; origin: string; detail: string };

export function ServiceForm({ connections, onSaved }: { connections: ConnectionView[]; onSaved(): void }) {
  const [f, setF] = useState<ServiceFormFields>(empty);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [question, setQuestion] = useState<OriginQuestion | null>(null);
  const [rulesOpen, setRulesOpen] = useState(false);
  const set = <K extends keyof ServiceFormFields>(key: K) => (value: ServiceFormFields[K]) => {
    // What the person confirmed was this service at this origin; any change asks again.
    setQuestion(null);
    setF({ ...f, [key]: value });
  };

  async function save(allowSecretOrigin: boolean): Promise<void> {
    const input = serviceInput(f);
    if (!input.ok) return setError(input.error);
    const result = await window.posthoc.serviceAdd({ ...input.value, ...(allowSecretOrigin ? { allowSecretOrigin } : {}) });
    if (!result.ok) {
      // 'forbidden' is the one refusal the person can lift: the credential is bound to other origins.
      if (result.error.code === 'forbidden' && !allowSecretOrigin) {
        setError(null);
        return setQuestion({ credential: credentialName(f), origin: originOf(f.baseUrl), detail: result.error.message });
      }
      setQuestion(null);
      return setError(result.error.message);
    }
    setError(null);
    setQuestion(null);
    setSaved(`Saved ${result.value.name}: the sandbox reaches it at $POSTHOC_GATEWAY/svc/${result.value.name}/…`);
    setF(empty);
    setRulesOpen(false);
    onSaved();
  }

  /** A preset's lines, added under what is there, and shown. */
  function addRules(lines: Partial<RuleLines>): void {
    setQuestion(null);
    const joined = (key: keyof RuleLines) => [f[key].trim(), lines[key] ?? ''].filter(Boolean).join('\n');
    setF({ ...f, allow: joined('allow'), bodyRules: joined('bodyRules'), hold: joined('hold') });
    setRulesOpen(true);
  }

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    await save(false);
  }

  const text = (key: keyof ServiceFormFields, label: string, hint: string, testId: string) => (
    <label className="field">
      {label}
      <textarea rows={2} value={String(f[key])} onChange={(e) => set(key)(e.target.value as never)} data-testid={testId} spellCheck={false} />
      <span className="field-hint">{hint}</span>
    </label>
  );

  return (
    <form className="service-form" onSubmit={(e) => void submit(e)} data-testid="service-form">
      <div className="field-row">
        <label className="field">
          Name
          <input value={f.name} onChange={(e) => set('name')(e.target.value)} data-testid="service-name" placeholder="github" />
        </label>
        <label className="field">
          Base URL
          <input value={f.baseUrl} onChange={(e) => set('baseUrl')(e.target.value)} data-testid="service-base-url" placeholder="https://api.github.com" />
        </label>
      </div>
      <div className="field-row">
        <label className="field">
          Credentials
          <select value={f.auth} onChange={(e) => set('auth')(e.target.value as ServiceFormFields['auth'])} data-testid="service-auth">
            <option value="bearer">API key as a bearer token</option>
            <option value="header">API key in a header</option>
            <option value="query">API key in a query parameter</option>
            <option value="oauth">An OAuth connection</option>
            <option value="none">None</option>
          </select>
        </label>
        {(f.auth === 'header' || f.auth === 'query') && (
          <label className="field">
            {f.auth === 'header' ? 'Header' : 'Parameter'}
            <input value={f.authName} onChange={(e) => set('authName')(e.target.value)} placeholder={f.auth === 'header' ? 'X-Api-Key' : 'api_key'} />
          </label>
        )}
        {(f.auth === 'bearer' || f.auth === 'header' || f.auth === 'query') && (
          <label className="field">
            Secret name
            <input value={f.secret} onChange={(e) => set('secret')(e.target.value)} data-testid="service-secret" placeholder="github-token" />
          </label>
        )}
        {f.auth === 'oauth' && (
          <label className="field">
            Connection
            <select value={f.provider} onChange={(e) => set('provider')(e.target.value)} data-testid="service-provider">
              <option value="">Pick one…</option>
              {connections.map((c) => (
                <option key={c.provider} value={c.provider}>
                  {c.displayName} ({c.provider}){c.status === 'connected' ? '' : ' — not connected'}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="field">
          Undo rules from
          <select value={f.api} onChange={(e) => set('api')(e.target.value)} data-testid="service-api">
            <option value="">Guess from the name</option>
            <option value="none">None (calls are irreversible)</option>
            {APIS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
      </div>
      <fieldset className="rules-fieldset">
        <legend>Rules</legend>
        <p className="field-hint">Without rules the agent may make any call; each is on the action's card, and undo takes back those it knows how to.</p>
        <RulePresets api={f.api} name={f.name} onAdd={addRules} />
        <details open={rulesOpen} onToggle={(e) => setRulesOpen(e.currentTarget.open)} data-testid="service-rules-text">
          <summary>Rules as text</summary>
          {text('allow', 'Allowed calls', 'One per line, METHOD /path/glob ("*" one segment, "**" any). Empty: every call.', 'service-allow')}
          {text('bodyRules', 'Body rules', 'METHOD /path FIELD=V1,V2 (only these values) or METHOD /path FIELD@=example.com (mail only to these domains).', 'service-body-rules')}
          {text('hold', 'Held for your approval', 'Calls that always wait for you, one per line.', 'service-hold')}
          {text('sends', 'Sends that can never be taken back', 'They wait 30 s before they leave; you can cancel them on the card until then.', 'service-sends')}
        </details>
      </fieldset>
      <div className="field-row">
        <label className="field">
          Calls outside these rules
          <select value={f.outside} onChange={(e) => set('outside')(e.target.value as 'refuse' | 'hold')}>
            <option value="refuse">are refused</option>
            <option value="hold">wait for my approval</option>
          </select>
        </label>
        <label className="field">
          Changes nobody can take back
          <select value={f.irreversible} onChange={(e) => set('irreversible')(e.target.value as 'allow' | 'hold' | 'refuse')}>
            <option value="allow">run, and the card says so</option>
            <option value="hold">wait for my approval</option>
            <option value="refuse">are refused</option>
          </select>
        </label>
      </div>
      {question && (
        <div className="form-confirm" role="alertdialog" aria-labelledby="origin-question" data-testid="service-origin-confirm">
          <p id="origin-question">
            <strong>Send {question.credential} to {question.origin}?</strong> It has only gone elsewhere until now. Whoever runs{' '}
            {question.origin} will receive it with every call; say yes only if you trust that server with it.
          </p>
          <p className="field-hint">{question.detail}</p>
          <div className="form-actions">
            <button type="button" className="button" onClick={() => setQuestion(null)} data-testid="service-origin-cancel">
              Cancel
            </button>
            <button type="button" className="button button-danger" onClick={() => void save(true)} data-testid="service-origin-allow">
              Send it to {question.origin}
            </button>
          </div>
        </div>
      )}
      {error && <p className="form-error" role="alert" data-testid="service-error">{error}</p>}
      {saved && <p className="form-ok" role="status">{saved}</p>}
      <div className="form-actions">
        <button type="submit" className="button button-primary" data-testid="service-submit">
          Save service
        </button>
      </div>
    </form>
  );
}

function credentialName(f: ServiceFormFields): string {
  return f.auth === 'oauth' ? `the ${f.provider} connection's token` : `the secret "${f.secret.trim()}"`;
}

function originOf(url: string): string {
  try {
    return new URL(url.trim()).origin;
  } catch {
    return url.trim();
  }
}
