// Outside tasks in Terminal-Bench's format (bench/tasks/), end to end in the real sandbox: the set-up, the
// exercise's reference solution and its own tests as three actions of one task, then a rewind, after which the
// folder is byte-identical to its starting state (content, kind, permission bits, owner). A Python exercise
// (Debian's pytest in the image) and a C one (gcc and make in the image, the Unity framework it vendors); the
// tasks that install a toolchain with apt or npm need the network and run in the bench
// (npx tsx bench/terminal-bench.ts). A wrong solution fails its tests, and is rewound exactly too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type AppServices } from '../../main/services/app-services';
import { SANDBOX_IMAGE } from '../../main/sandbox/sandbox-image';
import { loadTasks, runTask, scriptedEnv, startScriptedModel, type ScriptedModel } from '../../bench/terminal-bench-task';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let model: ScriptedModel;
let services: AppServices;

beforeAll(async () => {
  model = await startScriptedModel();
  services = createServices({ dataDir: dirs.make('posthoc-data-'), image: process.env.POSTHOC_TEST_IMAGE ?? SANDBOX_IMAGE, env: scriptedEnv(model) });
  await services.ready;
});
afterAll(async () => {
  await services?.close();
  await model?.llm.close();
  dirs.cleanup();
});

describe('outside tasks in the sandbox', () => {
  it.each(['python-bowling', 'c-allergies'])('%s: the reference solution passes the task’s tests, and the rewind is exact', async (name) => {
    const [task] = loadTasks(undefined, [name]);
    const r = await runTask(services, model, task!, 300);
    expect(r.steps.map((s) => [s.step, s.exitCode, s.error]), r.failure ?? '').toEqual([
      ['setup', 0, null],
      ['solution', 0, null],
      ['tests', 0, null],
    ]);
    expect(r.passed).toBe(true);
    // Nothing was fetched: these tasks need only what the image has.
    expect(r.steps.map((s) => s.downloads)).toEqual(r.steps.map(() => ({ upstream: 0, cache: 0, refused: 0, bytes: 0 })));
    expect(r.rewind).toBe('rewound');
    expect(r.differences).toEqual([]);
  }, 300_000);

  it('a solution that leaves the stub fails the tests, says why, and is rewound exactly', async () => {
    const [task] = loadTasks(undefined, ['python-bowling']);
    const wrong = { ...task!, scripts: { ...task!.scripts, solution: "echo '# not solved' >> bowling.py\n" } };
    const r = await runTask(services, model, wrong, 300);
    expect(r.steps[1]).toMatchObject({ exitCode: 0, error: null });
    expect(r.steps[2]!.exitCode).not.toBe(0);
    expect(r.passed).toBe(false);
    expect(r.failure).toMatch(/^tests: .*(failed|Error)/);
    expect(r.rewind).toBe('rewound');
    expect(r.differences).toEqual([]);
  }, 300_000);
});
