// The new-task form's databases: each grant with its name, where it is (a SQLite file or a PostgreSQL
// URL), an optional password (sent to the keychain, never stored with the task), read-only or which
// statement classes, sample rows, the rows-affected limit and held-transaction mode. Rows are added from the
// composer's "Database…" control (new-task-form.tsx) and show as chips there too.
import type { DatabaseGrantInput } from '../../../shared/contract';
import type { StatementClass } from '../../../shared/domain';
import { DATABASE_ENGINES, engineOfUrl, unsupportedEngineMessage } from '../../../shared/domain/database-engines';

export type DatabaseRow = {
  name: string;
  url: string;
  password: string;
  readOnly: boolean;
  dml: boolean;
  ddl: boolean;
  sampleRows: boolean;
  maxRows: string;
  held: boolean;
};

export function emptyDatabaseRow(index: number): DatabaseRow {
  return { name: index === 0 ? 'db' : `db${index + 1}`, url: '', password: '', readOnly: false, dml: true, ddl: true, sampleRows: false, maxRows: '1000', held: false };
}

/** The grants to send: rows with a location, settings as the contract takes them. */
export function toGrantInputs(rows: readonly DatabaseRow[]): DatabaseGrantInput[] {
  return rows
    .filter((r) => r.url.trim() !== '')
    .map((r) => {
      const url = r.url.trim();
      const statements: StatementClass[] = ['query', ...(r.dml ? (['dml'] as const) : []), ...(r.ddl ? (['ddl'] as const) : [])];
      const maxRows = Number(r.maxRows);
      return {
        name: r.name.trim(),
        // A plain path is a SQLite file; any URL goes as written (main refuses one it cannot undo, by name).
        url: engineOfUrl(url).kind === 'path' ? `sqlite:${url}` : url,
        ...(r.password !== '' ? { password: r.password } : {}),
        readOnly: r.readOnly,
        statements: r.readOnly ? ['query'] : statements,
        sampleRows: r.sampleRows,
        ...(Number.isInteger(maxRows) && maxRows >= 1 ? { maxRowsAffected: maxRows } : {}),
        mode: r.held ? ('held' as const) : ('capture' as const),
      };
    });
}

/** Whether the location names an engine whose grants may carry a password (kept in the keychain). */
function takesPassword(url: string): boolean {
  const found = engineOfUrl(url);
  return found.kind === 'engine' && DATABASE_ENGINES[found.engine].password;
}

export function DatabaseGrantsFieldset({ rows, onChange }: { rows: DatabaseRow[]; onChange: (rows: DatabaseRow[]) => void }) {
  const set = (index: number, patch: Partial<DatabaseRow>): void => onChange(rows.map((r, i) => (i === index ? { ...r, ...patch } : r)));
  // Added from the composer's "Database…" control; nothing shows until one is.
  if (rows.length === 0) return null;
  return (
    <fieldset className="field database-grants" data-testid="new-task-databases">
      <legend>Databases the agent may use</legend>
      <p className="field-hint">
        A SQLite file (<code>/path/shop.db</code>) or a PostgreSQL URL (<code>postgres://me@localhost/shop</code>). The agent
        sees the schema, not the rows; every change it makes is recorded and can be undone exactly. A password goes to the
        system keychain.
      </p>
      {rows.map((row, index) => (
        <div className="database-row" key={index} data-testid={`database-row-${index + 1}`}>
          <div className="database-row-main">
            <input type="text" aria-label={`Database ${index + 1} name`} data-testid={`database-name-${index + 1}`} className="database-name" value={row.name} onChange={(e) => set(index, { name: e.target.value })} spellCheck={false} />
            <input type="text" aria-label={`Database ${index + 1} location`} data-testid={`database-url-${index + 1}`} placeholder="/Users/me/shop.db or postgres://me@localhost/shop" value={row.url} onChange={(e) => set(index, { url: e.target.value })} spellCheck={false} autoComplete="off" />
            {takesPassword(row.url) && (
              <input type="password" aria-label={`Database ${index + 1} password`} data-testid={`database-password-${index + 1}`} placeholder="password (optional)" value={row.password} onChange={(e) => set(index, { password: e.target.value })} autoComplete="off" />
            )}
            <button type="button" className="button button-small" aria-label={`Remove database ${index + 1}`} onClick={() => onChange(rows.filter((_, i) => i !== index))}>
              Remove
            </button>
          </div>
          {unsupportedEngineMessage(row.url) !== null && (
            <p className="form-error" role="alert" data-testid={`database-unsupported-${index + 1}`}>
              {unsupportedEngineMessage(row.url)}
            </p>
          )}
          <div className="database-row-options">
            <label>
              <input type="checkbox" checked={row.readOnly} onChange={(e) => set(index, { readOnly: e.target.checked })} /> Read-only
            </label>
            <label>
              <input type="checkbox" checked={row.dml && !row.readOnly} disabled={row.readOnly} onChange={(e) => set(index, { dml: e.target.checked })} /> Change rows
            </label>
            <label>
              <input type="checkbox" checked={row.ddl && !row.readOnly} disabled={row.readOnly} onChange={(e) => set(index, { ddl: e.target.checked })} /> Change the schema
            </label>
            <label>
              <input type="checkbox" checked={row.sampleRows} onChange={(e) => set(index, { sampleRows: e.target.checked })} /> Show sample rows to the agent
            </label>
            <label>
              Approval above{' '}
              <input type="number" min={1} className="database-max-rows" aria-label={`Database ${index + 1} rows before approval`} value={row.maxRows} disabled={row.readOnly} onChange={(e) => set(index, { maxRows: e.target.value })} />{' '}
              rows
            </label>
            <label title="Changes stay in an open transaction until you keep or undo them; other writers wait meanwhile.">
              <input type="checkbox" checked={row.held} disabled={row.readOnly} onChange={(e) => set(index, { held: e.target.checked })} /> Hold in a transaction
            </label>
          </div>
        </div>
      ))}
    </fieldset>
  );
}
