// What an action did on a granted database: each statement with its rows, query results as tables, the
// rows and tables it changed, the held transaction's lock warning, and the exact compensating SQL undo runs.
import type { DbEffect } from '../../../shared/domain';
import { engineLabel } from '../../../shared/domain/database-engines';
import { QueryResultTable } from './query-result-table';

function heldUntil(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString();
}

/** Rows the statements changed themselves, as the database counted them. */
function direct(effect: DbEffect): number {
  return effect.statements.reduce((n, s) => n + (s.kind === 'dml' ? (s.rowsAffected ?? 0) : 0), 0);
}

function DbEffectView({ effect, rolledBack }: { effect: DbEffect; rolledBack: boolean }) {
  const more = effect.undo.statementCount - effect.undo.statements.length;
  return (
    <section className="db-effect" data-testid="db-effect" data-database={effect.database} data-undo-kind={effect.undo.kind}>
      <div className="section-label">
        {effect.via === 'gateway' ? 'Database request' : 'Database'} <code>{effect.database}</code>{' '}
        <span className="muted">({engineLabel(effect.engine)})</span>
      </div>
      {effect.refused !== null && <p className="call-refused">Refused: {effect.refused}</p>}
      {effect.statements.map((s, i) => (
        <div className="db-statement" key={i} data-kind={s.kind}>
          {effect.statements.length > 1 && <code className="db-statement-sql">{s.sql.length > 160 ? `${s.sql.slice(0, 159)}…` : s.sql}</code>}
          {s.result !== null && <QueryResultTable result={s.result} />}
          {s.kind === 'dml' && s.rowsAffected !== null && s.result === null && (effect.statements.length > 1 || rolledBack) && (
            <p className="muted">
              {s.rowsAffected === 1 ? '1 row' : `${s.rowsAffected} rows`} {rolledBack ? 'changed, then rolled back' : 'changed'}
            </p>
          )}
        </div>
      ))}
      {effect.undo.kind !== 'none' && (
        <p className="db-changed" data-testid="db-changed">
          {effect.rowsAffected === 1 ? '1 row' : `${effect.rowsAffected} rows`} changed
          {effect.tables.length > 0 ? ` in ${effect.tables.join(', ')}` : ''}
          {effect.undo.kind === 'snapshot' ? ', and the schema' : ''}
          {effect.rowsAffected > direct(effect) ? ` (${direct(effect)} by the statements, the rest by cascades and the database's own triggers)` : ''}.
        </p>
      )}
      {effect.heldUntil !== null && (
        <p className="db-held-warning" role="note" data-testid="db-held-warning">
          The transaction on {effect.database} stays open until you keep or undo this action: other programs writing
          the same tables wait meanwhile. It is rolled back at {heldUntil(effect.heldUntil)} if nobody keeps it.
        </p>
      )}
      {effect.undo.statements.length > 0 && (
        <details className="db-compensating" data-testid="db-compensating">
          <summary>
            Compensating SQL ({effect.undo.statementCount === 1 ? '1 statement' : `${effect.undo.statementCount} statements`})
          </summary>
          <pre>
            {effect.undo.statements.join('\n')}
            {more > 0 ? `\n-- … and ${more} more` : ''}
          </pre>
        </details>
      )}
    </section>
  );
}

/** `rolledBack`: the action failed or waits for approval, so what its statements did was not kept. */
export function DbChanges({ effects, rolledBack }: { effects: DbEffect[]; rolledBack: boolean }) {
  if (effects.length === 0) return null;
  return (
    <div className="db-changes" data-testid="db-changes">
      {effects.map((e, i) => (
        <DbEffectView key={i} effect={e} rolledBack={rolledBack && e.undo.kind === 'none'} />
      ))}
    </div>
  );
}
