// On the new-task screen, before the person fills the form: what would stop a task from starting — Docker
// not answering, the sandbox image missing or from another version, no model or one that does not answer —
// each with Retry and Open Settings. Checked when the screen opens (sandbox:status, provider:test).
import { useCallback, useEffect, useState } from 'react';
import type { ProviderCheck } from '../../../shared/domain';
import { selectSandboxProblem } from '../state/system-state';
import { appActions, useAppStore } from '../state/app-store';
import './control.css';

type ModelCheck = { state: 'checking' } | { state: 'done'; check: ProviderCheck } | { state: 'error'; message: string };

export function StartProblems({ provider }: { provider?: string }) {
  const sandboxProblem = useAppStore((s) => selectSandboxProblem(s.system));
  const sandbox = useAppStore((s) => s.system.sandbox);
  const [model, setModel] = useState<ModelCheck>({ state: 'checking' });
  const [retrying, setRetrying] = useState(false);

  const checkModel = useCallback(async () => {
    setModel({ state: 'checking' });
    try {
      // reach: the server's model list only — opening this screen never spends tokens.
      const result = await window.posthoc.providerTest(provider ? { provider, reach: true } : { reach: true });
      setModel(result.ok ? { state: 'done', check: result.value } : { state: 'error', message: result.error.message });
    } catch (error) {
      setModel({ state: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  }, [provider]);

  useEffect(() => {
    void appActions.loadSandboxStatus();
    void checkModel();
  }, [checkModel]);

  async function retry(): Promise<void> {
    setRetrying(true);
    await Promise.all([appActions.loadSandboxStatus(), checkModel()]);
    setRetrying(false);
  }

  const problems: Array<{ key: string; title: string; text: string }> = [];
  if (sandboxProblem !== null) {
    const ready = sandbox.state === 'ready' ? sandbox.value : null;
    const outdated = ready?.message !== null && ready?.message !== undefined && /another version|older Posthoc/.test(ready.message);
    const title = ready === null || !ready.dockerAvailable ? 'Docker does not answer' : outdated ? 'The sandbox image is outdated' : 'The sandbox image is missing';
    problems.push({ key: 'sandbox', title, text: sandboxProblem });
  }
  if (model.state === 'done' && !model.check.ok) problems.push({ key: 'model', title: 'The model does not answer', text: model.check.message });
  if (model.state === 'error') problems.push({ key: 'model', title: 'No model is ready', text: model.message });
  if (problems.length === 0) return null;

  return (
    <div className="start-problems" data-testid="start-problems">
      {problems.map((p) => (
        <div key={p.key} className="start-problem" role="alert" data-testid="start-problem" data-problem={p.key}>
          <span className="start-problem-text">
            <strong>{p.title}</strong>
            {p.text} A task cannot start until this is fixed.
          </span>
          <span className="start-problem-buttons">
            <button type="button" className="button" data-testid="start-problem-retry" disabled={retrying} onClick={() => void retry()}>
              {retrying ? 'Checking…' : 'Retry'}
            </button>
            <button type="button" className="button" data-testid="start-problem-settings" onClick={() => appActions.showSettings()}>
              Open Settings
            </button>
          </span>
        </div>
      ))}
    </div>
  );
}
