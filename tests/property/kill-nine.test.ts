// Property: `posthoc run` killed with SIGKILL at a random moment — before the model answers, while the
// container starts, during a checkpoint, mid-action, between actions — leaves nothing silent and nothing
// lost. The next command removes the orphan container before it answers, no task or action stays
// "running", the folder holds exactly what the record says the actions wrote, and undo takes it all back.
// Each run alternates a root-owned folder and one owned by uid 1000 (when the tests run as root).
//
// Runs: POSTHOC_KILL_RUNS, else POSTHOC_PROPERTY_RUNS / 100, at least 3 (CI: 3; nightly: 30).
import fc from 'fast-check';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Action, Task } from '../../shared/domain';
import { OWNER_LABEL } from '../../main/sandbox/container-policy';
import { createDocker } from '../../main/sandbox/docker-client';
import { startFakeOpenAi } from '../support/fake-openai-server';
import { assertCliBuilt, runPosthoc } from '../support/posthoc-cli';
import { FOLDER_OWNERS, ownFolder, recordedFiles, SLOW_WRITER, startPosthoc } from '../support/posthoc-process';

const RUNS = Number(process.env.POSTHOC_KILL_RUNS ?? Math.max(3, Math.floor(Number(process.env.POSTHOC_PROPERTY_RUNS ?? 200) / 100)));
const SEED = process.env.POSTHOC_PROPERTY_SEED ? Number(process.env.POSTHOC_PROPERTY_SEED) : undefined;
/** Three files at once, then the slow writer: kills land around two actions and between them. */
const QUICK_WRITER = "```sh\nfor i in 0 1 2; do echo $i > q$i.txt; done\n```";

beforeAll(assertCliBuilt);

let runNumber = 0;

async function killAt(delayMs: number): Promise<void> {
  const owner = FOLDER_OWNERS[runNumber++ % FOLDER_OWNERS.length]!;
  const llm = await startFakeOpenAi([QUICK_WRITER, SLOW_WRITER, 'Done.']);
  const ws = ownFolder(mkdtempSync(join(tmpdir(), 'posthoc-ws-')), owner.uid);
  const dataDir = mkdtempSync(join(tmpdir(), 'posthoc-data-'));
  const where = `kill -9 after ${delayMs} ms, ${owner.name}`;
  try {
    const run = startPosthoc(['run', 'write files', '--workspace', ws, '--data-dir', dataDir], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' });
    const pid = run.child.pid!;
    await sleep(delayMs);
    run.child.kill('SIGKILL');
    await run.done;

    const next = await runPosthoc(['tasks', '--data-dir', dataDir, '--json']);
    expect(next.code, where).toBe(0);
    const containers = await createDocker().listContainers({ all: true, filters: { label: [`${OWNER_LABEL}=${pid}`] } });
    expect(containers, where).toEqual([]);
    const tasks = JSON.parse(next.stdout) as Task[];
    expect(tasks.filter((t) => t.status === 'running'), where).toEqual([]);
    const actions = JSON.parse((await runPosthoc(['actions', '--data-dir', dataDir, '--json'])).stdout) as Action[];
    expect(actions.filter((a) => a.status === 'running' || a.status === 'awaiting-approval'), where).toEqual([]);
    for (const a of actions.filter((x) => x.status === 'interrupted')) {
      expect(next.stderr, where).toContain(`closed action ${a.seq} of task`);
      expect(a.output.interrupted?.recorded, where).toBe(true);
    }
    expect(readdirSync(ws).sort(), where).toEqual(recordedFiles(actions));

    for (const a of [...actions].reverse().filter((x) => recordedFiles([x]).length > 0)) {
      const undo = await runPosthoc(['undo', a.id, '--data-dir', dataDir]);
      expect(undo.code, `${where}: undo of action ${a.seq} (${a.status}): ${undo.stderr}`).toBe(0);
    }
    expect(readdirSync(ws), where).toEqual([]);
  } finally {
    await llm.close();
    rmSync(ws, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('kill -9 of posthoc run at a random moment', () => {
  it(`leaves every action on the record and undoable (${RUNS} runs)`, async () => {
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: 6000 }), killAt), { numRuns: RUNS, seed: SEED, endOnFailure: true });
  });
});
