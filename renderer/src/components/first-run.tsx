// Shown instead of everything until a provider is configured: what Posthoc needs, the provider gallery (a
// provider from the menu, then its model from its list; the app opens once it has one), the provider form
// by hand, and anything wrong with the sandbox or the keychain.
import { useState } from 'react';
import type { LlmProvider, ProviderSettings } from '../../../shared/domain';
import { appActions } from '../state/app-store';
import { ProviderForm } from './provider-form';
import { AddFromGallery, ModelMenu } from './provider-gallery';
import { SystemStatus } from './system-status';

export function FirstRun({ settings }: { settings: ProviderSettings }) {
  const missing = [settings.baseUrl === null ? 'a base URL' : null, settings.model === null ? 'a model' : null].filter(
    (part): part is string => part !== null,
  );
  return (
    <div className="first-run" data-testid="first-run">
      <div className="first-run-card">
        <h1>Welcome to Posthoc</h1>
        <p>
          Posthoc hands your tasks to an LLM agent. The agent acts by running Python or shell code in a Docker sandbox,
          and every action shows up as a card you can undo.
        </p>
        <p>
          It needs a <strong>model provider</strong>: choose yours from the menu — OpenAI, Anthropic, Google Gemini,
          OpenRouter, Groq, DeepSeek, Mistral, or a model you run yourself with Ollama or LM Studio — give its key if it
          needs one, then pick the model from its list.
        </p>
        <FirstProvider providers={settings.providers ?? []} />
        <section className="first-run-url" data-testid="first-run-by-url" aria-labelledby="first-run-by-url">
          <h2 id="first-run-by-url">Or give an OpenAI-compatible base URL and model by hand</h2>
          {missing.length > 0 && <p className="muted">Still missing: {missing.join(' and ')}.</p>}
          <ProviderForm settings={settings} showLimits={false} showPresets submitLabel="Save and continue" />
        </section>
        <SystemStatus onlyProblems />
      </div>
    </div>
  );
}

/** The gallery on the first screen: once the added provider has a model, the settings say configured and the app opens. */
function FirstProvider({ providers }: { providers: LlmProvider[] }) {
  const [added, setAdded] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const provider = providers.find((p) => p.id === added) ?? null;
  async function choose(model: string): Promise<void> {
    if (!provider) return;
    try {
      const result = await window.posthoc.providerSave({ id: provider.id, name: provider.name, baseUrl: provider.baseUrl, model });
      setError(result.ok ? null : result.error.message);
      if (result.ok) await appActions.loadSettings();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }
  if (provider)
    return (
      <div className="first-run-model" data-testid="first-run-model">
        <p>
          <strong>{provider.name}</strong> is added. Choose the model to use:
        </p>
        <ModelMenu provider={provider} onChoose={choose} />
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </div>
    );
  return (
    <AddFromGallery
      onAdded={(_list, id) => {
        setAdded(id);
        void appActions.loadSettings();
      }}
    />
  );
}
