// A command loads what it needs (issue 28): `posthoc --help` parses without the services or the contract,
// `posthoc tasks` reads the record without Docker, the model clients, MCP, PostgreSQL or git objects, and
// builds the task's schemas alone (not the whole contract's, the actions' or the effects') —
// unless an earlier run left something open, when it opens the whole services, whose start closes it, as
// before. What each process loaded is read from Node's module hooks (tests/support/module-log.mjs); no
// time is measured here (bench/cli-start.ts does that).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { TaskStore } from '../../main/store/task-store';
import { cliTestbed, runPosthoc, type CliRun } from '../support/posthoc-cli';
import { actionFixture } from '../support/action-fixture';

const { dirs, model } = cliTestbed();
const HOOK = resolve('tests/support/module-log.mjs');

/** The services' heavy packages: none of them belongs in a command that only reads the record. */
const SERVICES_ONLY = ['dockerode', 'openai', '@anthropic-ai/sdk', '@modelcontextprotocol/sdk', 'isomorphic-git', 'pg'];

/** What listing tasks does not build: the contract's and the domain's other schemas, the task store, the reverse plans. */
const TASKS_MUST_NOT_LOAD = [
  'shared/contract/index.ts',
  'shared/domain/index.ts',
  'shared/domain/undo.ts',
  'shared/domain/connections.ts',
  'shared/domain/mcp.ts',
  'shared/undo/reverse-plan.ts',
  'main/store/task-store.ts',
  'main/ipc/register-contract.ts',
  'main/ipc/local-client.ts',
];

/** Runs the built CLI and answers what it printed and the packages it loaded (by name, from node_modules). */
async function runLogged(args: string[], env: Record<string, string> = {}): Promise<CliRun & { packages: Set<string>; zod: boolean; sources: Set<string> }> {
  const log = join(dirs.make('posthoc-modules-'), 'loaded.txt');
  const run = await runPosthoc(args, { ...env, NODE_OPTIONS: `--import=${HOOK}`, POSTHOC_MODULE_LOG: log });
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const packages = new Set(urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.slice(1, 2) ?? []));
  // zod is bundled into the build (electron.vite.config.ts): a chunk of out/main that defines its ZodType.
  const chunks = urls.filter((url) => url.startsWith('file:') && url.includes('/out/main/')).map((url) => readFileSync(fileURLToPath(url), 'utf8'));
  // The source modules those chunks hold: rolldown opens each module's part of a chunk with a `// PATH` line.
  const sources = new Set(chunks.flatMap((text) => [...text.matchAll(/^\/\/ ((?:main|shared)\/\S+\.ts)$/gm)].map((m) => m[1]!)));
  return { ...run, packages, zod: packages.has('zod') || chunks.some((text) => text.includes('$constructor("ZodType"')), sources };
}

/** A data folder holding finished tasks, as the app leaves it. */
function dataDirWithTasks(titles: string[]): { dir: string; db: AppDatabase; store: TaskStore } {
  const dir = dirs.make('posthoc-data-');
  const db = openDatabase(dir);
  const store = new TaskStore(db);
  for (const title of titles) store.updateTask(store.createTask({ title, workspaces: [], model: 'm' }).id, { status: 'done', answer: 'ok' });
  return { dir, db, store };
}

type Listed = Array<{ title: string; status: string; error: string | null }>;
const byTitle = (tasks: Listed) => [...tasks].sort((a, b) => a.title.localeCompare(b.title));

