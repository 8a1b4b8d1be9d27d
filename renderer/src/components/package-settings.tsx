// Settings → Packages: whether the sandbox's pip and npm may fetch packages through Posthoc's gateway
// (any, none, or only the names listed), and the indexes they come from. POSTHOC_PIP_INDEX_URL and
// POSTHOC_NPM_REGISTRY_URL win over the saved upstreams; each field says where its value comes from.
import { useId, useState } from 'react';
import { DEFAULT_NPM_REGISTRY_URL, DEFAULT_PIP_INDEX_URL, SETTINGS, type SettingSource, type SettingsValues } from '../../../shared/settings';
import { appActions } from '../state/app-store';

type Packages = {
  fetching: SettingsValues['packageFetching']['value'];
  allowed: string[];
  pipIndexUrl: string;
  npmRegistryUrl: string;
  sources: { pipIndexUrl: SettingSource; npmRegistryUrl: SettingSource };
};

/** The declared package settings (shared/settings) as this form shows them. */
function packagesOf(values: SettingsValues): Packages {
  return {
    fetching: values.packageFetching.value,
    allowed: values.packagesAllowed.value,
    pipIndexUrl: values.pipIndexUrl.value ?? DEFAULT_PIP_INDEX_URL,
    npmRegistryUrl: values.npmRegistryUrl.value ?? DEFAULT_NPM_REGISTRY_URL,
    sources: { pipIndexUrl: values.pipIndexUrl.source, npmRegistryUrl: values.npmRegistryUrl.source },
  };
}

const sourceWords = { env: 'from the environment', settings: 'saved here', default: 'the default' } as const;

/** "numpy, pip:pandas\nnpm:left-pad" → ['numpy', 'pip:pandas', 'npm:left-pad'] */
export function parseNames(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((n) => n.trim())
    .filter(Boolean);
}

export function PackageSettings({ values }: { values: SettingsValues }) {
  const packages = packagesOf(values);
  const [fetching, setFetching] = useState(packages.fetching);
  const [allowed, setAllowed] = useState(packages.allowed.join('\n'));
  const [pip, setPip] = useState(packages.sources.pipIndexUrl === 'settings' ? packages.pipIndexUrl : '');
  const [npm, setNpm] = useState(packages.sources.npmRegistryUrl === 'settings' ? packages.npmRegistryUrl : '');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const id = useId();

  async function save(): Promise<void> {
    const result = await appActions.updateSettings({
      packageFetching: fetching,
      packagesAllowed: parseNames(allowed),
      pipIndexUrl: pip.trim() === '' ? null : pip.trim(),
      npmRegistryUrl: npm.trim() === '' ? null : npm.trim(),
    });
    setMessage(result.ok ? { ok: true, text: 'Saved.' } : { ok: false, text: result.error.message });
  }

  return (
    <form
      className="package-settings"
      data-testid="package-settings"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <p className="muted">
        The sandbox has no network. pip and npm in it fetch packages through Posthoc, which checks each file against the index’s hash,
        keeps a copy on this computer and lists every download on the action. Packages go into the task’s own environment, not your folders.
      </p>
      <div className="field">
        <label htmlFor={`${id}-fetching`}>Fetching</label>
        <select id={`${id}-fetching`} value={fetching} onChange={(e) => setFetching(e.target.value as Packages['fetching'])} data-testid="package-fetching">
          <option value="on">any package</option>
          <option value="allowed">only the packages listed</option>
          <option value="off">off</option>
        </select>
      </div>
      {fetching === 'allowed' && (
        <div className="field">
          <label htmlFor={`${id}-allowed`}>Allowed packages</label>
          <textarea id={`${id}-allowed`} rows={4} value={allowed} onChange={(e) => setAllowed(e.target.value)} data-testid="package-allowed" spellCheck={false} />
          <p className="field-hint">
            One per line. <code>pip:NAME</code> or <code>npm:NAME</code> allows it for one manager only; a package’s dependencies must be listed too.
          </p>
        </div>
      )}
      <div className="field">
        <label htmlFor={`${id}-pip`}>pip index</label>
        <input id={`${id}-pip`} type="url" placeholder="https://pypi.org/simple" value={pip} onChange={(e) => setPip(e.target.value)} spellCheck={false} />
        <p className={`field-source source-${packages.sources.pipIndexUrl}`}>
          Now {packages.pipIndexUrl}, {sourceWords[packages.sources.pipIndexUrl]}
          {packages.sources.pipIndexUrl === 'env' ? ` (${SETTINGS.pipIndexUrl.env} wins over this field)` : ''}.
        </p>
      </div>
      <div className="field">
        <label htmlFor={`${id}-npm`}>npm registry</label>
        <input id={`${id}-npm`} type="url" placeholder="https://registry.npmjs.org" value={npm} onChange={(e) => setNpm(e.target.value)} spellCheck={false} />
        <p className={`field-source source-${packages.sources.npmRegistryUrl}`}>
          Now {packages.npmRegistryUrl}, {sourceWords[packages.sources.npmRegistryUrl]}
          {packages.sources.npmRegistryUrl === 'env' ? ` (${SETTINGS.npmRegistryUrl.env} wins over this field)` : ''}.
        </p>
      </div>
      <button type="submit" className="button">
        Save
      </button>
      {message && (
        <p className={message.ok ? 'muted' : 'form-error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
    </form>
  );
}
