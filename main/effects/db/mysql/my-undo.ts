// Undo and redo of a MySQL or MariaDB action, in one transaction that either completes or changes nothing.
// Each logged row must still hold what the action left (redo: what the undo left); then every row is
// brought to its recorded image — updated, inserted or deleted by its key. MySQL cannot switch the
// person's triggers off, so they fire: rows are brought to their images again until all hold (a trigger
// that stamps a time or mirrors a row is overwritten by the recorded value), and capture triggers check that
// nothing beyond the logged rows changed (a trigger writing elsewhere, a cascade into rows written since):
// then the undo is refused and rolled back. Schema steps (my-ddl.ts) run while their object is in the state
// recorded after the action (redo: after the undo).
import type { DatabaseGrant } from '../../../../shared/domain';
import { parentFirst } from '../db-schema';
import { DbConflict, DbRefusal } from '../db-errors';
import { fitToColumns, keyText, moveOf, namedRows, rowName, type Dialect, type Direction, type TableLog } from '../row-log';
import { sameImage } from '../sql-literals';
import type { ApplyResult } from '../engine';
import type { DdlOp, UndoLog } from '../undo-log';
import { identity, readMyCatalog, tableInfo, writtenColumns, type MyCatalog, type MyTable } from './my-catalog';
import { currentImages, keyIndexes, MyCapture } from './my-capture';
import { stateOf } from './my-ddl';
import { connectMy, myMessage, quoteMy, type MyConnection, type Secrets } from './my-client';

export const myDialect: Dialect = {
  quote: quoteMy,
  matchAll: (t, image) => t.columns.map((c, i) => `${quoteMy(c)} <=> ${image[i]}`).join(' AND '),
  // Keyless tables are refused at capture: every logged row has a key.
  oneRow: (_t, condition) => condition,
};

/** Passes over the rows before the person's triggers are taken to fight the recorded images. */
const PASSES = 3;
/** Errors a different order of statements may avoid: a key or a foreign key in the way. */
const ORDER_ERRORS = new Set([1062, 1451, 1452, 1216, 1217]);

type Target = { t: MyTable; log: TableLog; key: string[]; from: string[] | null; to: string[] | null };

/**
 * Applies the log in one direction, or throws DbConflict and changes nothing; returns the log with the
 * states its schema steps left. Row steps run in a transaction each; a schema step commits on its own, so
 * an action that mixed them is taken back step by step (newest first), each checked before it runs.
 */
