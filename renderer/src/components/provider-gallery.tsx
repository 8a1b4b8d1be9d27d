// Settings → Model providers: the gallery (shared/providers/catalog.ts) to add a provider from a menu — its base
// URL filled in, a link to where its key is made, no key field for a local server — and the model menu of a
// saved provider, filled from the provider's own model list (with each known model's context window and price),
// a typed name staying the way out when the list is empty or lacks the model. The key goes to main, which
// keeps it in the OS keychain; nothing here reads one back.
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { Result } from '../../../shared/contract';
import type { LlmProvider } from '../../../shared/domain';
import { catalogModel, catalogProvider, formatWindow, PROVIDER_CATALOG, type CatalogProvider } from '../../../shared/providers/catalog';
import { urlProblem } from './provider-form';
import './provider-gallery.css';

async function call<T>(fn: () => Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await fn();
  } catch (error) {
    return { ok: false, error: { code: 'internal', message: error instanceof Error ? error.message : String(error) } };
  }
}

/** "claude-sonnet-4-5 · 200k context · $3 / $15 per 1M tokens" when the gallery knows the model. */
export function modelLabel(model: string, catalog: string | null | undefined): string {
  const known = catalogModel(model, catalog) ?? catalogModel(model);
  if (!known) return model;
  const price = catalog === 'ollama' || catalog === 'lm-studio' ? 'free' : `$${known.promptPerMTok} / $${known.completionPerMTok} per 1M tokens`;
  return `${model} · ${formatWindow(known.contextWindow)} context · ${price}`;
}

const hostOf = (url: string) => new URL(url).host;

function KeyLink({ entry }: { entry: CatalogProvider }) {
  if (entry.local)
    return (
      <p className="field-hint" data-testid="provider-key-link">
        Runs on this computer: no key needed. Get it at{' '}
        <a href={entry.keyUrl} target="_blank" rel="noopener noreferrer">
          {hostOf(entry.keyUrl)}
        </a>
        , start its server, then add it here.
      </p>
    );
  if (!entry.needsKey) return <p className="field-hint">A key only if the server asks for one.</p>;
  return (
    <p className="field-hint" data-testid="provider-key-link">
      Get a key at{' '}
      <a href={entry.keyUrl} target="_blank" rel="noopener noreferrer">
        {hostOf(entry.keyUrl)}
      </a>
      . It goes to the OS keychain, never to the agent.
    </p>
  );
}

/** Add a provider from the gallery: choose it, give its key (or nothing, for a local one), add. */
export function AddFromGallery({ onAdded }: { onAdded: (list: LlmProvider[], id: string) => void }) {
  const id = useId();
  const [kind, setKind] = useState(PROVIDER_CATALOG[0]!.id);
  const entry = catalogProvider(kind) ?? PROVIDER_CATALOG[0]!;
  const [name, setName] = useState(entry.name);
  const [baseUrl, setBaseUrl] = useState(entry.baseUrl ?? '');
  const [apiKey, setApiKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  function choose(next: string): void {
    const e = catalogProvider(next);
    if (!e) return;
    setKind(next);
    setName(e.id === 'openai-compatible' ? '' : e.name);
    setBaseUrl(e.baseUrl ?? '');
    setApiKey('');
    setError(null);
  }

  async function submit(event: FormEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    const url = baseUrl.trim();
    const problem =
      name.trim() === ''
        ? 'Give the provider a name, for example Local vLLM.'
        : url === ''
          ? `Give ${entry.name === 'Any OpenAI-compatible URL' ? 'the server' : entry.name}'s base URL, for example http://localhost:8000/v1.`
          : entry.needsKey && apiKey.trim() === ''
            ? `Paste your ${entry.name} key (get one at ${entry.keyUrl}).`
            : urlProblem(url);
    if (problem !== null) return setError(problem);
    setBusy(true);
    const result = await call(() =>
      window.posthoc.providerSave({ name: name.trim(), baseUrl: url, catalog: entry.id, ...(apiKey.trim() ? { apiKey: apiKey.trim() } : {}) }),
    );
    setBusy(false);
    if (!result.ok) return setError(result.error.message);
    setError(null);
    setApiKey('');
    const added = result.value.find((p) => p.name === name.trim() && p.baseUrl === url && p.catalog === entry.id) ?? result.value.at(-1);
    onAdded(result.value, added?.id ?? '');
  }

  return (
    <form className="add-provider provider-gallery" onSubmit={(e) => void submit(e)} noValidate data-testid="add-provider">
      <div className="field">
        <label htmlFor={`${id}-kind`}>Provider</label>
        <select id={`${id}-kind`} value={kind} onChange={(e) => choose(e.target.value)} data-testid="provider-kind">
          {PROVIDER_CATALOG.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
              {p.local ? ' (on this computer)' : ''}
            </option>
          ))}
        </select>
        <p className="field-hint" data-testid="provider-blurb">
          {entry.blurb}
        </p>
      </div>
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input type="text" id={`${id}-name`} value={name} onChange={(e) => setName(e.target.value)} placeholder="Local vLLM" data-testid="provider-name" />
        </div>
        <div className="field">
          <label htmlFor={`${id}-url`}>Base URL</label>
          <input
            id={`${id}-url`}
            type="url"
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.target.value)}
            placeholder="http://localhost:8000/v1"
            spellCheck={false}
            data-testid="provider-url"
          />
        </div>
      </div>
      {!entry.local && (
        <div className="field">
          <label htmlFor={`${id}-key`}>API key{entry.needsKey ? '' : ' (if it needs one)'}</label>
          <input id={`${id}-key`} type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} autoComplete="off" spellCheck={false} data-testid="provider-key" />
          <KeyLink entry={entry} />
        </div>
      )}
      {entry.local && <KeyLink entry={entry} />}
      <div className="form-actions">
        <button type="submit" className="button" disabled={busy} data-testid="provider-add">
          {busy ? 'Adding…' : `Add ${entry.id === 'openai-compatible' ? 'provider' : entry.name}`}
        </button>
        {error && (
          <span className="form-error" role="alert" data-testid="provider-add-error">
            {error}
          </span>
        )}
      </div>
    </form>
  );
}

