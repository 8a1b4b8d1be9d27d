// The row part of an undo log, and the compensating SQL derived from it. Every changed row is kept once
// per action: where it was and what it held before (null: it did not exist), where it is and what it holds
// after (null: it no longer exists). Values are SQL literals, so the statements shown on the card are the
// statements undo runs. Undo goes after → before; redo goes before → after, with the same code.
import { DbRefusal } from './db-errors';
import { shortLiteral } from './sql-literals';

export type RowEntry = {
  beforeKey: string[] | null;
  afterKey: string[] | null;
  before: string[] | null;
  after: string[] | null;
};

export type TableLog = {
  /** The table as SQL: "products" or "public"."products". */
  table: string;
  /** The table for people: products or public.products. */
  label: string;
  /** Written columns (generated ones excluded), unquoted, in table order. */
  columns: string[];
  /** Columns that locate a row: the rowid (or its alias), the primary key, or [] to match every column. */
  keyColumns: string[];
  /** PostgreSQL identity columns GENERATED ALWAYS need OVERRIDING SYSTEM VALUE to be written. */
  overridingSystemValue: boolean;
  /** Rows whose later change is not a conflict: undo leaves them as they are (sqlite_sequence counters). */
  soft: boolean;
  rows: RowEntry[];
  /**
   * The rows stay in the engine's capture log until undo or redo needs them (the undo log on disk has none;
   * reading it fills `rows`). Until then `rows` holds only the first ones of each kind, for the card.
   */
  lazy?: { count: number; source: LazySource };
};

/**
 * Where a lazy table's rows are kept: each engine's own form, declared in its folder (sqlite-capture.ts,
 * sqlite-pages.ts, pg-capture.ts) and told apart by `engine`; nothing outside the folder reads its fields.
 * `format`: the undo log format it needs (2 when absent), so a log is written in the newest one its sources need.
 */
export type LazySource = { readonly engine: string; readonly format?: number } & Record<string, unknown>;

/** The rows of a lazy table as read from its log: exactly as many as the action recorded, or the log was changed since. */
export function lazyRowsRead(t: TableLog, rows: RowEntry[], where: string): RowEntry[] {
  if (t.lazy && rows.length !== t.lazy.count) {
    throw new DbRefusal(`The row log of this action (${where}) holds ${rows.length} rows of ${t.label} where the action changed ${t.lazy.count}: it was changed since, so the action cannot be undone exactly.`);
  }
  return rows;
}

/** How many rows a table log holds, read or not. */
export function tableRowCount(t: TableLog): number {
  return t.lazy ? t.lazy.count : t.rows.length;
}

export type Direction = 'undo' | 'redo';

/** The card shows this many compensating statements (the rest are counted). */
export const PREVIEW_STATEMENTS = 20;

/** One row as a direction sees it: where it is now and what it should become. */
export type RowMove = { fromKey: string[] | null; toKey: string[] | null; from: string[] | null; to: string[] | null };

export function moveOf(entry: RowEntry, direction: Direction): RowMove {
  return direction === 'undo'
    ? { fromKey: entry.afterKey, toKey: entry.beforeKey, from: entry.after, to: entry.before }
    : { fromKey: entry.beforeKey, toKey: entry.afterKey, from: entry.before, to: entry.after };
}

export type Dialect = {
  quote(name: string): string;
  /** A condition selecting rows equal to a full image, for tables without a key. */
  matchAll(table: TableLog, image: string[]): string;
  /** Locates exactly one row of a keyless table matching an image (PostgreSQL: by ctid). */
  oneRow(table: TableLog, condition: string): string;
};

type Group = 'insert' | 'update' | 'delete';

function groupOf(m: RowMove): Group | null {
  if (m.from === null && m.to !== null) return 'insert';
  if (m.from !== null && m.to === null) return 'delete';
  if (m.from !== null && m.to !== null) return 'update';
  return null;
}