export async function applyMy(grant: DatabaseGrant, log: UndoLog, direction: Direction, secrets: Secrets, dryRun = false): Promise<ApplyResult & { log: UndoLog }> {
  const conn = await connectMy({ ...grant, readOnly: false }, secrets);
  const next: UndoLog = JSON.parse(JSON.stringify(log)) as UndoLog;
  let capture: MyCapture | null = null;
  try {
    const segments = direction === 'undo' ? [...next.segments].reverse() : next.segments;
    // Several steps, some committing on their own: every row step is checked before the first runs, against
    // the rows as the steps before it will have left them.
    if (segments.length > 1) {
      const conflicts = await plannedConflicts(conn, segments, direction);
      if (conflicts.length > 0) throw conflictOf(conflicts, direction);
    }
    let statements = 0;
    let rowCount = 0;
    const rows: string[] = [];
    let done = 0;
    // The schema steps taken so far, and whether a row step committed: a refusal after schema steps alone
    // takes them back (their opposite statements, newest first), so a refused undo changes nothing.
    const schemaDone: DdlOp[] = [];
    let rowsCommitted = false;
    try {
    for (const [i, seg] of segments.entries()) {
      const following = segments[i + 1];
      if (seg.kind === 'ddl') {
        // Row steps that come next are checked first, on the columns they logged: a schema step cannot be rolled back.
        if (following?.kind === 'rows' && done === 0) {
          const conflicts = await rowConflicts(conn, following.tables, direction);
          if (conflicts.length > 0) throw conflictOf(conflicts, direction);
        }
        const ops = direction === 'undo' ? [...seg.ops].reverse() : seg.ops;
        for (const op of ops) {
          await applyOp(conn, op, direction, dryRun);
          if (!dryRun) schemaDone.push(op);
          statements += (direction === 'undo' ? op.undo : op.redo).length;
          rowCount++;
          rows.push(op.describe);
        }
        // A dry run cannot go past a schema step it did not take: what follows would be checked against the wrong schema.
        if (dryRun) break;
        done++;
        continue;
      }
      if (seg.kind !== 'rows') throw new DbRefusal(`A MySQL undo log holds rows and schema steps; this one holds a ${seg.kind} step, which this version of Posthoc cannot apply.`);
      const catalog = await readMyCatalog(conn);
      capture = await MyCapture.open(conn);
      await capture.install(catalog);
      await conn.query('START TRANSACTION');
      try {
        const r = await applyRows(conn, capture, catalog, seg.tables, direction);
        // The schema step that comes next is checked inside this transaction, on the rows it leaves.
        const op = following?.kind === 'ddl' ? (direction === 'undo' ? following.ops.at(-1) : following.ops[0]) : undefined;
        if (op) await checkOp(conn, op, direction);
        await conn.query(dryRun ? 'ROLLBACK' : 'COMMIT');
        if (!dryRun) rowsCommitted = true;
        statements += r.statements;
        rowCount += r.rowCount;
        rows.push(...r.rows);
      } catch (error) {
        await conn.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        await capture.uninstall();
        capture = null;
      }
      done++;
    }
    } catch (error) {
      const refusal = asConflict(error, direction);
      if (schemaDone.length > 0 && !rowsCommitted && (await takeBack(conn, schemaDone, direction))) throw refusal;
      throw partial(refusal, done, direction);
    }
    return { statements, rows: rows.slice(0, 50), rowCount, log: next };
  } catch (error) {
    const conflict = asConflict(error, direction);
    if (conflict instanceof DbConflict || conflict instanceof DbRefusal) throw conflict;
    throw new DbRefusal(`The server refused the ${direction} (${myMessage(error)}); nothing was changed.`);
  } finally {
    await (capture as MyCapture | null)?.uninstall();
    await conn.end().catch(() => undefined);
  }
}

/** A row refused by a key or a reference (rows changed since stand in the way) as the conflict it is; other errors as they are. */
function asConflict(error: unknown, direction: Direction): unknown {
  const errno = (error as { errno?: number }).errno ?? 0;
  if (error instanceof DbConflict || !ORDER_ERRORS.has(errno)) return error;
  return new DbConflict([myMessage(error)], `Cannot ${direction}: rows changed since stand in the way (${myMessage(error)}), for example rows now pointing at rows that no longer exist. Nothing was changed.`);
}

async function checkOp(conn: MyConnection, op: DdlOp, direction: Direction): Promise<void> {
  const check = direction === 'undo' ? op.checkAfter : op.checkBefore;
  const expect = direction === 'undo' ? op.expectAfter : op.expectBefore;
  if (expect === null) return;
  const state = await stateOf(conn, check);
  if (state !== expect) {
    throw new DbConflict([op.object], `Cannot ${direction}: ${op.describe}, and ${op.object} changed since (${state === 'absent' ? 'it no longer exists' : 'its definition or rows differ'}). Nothing was changed.`);
  }
}

/** A step refused after earlier steps (schema changes, which commit) went through: said, so nobody believes nothing changed. */
function partial(error: unknown, done: number, direction: Direction): unknown {
  if (done === 0 || !(error instanceof DbConflict)) return error;
  return new DbConflict(error.items, `${error.message.replace(/ ?Nothing was changed\.?/, '')} The ${direction} stopped part-way: ${done} earlier step${done === 1 ? '' : 's'} of this action (schema changes commit on their own) ${done === 1 ? 'was' : 'were'} already ${direction === 'undo' ? 'undone' : 'redone'}; ${direction === 'undo' ? 'redo' : 'undo'} the action to go back.`);
}

/**
 * Takes back the schema steps an undo (or redo) took before a later step was refused, newest first, each
 * with the other direction's statements, while its object is as this one left it. False when one cannot be:
 * then the refusal says the steps before it were taken.
 */
async function takeBack(conn: MyConnection, taken: DdlOp[], direction: Direction): Promise<boolean> {
  const back: Direction = direction === 'undo' ? 'redo' : 'undo';
  try {
    for (const op of [...taken].reverse()) {
      await checkOp(conn, op, back);
      for (const sql of back === 'undo' ? op.undo : op.redo) await conn.query(sql);
    }
    return true;
  } catch {
    return false;
  }
}

