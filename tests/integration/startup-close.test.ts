// The start of any Posthoc command closes what a dead process left open, and only that: a running action
// whose process still runs (the app, while the person runs `posthoc tasks`) is left alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Action, Task } from '../../shared/domain';
import { createServices, type AppServices } from '../../main/services/app-services';
import { FOLDER_OWNERS, ownFolder } from '../support/posthoc-process';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const open: AppServices[] = [];
let other: ChildProcess | undefined;
afterEach(async () => {
  other?.kill('SIGKILL');
  other = undefined;
  for (const s of open.splice(0)) await s.close();
  dirs.cleanup();
});

async function startOver(dataDir: string): Promise<{ services: AppServices; closed: string[] }> {
  const services = createServices({ dataDir, env: {} });
  open.push(services);
  return { services, closed: await services.ready };
}

function actionOf(task: Task, input: Partial<Action>): Action {
  return {
    id: randomUUID(),
    taskId: task.id,
    seq: 1,
    kind: 'code',
    language: 'sh',
    source: 'sleep 100',
    status: 'running',
    output: { stdout: '', stderr: '', exitCode: null, timedOut: false, truncated: false },
    effects: [],
    reverse: { state: 'ready', folders: 0, steps: [], irreversible: [], takenBack: [] },
    messageId: null,
    confinement: { level: 'reversible', reason: 'Running in the sandbox.' },
    startedAt: new Date().toISOString(),
    finishedAt: null,
    undoneAt: null,
    ...input,
  };
}

/** Records a task and its action as owned by process `pid` (start time unknown: the pid alone decides). */
function ownedBy(services: AppServices, pid: number, workspace: string, input: Partial<Action>, granted: string[] = []): { task: Task; action: Action } {
  const task = services.store.createTask({ title: 'long job', workspaces: [{ name: 'ws', hostPath: workspace, mountPath: '/workspace', readOnly: false }], services: granted, model: 'm' });
  const action = services.store.saveAction(actionOf(task, input));
  services.db.prepare('UPDATE tasks SET owner_pid = ?, owner_start = NULL WHERE id = ?').run(pid, task.id);
  services.db.prepare('UPDATE actions SET owner_pid = ?, owner_start = NULL WHERE id = ?').run(pid, action.id);
  return { task, action };
}

describe.each(FOLDER_OWNERS)('closing at the start ($name)', ({ uid }) => {
  it('leaves a live process\'s running action alone, and closes it once that process is gone', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const workspace = ownFolder(dirs.make('posthoc-ws-'), uid);
    other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const first = await startOver(dataDir);
    const { task, action } = ownedBy(first.services, other.pid!, workspace, {});

    const second = await startOver(dataDir);
    expect(second.closed).toEqual([]);
    expect(second.services.store.getAction(action.id)!.status).toBe('running');
    expect(second.services.store.getTask(task.id)!.status).toBe('running');

    other.kill('SIGKILL');
    await new Promise((resolve) => other!.once('exit', resolve));
    const third = await startOver(dataDir);
    expect(third.closed).toHaveLength(1);
    expect(third.closed[0]).toMatch(new RegExp(`closed action 1 of task "long job" \\(${action.id}\\): interrupted when Posthoc stopped; it changed no file\\. No checkpoint of .* was taken before it`));
    const closed = third.services.store.getAction(action.id)!;
    expect(closed.status).toBe('interrupted');
    expect(closed.output.interrupted).toMatchObject({ recorded: true });
    expect(closed.finishedAt).not.toBeNull();
    expect(third.services.store.getTask(task.id)).toMatchObject({ status: 'interrupted', error: expect.stringMatching(/Posthoc stopped while this task ran/) });
  });
});

describe('closing at the start', () => {
  it('closes an action that waited for approval in a process that is gone: interrupted, it never ran', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const gone = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => gone.once('exit', resolve));
    const first = await startOver(dataDir);
    const { action } = ownedBy(first.services, gone.pid!, dirs.make('posthoc-ws-'), { kind: 'sql', language: 'sql', source: 'DELETE FROM t', status: 'awaiting-approval' });

    const next = await startOver(dataDir);
    expect(next.closed).toEqual([expect.stringMatching(/closed action 1 .*waited for approval; it never ran/)]);
    expect(next.services.store.getAction(action.id)).toMatchObject({ status: 'interrupted', output: { interrupted: { recorded: true } } });
    // Every handler (app, web host) answers after the closing: the task list already shows it closed.
    const tasks = await next.services.handlers['task:list']({});
    expect(tasks[0]!.status).toBe('interrupted');
  });
  it('says the calls of an action closed after a crash are unknown: confined, naming what it could reach', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const gone = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => gone.once('exit', resolve));
    const first = await startOver(dataDir);
    const { action } = ownedBy(first.services, gone.pid!, dirs.make('posthoc-ws-'), {}, ['notes']);
    await startOver(dataDir);
    expect(first.services.store.getAction(action.id)!.confinement).toMatchObject({
      level: 'confined',
      reason: expect.stringMatching(/calls it may have made to notes were not recorded/),
    });
  });
});
