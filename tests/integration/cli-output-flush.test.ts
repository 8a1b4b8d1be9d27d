// Piped CLI output arrives whole: `posthoc actions --json | cat` with more than 5 MB of actions parses as
// one JSON document, in a data folder owned by root and in one owned by uid 1000.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chownSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Action } from '../../shared/domain';
import { openDatabase } from '../../main/store/database';
import { TaskStore } from '../../main/store/task-store';
import { cliTestbed, POSTHOC_BIN } from '../support/posthoc-cli';

const { dirs } = cliTestbed();

const ACTIONS = 90;
const STDOUT_BYTES = 64 * 1024;

/** Writes a task with ACTIONS finished actions of STDOUT_BYTES of output each, through the store itself. */
function seed(dataDir: string): string {
  const db = openDatabase(dataDir);
  try {
    const store = new TaskStore(db);
    const task = store.createTask({ title: 'big output', workspaces: [], model: 'm' });
    for (let seq = 1; seq <= ACTIONS; seq++) {
      const action: Action = {
        id: randomUUID(),
        taskId: task.id,
        seq,
        kind: 'code',
        language: 'sh',
        source: `echo ${seq}`,
        status: 'done',
        // Distinct per action, so a cut or a repeat would show in the parsed result.
        output: { stdout: `${seq}:`.padEnd(STDOUT_BYTES, String.fromCharCode(97 + (seq % 26))), stderr: '', exitCode: 0, timedOut: false, truncated: false },
        effects: [],
        reverse: { state: 'ready', folders: 0, steps: [], irreversible: [], takenBack: [] },
        messageId: null,
        confinement: { level: 'reversible', reason: 'Ran in the sandbox.' },
        startedAt: new Date().toISOString(),
        finishedAt: new Date().toISOString(),
        undoneAt: null,
      };
      store.saveAction(action);
    }
    return task.id;
  } finally {
    db.close();
  }
}

function pipedThroughCat(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // pipefail: the exit code is posthoc's, not cat's.
    const script = `set -o pipefail; "$0" "$@" | cat`;
    const child = spawn('bash', ['-c', script, process.execPath, POSTHOC_BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr }));
  });
}

describe('piped CLI output', () => {
  it.each([
    ['root', null],
    ['uid 1000', 1000],
  ])('posthoc actions --json | cat gives all of a >5 MB answer, parsed whole (data folder owned by %s)', async (_owner, uid) => {
    const dataDir = dirs.make('posthoc-flush-');
    if (uid !== null) chownSync(dataDir, uid, uid);
    const taskId = seed(dataDir);
    if (uid !== null) chownSync(dataDir, uid, uid);
    const run = await pipedThroughCat(['actions', '--task', taskId, '--json', '--data-dir', dataDir]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeGreaterThan(5 * 1024 * 1024);
    const actions = JSON.parse(run.stdout) as Action[];
    expect(actions.map((a) => a.seq)).toEqual(Array.from({ length: ACTIONS }, (_, i) => i + 1));
    for (const a of actions) expect(a.output.stdout).toBe(`${a.seq}:`.padEnd(STDOUT_BYTES, String.fromCharCode(97 + (a.seq % 26))));
  });
});
