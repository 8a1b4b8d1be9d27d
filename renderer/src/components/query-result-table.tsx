// A query's result as a table: the first rows with the count. Values are text; NULL shows as NULL,
// set apart from the text 'NULL'. Rendered as React text nodes, never as HTML.
import type { QueryResult } from '../../../shared/domain';

export function QueryResultTable({ result }: { result: QueryResult }) {
  const shown = result.rows.length;
  return (
    <div className="query-result" data-testid="query-result" data-row-count={result.rowCount}>
      {result.columns.length > 0 && (
        <div className="query-result-scroll">
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
              {result.rows.map((row, r) => (
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