/** A schema step: the object must be in the state recorded when the other direction last ran. */
async function applyOp(conn: MyConnection, op: DdlOp, direction: Direction, dryRun: boolean): Promise<void> {
  await checkOp(conn, op, direction);
  if (dryRun) return;
  for (const sql of direction === 'undo' ? op.undo : op.redo) await conn.query(sql);
  // What this step left is what the opposite direction will expect.
  if (direction === 'undo') op.expectBefore = await stateOf(conn, op.checkBefore);
  else op.expectAfter = await stateOf(conn, op.checkAfter);
}

async function applyRows(conn: MyConnection, capture: MyCapture, catalog: MyCatalog, logged: TableLog[], direction: Direction): Promise<ApplyResult> {
  const conflicts: string[] = [];
  const targets: Target[] = [];
  const fitted: TableLog[] = [];
  for (const logTable of logged) {
    const t = catalog.get(logTable.label);
    if (!t) {
      conflicts.push(`${logTable.label} (the table no longer exists)`);
      continue;
    }
    const log = fitToColumns(logTable, writtenColumns(t).map((c) => c.name));
    if (typeof log === 'string') {
      conflicts.push(log);
      continue;
    }
    if (identity(t).join('\u0000') !== log.keyColumns.join('\u0000')) {
      conflicts.push(`${t.name}: its key changed since the action`);
      continue;
    }
    const mine = log.rows.map((e) => {
      const m = moveOf(e, direction);
      return { t, log, key: (m.fromKey ?? m.toKey)!, from: m.from, to: m.to };
    });
    // Columns added since (by later actions) stay as they are; but a row this direction puts back at a key while
    // another leaves one may be a row changing key, and its values there would be lost.
    const added = writtenColumns(t).filter((c) => !log.columns.includes(c.name)).map((c) => c.name);
    if (added.length > 0 && mine.some((x) => x.from === null) && mine.some((x) => x.to === null)) {
      conflicts.push(`${t.name}: rows of this action changed key, and column${added.length === 1 ? '' : 's'} ${added.join(', ')} ${added.length === 1 ? 'was' : 'were'} added since (moving the rows back would lose their values there)`);
      continue;
    }
    fitted.push(log);
    const now = await currentImages(conn, t, mine.map((x) => x.key), log.columns);
    for (const x of mine) {
      const current = now.get(keyText(x.key)) ?? null;
      if (sameImage(current, x.from)) continue;
      conflicts.push(`${rowName(log, x.key, x.from ?? x.to)}: ${x.from === null ? 'another row has its key now' : current === null ? 'deleted since' : 'changed since'}`);
    }
    targets.push(...mine);
  }
  if (conflicts.length > 0) throw conflictOf(conflicts, direction);
  const order = parentFirst([...catalog.values()].map(tableInfo)).map((t) => t.name);
  const rank = (t: MyTable) => order.indexOf(t.name);
  const parentsFirst = [...targets].sort((a, b) => rank(a.t) - rank(b.t));
  const start = await capture.mark();
  let statements = 0;
  let first: unknown = null;
  for (const deletesFirst of [false, true]) {
    await conn.query('SAVEPOINT posthoc_undo_try');
    try {
      statements = await converge(conn, parentsFirst, deletesFirst);
      await checkStrays(conn, capture, catalog, start, targets, direction);
      await conn.query('RELEASE SAVEPOINT posthoc_undo_try');
      first = null;
      break;
    } catch (error) {
      await conn.query('ROLLBACK TO SAVEPOINT posthoc_undo_try');
      if (!(error instanceof DbConflict) && !ORDER_ERRORS.has((error as { errno?: number }).errno ?? 0)) throw error;
      first ??= error;
    }
  }
  if (first !== null) throw first;
  const named = namedRows(fitted, direction);
  return { statements, rows: named.names, rowCount: named.count };
}

