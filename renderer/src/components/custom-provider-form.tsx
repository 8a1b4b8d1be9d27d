// Add your own OAuth 2 / OpenID provider: by its issuer (discovery) or its endpoints, and your client id.
import { useState, type FormEvent } from 'react';
import type { ConnectionView } from '../../../shared/domain/connections';

export function CustomProviderForm({ onSaved }: { onSaved(view: ConnectionView): void }) {
  const [provider, setProvider] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [issuer, setIssuer] = useState('');
  const [authorizationUrl, setAuthorizationUrl] = useState('');
  const [tokenUrl, setTokenUrl] = useState('');
  const [clientId, setClientId] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    const result = await window.posthoc.connectionConfigure({
      provider: provider.trim(),
      displayName: displayName.trim() || undefined,
      clientId: clientId.trim() || undefined,
      issuer: issuer.trim() || undefined,
      authorizationUrl: authorizationUrl.trim() || undefined,
      tokenUrl: tokenUrl.trim() || undefined,
    });
    if (!result.ok) return setError(result.error.message);
    setError(null);
    setProvider('');
    setDisplayName('');
    setIssuer('');
    setAuthorizationUrl('');
    setTokenUrl('');
    setClientId('');
    onSaved(result.value);
  }

  return (
    <form className="custom-provider-form" onSubmit={(e) => void submit(e)} data-testid="custom-provider-form">
      <div className="field-row">
        <label className="field">
          Name
          <input value={provider} onChange={(e) => setProvider(e.target.value)} placeholder="acme" data-testid="custom-provider-name" />
        </label>
        <label className="field">
          Shown as
          <input value={displayName} onChange={(e) => setDisplayName(e.target.value)} placeholder="Acme ID" data-testid="custom-provider-display" />
        </label>
        <label className="field">
          Client id
          <input value={clientId} onChange={(e) => setClientId(e.target.value)} data-testid="custom-provider-client-id" />
        </label>
      </div>
      <label className="field">
        Issuer (OpenID Connect discovery)
        <input value={issuer} onChange={(e) => setIssuer(e.target.value)} placeholder="https://id.example.com" data-testid="custom-provider-issuer" />
      </label>
      <div className="field-row">
        <label className="field">
          …or authorization URL
          <input value={authorizationUrl} onChange={(e) => setAuthorizationUrl(e.target.value)} />
        </label>
        <label className="field">
          and token URL
          <input value={tokenUrl} onChange={(e) => setTokenUrl(e.target.value)} />
        </label>
      </div>
      {error && <p className="form-error" role="alert" data-testid="custom-provider-error">{error}</p>}
      <div className="form-actions">
        <button type="submit" className="button" data-testid="custom-provider-submit">
          Add provider
        </button>
      </div>
    </form>
  );
}
