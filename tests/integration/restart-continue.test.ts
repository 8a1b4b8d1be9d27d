// Sessions that survive a restart: Posthoc stopping while a task runs (its web host or app restarted, or
// a crash) marks the task "interrupted" — not the person's Stop — and Continue resumes the conversation
// with the record of what ran and a note to the model naming the restart and the action it cut short.
// Real sandbox, the scripted model server.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createServices, type AppServices } from '../../main/services/app-services';
import { startFakeOpenAi, type ChatRequest, type FakeOpenAi } from '../support/fake-openai-server';
import { assertCliBuilt, runPosthoc } from '../support/posthoc-cli';
import { fsEffectOf, SLOW_WRITER, startPosthoc, until, writtenFiles } from '../support/posthoc-process';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close().catch(() => undefined);
  dirs.cleanup();
});

const WRITE_THEN_WAIT = "```bash\necho one > a.txt\nsleep 120\necho two > b.txt\n```";

function servicesOver(dataDir: string, llm: FakeOpenAi): AppServices {
  const services = createServices({ dataDir, env: { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_STREAM: '0' } });
  open.push(services);
  return services;
}

const lastUser = (request: ChatRequest | undefined) => [...(request?.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';

describe('a restart while a task runs', () => {
  it('marks the task and its running action interrupted (not stopped by the person); Continue resumes with the record and a note', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const workspace = dirs.workspace();
    const llm = await startFakeOpenAi([WRITE_THEN_WAIT, "```bash\ncat a.txt\n```", 'a.txt holds one; b.txt was never written.']);
    open.push(llm);

    const first = servicesOver(dataDir, llm);
    await first.ready;
    const started = await first.handlers['task:start']({ prompt: 'write two files', workspaces: [workspace], actionTimeoutSeconds: 300 });
    await until(() => existsSync(join(workspace, 'a.txt')));
    // The web host (or the app) stops: its services close with the task mid-action.
    await first.close();
    open.splice(open.indexOf(first), 1);

    const second = servicesOver(dataDir, llm);
    await second.ready;
    const [task] = await second.handlers['task:list']({});
    expect(task).toMatchObject({ id: started.id, status: 'interrupted' });
    expect(task!.error).toMatch(/Posthoc stopped \(a restart or a quit\) while this task ran/);
    const [action] = (await second.handlers['task:get']({ taskId: started.id })).actions;
    expect(action!.status).toBe('interrupted');
    expect(action!.output.interrupted!.reason).toMatch(/Posthoc stopped \(a restart or a quit\)/);
    expect(action!.output.interrupted!.reason).not.toMatch(/by you/);
    expect(fsEffectOf(action!)!.added).toEqual(['a.txt']);
    expect(existsSync(join(workspace, 'b.txt'))).toBe(false);

    // Continue: the model hears the restart, which action was cut short, and that action's record.
    const resumed = await second.handlers['task:continue']({ taskId: started.id });
    expect(resumed.status).toBe('running');
    const done = await second.tasks.wait(started.id);
    expect(done).toMatchObject({ status: 'done', error: null, answer: 'a.txt holds one; b.txt was never written.' });
    const request = llm.requests[1]!;
    expect(request.messages.some((m) => m.role === 'assistant' && m.content.includes('echo one > a.txt'))).toBe(true);
    const note = lastUser(request);
    expect(note).toMatch(/^Posthoc restarted while you worked on this task/);
    expect(note).toContain('Action 1 was cut short by the restart');
    // What the cut-short action did, as recorded when it ended, comes before the note.
    const record = request.messages.at(-2)!;
    expect(record.role).toBe('user');
    expect(record.content).toMatch(/Observation for action 1 \(bash\): interrupted: Posthoc stopped \(a restart or a quit\)/);
    expect(record.content).toMatch(/files changed in \S+: added a\.txt/);
    // The note is on the record too (an observation), and the conversation goes on after it.
    const detail = await second.handlers['task:get']({ taskId: started.id });
    expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'observation', 'observation', 'assistant', 'observation', 'assistant']);
    expect(detail.messages[3]!.content).toBe(note);
    expect(detail.actions.map((a) => a.status)).toEqual(['interrupted', 'done']);
    expect(detail.actions[1]!.output.stdout).toBe('one\n');
    expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('one\n');
    // The cut-short action stays undoable.
    expect(await second.handlers['action:undo']({ actionId: action!.id })).toMatchObject({ outcome: 'undone' });
    expect(existsSync(join(workspace, 'a.txt'))).toBe(false);
  });

  it('refuses Continue for a task the restart did not interrupt, and the person\'s Stop still reads as theirs', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const workspace = dirs.workspace();
    const llm = await startFakeOpenAi([WRITE_THEN_WAIT]);
    open.push(llm);
    const services = servicesOver(dataDir, llm);
    const started = await services.handlers['task:start']({ prompt: 'write two files', workspaces: [workspace], actionTimeoutSeconds: 300 });
    await until(() => existsSync(join(workspace, 'a.txt')));
    await services.handlers['task:cancel']({ taskId: started.id });
    const stopped = await services.tasks.wait(started.id);
    expect(stopped.status).toBe('cancelled');
    const [action] = (await services.handlers['task:get']({ taskId: started.id })).actions;
    expect(action!.output.interrupted!.reason).toMatch(/Stopped by you/);
    await expect(services.handlers['task:continue']({ taskId: started.id })).rejects.toThrow(/only a task Posthoc's restart interrupted can be continued/);
  });

  it('a follow-up sent to an interrupted task carries the same note before the person\'s words', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const workspace = dirs.workspace();
    const llm = await startFakeOpenAi([WRITE_THEN_WAIT, 'Understood.']);
    open.push(llm);
    const first = servicesOver(dataDir, llm);
    const started = await first.handlers['task:start']({ prompt: 'write two files', workspaces: [workspace], actionTimeoutSeconds: 300 });
    await until(() => existsSync(join(workspace, 'a.txt')));
    await first.close();
    open.splice(open.indexOf(first), 1);

    const second = servicesOver(dataDir, llm);
    await second.handlers['task:send']({ taskId: started.id, prompt: 'never mind b.txt' });
    expect(await second.tasks.wait(started.id)).toMatchObject({ status: 'done' });
    const users = llm.requests[1]!.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(users.at(-1)).toBe('never mind b.txt');
    expect(users.at(-2)).toContain('Action 1 was cut short by the restart');
  });

  it('after a crash (kill -9), the next start marks the task interrupted and Continue tells the model what the killed action did', async () => {
    assertCliBuilt();
    const dataDir = dirs.make('posthoc-data-');
    const workspace = dirs.workspace();
    const llm = await startFakeOpenAi([SLOW_WRITER, 'Picked up after the crash.']);
    open.push(llm);
    const run = startPosthoc(['run', 'write 100 files slowly', '--workspace', workspace, '--data-dir', dataDir], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' });
    await until(() => writtenFiles(workspace).length >= 3);
    run.child.kill('SIGKILL');
    await run.done;

    const services = servicesOver(dataDir, llm);
    await services.ready;
    const [task] = await services.handlers['task:list']({});
    expect(task!.status).toBe('interrupted');
    await services.handlers['task:continue']({ taskId: task!.id });
    expect(await services.tasks.wait(task!.id)).toMatchObject({ status: 'done', answer: 'Picked up after the crash.' });
    // The killed process never sent the action's observation: the note carries it, with the files it wrote.
    const note = lastUser(llm.requests[1]);
    expect(note).toContain('Action 1 was cut short by the restart');
    expect(note).toMatch(/Observation for action 1 \(python\): interrupted: Posthoc stopped while this action ran \(crash or kill\)/);
    expect(note).toMatch(/files changed in \S+: added f000\.txt, f001\.txt, f002\.txt/);
  });

  it('posthoc continue TASK does the same from a terminal: the next command closes the killed run, continue finishes it', async () => {
    assertCliBuilt();
    const dataDir = dirs.make('posthoc-data-');
    const workspace = dirs.workspace();
    const llm = await startFakeOpenAi([SLOW_WRITER, 'Picked up from the terminal.']);
    open.push(llm);
    const env = { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' };
    const run = startPosthoc(['run', 'write 100 files slowly', '--workspace', workspace, '--data-dir', dataDir], env);
    await until(() => writtenFiles(workspace).length >= 3);
    run.child.kill('SIGKILL');
    await run.done;

    const listed = await runPosthoc(['tasks', '--data-dir', dataDir, '--json'], env);
    const [task] = JSON.parse(listed.stdout) as Array<{ id: string; status: string }>;
    expect(task!.status).toBe('interrupted');
    const resumed = await runPosthoc(['continue', task!.id, '--data-dir', dataDir], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('Picked up from the terminal.');
    expect(lastUser(llm.requests[1])).toContain('Action 1 was cut short by the restart');
    // A task that is not interrupted is refused in words (exit 2: a conflict is the person's to resolve).
    const again = await runPosthoc(['continue', task!.id, '--data-dir', dataDir], env);
    expect(again.stderr).toMatch(/only a task Posthoc's restart interrupted can be continued/);
    expect(again.code).not.toBe(0);
  });
});
