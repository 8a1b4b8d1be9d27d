// What a SQLite statement will do, as SQLite itself compiles it: EXPLAIN lists the bytecode of the
// statement's main program, which names every database it opens for writing and every schema change.
// Nothing here parses SQL; the statement's leading keyword is only used to name PRAGMAs.
import type Database from 'better-sqlite3';
import type { StatementClass } from '../../../../shared/domain';
import { DbRefusal } from '../db-errors';

type ExplainRow = { addr: number; opcode: string; p1: number; p2: number; p3: number; p4: unknown };

const SCHEMA_OPS = new Set(['CreateBtree', 'ParseSchema', 'DropTable', 'DropIndex', 'DropTrigger', 'Destroy', 'VCreate', 'VDestroy']);
const READ_PRAGMAS = new Set([
  'table_info', 'table_xinfo', 'table_list', 'index_list', 'index_info', 'index_xinfo', 'foreign_key_list', 'foreign_key_check',
  'integrity_check', 'quick_check', 'database_list', 'collation_list', 'function_list', 'pragma_list', 'compile_options',
  'user_version', 'schema_version', 'application_id', 'page_count', 'page_size', 'freelist_count', 'encoding', 'foreign_keys',
]);

export type Classified = { kind: StatementClass };

export function classifySqlite(db: Database.Database, stmt: Database.Statement, text: string, keyword: string, params: unknown[]): Classified {
  if (keyword === 'PRAGMA') {
    const name = /^\s*PRAGMA\s+(?:[A-Za-z_]+\.)?"?([A-Za-z_]+)"?\s*(.*)$/is.exec(text);
    if (!name || !READ_PRAGMAS.has(name[1]!.toLowerCase()) || (name[2] ?? '').trimStart().startsWith('=')) {
      throw new DbRefusal('Posthoc runs only PRAGMAs that read (table_info, foreign_key_list, index_list, integrity_check, …): a PRAGMA that changes settings cannot be undone.');
    }
    return { kind: 'query' };
  }
  if (keyword === 'EXPLAIN') return { kind: 'query' };
  const program = mainProgram(db.prepare(`EXPLAIN ${text}`).all(...params) as ExplainRow[]);
  let schema = false;
  for (const op of program) {
    if (op.opcode === 'AutoCommit' || op.opcode === 'Savepoint') {
      throw new DbRefusal('Posthoc runs each SQL action in a transaction of its own, so undo can take it back: leave out BEGIN, COMMIT, ROLLBACK, SAVEPOINT and RELEASE.');
    }
    if (op.opcode === 'Vacuum') throw new DbRefusal('VACUUM cannot run inside the action\'s transaction; it changes nothing a query can see, so leave it out.');
    if (op.opcode === 'Function' && typeof op.p4 === 'string' && /^sqlite_(attach|detach)\b/.test(op.p4)) {
      throw new DbRefusal('ATTACH and DETACH would reach database files outside the grant; ask the person to grant that database too.');
    }
    if (writesTemp(op, program)) {
      throw new DbRefusal('SQL actions cannot create or change TEMP tables, views or triggers: Posthoc records changes there. Use a common table expression (WITH …) or a regular table instead.');
    }
    if (SCHEMA_OPS.has(op.opcode)) schema = true;
  }
  if (schema) return { kind: 'ddl' };
  return { kind: stmt.readonly ? 'query' : 'dml' };
}

/** EXPLAIN lists the main program, then each trigger sub-program from address 0 again: keep the main one. */
function mainProgram(rows: ExplainRow[]): ExplainRow[] {
  const out: ExplainRow[] = [];
  for (const r of rows) {
    if (out.length > 0 && r.addr <= out[out.length - 1]!.addr) break;
    out.push(r);
  }
  return out;
}

/**
 * Database 1 is temp. A schema change to a main table also updates Posthoc's temp triggers on it (DROP drops
 * them, RENAME rewrites them), through temp's schema table (root page 1): that is allowed, nothing else is.
 */
function writesTemp(op: ExplainRow, program: ExplainRow[]): boolean {
  const mainDdl = program.some((o) => (o.opcode === 'ParseSchema' || o.opcode === 'DropTable' || o.opcode === 'DropIndex') && o.p1 === 0);
  switch (op.opcode) {
    case 'OpenWrite':
      return op.p3 === 1 && !(mainDdl && op.p2 === 1);
    case 'Clear':
      return op.p2 === 1;
    case 'CreateBtree':
    case 'DropTable':
    case 'DropIndex':
      return op.p1 === 1;
    case 'ParseSchema':
    case 'DropTrigger':
      return op.p1 === 1 && !mainDdl;
    default:
      return false;
  }
}
