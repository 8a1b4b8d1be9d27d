// Sandbox (Docker and its image) and vault (OS keychain) status, with main's own words on what to do.
import { selectSandboxProblem, selectVaultProblem } from '../state/system-state';
import { appActions, useAppStore } from '../state/app-store';
import { SandboxBuild } from './sandbox-build';

function SandboxSection({ onlyProblems }: { onlyProblems: boolean }) {
  const sandbox = useAppStore((s) => s.system.sandbox);
  const problem = useAppStore((s) => selectSandboxProblem(s.system));
  if (onlyProblems && problem === null) return null;

  return (
    <section className="status-section" data-testid="sandbox-status" data-ok={problem === null}>
      <h3>Sandbox</h3>
      {sandbox.state === 'loading' && <p className="muted">Checking Docker…</p>}
      {sandbox.state === 'ready' && (
        <dl className="status-list">
          <dt>Docker</dt>
          <dd className={sandbox.value.dockerAvailable ? 'is-ok' : 'is-bad'}>
            {sandbox.value.dockerAvailable
              ? `available${sandbox.value.dockerVersion ? ` (${sandbox.value.dockerVersion})` : ''}`
              : 'not available'}
          </dd>
          <dt>Image</dt>
          <dd className={sandbox.value.imagePresent ? 'is-ok' : 'is-bad'}>
            <code>{sandbox.value.image}</code> {sandbox.value.imagePresent ? 'present' : 'missing'}
          </dd>
        </dl>
      )}
      {problem !== null && (
        <p className="status-problem" role="status" data-testid="sandbox-message">
          {problem}
        </p>
      )}
      <SandboxBuild needed={sandbox.state === 'ready' && sandbox.value.dockerAvailable && !sandbox.value.imagePresent} />
    </section>
  );
}

function VaultSection({ onlyProblems }: { onlyProblems: boolean }) {
  const vault = useAppStore((s) => s.system.vault);
  const problem = useAppStore((s) => selectVaultProblem(s.system));
  if (onlyProblems && problem === null) return null;

  return (
    <section className="status-section" data-testid="vault-status" data-ok={problem === null}>
      <h3>Vault</h3>
      {vault.state === 'loading' && <p className="muted">Checking the OS keychain…</p>}
      {vault.state === 'ready' && vault.value.available && (
        <>
          <p className="is-ok">The OS keychain is available. Secrets stay in it; the agent never sees them.</p>
          {vault.value.secrets.length > 0 ? (
            <ul className="secret-list">
              {vault.value.secrets.map((secret) => (
                <li key={`${secret.kind}:${secret.name}`}>
                  <code>{secret.name}</code> <span className="muted">{secret.kind}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">No secrets stored.</p>
          )}
        </>
      )}
      {problem !== null && (
        <p className="status-problem" role="status" data-testid="vault-message">
          {problem}
        </p>
      )}
    </section>
  );
}

/** Both sections; `onlyProblems` shows a section only when something needs fixing. */
export function SystemStatus({ onlyProblems = false }: { onlyProblems?: boolean }) {
  const anyProblem = useAppStore((s) => selectSandboxProblem(s.system) !== null || selectVaultProblem(s.system) !== null);
  return (
    <div className="system-status">
      <SandboxSection onlyProblems={onlyProblems} />
      <VaultSection onlyProblems={onlyProblems} />
      {(!onlyProblems || anyProblem) && (
        <button type="button" className="button" data-testid="status-refresh" onClick={() => void appActions.refreshStatus()}>
          Check again
        </button>
      )}
    </div>
  );
}