/** The menu's last option: type a model the list lacks. */
const OTHER = '__posthoc_other_model__';

/** A saved provider's model: a menu of what the provider lists (read when shown), or a typed name. */
export function ModelMenu({ provider, onChoose }: { provider: LlmProvider; onChoose: (model: string) => Promise<void> }) {
  const id = useId();
  const [models, setModels] = useState<string[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [typing, setTyping] = useState(false);
  const [typed, setTyped] = useState('');

  useEffect(() => {
    let live = true;
    void call(() => window.posthoc.providerTest({ provider: provider.id, reach: true })).then((result) => {
      if (!live) return;
      const check = result.ok ? result.value : { ok: false, message: result.error.message, models: [] };
      setModels(check.models);
      setProblem(check.ok ? (check.models.length === 0 ? 'The provider lists no models: type the model’s name.' : null) : check.message);
    });
    return () => {
      live = false;
    };
  }, [provider.id, provider.baseUrl, provider.apiKeySet]);

  const listed = models ?? [];
  const current = provider.model ?? '';
  const options = current && !listed.includes(current) ? [current, ...listed] : listed;
  const free = typing || (models !== null && listed.length === 0);
  return (
    <div className="model-menu" data-testid="model-menu">
      <label htmlFor={`${id}-model`}>Model</label>
      {!free && (
        <select
          id={`${id}-model`}
          value={current}
          disabled={models === null}
          onChange={(e) => {
            if (e.target.value === OTHER) return setTyping(true);
            if (e.target.value) void onChoose(e.target.value);
          }}
          data-testid="provider-model"
        >
          <option value="">{models === null ? 'Reading the provider’s models…' : `Choose one of ${listed.length} model${listed.length === 1 ? '' : 's'}`}</option>
          {options.map((m) => (
            <option key={m} value={m}>
              {modelLabel(m, provider.catalog)}
            </option>
          ))}
          <option value={OTHER}>Another model (type its name)…</option>
        </select>
      )}
      {free && (
        <form
          className="model-typed"
          onSubmit={(e) => {
            e.preventDefault();
            if (typed.trim()) void onChoose(typed.trim()).then(() => setTyping(false));
          }}
        >
          <input id={`${id}-model`} type="text" value={typed} onChange={(e) => setTyped(e.target.value)} placeholder={current || 'model name'} spellCheck={false} data-testid="provider-model-typed" />
          <button type="submit" className="button button-small" disabled={typed.trim() === ''} data-testid="provider-model-use">
            Use
          </button>
          {listed.length > 0 && (
            <button type="button" className="button button-small" onClick={() => setTyping(false)}>
              Back to the list
            </button>
          )}
        </form>
      )}
      {problem && (
        <p className="field-hint" role="status" data-testid="model-menu-problem">
          {problem}
        </p>
      )}
    </div>
  );
}
