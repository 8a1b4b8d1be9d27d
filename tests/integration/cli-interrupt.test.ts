// `posthoc run` interrupted as a person would: Ctrl-C stops the running action, records it and exits 130;
// kill -9 leaves it to the next command, which removes the orphan container before it answers, says what it
// closed, and leaves the action undoable. Each case with a root-owned folder (as root) and one owned by 1000.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Action, Task } from '../../shared/domain';
import { OWNER_LABEL } from '../../main/sandbox/container-policy';
import { createDocker } from '../../main/sandbox/docker-client';
import { cliTestbed, runPosthoc } from '../support/posthoc-cli';
import { FOLDER_OWNERS, fsEffectOf, ownFolder, SLOW_WRITER, startPosthoc, until, writtenFiles } from '../support/posthoc-process';

const { dirs, model } = cliTestbed();

async function containersOf(pid: number): Promise<number> {
  return (await createDocker().listContainers({ all: true, filters: { label: [`${OWNER_LABEL}=${pid}`] } })).length;
}

describe.each(FOLDER_OWNERS)('posthoc run interrupted ($name)', ({ uid }) => {
  it('Ctrl-C stops the action at once, records what it wrote, says how to undo it and exits 130', async () => {
    const llm = await model([SLOW_WRITER, 'Wrote them.']);
    const ws = ownFolder(dirs.make('posthoc-ws-'), uid);
    const dataDir = dirs.make('posthoc-data-');
    const env = { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' };
    const run = startPosthoc(['run', 'write 100 files slowly', '--workspace', ws, '--data-dir', dataDir], env);
    await until(() => writtenFiles(ws).length >= 3);
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(130);

    const actions = JSON.parse((await runPosthoc(['actions', '--data-dir', dataDir, '--json'])).stdout) as Action[];
    expect(actions).toHaveLength(1);
    const action = actions[0]!;
    expect(action.status).toBe('interrupted');
    expect(action.output.interrupted!.reason).toMatch(/Stopped by you/);
    const recorded = fsEffectOf(action)!.added.sort();
    expect(recorded.length).toBeGreaterThanOrEqual(3);
    expect(writtenFiles(ws)).toEqual(recorded);
    expect(result.stdout).toContain('— interrupted');
    expect(result.stderr).toContain(`Stopped action 1; what it changed is recorded. Undo it with: posthoc undo ${action.id}`);
    const [task] = JSON.parse((await runPosthoc(['tasks', '--data-dir', dataDir, '--json'])).stdout) as Task[];
    expect(task!.status).toBe('cancelled');

    const undo = await runPosthoc(['undo', action.id, '--data-dir', dataDir, '--json']);
    expect(undo.code).toBe(0);
    expect(writtenFiles(ws)).toEqual([]);
  });

  it('kill -9: the next command removes the orphan container before it answers, says what it closed, and undo takes the files back', async () => {
    const llm = await model([SLOW_WRITER, 'Wrote them.']);
    const ws = ownFolder(dirs.make('posthoc-ws-'), uid);
    const dataDir = dirs.make('posthoc-data-');
    const run = startPosthoc(['run', 'write 100 files slowly', '--workspace', ws, '--data-dir', dataDir], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' });
    const pid = run.child.pid!;
    await until(() => writtenFiles(ws).length >= 3);
    run.child.kill('SIGKILL');
    await run.done;
    expect(await containersOf(pid)).toBe(1);

    const tasks = await runPosthoc(['tasks', '--data-dir', dataDir, '--json']);
    expect(tasks.code).toBe(0);
    expect(await containersOf(pid)).toBe(0);
    const [task] = JSON.parse(tasks.stdout) as Task[];
    expect(task!.status).toBe('interrupted');
    expect(task!.error).toMatch(/Posthoc stopped while this task ran/);
    const actions = JSON.parse((await runPosthoc(['actions', '--data-dir', dataDir, '--json'])).stdout) as Action[];
    const action = actions[0]!;
    expect(tasks.stderr).toMatch(new RegExp(`posthoc: closed action 1 of task "write 100 files slowly" \\(${action.id}\\): interrupted when Posthoc stopped; \\d+ file changes? recorded; undo with: posthoc undo ${action.id}`));
    expect(action.status).toBe('interrupted');
    expect(action.output.interrupted!.reason).toMatch(/Posthoc stopped while this action ran \(crash or kill\)/);
    const recorded = fsEffectOf(action)!.added.sort();
    expect(recorded.length).toBeGreaterThanOrEqual(3);
    // Nothing of the killed run writes any more: the folder holds what the record says, and stays so.
    expect(writtenFiles(ws)).toEqual(recorded);
    await sleep(1000);
    expect(writtenFiles(ws)).toEqual(recorded);
    // Closed once: the next command has nothing to say.
    expect((await runPosthoc(['tasks', '--data-dir', dataDir])).stderr).toBe('');

    const undo = await runPosthoc(['undo', action.id, '--data-dir', dataDir, '--json']);
    expect(undo.code).toBe(0);
    expect(JSON.parse(undo.stdout)).toMatchObject({ outcome: 'undone' });
    expect(writtenFiles(ws)).toEqual([]);
  });
  it('a second Ctrl-C exits at once; the next command closes whatever was left and undo takes the files back', async () => {
    const llm = await model([SLOW_WRITER, 'Wrote them.']);
    const ws = ownFolder(dirs.make('posthoc-ws-'), uid);
    const dataDir = dirs.make('posthoc-data-');
    const run = startPosthoc(['run', 'write 100 files slowly', '--workspace', ws, '--data-dir', dataDir], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' });
    const pid = run.child.pid!;
    await until(() => writtenFiles(ws).length >= 3);
    run.child.kill('SIGINT');
    run.child.kill('SIGINT');
    expect((await run.done).code).toBe(130);

    const tasks = await runPosthoc(['tasks', '--data-dir', dataDir, '--json']);
    expect(await containersOf(pid)).toBe(0);
    expect((JSON.parse(tasks.stdout) as Task[])[0]!.status).not.toBe('running');
    const [action] = JSON.parse((await runPosthoc(['actions', '--data-dir', dataDir, '--json'])).stdout) as Action[];
    expect(action!.status).toBe('interrupted');
    expect(writtenFiles(ws)).toEqual(fsEffectOf(action!)!.added.sort());
    expect((await runPosthoc(['undo', action!.id, '--data-dir', dataDir])).code).toBe(0);
    expect(writtenFiles(ws)).toEqual([]);
  });
});
