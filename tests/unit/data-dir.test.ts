// A data folder Posthoc cannot use is named, with the cause and what to do, never SQLite's bare
// "unable to open database file".
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dataDirProblem, DataDirUnusable, isDataDirProblem, prepareDataDir } from '../../main/store/data-dir';
import { openDatabase } from '../../main/store/database';

const made: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'posthoc-datadir-'));
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const ADVICE = /[Cc]hoose another data folder with --data-dir or POSTHOC_HOME\.$/;

describe('dataDirProblem', () => {
  it.each([
    [{ code: 'EACCES' }, /permission denied \(Posthoc runs as uid 1000\)\. Fix its permissions/],
    [{ code: 'EPERM' }, /permission denied/],
    [{ code: 'EROFS' }, /it is read-only\. Make it writable/],
    [{ code: 'SQLITE_READONLY' }, /it is read-only/],
    [{ code: 'SQLITE_READONLY_DIRECTORY' }, /it is read-only/],
    [{ code: 'ENOSPC' }, /its disk is full\. Free some space/],
    [{ code: 'SQLITE_FULL' }, /its disk is full/],
    [{ code: 'SQLITE_NOTADB' }, /posthoc\.sqlite3 is damaged or is not a Posthoc database \(it was left as it is\)/],
    [{ code: 'SQLITE_CANTOPEN', message: 'unable to open database file' }, /unable to open database file\. Check that it is a folder this user may write/],
  ])('names the folder, the cause and what to do for %o', (error, expected) => {
    const message = dataDirProblem('/srv/posthoc', error, undefined, 1000);
    expect(message).toMatch(/^Posthoc cannot use its data folder \/srv\/posthoc: /);
    expect(message).toMatch(expected);
    expect(message).toMatch(ADVICE);
  });

  it('names the file that stands where a folder should be', () => {
    expect(dataDirProblem('/srv/notes.txt/posthoc', { code: 'ENOTDIR' }, '/srv/notes.txt')).toBe(
      'Posthoc cannot use its data folder /srv/notes.txt/posthoc: /srv/notes.txt is a file, not a folder. Choose another data folder with --data-dir or POSTHOC_HOME.',
    );
  });

  it('tells storage problems from other errors, which pass on unchanged', () => {
    for (const code of ['EACCES', 'EROFS', 'ENOSPC', 'SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_CANTOPEN']) expect(isDataDirProblem({ code })).toBe(true);
    for (const error of [new Error('newer schema'), { code: 'SQLITE_ERROR' }, null, { code: 42 }]) expect(isDataDirProblem(error)).toBe(false);
  });
});

describe('prepareDataDir and openDatabase', () => {
  it('creates a missing data folder, owner-only', () => {
    const dir = join(temp(), 'a', 'b');
    prepareDataDir(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a data folder under a regular file, naming the file', () => {
    const file = join(temp(), 'notes.txt');
    writeFileSync(file, 'x');
    const dir = join(file, 'posthoc');
    expect(() => openDatabase(dir)).toThrow(DataDirUnusable);
    expect(() => openDatabase(dir)).toThrow(`Posthoc cannot use its data folder ${dir}: ${file} is a file, not a folder.`);
    expect(() => openDatabase(file)).toThrow(`${file} is a file, not a folder`);
  });

  it('refuses a posthoc.sqlite3 that is not a database, and leaves it as it is', () => {
    const dir = temp();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'posthoc.sqlite3'), 'not a database, but someone’s file');
    expect(() => openDatabase(dir)).toThrow(/is damaged or is not a Posthoc database/);
    expect(statSync(join(dir, 'posthoc.sqlite3')).size).toBeGreaterThan(0);
  });

  it('opens a usable folder as before', () => {
    const db = openDatabase(temp());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });
});
