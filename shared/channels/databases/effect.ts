// The databases channel's records: the effect an action leaves (stored with the action) and its step in the
// reverse plan. zod only, so shared/domain can build its unions from the registry without a cycle.
import { z } from 'zod';
import { DatabaseEngine, DatabaseMode, StatementClass } from '../../domain/task';

// The engine, the statement classes and the grant's mode are the task's (shared/domain/task.ts: what lists tasks reads alone).
export { DatabaseEngine, DatabaseMode, StatementClass };

/** Rows a query answered: the first ones, each value as text (null for NULL), and how many there were. */
export const QueryResult = z.object({
  columns: z.array(z.string()),
  rows: z.array(z.array(z.string().nullable())),
  rowCount: z.number().int(),
  /** True when `rows` holds fewer than rowCount rows, or cut values. */
  truncated: z.boolean(),
});
export type QueryResult = z.infer<typeof QueryResult>;

export const DbStatement = z.object({
  sql: z.string(),
  kind: StatementClass,
  /** Rows the statement itself changed, as the database counts them; null for DDL and queries. */
  rowsAffected: z.number().int().nullable(),
  result: QueryResult.nullable(),
});
export type DbStatement = z.infer<typeof DbStatement>;

/** SQL an action ran on one granted database, and how undo takes it back. */
export const DbEffect = z.object({
  channel: z.literal('db'),
  database: z.string(),
  engine: DatabaseEngine,
  /** A ```sql block run by Posthoc, or a request from the sandbox through the gateway. */
  via: z.enum(['sql', 'gateway']),
  mode: DatabaseMode,
  statements: z.array(DbStatement),
  /** Rows changed, cascades and the database's own triggers included. */
  rowsAffected: z.number().int(),
  /** Tables whose rows or definitions changed. */
  tables: z.array(z.string()),
  undo: z.object({
    /** none: nothing changed; rows: compensating statements from before-images captured as the SQL ran (and, on PostgreSQL, exact schema steps); snapshot: a copy of the SQLite file; held: the open transaction. */
    kind: z.enum(['none', 'rows', 'snapshot', 'held']),
    /** The full undo log in Posthoc's data folder; null when there is none. */
    logId: z.string().nullable(),
    /** The first compensating statements, exactly as undo runs them. */
    statements: z.array(z.string()),
    statementCount: z.number().int(),
  }),
  /** Held mode: when the open transaction is rolled back unless kept. */
  heldUntil: z.string().nullable(),
  /** Set when the request was refused (not granted, not allowed); nothing ran. */
  refused: z.string().nullable(),
});
export type DbEffect = z.infer<typeof DbEffect>;

/** Its step in a reverse plan: how one database is taken back. */
export const DatabasesStep = z.object({
  channel: z.literal('db'),
  database: z.string(),
  kind: z.enum(['rows', 'snapshot', 'held']),
  /** The first compensating statements, exactly as undo runs them. */
  statements: z.array(z.string()),
  statementCount: z.number().int(),
  tables: z.array(z.string()),
});
export type DatabasesStep = z.infer<typeof DatabasesStep>;
