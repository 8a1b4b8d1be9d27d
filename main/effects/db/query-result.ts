// Query results, capped: the card shows the first rows as a table with the count; the model gets the same
// rows as text in the action's output. Values are text (NULL stays null); long ones are cut.
import type { DbStatement, QueryResult } from '../../../shared/domain';

export const RESULT_ROWS = 50;
const VALUE_CHARS = 200;
const TEXT_ROWS = 20;

export class ResultCollector {
  private readonly rows: Array<Array<string | null>> = [];
  private count = 0;
  private cut = false;

  constructor(private readonly columns: string[]) {}

  add(values: readonly unknown[]): void {
    this.count++;
    if (this.rows.length < RESULT_ROWS) this.rows.push(values.map((v) => this.text(v)));
  }

  result(): QueryResult {
    return { columns: this.columns, rows: this.rows, rowCount: this.count, truncated: this.cut || this.count > this.rows.length };
  }

  private text(value: unknown): string | null {
    const full = displayValue(value);
    if (full === null || full.length <= VALUE_CHARS) return full;
    this.cut = true;
    return `${full.slice(0, VALUE_CHARS - 1)}…`;
  }
}

export function displayValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
    const hex = Buffer.from(value).toString('hex');
    return `\\x${hex}`;
  }
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The action's output: one block per statement, as text a person and the model both read. */
export function formatStatements(database: string, statements: DbStatement[], rolledBack = false): string {
  const out: string[] = [];
  const changed = rolledBack ? 'changed, then rolled back,' : 'changed';
  for (const s of statements) {
    if (s.result) {
      out.push(formatTable(s.result));
      if (s.kind === 'dml' && s.rowsAffected !== null) out.push(`(${s.rowsAffected} row${s.rowsAffected === 1 ? '' : 's'} ${changed})`);
    } else if (s.kind === 'dml') {
      out.push(`${firstWord(s.sql)}: ${s.rowsAffected ?? 0} row${s.rowsAffected === 1 ? '' : 's'} ${changed} in ${database}`);
    } else if (s.kind === 'ddl') {
      out.push(`${firstWords(s.sql)}: ${rolledBack ? 'done, then rolled back' : 'done'}`);
    } else out.push(`${firstWord(s.sql)}: done`);
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

export function formatTable(r: QueryResult): string {
  const shown = r.rows.slice(0, TEXT_ROWS);
  const cells = [r.columns, ...shown.map((row) => row.map((v) => (v === null ? 'NULL' : v.replace(/\s+/g, ' '))))];
  const widths = r.columns.map((_, i) => Math.min(60, Math.max(...cells.map((row) => (row[i] ?? '').length))));
  const line = (row: string[]) => row.map((v, i) => pad(v, widths[i]!)).join(' | ').trimEnd();
  const lines = [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('-+-'), ...cells.slice(1).map(line)];
  const more = r.rowCount - shown.length;
  lines.push(`(${r.rowCount} row${r.rowCount === 1 ? '' : 's'}${more > 0 ? `; the first ${shown.length} shown` : ''})`);
  return lines.join('\n');
}

function pad(v: string, w: number): string {
  const cut = v.length > w ? `${v.slice(0, w - 1)}…` : v;
  return cut + ' '.repeat(Math.max(0, w - cut.length));
}

function firstWord(sql: string): string {
  return (/^\s*(\w+)/.exec(sql)?.[1] ?? 'statement').toUpperCase();
}

function firstWords(sql: string): string {
  const words = sql.trim().split(/\s+/).slice(0, 4).join(' ');
  return words.length > 60 ? `${words.slice(0, 59)}…` : words;
}
