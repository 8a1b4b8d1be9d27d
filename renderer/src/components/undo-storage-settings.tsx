// Settings → Undo storage: how much large-file content each folder's checkpoints may keep (the budget),
// how much they keep now, and a folder's own budget. Files over the budget are "not covered by undo".
import { useEffect, useState } from 'react';
import type { Result } from '../../../shared/contract';
import type { UndoStorage } from '../../../shared/domain/undo';
import { formatBytes } from '../model/diff-rows';
import './timeline.css';

const GB = 1024 ** 3;

async function call<T>(fn: () => Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await fn();
  } catch (error) {
    return { ok: false, error: { code: 'internal', message: error instanceof Error ? error.message : String(error) } };
  }
}

/** "1.5" (GB) → bytes; null when it is not a size. */
export function parseGigabytes(text: string): number | null {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(n) && n >= 0 ? Math.round(n * GB) : null;
}

export function UndoStorageSettings() {
  const [storage, setStorage] = useState<Result<UndoStorage> | null>(null);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);

  const load = async () => setStorage(await call(() => window.posthoc.budgetGet({})));
  useEffect(() => {
    void load();
  }, []);

  async function save(folder: string | null, text: string | null): Promise<void> {
    const bytes = text === null ? null : parseGigabytes(text);
    if (text !== null && bytes === null) {
      setError('Write the budget in GB, like 2 or 0.5.');
      return;
    }
    const result = await call(() => window.posthoc.budgetSet({ folder, bytes }));
    setError(result.ok ? null : result.error.message);
    if (result.ok) {
      setStorage(result);
      setDraft({});
    }
  }

  if (storage === null) return <p className="muted">Loading…</p>;
  if (!storage.ok) return <p className="form-error">{storage.error.message}</p>;
  const s = storage.value;
  const field = (key: string, bytes: number) => draft[key] ?? String(Number((bytes / GB).toFixed(2)));
  return (
    <div className="undo-storage" data-testid="undo-storage">
      <p className="muted">
        Checkpoints keep files of {formatBytes(s.largeFileBytes)} or more only while each folder’s total stays within its budget. Larger
        content is listed on the action card as “not covered by undo”, and an action that changes it cannot be undone exactly.
      </p>
      <form
        className="undo-storage-row"
        onSubmit={(e) => {
          e.preventDefault();
          void save(null, field('', s.defaultBudgetBytes));
        }}
      >
        <label htmlFor="budget-default">Budget per folder (GB)</label>
        <input
          id="budget-default"
          type="text"
          inputMode="decimal"
          data-testid="budget-default"
          value={field('', s.defaultBudgetBytes)}
          onChange={(e) => setDraft({ ...draft, '': e.target.value })}
        />
        <button type="submit" className="button button-small">
          Save
        </button>
      </form>
      {s.folders.length > 0 && (
        <table className="undo-storage-folders">
          <thead>
            <tr>
              <th>Folder</th>
              <th>Kept now</th>
              <th>Budget (GB)</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {s.folders.map((f) => (
              <tr key={f.folder}>
                <td>
                  <code>{f.folder}</code>
                </td>
                <td>{formatBytes(f.usedBytes)}</td>
                <td>
                  <input
                    type="text"
                    inputMode="decimal"
                    aria-label={`Budget for ${f.folder} in GB`}
                    value={field(f.folder, f.budgetBytes)}
                    onChange={(e) => setDraft({ ...draft, [f.folder]: e.target.value })}
                  />
                </td>
                <td>
                  <button type="button" className="button button-small" onClick={() => void save(f.folder, field(f.folder, f.budgetBytes))}>
                    Save
                  </button>
                  {f.custom && (
                    <button type="button" className="button button-small" onClick={() => void save(f.folder, null)} title="Use the default budget">
                      Reset
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {error !== null && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
