// Connections: accounts connected with OAuth (Connect, status, account, scopes, Disconnect), the services
// the sandbox may call with their credentials and rules, and the secrets in the keychain, by name only.
import { useCallback, useEffect, useState } from 'react';
import type { ServiceDefinition } from '../../../shared/domain';
import type { ConnectionView, SecretEntry } from '../../../shared/domain/connections';
import { ConnectionRow } from './connection-row';
import { CustomProviderForm } from './custom-provider-form';
import { McpServers } from './mcp-servers';
import { SecretsPanel } from './secrets-panel';
import { ServiceForm } from './service-form';

function describeAuth(s: ServiceDefinition): string {
  const a = s.auth;
  if (!a || a.kind === 'none') return 'no credentials';
  switch (a.kind) {
    case 'bearer':
      return `bearer token from ${a.secret}`;
    case 'header':
      return `header ${a.header} from ${a.secret}`;
    case 'query':
      return `query ${a.param} from ${a.secret}`;
    case 'oauth':
      return `OAuth connection ${a.provider}`;
  }
}

export function ConnectionsPage() {
  const [connections, setConnections] = useState<ConnectionView[]>([]);
  const [services, setServices] = useState<ServiceDefinition[]>([]);
  const [secrets, setSecrets] = useState<SecretEntry[] | string>([]);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const [c, s, k] = await Promise.all([window.posthoc.connectionList({}), window.posthoc.serviceList({}), window.posthoc.secretList({})]);
    if (c.ok) setConnections(c.value);
    else setError(c.error.message);
    if (s.ok) setServices(s.value);
    setSecrets(k.ok ? k.value : k.error.message);
  }, []);

  useEffect(() => {
    void load();
    const offs = [
      window.posthoc.on('connection:updated', (view) => {
        setConnections((list) => (list.some((c) => c.provider === view.provider) ? list.map((c) => (c.provider === view.provider ? view : c)) : [...list, view]));
        void window.posthoc.serviceList({}).then((r) => r.ok && setServices(r.value));
      }),
      // A service, secret or connection changed from the CLI shows at once.
      window.posthoc.on('store:changed', () => void load()),
    ];
    return () => offs.forEach((off) => off());
  }, [load]);

  const replace = (view: ConnectionView) =>
    setConnections((list) => (list.some((c) => c.provider === view.provider) ? list.map((c) => (c.provider === view.provider ? view : c)) : [...list, view]));

  async function removeService(name: string): Promise<void> {
    await window.posthoc.serviceRemove({ name });
    void load();
  }

  return (
    <div className="page connections-page" data-testid="connections-page">
      <h1>Connections</h1>
      <p className="muted">
        The agent never sees a key or a token: the gateway adds them to each call on its way out, checks the call against your rules,
        and redacts them from everything that comes back. Tokens and keys stay in the OS keychain.
      </p>
      {error && <p className="form-error" role="alert">{error}</p>}
      <section className="panel">
        <h2>Accounts</h2>
        <p className="muted">Connect an account and the agent can use its API; each card says what it may do and what undo takes back.</p>
        <ul className="connection-list provider-gallery" data-testid="connection-list">
          {connections.map((c) => (
            <ConnectionRow key={c.provider} connection={c} onChange={replace} />
          ))}
        </ul>
        <details className="add-provider">
          <summary>Add your own OAuth 2 / OpenID provider</summary>
          <CustomProviderForm onSaved={replace} />
        </details>
      </section>
      <section className="panel">
        <h2>Services the agent may call</h2>
        {services.length === 0 ? (
          <p className="muted">None yet. Connecting Slack, GitHub, Google, Spotify, Dropbox or Discord adds theirs; add any REST API below.</p>
        ) : (
          <ul className="service-list" data-testid="service-list">
            {services.map((s) => (
              <li key={s.name} data-testid={`service-${s.name}`}>
                <code>{s.name}</code> <span className="muted">{s.baseUrl}</span> · {describeAuth(s)}
                {s.api ? ` · undo rules: ${s.api}` : ' · no undo rules'}
                {s.rules && s.rules.allow.length > 0 && ` · only ${s.rules.allow.map((p) => `${p.method} ${p.path}`).join(', ')}`}
                {s.rules && s.rules.body.length > 0 && ` · ${s.rules.body.length === 1 ? '1 body rule' : `${s.rules.body.length} body rules`}`}{' '}
                <button type="button" className="button button-small" onClick={() => void removeService(s.name)}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        )}
        <details className="add-service" data-testid="add-service">
          <summary>Add a service</summary>
          <ServiceForm connections={connections} onSaved={() => void load()} />
        </details>
      </section>
      <McpServers />
      <section className="panel">
        <h2>Secrets</h2>
        <SecretsPanel secrets={secrets} onChange={() => void load()} />
      </section>
    </div>
  );
}
