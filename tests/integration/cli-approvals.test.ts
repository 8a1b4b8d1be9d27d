// What waits for the person under `posthoc run`, through the built CLI: a SQL action over its grant's
// rows limit. Without a terminal the run prints `posthoc approve ID` / `posthoc reject ID` and waits;
// a second CLI process answers it through the data folder. On a terminal (a pseudo-terminal from
// util-linux's `script`) the run asks "Approve? [y/N]" and takes the answer. Hostile: an id that names a
// path, an id nothing waits on, an action already decided.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteShop } from '../support/shop-db';
import { cliTestbed, POSTHOC_BIN, runPosthoc } from '../support/posthoc-cli';

const { dirs, model } = cliTestbed();

const RAISE_ALL = '```sql\nUPDATE products SET price_cents = price_cents + 1;\n```';
const prices = (file: string): number[] => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT price_cents FROM products ORDER BY id').all() as Array<{ price_cents: number }>).map((r) => r.price_cents);
  } finally {
    db.close();
  }
};

type Background = { child: ChildProcess; stdout: () => string; stderr: () => string; exit: Promise<number | null>; until(re: RegExp, stream?: 'stdout' | 'stderr'): Promise<RegExpMatchArray> };

function background(file: string, args: string[], env: Record<string, string>): Background {
  const child = spawn(file, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: Array<() => void> = [];
  const poke = () => waiters.splice(0).forEach((w) => w());
  child.stdout!.on('data', (d) => ((out += d), poke()));
  child.stderr!.on('data', (d) => ((err += d), poke()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => (poke(), resolve(code))));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exit,
    async until(re, stream = 'stderr') {
      for (;;) {
        const match = (stream === 'stderr' ? err : out).match(re);
        if (match) return match;
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode} before ${re}:\n${out}\n${err}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

describe('approvals under posthoc run', () => {
  it('without a terminal, prints the commands; posthoc approve and reject from a second process decide', async () => {
    const llm = await model([RAISE_ALL, RAISE_ALL, 'Raised once; the second raise was declined.']);
    const file = join(dirs.make('posthoc-db-'), 'shop.db');
    createSqliteShop(file);
    const before = prices(file);
    const dataDir = dirs.make('posthoc-data-');
    const env = { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' };
    const run = background(process.execPath, [POSTHOC_BIN, 'run', 'raise every price', '--db', `shop=sqlite:${file}`, '--db-max-rows', 'shop=1', '--data-dir', dataDir], env);
    run.child.stdin!.end(); // not a terminal: nobody can answer here

    const first = await run.until(/approve it with:\n {2}posthoc approve ([0-9a-f-]{36}) --data-dir (\S+)\nor decline it with:\n {2}posthoc reject \1/);
    expect(run.stderr()).toMatch(/Action 1 waits for your approval: .*rows/i);
    expect(first[2]).toBe(dataDir);
    expect(prices(file)).toEqual(before); // held: rolled back, nothing changed yet

    const approved = await runPosthoc(['approve', first[1]!, '--data-dir', dataDir]);
    expect(approved.stderr).toBe('');
    expect(approved.stdout).toContain('Approved action 1');
    expect(approved.code).toBe(0);

    const second = await run.until(/Action 2 waits[\s\S]*posthoc reject ([0-9a-f-]{36})/);
    const rejected = await runPosthoc(['reject', second[1]!, '--data-dir', dataDir]);
    expect(rejected.stdout).toContain('Declined action 2');
    expect(rejected.code).toBe(0);

    expect(await run.exit).toBe(0);
    expect(run.stdout()).toContain('Raised once');
    expect(prices(file)).toEqual(before.map((p) => p + 1)); // the approved one ran, the declined one did not
    expect(llm.requests[2]!.messages.at(-1)!.content).toMatch(/declined/);

    // Hostile and stale: decided already, nothing waits on the id, an id that names a path.
    const again = await runPosthoc(['approve', first[1]!, '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/Action 1 is done.*nothing to approve/);
    const nobody = await runPosthoc(['reject', '0b5c7f6e-1111-4222-8333-944455556666', '--data-dir', dataDir]);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toMatch(/no longer held/);
    const sneaky = await runPosthoc(['approve', '../../outside', '--data-dir', dataDir]);
    expect(sneaky.code).toBe(2);
    expect(sneaky.stderr).toMatch(/not an action or call id/);
    expect(existsSync(join(dataDir, '..', 'outside.request'))).toBe(false);
    // The hand-over leaves nothing behind.
    expect(readdirSync(join(dataDir, 'approvals'))).toEqual([]);
  }, 120_000);

  it('on a terminal, asks "Approve? [y/N]" and takes the answer', async () => {
    const llm = await model([RAISE_ALL, 'Raised every price by one cent.']);
    const file = join(dirs.make('posthoc-db-'), 'shop.db');
    createSqliteShop(file);
    const before = prices(file);
    const dataDir = dirs.make('posthoc-data-');
    const command = [process.execPath, POSTHOC_BIN, 'run', 'raise every price', '--db', `shop=sqlite:${file}`, '--db-max-rows', 'shop=1', '--data-dir', dataDir]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    // script gives the command a pseudo-terminal; what it prints comes back on script's stdout.
    const run = background('script', ['-qec', command, '/dev/null'], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted', TERM: 'dumb' });
    await run.until(/Action 1 waits for your approval: [\s\S]*Approve\? \[y\/N\]/, 'stdout');
    expect(prices(file)).toEqual(before);
    expect(run.stdout()).not.toContain('posthoc approve');
    run.child.stdin!.write('y\r');
    await run.until(/Raised every price by one cent/, 'stdout');
    expect(await run.exit).toBe(0);
    expect(run.stdout()).toContain('Approved action 1');
    expect(prices(file)).toEqual(before.map((p) => p + 1));
  }, 120_000);
});
