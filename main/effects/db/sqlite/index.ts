// SQLite behind the DbEngine interface: a granted file, opened in the main process with better-sqlite3;
// capture by pages or per-row triggers (sqlite-runner), undo from the log or a snapshot (sqlite-undo).
import type Database from 'better-sqlite3';
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { DatabaseGrant, DbStatement } from '../../../../shared/domain';
import { DATABASE_ENGINES, engineLabel } from '../../../../shared/domain/database-engines';
import { isPathInside } from '../../fs/path-guard';
import { GrantError, redact, type ParsedLocation } from '../db-grant';
import type { DbEngine, HeldConnection, ImageOpener, RunInput } from '../engine';
import { lazyRowsRead, type LazySource, type RowEntry, type TableLog } from '../row-log';
import type { UndoLogStore } from '../undo-log';
import { readLazyRows, sqliteSource } from './sqlite-capture';
import { readPageRows } from './sqlite-pages';
import { describeError, execute, openSqlite, runSqliteAction } from './sqlite-runner';
import { readSqliteSchema, SchemaCache } from './sqlite-schema';
import { applySqlite, sqliteDialect } from './sqlite-undo';

export class SqliteEngine implements DbEngine {
  readonly id = 'sqlite' as const;
  readonly label = engineLabel('sqlite');
  readonly dialect = sqliteDialect;
  readonly passwords = false;
  readonly readsOwnRows = true;

  /** `schemas`: the tables each action captures, remembered by the schema's text. */
  constructor(private readonly schemas: SchemaCache = new SchemaCache()) {}

  parseLocation(trimmed: string, cwd: string): ParsedLocation {
    const path = trimmed.replace(/^sqlite:(\/\/)?/i, '');
    if (path === '' || (!/^sqlite:/i.test(trimmed) && !/\.(db|sqlite3?|db3)$/i.test(path))) {
      throw new GrantError(`"${redact(trimmed)}" is neither sqlite:PATH nor a URL Posthoc knows; for example --db shop=sqlite:./shop.db or --db crm=${DATABASE_ENGINES.postgres.example}.`);
    }
    return { engine: 'sqlite', location: isAbsolute(path) ? path : resolve(cwd, path), password: null };
  }

  async checkGrant(grant: DatabaseGrant, protectedPaths: string[]): Promise<void> {
    const st = await stat(grant.location).catch(() => undefined);
    if (!st) throw new GrantError(`The SQLite file ${grant.location} does not exist. Grant an existing database file.`);
    if (!st.isFile()) throw new GrantError(`${grant.location} is not a file; grant a SQLite database file.`);
    const real = await realpath(grant.location);
    for (const guarded of await Promise.all(protectedPaths.map((g) => realpath(g).catch(() => g)))) {
      if (isPathInside(guarded, real)) {
        throw new GrantError(`${grant.location} is part of Posthoc's own data (${guarded}); the agent must never reach it. Grant a copy instead.`);
      }
    }
    grant.location = real;
  }

  async run(input: RunInput, logs: UndoLogStore, logId: string): ReturnType<DbEngine['run']> {
    return runSqliteAction(input, logs, logId, this.schemas);
  }

  async apply(...[grant, log, direction, logs, dryRun]: Parameters<DbEngine['apply']>): ReturnType<DbEngine['apply']> {
    return applySqlite(grant, log, direction, logs, dryRun);
  }

  /** Snapshots and capture files are in Posthoc's data folder; the file itself keeps nothing. */
  async keep(): Promise<void> {}

  async readSchema(grant: DatabaseGrant): ReturnType<DbEngine['readSchema']> {
    const db = openSqlite(grant, { write: false });
    try {
      return readSqliteSchema(db, { samples: grant.sampleRows });
    } finally {
      db.close();
    }
  }

  async openHeld(grant: DatabaseGrant): Promise<HeldConnection> {
    const db = openSqlite(grant, { write: true });
    db.exec(grant.readOnly ? 'BEGIN' : 'BEGIN IMMEDIATE');
    return new SqliteHeld(db, grant);
  }

  readLazyRows(t: TableLog, source: LazySource, open: ImageOpener): RowEntry[] | null {
    const s = sqliteSource(source);
    if (s?.engine === 'sqlite') return lazyRowsRead(t, readLazyRows(open(s.file).db, s), s.file);
    if (s?.engine === 'sqlite-pages') return lazyRowsRead(t, readPageRows(t, s, open), s.after);
    return null;
  }
}

class SqliteHeld implements HeldConnection {
  constructor(
    private readonly db: Database.Database,
    private readonly grant: DatabaseGrant,
  ) {}

  async execute(input: RunInput, out: DbStatement[]): Promise<number> {
    let changes = 0;
    execute(this.db, input, out, {
      onDdl: () => undefined,
      rows: () => (changes = out.reduce((n, s) => n + (s.rowsAffected ?? 0), 0)),
    });
    return changes;
  }

  async exec(sql: string): Promise<void> {
    this.db.exec(sql);
  }

  async rollbackTo(savepoint: string): Promise<void> {
    if (!this.db.inTransaction) return;
    this.db.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
  }

  async close(how: 'commit' | 'rollback'): Promise<void> {
    try {
      if (this.db.inTransaction) this.db.exec(how === 'commit' ? 'COMMIT' : 'ROLLBACK');
    } finally {
      this.db.close();
    }
  }

  describeError(error: unknown): string {
    return describeError(error, this.grant);
  }
}