function conflictOf(conflicts: string[], direction: Direction): DbConflict {
  return new DbConflict(
    conflicts,
    `Cannot ${direction}: ${conflicts.length === 1 ? 'a row' : `${conflicts.length} rows`} changed since this action (${conflicts.slice(0, 5).join('; ')}${conflicts.length > 5 ? '; …' : ''}). ${direction === 'undo' ? 'Undo the later actions that changed them first, or keep this one.' : 'Nothing was changed.'}`,
  );
}

/**
 * What stands in the way of the row steps of a log, checked before any runs: each row against its state now,
 * or as an earlier step (in this direction) will leave it, on the columns both know. Rows of tables or columns
 * a schema step brings back are checked by that step when it runs.
 */
async function plannedConflicts(conn: MyConnection, segments: UndoLog['segments'], direction: Direction): Promise<string[]> {
  const catalog = await readMyCatalog(conn);
  const planned = new Map<string, { columns: string[]; image: string[] | null }>();
  const out: string[] = [];
  // Columns the schema steps before a row step will have taken away or put back (ADD COLUMN undone or redone).
  const columnSteps = new Map<string, Set<string>>();
  const gone = (table: string) => columnSteps.get(table) ?? new Set<string>();
  for (const seg of segments) {
    if (seg.kind === 'ddl') {
      for (const op of seg.ops) {
        const col = op.checkAfter.columns?.length === 1 && op.undo.some((x) => /DROP COLUMN/.test(x)) ? op.checkAfter.columns[0]! : null;
        if (col === null) continue;
        const set = gone(op.object);
        if (direction === 'undo') set.add(col);
        else set.delete(col);
        columnSteps.set(op.object, set);
      }
      continue;
    }
    if (seg.kind !== 'rows') continue;
    for (const log of seg.tables) {
      const t = catalog.get(log.label);
      // The same rule as applyRows: a row changing key back, with a column added since that stays, is refused.
      const added = t ? writtenColumns(t).map((c) => c.name).filter((c) => !log.columns.includes(c) && !gone(log.label).has(c)) : [];
      const rowsOfLog = log.rows.map((e) => moveOf(e, direction));
      if (added.length > 0 && rowsOfLog.some((m) => m.from === null) && rowsOfLog.some((m) => m.to === null)) {
        out.push(`${log.label}: rows of this action changed key, and column${added.length === 1 ? '' : 's'} ${added.join(', ')} ${added.length === 1 ? 'was' : 'were'} added since (moving the rows back would lose their values there)`);
      }
      const moves = log.rows.map((e) => ({ m: moveOf(e, direction), key: (moveOf(e, direction).fromKey ?? moveOf(e, direction).toKey)! }));
      const id = (key: string[]) => `${log.label}\u0001${keyText(key)}`;
      const present = t ? writtenColumns(t).map((c) => c.name).filter((c) => log.columns.includes(c)) : [];
      const unknown = moves.filter((x) => !planned.has(id(x.key))).map((x) => x.key);
      const now = t && unknown.length > 0 && present.length > 0 ? await currentImages(conn, t, unknown, present) : new Map<string, string[]>();
      for (const { m, key } of moves) {
        const known = planned.get(id(key));
        const source = known ?? (t && present.length > 0 ? { columns: present, image: now.get(keyText(key)) ?? null } : null);
        if (source) {
          const common = log.columns.filter((c) => source.columns.includes(c));
          const pick = (image: string[] | null, columns: string[]) => (image === null ? null : common.map((c) => image[columns.indexOf(c)]!));
          if (!sameImage(pick(source.image, source.columns), pick(m.from, log.columns))) {
            out.push(`${rowName(log, key, m.from ?? m.to)}: ${m.from === null ? 'another row has its key now' : source.image === null ? 'deleted since' : 'changed since'}`);
          }
        }
        planned.set(id(key), { columns: log.columns, image: m.to });
      }
    }
  }
  return out;
}

