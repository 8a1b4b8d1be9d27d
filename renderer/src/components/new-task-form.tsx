// A new task: what to do and which folders the agent may touch (mounted under /workspace in the sandbox).
import { useId, useState } from 'react';
import { appActions, useAppStore } from '../state/app-store';
import { DatabaseGrantsFieldset, toGrantInputs, type DatabaseRow } from './database-grants-fieldset';
import { McpPicker } from './mcp-picker';
import { ServicePicker } from './service-picker';
import { StartProblems } from './start-problems';
import { SEND_HINT, submitHandlers } from './submit-handlers';

export function NewTaskForm() {
  const id = useId();
  const [prompt, setPrompt] = useState('');
  const [folders, setFolders] = useState<string[]>(['']);
  const [databases, setDatabases] = useState<DatabaseRow[]>([]);
  const [services, setServices] = useState<string[]>([]);
  const [mcp, setMcp] = useState<string[]>([]);
  const [provider, setProvider] = useState('');
  const [budget, setBudget] = useState('');
  const settings = useAppStore((s) => s.system.settings);
  const providers = settings.state === 'ready' ? (settings.value.providers ?? []) : [];
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(): Promise<void> {
    if (busy) return;
    setBusy(true);
    setError(null);
    const workspaces = folders.map((folder) => folder.trim()).filter((folder) => folder !== '');
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

  const setFolder = (index: number, value: string): void =>
    setFolders((current) => current.map((folder, i) => (i === index ? value : folder)));

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

        <fieldset className="field">
          <legend>Folders the agent may change</legend>
          <p className="field-hint">
            Full paths on this computer. Only these folders exist inside the sandbox, and every change to them can be
            undone.
          </p>
          {folders.map((folder, index) => (
            <div className="folder-row" key={index}>
              <input
                type="text"
                aria-label={`Folder ${index + 1}`}
                data-testid={index === 0 ? 'new-task-workspace' : `new-task-workspace-${index + 1}`}
                placeholder="/Users/me/Documents/project"
                value={folder}
                onChange={(e) => setFolder(index, e.target.value)}
                spellCheck={false}
                autoComplete="off"
              />
              {index > 0 && (
                <button
                  type="button"
                  className="button button-small"
                  aria-label={`Remove folder ${index + 1}`}
                  onClick={() => setFolders((current) => current.filter((_, i) => i !== index))}
                >
                  Remove
                </button>
              )}
            </div>
          ))}
          <button
            type="button"
            className="button button-small"
            data-testid="new-task-add-folder"
            disabled={folders.length >= 16}
            onClick={() => setFolders((current) => [...current, ''])}
          >
            Add folder
          </button>
        </fieldset>

        <ServicePicker selected={services} onChange={setServices} />
        <McpPicker selected={mcp} onChange={setMcp} />

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
