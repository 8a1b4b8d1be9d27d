// MySQL and MariaDB behind the DbEngine interface: a server reached with the password from the vault;
// capture by triggers of each action's own, dropped when it ends (my-capture), undo that brings each
// logged row back to its image by key, checked against what the action left (my-undo). Schema changes
// commit on their own in MySQL: those Posthoc can take back run between the action's transactions, the rest
// are refused up front (my-ddl). Verified on MariaDB 10.11.
import type { DatabaseGrant, DbStatement } from '../../../../shared/domain';
import { engineLabel } from '../../../../shared/domain/database-engines';
import { DbRefusal, OverRowLimit } from '../db-errors';
import { GrantError, redact, type ParsedLocation } from '../db-grant';
import type { DbEngine, HeldConnection, RunInput } from '../engine';
import type { UndoLog, UndoLogStore } from '../undo-log';
import { readMySchema } from './my-catalog';
import { connectMy, type MyConnection, type Secrets } from './my-client';
import { describeMyError, executeMy, runMyAction } from './my-runner';
import { applyMy, myDialect } from './my-undo';

export class MysqlEngine implements DbEngine {
  readonly id = 'mysql' as const;
  readonly label = engineLabel('mysql');
  readonly dialect = myDialect;
  readonly passwords = true;
  readonly readsOwnRows = false;

  /** `secrets`: passwords of granted servers, read from the vault in the main process only. */
  constructor(private readonly secrets: Secrets) {}

  parseLocation(trimmed: string): ParsedLocation {
    let u: URL;
    try {
      if (!/^(mysql|mariadb):\/\//i.test(trimmed)) throw new Error('no authority');
      u = new URL(trimmed.replace(/^mariadb:/i, 'mysql:'));
    } catch {
      throw new GrantError(`"${redact(trimmed)}" is not a valid MySQL URL; write mysql://USER@HOST:PORT/DATABASE.`);
    }
    const password = u.password ? decodeURIComponent(u.password) : null;
    u.password = '';
    if (!u.pathname || u.pathname === '/' || u.pathname.slice(1).includes('/')) throw new GrantError(`The MySQL URL ${u.toString()} names no database; add /DATABASE at the end.`);
    if (!u.username) throw new GrantError(`The MySQL URL ${u.toString()} names no user; write mysql://USER@${u.host}${u.pathname}.`);
    return { engine: 'mysql', location: u.toString(), password };
  }

  async checkGrant(grant: DatabaseGrant): Promise<void> {
    try {
      const conn = await connectMy({ ...grant, readOnly: true }, this.secrets);
      await conn.end().catch(() => undefined);
    } catch (error) {
      throw new GrantError(`${error instanceof Error ? error.message : String(error)} (${redact(grant.location)})`);
    }
  }

  run(input: RunInput, logs: UndoLogStore, logId: string, timeoutMs: number): ReturnType<DbEngine['run']> {
    return runMyAction(input, this.secrets, logs, logId, timeoutMs);
  }

  apply(...[grant, log, direction, , dryRun]: Parameters<DbEngine['apply']>): ReturnType<DbEngine['apply']> {
    return applyMy(grant, log, direction, this.secrets, dryRun);
  }

  /** Empties the trash of the action's schema changes (tables it dropped, or created and were undone); capture objects went when it ended. */
  async keep(grant: DatabaseGrant, log: UndoLog): Promise<void> {
    const cleanup = log.segments.flatMap((s) => (s.kind === 'ddl' ? s.ops.flatMap((o) => o.keep) : []));
    if (cleanup.length === 0) return;
    const conn = await connectMy({ ...grant, readOnly: false }, this.secrets);
    try {
      for (const sql of cleanup) await conn.query(sql);
    } finally {
      await conn.end().catch(() => undefined);
    }
  }

  async readSchema(grant: DatabaseGrant): ReturnType<DbEngine['readSchema']> {
    const conn = await connectMy({ ...grant, readOnly: true }, this.secrets);
    try {
      return await readMySchema(conn, { samples: grant.sampleRows });
    } finally {
      await conn.end().catch(() => undefined);
    }
  }

  async openHeld(grant: DatabaseGrant, timeoutMs: number): Promise<HeldConnection> {
    const conn = await connectMy(grant, this.secrets, { statementTimeoutMs: timeoutMs });
    await conn.query(grant.readOnly ? 'START TRANSACTION READ ONLY' : 'START TRANSACTION');
    return new MysqlHeld(conn, grant);
  }

  /** Row images stay in the undo log itself. */
  readLazyRows(): null {
    return null;
  }
}

/** Held-transaction mode: the task's statements in one open transaction, each action in a savepoint. */
class MysqlHeld implements HeldConnection {
  constructor(
    private readonly conn: MyConnection,
    private readonly grant: DatabaseGrant,
  ) {}

  async execute(input: RunInput, out: DbStatement[]): Promise<number> {
    await executeMy(this.conn, input, out, { after: async () => undefined });
    const rows = out.reduce((n, s) => n + (s.rowsAffected ?? 0), 0);
    if (!input.approved && rows > input.grant.maxRowsAffected) throw new OverRowLimit(rows, input.grant.maxRowsAffected, input.grant.name);
    return rows;
  }

  async exec(sql: string): Promise<void> {
    await this.conn.query(sql);
  }

  async rollbackTo(savepoint: string): Promise<void> {
    await this.conn.query(`ROLLBACK TO SAVEPOINT ${savepoint}`);
    await this.conn.query(`RELEASE SAVEPOINT ${savepoint}`);
  }

  async close(how: 'commit' | 'rollback'): Promise<void> {
    try {
      await this.conn.query(how === 'commit' ? 'COMMIT' : 'ROLLBACK');
    } catch (error) {
      if (how === 'commit') throw new DbRefusal(`The server refused to commit the held transaction on "${this.grant.name}": ${String(error)}`);
    } finally {
      await this.conn.end().catch(() => undefined);
    }
  }

  describeError(error: unknown): string {
    return describeMyError(error, this.grant);
  }
}
