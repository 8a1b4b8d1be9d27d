// PostgreSQL behind the DbEngine interface: a server reached with the password from the vault; capture by
// a row log copied to Posthoc's data folder and catalog differences (pg-runner), undo checked against the
// states recorded after the action (pg-undo), dropped objects kept in a trash schema until kept.
import type { DatabaseGrant, DbStatement, StatementClass } from '../../../../shared/domain';
import { engineLabel } from '../../../../shared/domain/database-engines';
import { DbRefusal, OverRowLimit } from '../db-errors';
import { GrantError, redact, type ParsedLocation } from '../db-grant';
import type { DbEngine, HeldConnection, ImageOpener, RunInput } from '../engine';
import { lazyRowsRead, type LazySource, type RowEntry, type TableLog } from '../row-log';
import type { UndoLog, UndoLogStore } from '../undo-log';
import { pgSource, readRowFile } from './pg-capture';
import { readCatalog, readPgSchema, type Catalog } from './pg-catalog';
import { connectPg, runBatch, type PgClient, type Secrets } from './pg-client';
import { sameCatalog } from './pg-ddl';
import { checkAllowed, classOfTag, describePgError, executePg, runPgAction } from './pg-runner';
import { applyPg, pgDialect } from './pg-undo';

export class PostgresEngine implements DbEngine {
  readonly id = 'postgres' as const;
  readonly label = engineLabel('postgres');
  readonly dialect = pgDialect;
  readonly passwords = true;
  readonly readsOwnRows = false;

  /** `secrets`: passwords of granted servers, read from the vault in the main process only. */
  constructor(private readonly secrets: Secrets) {}

  parseLocation(trimmed: string): ParsedLocation {
    let u: URL;
    try {
      if (!/^[a-z]+:\/\//i.test(trimmed)) throw new Error('no authority');
      u = new URL(trimmed);
    } catch {
      throw new GrantError(`"${redact(trimmed)}" is not a valid PostgreSQL URL; write postgres://USER@HOST:PORT/DATABASE.`);
    }
    const password = u.password ? decodeURIComponent(u.password) : null;
    u.password = '';
    if (!u.pathname || u.pathname === '/') throw new GrantError(`The PostgreSQL URL ${u.toString()} names no database; add /DATABASE at the end.`);
    return { engine: 'postgres', location: u.toString(), password };
  }

  /** The server answers with the grant's credentials. */
  async checkGrant(grant: DatabaseGrant): Promise<void> {
    try {
      const client = await connectPg({ ...grant, readOnly: true }, this.secrets);
      await client.end().catch(() => undefined);
    } catch (error) {
      throw new GrantError(`${error instanceof Error ? error.message : String(error)} (${redact(grant.location)})`);
    }
  }

  async run(input: RunInput, logs: UndoLogStore, logId: string, timeoutMs: number): ReturnType<DbEngine['run']> {
    return runPgAction(input, this.secrets, logs, logId, timeoutMs);
  }

  async apply(...[grant, log, direction, , dryRun]: Parameters<DbEngine['apply']>): ReturnType<DbEngine['apply']> {
    return applyPg(grant, log, direction, this.secrets, dryRun);
  }

  /** Empties the trash schema of the action's schema changes (and drops a row-log table an earlier version left in the database). */
  async keep(grant: DatabaseGrant, log: UndoLog): Promise<void> {
    const cleanup = log.segments.flatMap((s) => (s.kind === 'ddl' ? s.ops.flatMap((o) => o.keep) : []));
    const rowLogs = log.segments.flatMap((s) => (s.kind === 'rows' ? s.tables.flatMap((t) => pgSource(t.lazy?.source)?.log ?? []) : []));
    cleanup.push(...[...new Set(rowLogs)].map((table) => `DROP TABLE IF EXISTS ${table}`));
    if (cleanup.length === 0) return;
    const client = await connectPg({ ...grant, readOnly: false }, this.secrets);
    try {
      await runBatch(client, cleanup);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async readSchema(grant: DatabaseGrant): ReturnType<DbEngine['readSchema']> {
    const client = await connectPg({ ...grant, readOnly: true }, this.secrets);
    try {
      return await readPgSchema(client, { samples: grant.sampleRows });
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async openHeld(grant: DatabaseGrant, timeoutMs: number): Promise<HeldConnection> {
    const client = await connectPg(grant, this.secrets, { statementTimeoutMs: timeoutMs });
    await client.query(grant.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
    return new PostgresHeld(client, grant);
  }

  /** Rows in a row file of the undo folder; a log table in the database (earlier versions) is read by applyPg. */
  readLazyRows(t: TableLog, source: LazySource, open: ImageOpener): RowEntry[] | null {
    const s = pgSource(source);
    if (s?.file === undefined) return null;
    return lazyRowsRead(t, readRowFile(open(s.file).db, s), s.file);
  }
}

class PostgresHeld implements HeldConnection {
  constructor(
    private readonly client: PgClient,
    private readonly grant: DatabaseGrant,
  ) {}

  async execute(input: RunInput, out: DbStatement[]): Promise<number> {
    let catalog: Catalog = await readCatalog(this.client);
    await executePg(this.client, input, out, {
      after: async (_record, _text, tag) => {
        const now = await readCatalog(this.client);
        let kind: StatementClass = classOfTag(tag);
        if (!sameCatalog(catalog, now)) kind = 'ddl';
        catalog = now;
        checkAllowed(input.grant, kind);
        return kind;
      },
    });
    const rows = out.reduce((n, s) => n + (s.rowsAffected ?? 0), 0);
    if (!input.approved && rows > input.grant.maxRowsAffected) throw new OverRowLimit(rows, input.grant.maxRowsAffected, input.grant.name);
    return rows;
  }

  async exec(sql: string): Promise<void> {
    await this.client.query(sql);
  }

  async rollbackTo(savepoint: string): Promise<void> {
    await this.client.query(`ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}`);
  }

  async close(how: 'commit' | 'rollback'): Promise<void> {
    try {
      await this.client.query(how === 'commit' ? 'COMMIT' : 'ROLLBACK');
    } catch (error) {
      if (how === 'commit') throw new DbRefusal(`PostgreSQL refused to commit the held transaction on "${this.grant.name}": ${String(error)}`);
    } finally {
      await this.client.end().catch(() => undefined);
    }
  }

  describeError(error: unknown): string {
    return describePgError(error, this.grant);
  }
}