/** The statements of one group for one table, generated as they are needed. */
function* groupStatements(t: TableLog, direction: Direction, d: Dialect, group: Group): Generator<string> {
  const keyOnly = t.keyColumns.filter((k) => !t.columns.includes(k));
  const moves = t.rows.map((entry) => moveOf(entry, direction)).filter((m) => groupOf(m) === group);
  for (const m of group === 'update' ? chainOrder(moves) : moves) {
    if (group === 'insert') {
      const cols = [...keyOnly, ...t.columns].map(d.quote).join(', ');
      const values = [...keyOnly.map((k) => m.toKey![t.keyColumns.indexOf(k)]!), ...m.to!].join(', ');
      yield `INSERT INTO ${t.table} (${cols})${t.overridingSystemValue ? ' OVERRIDING SYSTEM VALUE' : ''} VALUES (${values});`;
    } else if (group === 'delete') {
      yield `DELETE FROM ${t.table} WHERE ${locate(t, m.fromKey, m.from!, d)};`;
    } else {
      const sets = t.columns.flatMap((c, i) => (m.from![i] === m.to![i] ? [] : [`${d.quote(c)} = ${m.to![i]}`]));
      for (const k of keyOnly) {
        const i = t.keyColumns.indexOf(k);
        if (m.fromKey![i] !== m.toKey![i]) sets.unshift(`${d.quote(k)} = ${m.toKey![i]}`);
      }
      if (sets.length > 0) yield `UPDATE ${t.table} SET ${sets.join(', ')} WHERE ${locate(t, m.fromKey, m.from!, d)};`;
    }
  }
}

/**
 * Updates that move rows between keys, ordered so that a row leaves a key before another row takes it
 * (undo of 2→4 then 1→2 runs 2→1 before 4→2): a unique key is never held twice in between. A cycle (a swap)
 * is cut where it closes; the savepointed attempt then refuses it as before.
 */
function chainOrder(moves: RowMove[]): RowMove[] {
  const keyOf = (k: string[] | null) => (k === null ? null : k.join('\u0000'));
  const moving = moves.filter((m) => m.fromKey !== null && m.toKey !== null && keyOf(m.fromKey) !== keyOf(m.toKey));
  if (moving.length < 2) return moves;
  // Linear: before a move, the move leaving its target key (if any), depth first; a cycle is cut where met.
  const leavingKey = new Map(moving.map((m) => [keyOf(m.fromKey)!, m]));
  const state = new Map<RowMove, 'visiting' | 'done'>();
  const out: RowMove[] = [];
  for (const start of moves) {
    const path: RowMove[] = [];
    let m: RowMove | undefined = start;
    while (m !== undefined && !state.has(m)) {
      state.set(m, 'visiting');
      path.push(m);
      const target = keyOf(m.toKey);
      m = target === null ? undefined : leavingKey.get(target);
    }
    for (const x of path.reverse()) {
      state.set(x, 'done');
      out.push(x);
    }
  }
  return out;
}

function locate(t: TableLog, key: string[] | null, image: string[], d: Dialect): string {
  if (t.keyColumns.length === 0 || key === null) return d.oneRow(t, d.matchAll(t, image));
  return t.keyColumns.map((k, i) => `${d.quote(k)} = ${key[i]}`).join(' AND ');
}

/**
 * The orders compensating statements can run in. inserts-first (parents first, then updates, then deletes
 * child-first) keeps foreign keys and cascades happy; the others free keys and unique values another row
 * must take back first (a row moved to a new key, and a new row put at its old one): deletes first, then
 * inserts or updates. Undo and redo try them in turn, each in a savepoint, and keep the first that works.
 */
export const ORDERS = ['inserts-first', 'deletes-first', 'updates-before-inserts'] as const;
export type Order = (typeof ORDERS)[number];

const GROUPS: Record<Order, Group[]> = {
  'inserts-first': ['insert', 'update', 'delete'],
  'deletes-first': ['delete', 'insert', 'update'],
  'updates-before-inserts': ['delete', 'update', 'insert'],
};

