// Settings → Model providers: Test connection (the provider's models, and whether the model answers, in plain
// words), providers saved besides the default one (added from the gallery, provider-gallery.tsx: Anthropic,
// Gemini, Ollama, … or any OpenAI-compatible URL; each key in the OS keychain; a model menu from its list),
// and how the agent acts and what it may spend: the protocol, a default budget, prices per model.
import { useId, useState } from 'react';
import type { Result } from '../../../shared/contract';
import type { LlmProvider, ProviderCheck, ProviderSettings } from '../../../shared/domain';
import type { SettingsValues } from '../../../shared/settings';
import { appActions } from '../state/app-store';
import { catalogProvider, PROVIDER_CATALOG } from '../../../shared/providers/catalog';
import { AddFromGallery, ModelMenu, modelLabel } from './provider-gallery';

async function call<T>(fn: () => Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await fn();
  } catch (error) {
    return { ok: false, error: { code: 'internal', message: error instanceof Error ? error.message : String(error) } };
  }
}

/** Test connection for one provider (undefined: the default one), with the models it lists. */
function TestConnection({ provider, onModel }: { provider?: string; onModel?: (model: string) => void }) {
  const [check, setCheck] = useState<Result<ProviderCheck> | null>(null);
  const [busy, setBusy] = useState(false);
  async function test(): Promise<void> {
    setBusy(true);
    setCheck(await call(() => window.posthoc.providerTest(provider === undefined ? {} : { provider })));
    setBusy(false);
  }
  const result = check === null ? null : check.ok ? check.value : { ok: false, message: check.error.message, models: [] };
  return (
    <div className="provider-test" data-testid="provider-test">
      <button type="button" className="button button-small" disabled={busy} onClick={() => void test()} data-testid="provider-test-button">
        {busy ? 'Testing…' : 'Test connection'}
      </button>
      {result && (
        <p className={result.ok ? 'muted' : 'form-error'} role={result.ok ? 'status' : 'alert'} data-testid="provider-test-result">
          {result.message}
        </p>
      )}
      {result && result.models.length > 0 && onModel && (
        <select
          aria-label="Use a listed model"
          value=""
          onChange={(e) => {
            if (e.target.value) onModel(e.target.value);
          }}
          data-testid="provider-models"
        >
          <option value="">Use one of the {result.models.length} listed models…</option>
          {result.models.map((m) => (
            <option key={m} value={m}>
              {modelLabel(m, null)}
            </option>
          ))}
        </select>
      )}
    </div>
  );
}

