// The row file of a PostgreSQL action: the capture log's rows of its lazy tables, copied as logged out of
// the action's session-only log table into a SQLite file in Posthoc's data folder before COMMIT, so the
// person's database keeps nothing of Posthoc. Undo and redo read a table's rows back from it.
import Database from 'better-sqlite3';
import type { PgClient } from './pg-client';
import { quoteIdent } from './sql-literals';

/** Where a lazy capture puts the rows undo needs (see UndoLogStore.writeCapture). */
export type RowFile = { name: string; write(image: Uint8Array): void };

const SCHEMA = 'CREATE TABLE pg_log (inv INTEGER NOT NULL, ord INTEGER NOT NULL, rel TEXT NOT NULL, op TEXT NOT NULL, o TEXT, n TEXT)';
const BATCH = 5000;

/** Copies the log rows of these relations, in batches through a cursor (memory stays bounded), into the row file. */
export async function saveRowFile(client: PgClient, log: string, rels: string[], file: RowFile, cursorName: string): Promise<void> {
  const db = new Database(':memory:');
  try {
    db.exec(SCHEMA);
    const insert = db.prepare('INSERT INTO pg_log (inv, ord, rel, op, o, n) VALUES (?, ?, ?, ?, ?, ?)');
    const cursor = quoteIdent(cursorName);
    await client.query({ text: `DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT inv, ord, rel::text, op, o, n FROM ${log} WHERE rel = ANY($1::oid[]) AND op IN ('i', 'u', 'd') ORDER BY inv, ord`, values: [rels] });
    for (;;) {
      const res = await client.query({ text: `FETCH ${BATCH} FROM ${cursor}`, rowMode: 'array' });
      const rows = res.rows as Array<[string, string, string, string, string | null, string | null]>;
      db.transaction(() => {
        for (const r of rows) insert.run(Number(r[0]), Number(r[1]), r[2], r[3], r[4], r[5]);
      })();
      if (rows.length < BATCH) break;
    }
    await client.query(`CLOSE ${cursor}`);
    file.write(db.serialize());
  } finally {
    db.close();
  }
}

/** One relation's rows in a row file, in the order they were logged: op, record text before and after. */
export function rowFileRows(file: Database.Database, rel: string): Array<[string, string | null, string | null]> {
  return file.prepare('SELECT op, o, n FROM pg_log WHERE rel = ? ORDER BY inv, ord').raw(true).all(rel) as Array<[string, string | null, string | null]>;
}