/** The logged rows that no longer hold what the action left, compared on the columns the log has (the table's may differ until a schema step runs). */
async function rowConflicts(conn: MyConnection, logged: TableLog[], direction: Direction): Promise<string[]> {
  const catalog = await readMyCatalog(conn);
  const out: string[] = [];
  for (const log of logged) {
    const t = catalog.get(log.label);
    if (!t) continue; // a table a schema step brings back
    const cols = writtenColumns(t).map((c) => c.name);
    const at = log.columns.map((c) => cols.indexOf(c));
    if (at.some((i) => i === -1) || identity(t).join('\u0000') !== log.keyColumns.join('\u0000')) continue;
    const keys = log.rows.map((e) => (moveOf(e, direction).fromKey ?? moveOf(e, direction).toKey)!);
    const now = await currentImages(conn, t, keys);
    for (const e of log.rows) {
      const m = moveOf(e, direction);
      const key = (m.fromKey ?? m.toKey)!;
      const current = now.get(keyText(key));
      const projected = current === undefined ? null : at.map((i) => current[i]!);
      if (!sameImage(projected, m.from)) out.push(`${rowName(log, key, m.from ?? m.to)}: ${m.from === null ? 'another row has its key now' : current === undefined ? 'deleted since' : 'changed since'}`);
    }
  }
  return out;
}

/** Rows per batched statement. */
const BATCH = 500;

/** Brings every row to its target image; passes again while the person's triggers changed what a pass wrote. */
async function converge(conn: MyConnection, parentsFirst: Target[], deletesFirst: boolean): Promise<number> {
  let statements = 0;
  let pending = parentsFirst;
  const run = async (sql: string) => {
    await conn.query(sql);
    statements++;
  };
  for (let pass = 0; pass < PASSES && pending.length > 0; pass++) {
    const now = await imagesOf(conn, pending);
    const deletes = pending.filter((x) => x.to === null && now.get(x) !== null).reverse();
    if (deletesFirst) await batched(deletes, (xs) => run(deleteSql(xs)), (x) => run(deleteSql([x])));
    // Table by table, parents first: a row moved to a new key is there before its children point at it.
    for (const table of new Set(pending.map((x) => x.t))) {
      const mine = pending.filter((x) => x.t === table && x.to !== null);
      await batched(mine.filter((x) => now.get(x) === null), (xs) => run(insertSql(xs)), async (x) => {
        try {
          await run(insertSql([x]));
        } catch (error) {
          // A trigger of the person's (film's insert trigger filling film_text) put the row there meanwhile.
          if ((error as { errno?: number }).errno !== 1062 || !(await currentImages(conn, x.t, [x.key], x.log.columns)).has(keyText(x.key))) throw error;
          await run(updateSql([x]));
        }
      });
      const updates = mine.filter((x) => now.get(x) !== null && !sameImage(now.get(x)!, x.to));
      await batched(updates, (xs) => run(updateSql(xs)), (x) => run(updateSql([x])));
    }
    if (!deletesFirst) await batched(deletes, (xs) => run(deleteSql(xs)), (x) => run(deleteSql([x])));
    const after = await imagesOf(conn, pending);
    pending = pending.filter((x) => !sameImage(after.get(x)!, x.to));
  }
  if (pending.length > 0) {
    const x = pending[0]!;
    throw new DbConflict(
      pending.map((p) => rowName(p.log, p.key, p.to ?? p.from)),
      `After the undo, ${rowName(x.log, x.key, x.to ?? x.from)} does not hold what was recorded (a trigger of the table's own keeps changing it); nothing was changed.`,
    );
  }
  return statements;
}

/**
 * Runs runs of rows of one table BATCH at a time, in order; a batch the server refuses (a key or foreign key
 * in the way, which one row at a time may avoid) is rolled back by the server and goes row by row.
 */
async function batched(targets: Target[], many: (xs: Target[]) => Promise<void>, one: (x: Target) => Promise<void>): Promise<void> {
  let i = 0;
  while (i < targets.length) {
    let j = i + 1;
    while (j < targets.length && j - i < BATCH && targets[j]!.t === targets[i]!.t) j++;
    const run = targets.slice(i, j);
    i = j;
    if (run.length > 1) {
      try {
        await many(run);
        continue;
      } catch {
        // row by row below
      }
    }
    for (const x of run) await one(x);
  }
}

function keyTuple(x: Target): string {
  return `(${x.key.join(', ')})`;
}

function deleteSql(xs: Target[]): string {
  const t = xs[0]!.t;
  if (xs.length === 1) return `DELETE FROM ${quoteMy(t.name)} WHERE ${where(xs[0]!)}`;
  return `DELETE FROM ${quoteMy(t.name)} WHERE (${identity(t).map(quoteMy).join(', ')}) IN (${xs.map(keyTuple).join(', ')})`;
}