describe('what a command loads', () => {
  it('posthoc --help prints every command with commander alone: no services, no contract, no database', async () => {
    const run = await runLogged(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['run', 'tasks', 'actions', 'undo', 'service', 'mcp', 'sandbox', 'web']) expect(run.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(run.packages).toContain('commander');
    for (const name of [...SERVICES_ONLY, 'better-sqlite3', 'diff', 'picomatch']) expect(run.packages, name).not.toContain(name);
    expect(run.zod).toBe(false);
  });

  it('posthoc tasks lists the record with the database alone', async () => {
    const data = dataDirWithTasks(['first task', 'second task', 'third task']);
    data.db.close();
    const run = await runLogged(['tasks'], { POSTHOC_HOME: data.dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n').map((line) => line.split(/\s+/)[1]).sort()).toEqual(['done', 'done', 'done']);
    for (const title of ['first task', 'second task', 'third task']) expect(run.stdout).toContain(`  ${title}\n`);
    const json = await runLogged(['tasks', '--json'], { POSTHOC_HOME: data.dir });
    expect(byTitle(JSON.parse(json.stdout) as Listed).map((t) => [t.title, t.status])).toEqual([['first task', 'done'], ['second task', 'done'], ['third task', 'done']]);
    for (const r of [run, json]) {
      expect(r.packages).toContain('better-sqlite3');
      expect(r.zod).toBe(true); // still a client of the contract: its answer parsed by the task list's schemas
      for (const name of SERVICES_ONLY) expect(r.packages, name).not.toContain(name);
      // The task's schemas and the task list's call, built alone: not the whole contract, the domain's other
      // schemas (actions, effects, undo), the task store or the reverse plans it derives.
      expect(r.sources).toContain('shared/domain/task.ts');
      expect(r.sources).toContain('shared/contract/record-calls.ts');
      for (const source of TASKS_MUST_NOT_LOAD) expect(r.sources, source).not.toContain(source);
    }
  });

  it('posthoc actions lists the record with the database alone, and the same lines and JSON as the whole services', async () => {
    const data = dataDirWithTasks(['with actions']);
    const task = data.store.listTasks()[0]!;
    for (const seq of [1, 2, 3]) {
      data.store.saveAction(actionFixture({ id: `a${seq}-${task.id}`, taskId: task.id, seq, source: `print(${seq})`, finishedAt: '2026-01-01T00:00:01.000Z', output: { stdout: `${seq}\n`, stderr: '', exitCode: 0, timedOut: false, truncated: false } }));
    }
    data.db.close();
    const env = { POSTHOC_HOME: data.dir };
    const lines = await runLogged(['actions', '--task', task.id], env);
    const json = await runLogged(['actions', '--task', task.id, '--json'], env);
    for (const r of [lines, json]) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      for (const name of SERVICES_ONLY) expect(r.packages, name).not.toContain(name);
      // Actions need the whole contract (their answer is parsed by it), loaded when the call is made.
      expect(r.sources).toContain('shared/contract/index.ts');
    }
    // What the whole services answer: the store's list (app-services' action:list), field for field.
    const reopened = openDatabase(data.dir);
    const expected = new TaskStore(reopened).listActions(task.id);
    reopened.close();
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(expected.map((a) => a.seq)).toEqual([1, 2, 3]);
    // A task that is not there: the same not-found words as the whole services give.
    const missing = await runLogged(['actions', '--task', 'no-such-task'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('No task no-such-task. List tasks with "posthoc tasks".');
    expect(lines.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('posthoc run loads what the task uses: Docker and the OpenAI client, not MCP, Anthropic, PostgreSQL, MySQL, ajv or the workbook reader', async () => {
    const llm = await model(['```sh\necho agent > f.txt\n```', 'Wrote f.txt.']);
    const ws = dirs.workspace();
    const run = await runLogged(['run', 'write f', '--workspace', ws, '--data-dir', dirs.make('posthoc-data-')], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'm' });
    expect(run.stderr + run.stdout).toContain('Wrote f.txt.');
    expect(run.code).toBe(0);
    expect(readFileSync(join(ws, 'f.txt'), 'utf8')).toBe('agent\n');
    for (const name of ['dockerode', 'openai', 'better-sqlite3']) expect(run.packages, name).toContain(name);
    // Each is loaded when a task first needs it: an MCP server started or reached, an Anthropic provider called,
    // a PostgreSQL or MySQL database connected (the binary log read), a tool call checked, a workbook shown.
    for (const name of ['@modelcontextprotocol/sdk', '@anthropic-ai/sdk', 'pg', 'mysql2', '@vlasky/zongji', 'ajv', 'read-excel-file']) expect(run.packages, name).not.toContain(name);
  });

  it('posthoc tasks after a crash opens the whole services, whose start closes the dead run, as before', async () => {
    const data = dataDirWithTasks(['finished task']);
    const crashed = data.store.createTask({ title: 'crashed task', workspaces: [], model: 'm' });
    // Its process is gone: a pid no process has (the kernel's pid_max is at most 2^22).
    data.db.prepare('UPDATE tasks SET owner_pid = ?, owner_start = NULL WHERE id = ?').run(2 ** 22 + 1, crashed.id);
    data.db.close();
    const run = await runLogged(['tasks', '--json'], { POSTHOC_HOME: data.dir });
    expect(run.code).toBe(0);
    const tasks = JSON.parse(run.stdout) as Listed;
    expect(tasks.find((t) => t.title === 'crashed task')).toMatchObject({ status: 'interrupted', error: expect.stringContaining('Posthoc stopped while this task ran') });
    expect(run.packages).toContain('dockerode');
    // The next listing finds nothing left open: the record alone again, and the same answer, field for field.
    const again = await runLogged(['tasks', '--json'], { POSTHOC_HOME: data.dir });
    expect(again.packages).not.toContain('dockerode');
    expect(byTitle(JSON.parse(again.stdout) as Listed)).toEqual(byTitle(tasks));
  });
});
