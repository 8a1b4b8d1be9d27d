// The row file of a PostgreSQL action: the capture log's rows of its lazy tables, copied as logged out of
// the action's session-only log table into a SQLite file in Posthoc's data folder before COMMIT, so the
// person's database keeps nothing of Posthoc. Undo and redo read a table's rows back from it.
import Database from 'better-sqlite3';
import { to as copyTo } from 'pg-copy-streams';
import type { PgClient } from './pg-client';

/** Where a lazy capture puts the rows undo needs (see UndoLogStore.writeCapture). */
export type RowFile = { name: string; write(image: Uint8Array): void };

// The rows leave PostgreSQL as COPY's text output, streamed (pg-copy-streams) and kept as it came, in
// chunks: no row is parsed while the action's transaction is open — fetching them row by row through the
// driver and inserting each into SQLite cost more than the statement's own capture. Undo reads the file
// rarely, and parses it then (COPY text format: tab-separated, \N for NULL, backslash escapes).
const SCHEMA = 'CREATE TABLE pg_log_copy (seq INTEGER PRIMARY KEY, data BLOB NOT NULL)';
const CHUNK_BYTES = 8 * 1024 * 1024;

/** Copies the log rows of these relations, in log order, into the row file (memory stays bounded per chunk). */
export async function saveRowFile(client: PgClient, log: string, rels: string[], file: RowFile): Promise<void> {
  if (!rels.every((r) => /^\d+$/.test(r))) throw new Error(`Relation oids must be numbers: ${rels.join(', ')}`);
  const db = new Database(':memory:');
  try {
    db.exec(SCHEMA);
    const insert = db.prepare('INSERT INTO pg_log_copy (data) VALUES (?)');
    // COPY takes no parameters: the oids are checked digits above.
    const select = `SELECT rel::text, op, o, n FROM ${log} WHERE rel = ANY('{${rels.join(',')}}'::oid[]) AND op IN ('i', 'u', 'd') ORDER BY inv, ord`;
    const stream = client.query(copyTo(`COPY (${select}) TO STDOUT`));
    let parts: Buffer[] = [];
    let size = 0;
    let carry = Buffer.alloc(0);
    const flush = (final: boolean) => {
      // A chunk ends at a line's end, so each holds whole rows.
      const all = Buffer.concat([carry, ...parts]);
      const cut = final ? all.length : all.lastIndexOf(0x0a) + 1;
      if (cut > 0) insert.run(all.subarray(0, cut));
      carry = Buffer.from(all.subarray(cut));
      parts = [];
      size = 0;
    };
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      parts.push(chunk);
      size += chunk.length;
      if (size >= CHUNK_BYTES) flush(false);
    }
    flush(true);
    file.write(db.serialize());
  } finally {
    db.close();
  }
}

/** One relation's rows in a row file, in the order they were logged: op, record text before and after. */
export function rowFileRows(file: Database.Database, rel: string): Array<[string, string | null, string | null]> {
  const out: Array<[string, string | null, string | null]> = [];
  for (const [data] of file.prepare('SELECT data FROM pg_log_copy ORDER BY seq').raw(true).iterate() as Iterable<[Buffer]>) {
    for (const line of data.toString('utf8').split('\n')) {
      if (line === '') continue;
      const [r, op, o, n] = line.split('\t').map(copyField) as [string, string, string | null, string | null];
      if (r === rel) out.push([op, o, n]);
    }
  }
  return out;
}

/** One field of COPY's text format: \N is NULL; backslash escapes as COPY writes them. */
export function copyField(field: string): string | null {
  if (field === '\\N') return null;
  if (!field.includes('\\')) return field;
  return field.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_m, e: string) => {
    switch (e[0]) {
      case 'b': return '\b';
      case 'f': return '\f';
      case 'n': return '\n';
      case 'r': return '\r';
      case 't': return '\t';
      case 'v': return '\v';
      case 'x': return String.fromCharCode(parseInt(e.slice(1), 16));
      default: return /^[0-7]/.test(e) ? String.fromCharCode(parseInt(e, 8)) : e;
    }
  });
}
