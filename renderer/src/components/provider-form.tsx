// The provider form, used on the first-run screen and in Settings: base URL, model, API key and, in
// Settings, the agent's limits (every declared setting whose `ui.section` is 'limits', shared/settings: a
// new one shows here by itself). Sends only what changed; the API key goes to the OS keychain and is
// never shown again.
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { CallInput } from '../../../shared/contract';
import type { ProviderSettings } from '../../../shared/domain';
import { PROVIDER_CATALOG } from '../../../shared/providers/catalog';
import { SETTINGS, type SettingName, type SettingsValues } from '../../../shared/settings';
import { appActions } from '../state/app-store';

/** The declared settings shown as the agent's limits: whole numbers, bounded by their schemas. */
const LIMITS = (Object.keys(SETTINGS) as SettingName[]).flatMap((name) => {
  const spec = SETTINGS[name];
  const schema = spec.schema as unknown as { minValue?: number | null; maxValue?: number | null };
  return spec.ui?.section === 'limits' ? [{ name, ui: spec.ui, min: schema.minValue ?? 1, max: schema.maxValue ?? Number.MAX_SAFE_INTEGER }] : [];
});
type Limits = Record<string, string>;
const limitTexts = (values: SettingsValues): Limits => Object.fromEntries(LIMITS.map((l) => [l.name, String(values[l.name].value)]));

type Source = ProviderSettings['sources'][keyof ProviderSettings['sources']];

const sourceText: Record<Source, string> = {
  env: 'From an environment variable, which wins over the value saved here.',
  settings: 'Saved in Posthoc’s settings.',
  vault: 'Stored in the OS keychain.',
  none: 'Not set.',
};

/** The gallery's providers that speak OpenAI's API (Anthropic is added in Settings → Model providers), and vLLM. */
const presets = [
  ...PROVIDER_CATALOG.flatMap((p) => (p.api === 'openai' && p.baseUrl ? [{ name: p.name, baseUrl: p.baseUrl }] : [])),
  { name: 'vLLM', baseUrl: 'http://localhost:8000/v1' },
];

function SourceNote({ source, testId }: { source: Source; testId: string }) {
  return (
    <p className={`field-source source-${source}`} data-testid={testId} data-source={source}>
      {sourceText[source]}
    </p>
  );
}

function parseWholeNumber(text: string, label: string, min: number, max: number): number | string {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(value)) return `${label} must be a whole number.`;
  if (value < min || value > max) return `${label} must be between ${min} and ${max}.`;
  return value;
}

