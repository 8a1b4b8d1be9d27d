// Settings: the theme, the provider and the agent's limits (with where each value comes from), then the
// sandbox and the vault.
import { appActions, useAppStore } from '../state/app-store';
import { MemorySettings } from './memory-settings';
import { ModelProviders, SpendingSettings } from './model-providers';
import { PackageSettings } from './package-settings';
import { ProviderForm } from './provider-form';
import { SystemStatus } from './system-status';
import { ThemeSettings } from './theme-settings';
import { UndoStorageSettings } from './undo-storage-settings';

export function SettingsPage() {
  const settings = useAppStore((s) => s.system.settings);
  return (
    <div className="page settings-page" data-testid="settings">
      <h1>Settings</h1>
      <section className="panel">
        <h2>Appearance</h2>
        <ThemeSettings />
      </section>
      <section className="panel">
        <h2>Provider</h2>
        <p className="muted">
          Any OpenAI-compatible endpoint: OpenAI, Ollama, LM Studio, vLLM. Environment variables win over the values saved
          here; each field says where its value comes from.
        </p>
        {settings.state === 'ready' && <ProviderForm settings={settings.value} showLimits />}
        {settings.state === 'loading' && <p className="muted">Loading…</p>}
        {settings.state === 'error' && (
          <p className="form-error" role="alert" data-testid="settings-error">
            {settings.message}{' '}
            <button type="button" className="button button-small" onClick={() => void appActions.loadSettings()}>
              Try again
            </button>
          </p>
        )}
      </section>
      {settings.state === 'ready' && (
        <section className="panel">
          <h2>Model providers</h2>
          <ModelProviders settings={settings.value} />
        </section>
      )}
      {settings.state === 'ready' && (
        <section className="panel">
          <h2>Tokens and cost</h2>
          <SpendingSettings values={settings.value.values} />
        </section>
      )}
      <section className="panel">
        <h2>Sandbox and vault</h2>
        <SystemStatus />
      </section>
      {settings.state === 'ready' && (
        <section className="panel">
          <h2>Packages</h2>
          <PackageSettings values={settings.value.values} />
        </section>
      )}
      <section className="panel">
        <h2>Undo storage</h2>
        <UndoStorageSettings />
      </section>
      <section className="panel">
        <h2>Memory</h2>
        <MemorySettings />
      </section>
    </div>
  );
}
