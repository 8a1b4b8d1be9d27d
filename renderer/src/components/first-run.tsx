// Shown instead of everything until a provider is configured: what Posthoc needs, the provider form
// inline, and anything wrong with the sandbox or the keychain.
import type { ProviderSettings } from '../../../shared/domain';
import { ProviderForm } from './provider-form';
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
          It needs an <strong>OpenAI-compatible provider</strong>: OpenAI itself, or a model you run yourself with
          Ollama, LM Studio or vLLM. Give its base URL, the model to use and, if the provider needs one, an API key.
        </p>
        {missing.length > 0 && <p className="muted">Still missing: {missing.join(' and ')}.</p>}
        <ProviderForm settings={settings} showLimits={false} showPresets submitLabel="Save and continue" />
        <SystemStatus onlyProblems />
      </div>
    </div>
  );
}
