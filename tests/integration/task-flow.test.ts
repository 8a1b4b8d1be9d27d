// A whole task through the real services: scripted model → code in Docker → checkpoints → undo.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventName } from '../../shared/contract';
import { startHarness, type Harness } from '../support/services-harness';
import { describeReversePlan } from '../../shared/undo/reverse-plan';

const writeHello = "I'll write it.\n\n```python\nopen('hello.txt', 'w').write('Hello, Ada!\\n')\nprint('done')\n```";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a task from prompt to undo', () => {
  it('runs the action, records its effect, level and reverse plan, and undo removes only that file', async () => {
    harness = await startHarness([writeHello, 'Created hello.txt.']);
    const { services, workspace } = harness;
    writeFileSync(join(workspace, 'notes.txt'), 'my own notes\n');
    const events: EventName[] = [];
    services.events.subscribe((e) => events.push(e));

    const started = await services.tasks.start({ prompt: 'make a file hello.txt that greets me', workspaces: [workspace] });
    const task = await services.tasks.wait(started.id);
    expect(task).toMatchObject({ status: 'done', answer: 'Created hello.txt.' });
    expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('Hello, Ada!\n');

    const [action] = services.tasks.get(task.id).actions;
    expect(action).toMatchObject({
      seq: 1,
      language: 'python',
      status: 'done',
      output: { stdout: 'done\n', exitCode: 0 },
      effects: [{ channel: 'fs', added: ['hello.txt'], modified: [], deleted: [] }],
      confinement: { level: 'reversible' },
      reverse: { state: 'ready' },
    });
    expect(describeReversePlan(action!.reverse, action!.kind)).toMatch(/Delete hello\.txt/);
    expect(events).toEqual(expect.arrayContaining(['task:updated', 'message:added', 'message:delta', 'action:updated']));

    // The model saw the observation of its action.
    const second = harness.llm.requests[1]!;
    const observation = second.messages.at(-1)!;
    expect(observation.role).toBe('user');
    expect(observation.content).toContain('exit code 0');
    expect(observation.content).toContain('added hello.txt');

    const undo = await services.tasks.undo(action!.id);
    expect(undo).toMatchObject({ outcome: 'undone', removed: ['hello.txt'] });
    expect(existsSync(join(workspace, 'hello.txt'))).toBe(false);
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('my own notes\n');
    expect(services.store.getAction(action!.id)?.status).toBe('undone');
  });

  it('refuses an undo that would overwrite the person\'s later edit, naming the path', async () => {
    harness = await startHarness([writeHello, 'Done.'], { stream: false });
    const { services, workspace } = harness;
    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'greet me', workspaces: [workspace] })).id);
    expect(task.status).toBe('done');
    writeFileSync(join(workspace, 'hello.txt'), 'I changed this myself\n');
    const [action] = services.tasks.get(task.id).actions;
    const undo = await services.tasks.undo(action!.id);
    expect(undo).toMatchObject({ outcome: 'conflict', paths: ['hello.txt'] });
    expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('I changed this myself\n');
  });

  it('lets the agent fix its own error: a failing block stops the rest and the next reply sees the traceback', async () => {
    harness = await startHarness([
      "```python\nraise ValueError('boom')\n```\n```python\nopen('never.txt','w')\n```",
      (req) => (req.messages.at(-1)!.content.includes('ValueError: boom') ? "```bash\necho fixed > fixed.txt\n```" : 'no traceback seen'),
      'Fixed.',
    ]);
    const { services, workspace } = harness;
    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'try', workspaces: [workspace] })).id);
    expect(task.status).toBe('done');
    const actions = services.tasks.get(task.id).actions;
    expect(actions.map((a) => [a.seq, a.status, a.language])).toEqual([
      [1, 'failed', 'python'],
      [2, 'done', 'bash'],
    ]);
    expect(existsSync(join(workspace, 'never.txt'))).toBe(false);
    expect(readFileSync(join(workspace, 'fixed.txt'), 'utf8')).toBe('fixed\n');
    expect(harness.llm.requests[1]!.messages.at(-1)!.content).toContain('1 later code block(s) in your reply were not run');
  });

  it('stops at the step limit with a message that says how to raise it', async () => {
    harness = await startHarness(["```sh\necho 1\n```", "```sh\necho 2\n```", 'never reached']);
    const { services, workspace } = harness;
    const started = await services.tasks.start({ prompt: 'loop', workspaces: [workspace] }, { maxSteps: 2 });
    const task = await services.tasks.wait(started.id);
    expect(task.status).toBe('failed');
    expect(task.error).toMatch(/step limit/);
    expect(harness.llm.remaining()).toBe(1);
  });

  it('refuses to start on a folder that does not exist, before anything runs', async () => {
    harness = await startHarness([writeHello]);
    await expect(harness.services.tasks.start({ prompt: 'x', workspaces: ['/nonexistent/folder'] })).rejects.toThrow(/does not exist/);
    expect(harness.services.tasks.list()).toEqual([]);
    expect(harness.llm.requests).toHaveLength(0);
  });
});

describe('grants', () => {
  it('refuses a folder that contains Posthoc\'s own data (the undo history) or is inside it', async () => {
    harness = await startHarness([writeHello]);
    const { services, dataDir } = harness;
    const parent = join(dataDir, '..');
    await expect(services.tasks.start({ prompt: 'x', workspaces: [parent] })).rejects.toThrow(/must never reach/);
    await expect(services.tasks.start({ prompt: 'x', workspaces: [join(dataDir, 'checkpoints', '..')] })).rejects.toThrow(/must never reach/);
    expect(services.tasks.list()).toEqual([]);
  });
});
