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
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db);
  } catch (error) {
    db?.close();
    throw isDataDirProblem(error) ? dataDirError(dataDir, error) : error;
  }
  return db;
}

export function migrate(db: AppDatabase): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(
      `This data directory was written by a newer Posthoc (schema ${current}, this build knows ${migrations.length}). Update Posthoc or use another --data-dir.`,
    );
  }
  for (let version = current; version < migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