export function ProviderForm({
  settings,
  showLimits,
  showPresets = false,
  submitLabel = 'Save',
}: {
  settings: ProviderSettings;
  showLimits: boolean;
  showPresets?: boolean;
  submitLabel?: string;
}) {
  const id = useId();
  const [baseUrl, setBaseUrl] = useState(settings.baseUrl ?? '');
  const [model, setModel] = useState(settings.model ?? '');
  const [apiKey, setApiKey] = useState('');
  const [limits, setLimits] = useState<Limits>(() => limitTexts(settings.values));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  // Main's answer is the truth: when the settings change (saved here, or reloaded), show them.
  useEffect(() => {
    setBaseUrl(settings.baseUrl ?? '');
    setModel(settings.model ?? '');
    setLimits(limitTexts(settings.values));
  }, [settings]);

  async function save(input: CallInput<'settings:update'>, doneMessage: string): Promise<boolean> {
    setBusy(true);
    setError(null);
    setSaved(null);
    const result = await appActions.updateSettings(input);
    setBusy(false);
    if (!result.ok) {
      setError(result.error.message);
      return false;
    }
    setSaved(doneMessage);
    return true;
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    const input: CallInput<'settings:update'> = {};
    const nextBaseUrl = baseUrl.trim();
    if (nextBaseUrl !== (settings.baseUrl ?? '')) input.baseUrl = nextBaseUrl === '' ? null : nextBaseUrl;
    const nextModel = model.trim();
    if (nextModel !== (settings.model ?? '')) input.model = nextModel === '' ? null : nextModel;
    if (apiKey.trim() !== '') input.apiKey = apiKey.trim();
    if (showLimits) {
      const parsed = LIMITS.map((l) => ({ name: l.name, value: parseWholeNumber(limits[l.name] ?? '', l.ui.noun ?? l.ui.label, l.min, l.max) }));
      const problem = parsed.find((p) => typeof p.value === 'string');
      if (problem) {
        setSaved(null);
        setError(String(problem.value));
        return;
      }
      const changed = parsed.filter((p) => p.value !== settings.values[p.name].value);
      Object.assign(input, Object.fromEntries(changed.map((p) => [p.name, p.value])));
    }
    const problem = urlProblem(nextBaseUrl);
    if (problem !== null) {
      setSaved(null);
      setError(problem);
      return;
    }
    // The first screen needs both before Posthoc can start: say what is missing instead of saving nothing.
    if (!showLimits) {
      const missing = [nextBaseUrl === '' ? 'the base URL' : null, nextModel === '' ? 'the model' : null].filter((m) => m !== null);
      if (missing.length > 0) {
        setSaved(null);
        setError(`Fill in ${missing.join(' and ')} first${nextBaseUrl === '' ? ', or pick a provider above' : ''}.`);
        return;
      }
    }
    if (Object.keys(input).length === 0) {
      setError(null);
      setSaved('Nothing to save: no field was changed.');
      return;
    }
    if (await save(input, 'Saved.')) setApiKey('');
  }

  return (
    <form className="provider-form" onSubmit={(event) => void onSubmit(event)} noValidate>
      {showPresets && (
        <div className="presets">
          <span className="muted">Fill in the base URL for:</span>
          {presets.map((preset) => (
            <button
              key={preset.name}
              type="button"
              className="button button-small"
              data-testid="provider-preset"
              onClick={() => setBaseUrl(preset.baseUrl)}
            >
              {preset.name}
            </button>
          ))}
        </div>
      )}

      <div className="field">
        <label htmlFor={`${id}-base-url`}>Base URL</label>
        <input
          id={`${id}-base-url`}
          type="url"
          data-testid="settings-base-url"
          placeholder="https://api.openai.com/v1"
          value={baseUrl}
          onChange={(e) => setBaseUrl(e.target.value)}
          spellCheck={false}
          autoComplete="off"
        />
        <SourceNote source={settings.sources.baseUrl} testId="source-base-url" />
      </div>

      <div className="field">
        <label htmlFor={`${id}-model`}>Model</label>
        <input
          id={`${id}-model`}
          type="text"
          data-testid="settings-model"
          placeholder="gpt-4o, qwen2.5-coder:14b, …"
          value={model}
          onChange={(e) => setModel(e.target.value)}
          spellCheck={false}
          autoComplete="off"
        />
        <SourceNote source={settings.sources.model} testId="source-model" />
      </div>

      <div className="field">
        <label htmlFor={`${id}-api-key`}>API key</label>
        {settings.apiKeySet && (
          <div className="key-stored">
            <span data-testid="api-key-stored">A key is stored</span>
            <button
              type="button"
              className="button button-small"
              data-testid="settings-remove-key"
              disabled={busy}
              onClick={() => void save({ apiKey: '' }, 'The key was removed.')}
            >
              Remove
            </button>
          </div>
        )}
        <input
          id={`${id}-api-key`}
          type="password"
          data-testid="settings-api-key"
          placeholder={settings.apiKeySet ? 'Type a new key to replace it' : 'Leave empty for local servers that need none'}
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
          spellCheck={false}
          autoComplete="off"
        />
        <SourceNote source={settings.sources.apiKey} testId="source-api-key" />
        <p className="field-hint">Written to the OS keychain, never shown again and never given to the agent.</p>
      </div>

      {showLimits && (
        <div className="field-row">
          {LIMITS.map((l) => (
            <div className="field" key={l.name}>
              <label htmlFor={`${id}-${l.name}`}>{l.ui.label}</label>
              <input
                id={`${id}-${l.name}`}
                type="number"
                min={l.min}
                max={l.max}
                data-testid={l.ui.testId}
                value={limits[l.name] ?? ''}
                onChange={(e) => setLimits((now) => ({ ...now, [l.name]: e.target.value }))}
              />
              {l.ui.hint !== undefined && <p className="field-hint">{l.ui.hint}</p>}
            </div>
          ))}
        </div>
      )}

      <div className="form-actions">
        <button type="submit" className="button button-primary" data-testid="settings-save" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        {saved !== null && (
          <span className="form-ok" role="status" data-testid="settings-saved">
            {saved}
          </span>
        )}
      </div>
      {error !== null && (
        <p className="form-error" role="alert" data-testid="settings-error">
          {error}
        </p>
      )}
    </form>
  );
}

/** Why a base URL cannot be used, in words a person can act on; null when it can (or is left empty). */
export function urlProblem(url: string): string | null {
  if (url === '') return null;
  if (!/^https?:\/\//i.test(url)) return 'The base URL must start with http:// or https://, for example http://localhost:11434/v1.';
  try {
    new URL(url);
    return null;
  } catch {
    return `"${url}" is not a web address: check it for spaces or a missing host, for example http://localhost:11434/v1.`;
  }
}
