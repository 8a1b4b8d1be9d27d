// The databases channel: runs an action's SQL on a granted database (capture, held transaction, or
// read-only), records it as a DbEffect with the first compensating statements, and undoes, redoes, checks
// or keeps such effects. The undo service calls undo/redo/conflicts/keep with nothing but the effect.
import type { DatabaseGrant, DbEffect } from '../../../shared/domain';
import { describeSchema } from './db-schema';
import { DbConflict, DbRefusal } from './db-errors';
import { HeldTransactions } from './db-held';
import type { DbEngines, EngineOutcome } from './engine';
import { formatStatements } from './query-result';
import { PREVIEW_STATEMENTS, previewStatements, type Dialect, type Direction } from './row-log';
import { stepTimer } from './step-timer';
import { UndoLogStore, type UndoLog } from './undo-log';

export { PREVIEW_STATEMENTS };

export type DbRunRequest = {
  taskId: string;
  actionId: string;
  grant: DatabaseGrant;
  sql: string;
  params: unknown[] | null;
  via: DbEffect['via'];
  /** The person approved going over the grant's rows-affected limit. */
  approved: boolean;
  timeoutMs: number;
  onRow?: (statement: number, row: Array<string | null>) => void;
  /** The action was rolled back and is run again from its first statement (to capture it another way): forget its rows. */
  onRestart?: () => void;
};

export type DbRunResult = { effect: DbEffect; status: 'done' | 'failed' | 'awaiting-approval'; stdout: string; stderr: string };
export type DbUndoResult = { restored: string[] };
type StoredLog = UndoLog & { grant: DatabaseGrant };

export class DbChannel {
  readonly logs: UndoLogStore;
  readonly held: HeldTransactions;

  /**
   * `engines`: the registered database engines (sqlite/, postgres/), built by the composition root.
   * `onHeldExpired`: told the action ids of a held transaction rolled back because nobody kept it in time.
   */
  constructor(
    dataDir: string,
    private readonly engines: DbEngines,
    onHeldExpired?: (actionIds: string[], database: string) => void,
  ) {
    this.logs = new UndoLogStore(dataDir, engines);
    this.held = new HeldTransactions(engines, onHeldExpired);
  }

  async run(req: DbRunRequest): Promise<DbRunResult> {
    const { grant } = req;
    const input = { grant, sql: req.sql, params: req.params, approved: req.approved, onRow: req.onRow, onRestart: req.onRestart };
    const base = baseEffect(req);
    if (grant.mode === 'held' && !grant.readOnly) {
      const out = await this.held.run(req.taskId, req.actionId, input, req.timeoutMs);
      if (!out.ok) return failed(base, out.statements, out.error, out.overLimit !== null);
      const rollback = `ROLLBACK TO SAVEPOINT ${out.savepoint}`;
      const effect: DbEffect = {
        ...base,
        statements: out.statements,
        rowsAffected: out.rowsAffected,
        tables: [],
        undo: { kind: 'held', logId: `${HeldTransactions.key(req.taskId, grant.name)}#${req.actionId}`, statements: [rollback], statementCount: 1 },
        heldUntil: out.heldUntil,
      };
      const warning = `The transaction on "${grant.name}" stays open until the person keeps or undoes these changes (at the latest until ${out.heldUntil}, when it is rolled back); other writers to the same tables wait meanwhile.\n`;
      return { effect, status: 'done', stdout: formatStatements(grant.name, out.statements), stderr: warning };
    }
    const logId = this.logs.newId();
    let written: StoredLog | null = null;
    const persisted = {
      ...input,
      beforeCommit: (segments: UndoLog['segments']) => {
        written = { version: 1, engine: grant.engine, database: grant.name, segments, grant };
        this.logs.write(logId, written);
      },
    };
    let outcome: EngineOutcome;
    try {
      outcome = await this.engines.get(grant.engine).run(persisted, this.logs, logId, req.timeoutMs);
    } catch (error) {
      if (written) this.logs.remove(logId, written);
      return failed(base, [], error instanceof Error ? error.message : String(error), false);
    }
    if (!outcome.ok) {
      if (written) this.logs.remove(logId, written);
      return failed(base, outcome.statements, outcome.error, outcome.overLimit !== null);
    }
    let undo: DbEffect['undo'] = { kind: 'none', logId: null, statements: [], statementCount: 0 };
    const log = written as StoredLog | null;
    stepTimer.reset();
    if (log !== null) {
      const sql = this.compensatingSql(log, PREVIEW_STATEMENTS);
      stepTimer.mark('card statements');
      undo = { kind: log.segments.some((s) => s.kind === 'snapshot') ? 'snapshot' : 'rows', logId, statements: sql.first, statementCount: sql.count };
    }
    const effect: DbEffect = { ...base, statements: outcome.statements, rowsAffected: outcome.rowsAffected, tables: outcome.tables, undo };
    return { effect, status: 'done', stdout: formatStatements(grant.name, outcome.statements), stderr: '' };
  }

  async undo(effect: DbEffect): Promise<DbUndoResult> {
    return this.apply(effect, 'undo', false);
  }

  async redo(effect: DbEffect): Promise<DbUndoResult> {
    if (effect.undo.kind === 'held') throw new DbRefusal('A rolled-back held transaction cannot be redone; run the action again.');
    return this.apply(effect, 'redo', false);
  }

