// Building the sandbox image from the app: a Build button when the image is missing or old, then a progress
// bar with the phase (main's sandbox:progress events), and the outcome. Main refuses a second build.
import { useEffect, useState } from 'react';
import { appActions } from '../state/app-store';
import { applyBuildProgress, applyBuildRefused, buildFraction, describeBuildProgress, idleBuild, type SandboxBuildView } from '../model/sandbox-build';

export function SandboxBuild({ needed }: { needed: boolean }) {
  const [view, setView] = useState<SandboxBuildView>(idleBuild);

  // Progress of any build, also one started elsewhere (another window, the web host).
  useEffect(
    () =>
      window.posthoc.on('sandbox:progress', (progress) => {
        setView((v) => applyBuildProgress(v, progress));
        if (progress.phase === 'done' || progress.phase === 'failed') void appActions.loadSandboxStatus();
      }),
    [],
  );

  const start = async () => {
    setView({ state: 'starting' });
    try {
      const result = await window.posthoc.sandboxBuild({});
      if (!result.ok) setView((v) => applyBuildRefused(v, result.error.message));
    } catch (error) {
      setView((v) => applyBuildRefused(v, error instanceof Error ? error.message : String(error)));
    }
  };

  const busy = view.state === 'starting' || view.state === 'running';
  if (!needed && view.state === 'idle') return null;
  const fraction = view.state === 'running' ? buildFraction(view.progress) : null;
  return (
    <div className="sandbox-build" data-testid="sandbox-build" data-state={view.state}>
      {busy && (
        <div role="status" aria-live="polite">
          {fraction === null ? (
            <progress data-testid="sandbox-build-bar" aria-label="Building the sandbox image" style={{ width: '100%' }} />
          ) : (
            <progress data-testid="sandbox-build-bar" aria-label="Building the sandbox image" value={fraction} max={1} style={{ width: '100%' }} />
          )}
          <p className="muted" data-testid="sandbox-build-phase">
            {view.state === 'running' ? describeBuildProgress(view.progress) : 'Starting the build…'}
          </p>
          {view.state === 'running' && view.progress.line && (
            <p className="muted sandbox-build-line">
              {view.progress.line}
            </p>
          )}
        </div>
      )}
      {view.state === 'done' && (
        <p className="is-ok" data-testid="sandbox-build-done">
          {describeBuildProgress(view.progress)}: the sandbox image is ready.
        </p>
      )}
      {view.state === 'failed' && (
        <p className="status-problem" role="alert" data-testid="sandbox-build-error">
          {view.message}
        </p>
      )}
      {needed && !busy && (
        <button type="button" className="button button-primary" data-testid="sandbox-build-button" onClick={() => void start()}>
          {view.state === 'failed' ? 'Try the build again' : 'Build the sandbox image'}
        </button>
      )}
      {needed && !busy && view.state !== 'failed' && (
        <p className="muted">Builds from Debian's packages; it takes a few minutes and about 1 GB of disk.</p>
      )}
    </div>
  );
}