export function* compensating(tablesParentFirst: TableLog[], direction: Direction, d: Dialect, order: Order = 'inserts-first'): Generator<string> {
  const childFirst = [...tablesParentFirst].reverse();
  for (const group of GROUPS[order]) {
    for (const t of group === 'delete' ? childFirst : tablesParentFirst) yield* groupStatements(t, direction, d, group);
  }
}

export function orderedStatements(tablesParentFirst: TableLog[], direction: Direction, d: Dialect, order: Order = 'inserts-first'): string[] {
  return [...compensating(tablesParentFirst, direction, d, order)];
}

/** The first `limit` statements and how many there are, without writing out the rest. */
export function previewStatements(tablesParentFirst: TableLog[], direction: Direction, d: Dialect, limit: number): { first: string[]; count: number } {
  const first: string[] = [];
  for (const sql of compensating(tablesParentFirst, direction, d)) {
    first.push(sql);
    if (first.length >= limit) break;
  }
  // Every logged row changed (unchanged ones are never logged), so each yields exactly one statement.
  const count = tablesParentFirst.reduce((n, t) => n + tableRowCount(t), 0);
  return { first, count: Math.max(count, first.length) };
}

/** A row for people: products (id = 3), or its first values when the table has no key. */
export function rowName(t: TableLog, key: string[] | null, image: string[] | null): string {
  if (t.keyColumns.length > 0 && key !== null) return `${t.label} (${t.keyColumns.map((k, i) => `${k} = ${shortLiteral(key[i]!)}`).join(', ')})`;
  const shown = (image ?? []).slice(0, 3).map((v, i) => `${t.columns[i]} = ${shortLiteral(v)}`);
  return `${t.label} (${shown.join(', ')}${(image?.length ?? 0) > 3 ? ', …' : ''})`;
}

export function keyText(key: readonly string[]): string {
  return key.join('\u0000');
}

export function countRows(tables: TableLog[]): number {
  return tables.filter((t) => !t.soft).reduce((n, t) => n + tableRowCount(t), 0);
}

/**
 * The log of a table whose columns changed since (a column dropped by undoing an earlier action): the
 * missing columns are left out when the action never changed them; otherwise there is nothing exact to
 * restore, and the reason is returned.
 */
export function fitToColumns(t: TableLog, current: readonly string[]): TableLog | string {
  const keep = t.columns.map((c, i) => (current.includes(c) ? i : -1)).filter((i) => i !== -1);
  if (keep.length === t.columns.length) return t;
  const missing = t.columns.filter((c) => !current.includes(c));
  if (t.keyColumns.some((k) => missing.includes(k))) return `${t.label}: its key column ${missing.join(', ')} no longer exists`;
  // Lost if restored without them: a value the action changed there, or a value in a row it inserted or deleted.
  const changed = t.rows.some((e) =>
    t.columns.some((c, i) => missing.includes(c) && (e.before === null || e.after === null ? (e.before ?? e.after)![i] !== 'NULL' : e.before[i] !== e.after[i])),
  );
  if (changed) return `${t.label}: the action wrote column ${missing.join(', ')}, which no longer exists`;
  const pick = (img: string[] | null) => (img === null ? null : keep.map((i) => img[i]!));
  return { ...t, columns: keep.map((i) => t.columns[i]!), rows: t.rows.map((e) => ({ ...e, before: pick(e.before), after: pick(e.after) })) };
}

export const NAMED_ROWS = 50;

/** The rows a direction moves, named for people (the first `limit`), and how many there are. */
export function namedRows(tables: TableLog[], direction: Direction, limit = NAMED_ROWS): { names: string[]; count: number } {
  const names: string[] = [];
  let count = 0;
  for (const t of tables) {
    if (t.soft) continue;
    count += t.rows.length;
    for (const e of t.rows) {
      if (names.length >= limit) break;
      const m = moveOf(e, direction);
      names.push(rowName(t, m.toKey ?? m.fromKey, m.to ?? m.from));
    }
  }
  return { names, count };
}