  /** What stands in the way of undoing (or redoing) the effect, named; [] when it would go through. Changes nothing. */
  async conflicts(effect: DbEffect, direction: Direction = 'undo'): Promise<string[]> {
    if (effect.undo.kind === 'held') {
      const { key, actionId } = parseHeldId(effect.undo.logId!);
      const [taskId, database] = splitKey(key);
      return this.held.isOpen(taskId, database, actionId) ? [] : [`the held transaction on ${database} is no longer open`];
    }
    try {
      await this.apply(effect, direction, true);
      return [];
    } catch (error) {
      if (error instanceof DbConflict) return error.items;
      throw error;
    }
  }

  /** Keep: the effect is final. Its log and snapshots go, the trash schema is emptied, a held transaction commits. Returns held action ids committed with it. */
  async keep(effect: DbEffect): Promise<string[]> {
    if (effect.undo.kind === 'held') {
      const { key } = parseHeldId(effect.undo.logId!);
      const [taskId, database] = splitKey(key);
      return this.held.keep(taskId, database);
    }
    if (effect.undo.logId === null) return [];
    const log = this.logs.read(effect.undo.logId, { rows: false }) as StoredLog;
    await this.engines.get(log.engine).keep(log.grant, log);
    this.logs.remove(effect.undo.logId, log);
    return [];
  }

  /** The prompt section: every granted database's schema, never rows unless the grant allows samples. */
  async describe(grants: DatabaseGrant[]): Promise<string> {
    const parts: string[] = [];
    for (const grant of grants) {
      try {
        parts.push(describeSchema(grant, await this.engines.get(grant.engine).readSchema(grant)));
      } catch (error) {
        parts.push(`Database "${grant.name}": its schema could not be read (${error instanceof Error ? error.message : String(error)}).`);
      }
    }
    return parts.join('\n\n');
  }

  /** The first compensating statements of a stored log in its engine's dialect (see compensatingSql). */
  compensatingSql(log: UndoLog, limit = Number.POSITIVE_INFINITY): { first: string[]; count: number } {
    return compensatingSql(log, this.engines.get(log.engine).dialect, limit);
  }

  async shutdown(): Promise<void> {
    await this.held.rollbackAll();
  }

  private async apply(effect: DbEffect, direction: Direction, dryRun: boolean): Promise<DbUndoResult> {
    switch (effect.undo.kind) {
      case 'none':
        return { restored: [] };
      case 'held': {
        if (direction === 'redo') throw new DbRefusal('A rolled-back held transaction cannot be redone.');
        const { key, actionId } = parseHeldId(effect.undo.logId!);
        const [taskId, database] = splitKey(key);
        if (!dryRun) await this.held.undo(taskId, database, actionId);
        return { restored: [`${database}: rolled back to before this action`] };
      }
      case 'rows':
      case 'snapshot': {
        const engine = this.engines.get(effect.engine);
        const log = this.logs.read(effect.undo.logId!, { rows: !engine.readsOwnRows }) as StoredLog;
        const r = await engine.apply(log.grant, log, direction, this.logs, dryRun);
        if (!dryRun && r.log !== undefined) this.logs.write(effect.undo.logId!, { ...r.log, grant: log.grant } as StoredLog);
        return { restored: named(log.database, r.rows, r.rowCount) };
      }
    }
  }
}

/** The first compensating statements of a log, in the order undo runs them (written in its engine's dialect), and how many there are. */
export function compensatingSql(log: UndoLog, dialect: Dialect, limit = Number.POSITIVE_INFINITY): { first: string[]; count: number } {
  const snapshot = log.segments.find((s) => s.kind === 'snapshot');
  if (snapshot && snapshot.kind === 'snapshot') {
    return {
      first: [`-- restore "${log.database}" from the snapshot taken before this action (${snapshot.objects.join(', ') || 'rows'}): schema, rows with their rowids, AUTOINCREMENT counters`],
      count: 1,
    };
  }
  const first: string[] = [];
  let count = 0;
  for (const seg of [...log.segments].reverse()) {
    if (seg.kind === 'rows') {
      const p = previewStatements(seg.tables, 'undo', dialect, Math.max(0, limit - first.length));
      first.push(...p.first);
      count += p.count;
    } else if (seg.kind === 'ddl') {
      for (const op of [...seg.ops].reverse()) {
        first.push(...op.undo.slice(0, Math.max(0, limit - first.length)).map((s) => `${s};`));
        count += op.undo.length;
      }
    }
  }
  return { first: first.slice(0, limit), count };
}

function baseEffect(req: DbRunRequest): DbEffect {
  return {
    channel: 'db',
    database: req.grant.name,
    engine: req.grant.engine,
    via: req.via,
    mode: req.grant.readOnly ? 'capture' : req.grant.mode,
    statements: [],
    rowsAffected: 0,
    tables: [],
    undo: { kind: 'none', logId: null, statements: [], statementCount: 0 },
    heldUntil: null,
    refused: null,
  };
}

function failed(base: DbEffect, statements: DbEffect['statements'], error: string, overLimit: boolean): DbRunResult {
  const effect: DbEffect = { ...base, statements };
  const note = statements.length > 0 ? formatStatements(base.database, statements, true) : '';
  return { effect, status: overLimit ? 'awaiting-approval' : 'failed', stdout: note, stderr: `${error}${statements.length > 0 && !overLimit ? ' Everything this action did was rolled back.' : ''}\n` };
}

function named(database: string, rows: string[], count: number): string[] {
  const shown = rows.map((r) => `${database}: ${r}`);
  if (count > rows.length) shown.push(`${database}: and ${count - rows.length} more rows`);
  return shown;
}

function parseHeldId(id: string): { key: string; actionId: string } {
  const i = id.lastIndexOf('#');
  return { key: id.slice(0, i), actionId: id.slice(i + 1) };
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}
