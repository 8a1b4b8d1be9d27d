// Opens the app database (better-sqlite3) in the data directory and brings its schema up to date.
import Database from 'better-sqlite3';
import { accessSync, constants, existsSync } from 'node:fs';
import { join } from 'node:path';
import { dataDirError, isDataDirProblem, prepareDataDir } from './data-dir';
import { migrations } from './migrations';

export type AppDatabase = Database.Database;

export function openDatabase(dataDir: string): AppDatabase {
  prepareDataDir(dataDir);
  const file = join(dataDir, 'posthoc.sqlite3');
  let db: AppDatabase | undefined;
  try {
    // SQLite opens a file it may not write read-only without a word, and fails at the first write.
    if (existsSync(file)) accessSync(file, constants.R_OK | constants.W_OK);
    db = new Database(file);
    // Before anything else: another Posthoc process opening the same folder at the same moment (eight
    // `posthoc` commands started at once) holds the file's lock for a moment, and every step below waits.
    db.pragma('busy_timeout = 5000');
    walMode(db);
    db.pragma('foreign_keys = ON');
    migrate(db);
  } catch (error) {
    db?.close();
    throw isDataDirProblem(error) ? dataDirError(dataDir, error) : error;
  }
  return db;
}

/** How long opening waits for another process that holds the file while the journal mode is set. */
const WAL_WAIT_MS = 5_000;

/**
 * Turns on WAL. Switching the journal mode takes the file's exclusive lock, and SQLite may answer "database is
 * locked" at once, without its busy handler, while another process opening the same new file holds a lock for a
 * moment (eight commands started together): wait a little and try again, up to WAL_WAIT_MS.
 */
function walMode(db: AppDatabase): void {
  const deadline = Date.now() + WAL_WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (!String((error as { code?: string }).code).startsWith('SQLITE_BUSY') || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 10 + Math.floor(Math.random() * 20));
    }
  }
}

/** How long opening waits for another process's migration before it gives up. */
const MIGRATION_WAIT_MS = 60_000;

/**
 * Brings the schema up to date, atomically across processes: the version is read again inside one
 * BEGIN IMMEDIATE transaction (the database's write lock, waited for), so of several processes opening a
 * new data folder at once one migrates and the others find the schema already current. A migration that
 * fails leaves the schema as it was.
 */
export function migrate(db: AppDatabase): void {
  const version = (): number => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > migrations.length) {
      throw new Error(
        `This data directory was written by a newer Posthoc (schema ${current}, this build knows ${migrations.length}). Update Posthoc or use another --data-dir.`,
      );
    }
    return current;
  };
  if (version() === migrations.length) return;
  const busy = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma(`busy_timeout = ${Math.max(busy, MIGRATION_WAIT_MS)}`);
  try {
    db.transaction(() => {
      for (let v = version(); v < migrations.length; v++) {
        db.exec(migrations[v]!);
        db.pragma(`user_version = ${v + 1}`);
      }
    }).immediate();
  } finally {
    db.pragma(`busy_timeout = ${busy}`);
  }
}
