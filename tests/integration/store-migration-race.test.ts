// Eight Posthoc processes started at once on a new data folder: every one opens the store (no "table tasks
// already exists", no "duplicate column name", no "database is locked"), and the schema they leave is the
// one a single process makes, whole.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../main/store/database';
import { migrations } from '../../main/store/migrations';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await new Promise((r) => c.once('exit', r));
    }
  }
});
afterAll(() => dirs.cleanup());

type Opened = { code: number | null; stderr: string };

/** Starts one child that opens the store on `dataDir` when told to; resolves `ready` once it has loaded. */
function opener(dataDir: string): { ready: Promise<void>; go(): void; done: Promise<Opened> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/open-store-child.ts', dataDir], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<Opened>((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('ready\n')) resolve();
    });
    void done.then((r) => reject(new Error(`the child ended before it was ready (exit ${r.code}): ${r.stderr}`)));
  });
  return { ready, go: () => child.stdin!.end('go\n'), done };
}

/** Every table, index and trigger with its SQL, in a fixed order. */
function schemaOf(file: string): { version: number; objects: unknown[]; integrity: unknown } {
  const db = new Database(file, { readonly: true });
  try {
    return {
      version: db.pragma('user_version', { simple: true }) as number,
      objects: db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all(),
      integrity: db.pragma('integrity_check', { simple: true }),
    };
  } finally {
    db.close();
  }
}

describe('eight processes at once on a new data folder', () => {
  it.each([1, 2, 3])('every one opens the store and the schema is whole (round %i)', async () => {
    const reference = dirs.make('posthoc-data-alone-');
    openDatabase(reference).close();
    const expected = schemaOf(join(reference, 'posthoc.sqlite3'));
    expect(expected.version).toBe(migrations.length);

    const dataDir = join(dirs.make('posthoc-data-race-'), 'data'); // not made yet: the processes make it too
    const openers = Array.from({ length: 8 }, () => opener(dataDir));
    await Promise.all(openers.map((o) => o.ready));
    for (const o of openers) o.go();
    const results = await Promise.all(openers.map((o) => o.done));

    expect(results.map((r) => r.stderr)).toEqual(Array(8).fill(''));
    expect(results.map((r) => r.code)).toEqual(Array(8).fill(0));
    expect(schemaOf(join(dataDir, 'posthoc.sqlite3'))).toEqual(expected);
  });
});
