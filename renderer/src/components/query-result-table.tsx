// A query's result as a table: the first rows with the count. Values are text; NULL shows as NULL,
// set apart from the text 'NULL'. Rendered as React text nodes, never as HTML.
import type { DbEffect, QueryResult } from '../../../shared/domain';
import './query-result.css';

/** Rows shown on a folded card; open, it shows every row the action kept. */
const GLANCE_ROWS = 10;

/** `maxRows`: show at most this many of the rows held (the folded card's glance). */
export function QueryResultTable({ result, maxRows }: { result: QueryResult; maxRows?: number }) {
  const rows = maxRows === undefined ? result.rows : result.rows.slice(0, maxRows);
  const shown = rows.length;
  return (
    <div className="query-result" data-testid="query-result" data-row-count={result.rowCount}>
      {result.columns.length > 0 && (
        // Wide results scroll sideways: focusable, so the keyboard can scroll them too.
        <div className="query-result-scroll" tabIndex={0} role="region" aria-label={`Query result, ${result.columns.length === 1 ? '1 column' : `${result.columns.length} columns`}`}>
          <table>
            <thead>
              <tr>
                {result.columns.map((c, i) => (
                  <th key={i} scope="col">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, r) => (
                <tr key={r}>
                  {row.map((v, i) => (
                    <td key={i} className={v === null ? 'sql-null' : undefined}>
                      {v === null ? 'NULL' : v}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="query-result-count muted" data-testid="query-result-count">
        {result.rowCount === 1 ? '1 row' : `${result.rowCount} rows`}
        {shown < result.rowCount ? ` · the first ${shown} shown` : ''}
        {result.truncated && shown === result.rowCount ? ' · long values cut' : ''}
      </p>
    </div>
  );
}

/**
 * The rows an action's queries returned, on its folded card: what a SELECT was for is on screen without
 * opening the card (open, the card shows them with their statements, db-changes.tsx).
 */
export function QueryGlance({ effects }: { effects: readonly DbEffect[] }) {
  const results = effects.flatMap((e) => e.statements.flatMap((s) => (s.result !== null && s.result.columns.length > 0 ? [s.result] : [])));
  if (results.length === 0) return null;
  return (
    <div className="query-glance" data-testid="query-glance">
      {results.map((result, i) => (
        <QueryResultTable key={i} result={result} maxRows={GLANCE_ROWS} />
      ))}
    </div>
  );
}
