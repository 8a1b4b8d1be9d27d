// A new task: the prompt first, then one row of chips — each granted folder (mounted under /workspace in the
// sandbox), database, service and MCP server, removable — and an "Add" control per kind: Folder… (the desktop
// app's folder picker, or the path field with completion), Database…, Service, MCP server.
import { useId, useRef, useState } from 'react';
import type { ProviderSettings } from '../../../shared/domain';
import { appActions, useAppStore } from '../state/app-store';
import { DatabaseGrantsFieldset, emptyDatabaseRow, toGrantInputs, type DatabaseRow } from './database-grants-fieldset';
import { redactPassword } from '../../../shared/domain/database-engines';
import { FolderField, typedFolder, type FolderFieldHandle } from './folder-field';
import { McpPicker } from './mcp-picker';
import { ServicePicker } from './service-picker';
import { StartProblems } from './start-problems';
import { SEND_HINT, submitHandlers } from './submit-handlers';
import './grant-chips.css';

export function NewTaskForm() {
  const id = useId();
  const [prompt, setPrompt] = useState('');
  const [folders, setFolders] = useState<string[]>([]);
  const [typed, setTyped] = useState('');
  const folderField = useRef<FolderFieldHandle>(null);
  const [databases, setDatabases] = useState<DatabaseRow[]>([]);
  const [services, setServices] = useState<string[]>([]);
  const [mcp, setMcp] = useState<string[]>([]);
  const settings = useAppStore((s) => s.system.settings);
  // The default provider when it is set up, else the first saved one with a model (set up from the gallery).
  const [provider, setProvider] = useState(() => (settings.state === 'ready' ? initialProvider(settings.value) : ''));
  const [budget, setBudget] = useState('');
  const providers = settings.state === 'ready' ? (settings.value.providers ?? []) : [];
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(): Promise<void> {
    if (busy) return;
    setBusy(true);
    setError(null);
    // A path still in the field counts too: typed and not yet added is what the person meant.
    const pending = typedFolder(typed);
    const workspaces = [...new Set([...folders, ...(pending !== null ? [pending] : [])])];
    const grants = toGrantInputs(databases);
    const result = await appActions.startTask({
      prompt,
      workspaces,
      services,
      ...(mcp.length > 0 ? { mcp } : {}),
      ...(grants.length > 0 ? { databases: grants } : {}),
      ...(provider !== '' ? { provider } : {}),
      ...(budget.trim() !== '' ? { budget: budget.trim() } : {}),
    });
    setBusy(false);
    if (!result.ok) setError(result.error.message);
  }

  const { onSubmit, onKeyDown } = submitHandlers(submit);

  const addFolder = (path: string): void => setFolders((current) => (current.includes(path) ? current : [...current, path]));

  async function chooseFolder(): Promise<void> {
    const picked = await window.posthoc.folderPick({});
    // No native picker (the web host): the path field, with completion, is the way.
    if (!picked.ok) return folderField.current?.focus();
    if (picked.value !== null) addFolder(picked.value.path);
  }

  function addDatabase(): void {
    const n = databases.length + 1;
    setDatabases([...databases, emptyDatabaseRow(databases.length)]);
    requestAnimationFrame(() => document.querySelector<HTMLInputElement>(`[data-testid="database-url-${n}"]`)?.focus());
  }

  const chips: { kind: string; label: string; detail?: string; remove(): void }[] = [
    ...folders.map((path) => ({ kind: 'Folder', label: path, remove: () => setFolders((c) => c.filter((f) => f !== path)) })),
    ...databases.map((row, index) => ({
      kind: 'Database',
      label: row.name.trim() || `database ${index + 1}`,
      // The password a URL may carry stays in its field, never on the chip.
      detail: redactPassword(row.url.trim()) || 'location not set yet',
      remove: () => setDatabases((c) => c.filter((_, i) => i !== index)),
    })),
    ...services.map((name) => ({ kind: 'Service', label: name, remove: () => setServices((c) => c.filter((s) => s !== name)) })),
    ...mcp.map((name) => ({ kind: 'MCP server', label: name, remove: () => setMcp((c) => c.filter((s) => s !== name)) })),
  ];

  return (
    <div className="page new-task-page">
      <h1>New task</h1>
      <StartProblems provider={provider || undefined} />
      <form className="new-task-form" onSubmit={onSubmit} noValidate>
        <div className="field">
          <label htmlFor={`${id}-prompt`}>What should the agent do?</label>
          <textarea
            id={`${id}-prompt`}
            data-testid="new-task-prompt"
            rows={6}
            placeholder="Rename the photos in my Pictures folder by the date they were taken…"
            value={prompt}
            onChange={(e) => setPrompt(e.target.value)}
            onKeyDown={onKeyDown}
            aria-describedby={`${id}-prompt-hint`}
            autoFocus
          />
          <p className="field-hint composer-hint" id={`${id}-prompt-hint`} data-testid="new-task-hint">
            {SEND_HINT}
          </p>
        </div>

        <div className="field grant-row" role="group" aria-labelledby={`${id}-grants`}>
          <span className="grant-row-title" id={`${id}-grants`}>
            What the agent may use
          </span>
          {chips.length > 0 ? (
            <ul className="grant-chips" data-testid="grant-chips">
              {chips.map((chip) => (
                <li className="grant-chip" key={`${chip.kind}:${chip.label}:${chip.detail ?? ''}`} data-testid="grant-chip" data-kind={chip.kind}>
                  <span className="grant-chip-kind">{chip.kind}</span>
                  <span className="grant-chip-label">{chip.label}</span>
                  {chip.detail !== undefined && <span className="grant-chip-detail">{chip.detail}</span>}
                  <button type="button" className="grant-chip-remove" aria-label={`Remove ${chip.kind.toLowerCase()} ${chip.label}`} onClick={chip.remove}>
                    ×
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p className="field-hint grant-none">Nothing yet: the agent sees no folder of yours, no database, service or MCP server.</p>
          )}
          <div className="grant-add" role="group" aria-label="Add">
            <span className="grant-add-label" aria-hidden="true">
              Add:
            </span>
            <button type="button" className="button button-small" data-testid="new-task-choose-folder" disabled={folders.length >= 16} onClick={() => void chooseFolder()}>
              Folder…
            </button>
            <button type="button" className="button button-small" data-testid="new-task-add-database" disabled={databases.length >= 8} onClick={addDatabase}>
              Database…
            </button>
            <ServicePicker selected={services} onChange={setServices} />
            <McpPicker selected={mcp} onChange={setMcp} />
          </div>
          <FolderField ref={folderField} value={typed} onValue={setTyped} onAdd={addFolder} full={folders.length >= 16} />
        </div>

        <DatabaseGrantsFieldset rows={databases} onChange={setDatabases} />

        <div className="field-row">
          {providers.length > 0 && (
            <div className="field">
              <label htmlFor={`${id}-provider`}>Model provider</label>
              <select id={`${id}-provider`} value={provider} onChange={(e) => setProvider(e.target.value)} data-testid="new-task-provider">
                <option value="">The one in Settings</option>
                {providers.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                    {p.model ? ` (${p.model})` : ''}
                  </option>
                ))}
              </select>
            </div>
          )}
          <div className="field">
            <label htmlFor={`${id}-budget`}>Budget</label>
            <input
              id={`${id}-budget`}
              value={budget}
              onChange={(e) => setBudget(e.target.value)}
              placeholder="Settings' (50000 tokens, or $0.50)"
              data-testid="new-task-budget"
              autoComplete="off"
            />
          </div>
        </div>

        <div className="form-actions">
          <button type="submit" className="button button-primary" data-testid="new-task-submit" disabled={busy}>
            {busy ? 'Starting…' : 'Start task'}
          </button>
        </div>
        {error !== null && (
          <p className="form-error" role="alert" data-testid="form-error">
            {error}
          </p>
        )}
      </form>
    </div>
  );
}

function initialProvider(settings: ProviderSettings): string {
  if (settings.model !== null && (settings.apiKeySet || settings.baseUrl !== null)) return '';
  return (settings.providers ?? []).find((p) => p.model !== null)?.id ?? '';
}
