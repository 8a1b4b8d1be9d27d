// The built CLI on a data folder it cannot use: it exits 2 naming the folder, the cause and what to do
// (--data-dir, POSTHOC_HOME, permissions), with no stack trace, and writes nothing there.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliTestbed, runPosthoc, type CliRun } from '../support/posthoc-cli';

const { dirs } = cliTestbed();
const isRoot = process.getuid?.() === 0;
const PERSON = 1000;

/** Read-only bind mounts made by a test; unmounted before the folders are removed. */
const mounts: string[] = [];
afterEach(() => {
  for (const dir of mounts.splice(0)) spawnSync('umount', [dir]);
});

/** The CLI as the person (uid 1000) when the tests run as root; as the current user otherwise. */
function runAsPerson(args: string[]): Promise<CliRun> {
  return isRoot ? runPosthoc(args, { HOME: '/tmp' }, { asUid: PERSON }) : runPosthoc(args);
}

function expectNamed(run: CliRun, dir: string, cause: RegExp): void {
  expect(run.stderr).toContain(`posthoc: Posthoc cannot use its data folder ${dir}: `);
  expect(run.stderr).toMatch(cause);
  expect(run.stderr).toMatch(/--data-dir or POSTHOC_HOME/);
  expect(run.stderr).not.toMatch(/unable to open database file/);
  expect(run.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  expect(run.stdout).toBe('');
  expect(run.code).toBe(2);
}

describe('posthoc on a data folder it cannot use', () => {
  it('names the file that stands where the data folder (or its parent) should be', async () => {
    const file = join(dirs.make('posthoc-parent-'), 'notes.txt');
    writeFileSync(file, 'mine');
    const under = await runPosthoc(['tasks', '--data-dir', join(file, 'posthoc')]);
    expectNamed(under, join(file, 'posthoc'), new RegExp(`${file} is a file, not a folder`));
    const itself = await runPosthoc(['tasks'], { POSTHOC_HOME: file });
    expectNamed(itself, file, new RegExp(`${file} is a file, not a folder`));
  });

  describe.each([
    ['a root-owned folder', 0],
    ['a folder owned by uid 1000', PERSON],
  ])('read-only: %s', (_label, owner) => {
    it('says it is read-only (or not writable) and what to do, and writes nothing', async () => {
      const dir = dirs.make('posthoc-data-');
      if (isRoot) {
        chownSync(dir, owner, owner);
        // Permissions do not stop root: a read-only bind mount does.
        const mounted = spawnSync('mount', ['-o', 'bind,ro', dir, dir]);
        expect(mounted.status, String(mounted.stderr)).toBe(0);
        mounts.push(dir);
      } else {
        chmodSync(dir, 0o555);
      }
      const run = await runPosthoc(['run', 'x', '--workspace', dirs.workspace(), '--data-dir', dir]);
      expectNamed(run, dir, isRoot ? /it is read-only\. Make it writable/ : /permission denied/);
      expect(readdirSync(dir)).toEqual([]);
      if (!isRoot) chmodSync(dir, 0o755);
    });
  });

  it('as the person, on a folder they may not write (chmod 0555): permission denied, naming their uid', async () => {
    const dir = dirs.make('posthoc-data-');
    const uid = isRoot ? PERSON : process.getuid!();
    if (isRoot) chownSync(dir, PERSON, PERSON);
    chmodSync(dir, 0o555);
    try {
      const run = await runAsPerson(['tasks', '--data-dir', dir]);
      expectNamed(run, dir, new RegExp(`permission denied \\(Posthoc runs as uid ${uid}\\)\\. Fix its permissions`));
      const below = await runAsPerson(['tasks', '--data-dir', join(dir, 'posthoc')]);
      expectNamed(below, join(dir, 'posthoc'), /permission denied/);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      chmodSync(dir, 0o755);
    }
  });
});