function SavedProvider({ provider, onChange }: { provider: LlmProvider; onChange: (list: LlmProvider[]) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [key, setKey] = useState('');
  // A new key makes what Test connection said about the old one stale: it starts afresh.
  const [keySaves, setKeySaves] = useState(0);
  async function update(input: { model?: string; apiKey?: string } | 'remove'): Promise<void> {
    const result =
      input === 'remove'
        ? await call(() => window.posthoc.providerRemove({ id: provider.id }))
        : await call(() => window.posthoc.providerSave({ id: provider.id, name: provider.name, baseUrl: provider.baseUrl, ...input }));
    if (result.ok) onChange(result.value);
    setError(result.ok ? null : result.error.message);
  }
  const entry = catalogProvider(provider.catalog);
  const keyNote = entry?.local ? 'no key needed' : provider.apiKeySet ? 'key in the keychain' : entry?.needsKey ? 'no key yet: add it below' : 'no key';
  return (
    <li className="saved-provider" data-testid="saved-provider" data-provider-id={provider.id}>
      <div>
        <strong>{provider.name}</strong>{' '}
        <span className="muted" title="Its name on the command line">
          (posthoc run --provider {provider.id})
        </span>{' '}
        · {entry && entry.name !== provider.name && entry.id !== 'openai-compatible' ? `${entry.name} · ` : ''}
        {provider.baseUrl ?? 'the OpenAI API'} · <span className={provider.apiKeySet || entry?.local ? undefined : 'muted'}>{keyNote}</span>
      </div>
      <ModelMenu provider={provider} onChoose={(model) => update({ model })} />
      {!entry?.local && (
        <details className="provider-key" data-testid="provider-change-key">
          <summary>{provider.apiKeySet ? 'Replace its key' : 'Add its key'}</summary>
          <form
            className="model-typed"
            onSubmit={(e) => {
              e.preventDefault();
              if (key.trim())
                void update({ apiKey: key.trim() }).then(() => {
                  setKey('');
                  setKeySaves((n) => n + 1);
                });
            }}
          >
            <input
              type="password"
              value={key}
              onChange={(e) => setKey(e.target.value)}
              aria-label={`${provider.name} API key`}
              autoComplete="off"
              spellCheck={false}
              data-testid="provider-new-key"
            />
            <button type="submit" className="button button-small" disabled={key.trim() === ''} data-testid="provider-save-key">
              Save key
            </button>
          </form>
          {entry?.needsKey && (
            <p className="field-hint">
              Get one at{' '}
              <a href={entry.keyUrl} target="_blank" rel="noopener noreferrer">
                {new URL(entry.keyUrl).host}
              </a>
              ; it goes to the OS keychain.
            </p>
          )}
        </details>
      )}
      <div className="provider-actions">
        <TestConnection key={keySaves} provider={provider.id} />
        <button type="button" className="button button-small" onClick={() => void update('remove')} data-testid="provider-remove">
          Remove
        </button>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

export function ModelProviders({ settings }: { settings: ProviderSettings }) {
  const [providers, setList] = useState<LlmProvider[]>(settings.providers ?? []);
  // The new-task form offers them from the app's settings: reload those too.
  const setProviders = (list: LlmProvider[]) => {
    setList(list);
    void appActions.loadSettings();
  };
  return (
    <div className="model-providers" data-testid="model-providers">
      <h3>The provider above</h3>
      <TestConnection onModel={(model) => void appActions.updateSettings({ model })} />
      <h3>More providers</h3>
      <p className="muted">
        Each one is chosen per task (in the new-task form, or posthoc run --provider ID); a task keeps its provider. Its model is chosen from the
        provider’s own list.
      </p>
      {providers.length > 0 && (
        <ul className="saved-providers">
          {providers.map((p) => (
            <SavedProvider key={p.id} provider={p} onChange={setProviders} />
          ))}
        </ul>
      )}
      <h3>Add a provider</h3>
      <AddFromGallery onAdded={(list) => setProviders(list)} />
    </div>
  );
}

/** The protocol, a default budget per task, and prices per model (USD per 1M tokens; the person's over the built-in ones). */
export function SpendingSettings({ values }: { values: SettingsValues }) {
  const id = useId();
  const [budget, setBudget] = useState(values.budget.value ?? '');
  const [model, setModel] = useState('');
  const [prompt, setPrompt] = useState('');
  const [completion, setCompletion] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  async function save(input: Parameters<typeof appActions.updateSettings>[0]): Promise<void> {
    const result = await appActions.updateSettings(input);
    setMessage(result.ok ? { ok: true, text: 'Saved.' } : { ok: false, text: result.error.message });
  }
  const prices = Object.entries(values.prices.value).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div className="spending-settings" data-testid="spending-settings">
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${id}-protocol`}>How the model acts</label>
          <select id={`${id}-protocol`} value={values.protocol.value} onChange={(e) => void save({ protocol: e.target.value as SettingsValues['protocol']['value'] })}>
            <option value="fenced">Code in its reply (fenced blocks, &lt;execute&gt;)</option>
            <option value="tools">The run_code tool (native tool calls)</option>
            <option value="auto">Tool calls when the provider takes them</option>
          </select>
        </div>
        <form
          className="field"
          onSubmit={(e) => {
            e.preventDefault();
            void save({ budget: budget.trim() === '' ? null : budget.trim() });
          }}
        >
          <label htmlFor={`${id}-budget`}>Budget per task</label>
          <input type="text" id={`${id}-budget`} value={budget} onChange={(e) => setBudget(e.target.value)} placeholder="50000 tokens, or $0.50" data-testid="settings-budget" />
          <p className="field-hint">A task stops once it used this much (--budget overrides it). Empty: no budget.</p>
        </form>
      </div>
      <p className="field-hint price-sources" data-testid="price-sources">
        Built-in prices (USD per 1M tokens) as each provider published them, on the day given:{' '}
        {PROVIDER_CATALOG.filter((p) => p.models.length > 0).map((p, i, all) => (
          <span key={p.id}>
            <a href={p.pricing.url} target="_blank" rel="noopener noreferrer">
              {p.name}
            </a>{' '}
            ({p.pricing.asOf}){i < all.length - 1 ? ', ' : '. '}
          </span>
        ))}
        Yours, set below, win over them.
      </p>
      <table className="prices" data-testid="prices">
        <thead>
          <tr>
            <th>Model</th>
            <th>$ per 1M prompt tokens</th>
            <th>$ per 1M completion tokens</th>
          </tr>
        </thead>
        <tbody>
          {prices.map(([name, price]) => (
            <tr key={name}>
              <td>
                <code>{name}</code>
              </td>
              <td>{price.promptPerMTok}</td>
              <td>{price.completionPerMTok}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        className="form-actions"
        onSubmit={(e) => {
          e.preventDefault();
          const p = Number(prompt);
          const c = Number(completion);
          if (model.trim() === '' || !Number.isFinite(p) || !Number.isFinite(c) || p < 0 || c < 0 || prompt === '' || completion === '') {
            setMessage({ ok: false, text: 'Give the model and both prices (dollars per million tokens, 0 for a free local model).' });
            return;
          }
          void save({ prices: { [model.trim()]: { promptPerMTok: p, completionPerMTok: c } } });
        }}
      >
        <input type="text" value={model} onChange={(e) => setModel(e.target.value)} placeholder="model" aria-label="Model to price" data-testid="price-model" />
        <input type="text" value={prompt} onChange={(e) => setPrompt(e.target.value)} placeholder="prompt $/1M" aria-label="Prompt price" inputMode="decimal" />
        <input type="text" value={completion} onChange={(e) => setCompletion(e.target.value)} placeholder="completion $/1M" aria-label="Completion price" inputMode="decimal" />
        <button type="submit" className="button button-small">
          Set price
        </button>
      </form>
      {message && (
        <p className={message.ok ? 'muted' : 'form-error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
    </div>
  );
}