function insertSql(xs: Target[]): string {
  return `INSERT INTO ${quoteMy(xs[0]!.t.name)} (${xs[0]!.log.columns.map(quoteMy).join(', ')}) VALUES ${xs.map((x) => `(${x.to!.join(', ')})`).join(', ')}`;
}

/** Every written column set to the image (columns that update themselves, ON UPDATE CURRENT_TIMESTAMP, included). */
function updateSql(xs: Target[]): string {
  const { t, log } = xs[0]!;
  if (xs.length === 1) return `UPDATE ${quoteMy(t.name)} SET ${log.columns.map((c, i) => `${quoteMy(c)} = ${xs[0]!.to![i]}`).join(', ')} WHERE ${where(xs[0]!)}`;
  const alias = (i: number) => quoteMy(`c${i}`);
  const keys = identity(t);
  const rows = xs.map((x, r) => `SELECT ${x.to!.map((v, i) => (r === 0 ? `${v} AS ${alias(i)}` : v)).join(', ')}`).join(' UNION ALL ');
  const on = keys.map((k) => `x.${quoteMy(k)} = v.${alias(log.columns.indexOf(k))}`).join(' AND ');
  return `UPDATE ${quoteMy(t.name)} AS x JOIN (${rows}) AS v ON ${on} SET ${log.columns.map((c, i) => `x.${quoteMy(c)} = v.${alias(i)}`).join(', ')}`;
}

function where(x: Target): string {
  return identity(x.t).map((k, i) => `${quoteMy(k)} = ${x.key[i]}`).join(' AND ');
}

/** Each target's row now (null: absent). */
async function imagesOf(conn: MyConnection, targets: Target[]): Promise<Map<Target, string[] | null>> {
  const out = new Map<Target, string[] | null>();
  const byTable = new Map<MyTable, Target[]>();
  for (const x of targets) byTable.set(x.t, [...(byTable.get(x.t) ?? []), x]);
  for (const [t, xs] of byTable) {
    const now = await currentImages(conn, t, xs.map((x) => x.key), xs[0]!.log.columns);
    for (const x of xs) out.set(x, now.get(keyText(x.key)) ?? null);
  }
  return out;
}

/** Nothing but the logged rows changed: no trigger wrote elsewhere, no cascade reached rows written since. */
async function checkStrays(conn: MyConnection, capture: MyCapture, catalog: MyCatalog, start: number, targets: Target[], direction: Direction): Promise<void> {
  const expected = new Set(targets.map((x) => `${x.t.name}\u0001${keyText(x.key)}`));
  const strays: string[] = [];
  const cascaded = new Map<MyTable, Map<string, string[]>>();
  for (const r of await capture.records(start)) {
    const t = catalog.get(r.table);
    if (!t) continue;
    const idx = keyIndexes(t);
    for (const image of r.cascade ? [r.before!] : [r.before, r.after]) {
      if (image === null) continue;
      const key = idx.map((i) => image[i]!);
      if (expected.has(`${t.name}\u0001${keyText(key)}`)) continue;
      if (r.cascade) {
        const m = cascaded.get(t) ?? new Map<string, string[]>();
        cascaded.set(t, m);
        if (!m.has(keyText(key))) m.set(keyText(key), image);
      } else strays.push(`${t.name} (${identity(t).map((k, i) => `${k} = ${key[i]}`).join(', ')})`);
    }
  }
  // A cascade candidate is a stray only if the cascade did change it.
  for (const [t, m] of cascaded) {
    const now = await currentImages(conn, t, [...m.values()].map((img) => keyIndexes(t).map((i) => img[i]!)));
    for (const [k, before] of m) if (!sameImage(now.get(k) ?? null, before)) strays.push(`${t.name} (${identity(t).map((c, i) => `${c} = ${before[keyIndexes(t)[i]!]}`).join(', ')})`);
  }
  if (strays.length > 0) {
    throw new DbConflict(strays, `This ${direction} would also change rows the action did not change (${strays.slice(0, 5).join('; ')}${strays.length > 5 ? '; …' : ''}), through a foreign-key cascade into rows written since or a trigger of the table's own; nothing was changed.`);
  }
}
