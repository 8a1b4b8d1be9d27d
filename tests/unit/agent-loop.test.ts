// The CodeAct loop with fake hooks: no network, no Docker. Each test scripts the model's replies and the
// outcome of each action, then checks what the loop sent back and how it ended.
import { describe, expect, it, vi } from 'vitest';
import { describeObservation, runAgent, type AgentHooks } from '../../main/agent/agent-loop';
import type { CodeBlock } from '../../main/agent/codeact-parser';
import type { ChatMessage } from '../../main/agent/llm-client';
import { Action, type ActionOutput, type FsEffect } from '../../shared/domain';

let nextSeq = 1;

/** A valid Action (checked against the shared schema) for a block, with the given output. */
function makeAction(block: CodeBlock, output: Partial<ActionOutput> = {}, effects: FsEffect[] = []): Action {
  const seq = nextSeq++;
  const exitCode = output.exitCode === undefined ? 0 : output.exitCode;
  return Action.parse({
    id: `action-${seq}`,
    taskId: 'task-1',
    seq,
    kind: 'code',
    language: block.language,
    source: block.source,
    status: exitCode === 0 && !output.timedOut ? 'done' : 'failed',
    output: { stdout: '', stderr: '', exitCode, timedOut: false, truncated: false, ...output },
    effects,
    reverse: { state: 'ready', folders: 0, steps: [], irreversible: [], takenBack: [] },
    messageId: null,
    confinement: { level: 'reversible', reason: 'test' },
    startedAt: '2025-01-01T00:00:00.000Z',
    finishedAt: '2025-01-01T00:00:01.000Z',
    undoneAt: null,
  });
}

type Script = {
  replies: Array<string | Error>;
  run?: (block: CodeBlock) => Action;
};

/** Hooks that replay scripted replies and record every call, copying the history each time it is sent. */
function fakeHooks(script: Script) {
  const sent: ChatMessage[][] = [];
  const replies = [...script.replies];
  const hooks = {
    complete: vi.fn(async (messages: ChatMessage[], onDelta: (text: string) => void) => {
      sent.push(messages.map((m) => ({ ...m })));
      const next = replies.shift();
      if (next === undefined) throw new Error('the test ran out of scripted replies');
      if (next instanceof Error) throw next;
      onDelta(next);
      return next;
    }),
    onDelta: vi.fn<(text: string) => void>(),
    onAssistantMessage: vi.fn((text: string): string | null => `message-${text.length}`),
    runAction: vi.fn(async (block: CodeBlock, _messageId: string | null) => (script.run ? script.run(block) : makeAction(block))),
    onObservation: vi.fn<(text: string) => void>(),
  } satisfies AgentHooks;
  return { hooks, sent };
}

const history: ChatMessage[] = [
  { role: 'system', content: 'You are a test agent.' },
  { role: 'user', content: 'Count the files.' },
];

describe('runAgent', () => {
  it('ends with the final answer when the first reply has no code block', async () => {
    const { hooks } = fakeHooks({ replies: ['There are no files to count.'] });
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal: new AbortController().signal });
    expect(outcome).toEqual({ status: 'done', answer: 'There are no files to count.' });
    expect(hooks.complete).toHaveBeenCalledTimes(1);
    expect(hooks.runAction).not.toHaveBeenCalled();
    expect(hooks.onAssistantMessage).toHaveBeenCalledWith('There are no files to count.');
    expect(hooks.onDelta).toHaveBeenCalledWith('There are no files to count.');
    expect(hooks.onObservation).not.toHaveBeenCalled();
  });

  it('does not mutate the history it was given', async () => {
    const given = history.map((m) => ({ ...m }));
    const { hooks } = fakeHooks({ replies: ['```bash\nls\n```', 'Done.'] });
    await runAgent({ history: given, maxSteps: 5, hooks, signal: new AbortController().signal });
    expect(given).toEqual(history);
  });

  it('runs a block, sends the observation back as a user message, and finishes on the next reply', async () => {
    const { hooks, sent } = fakeHooks({
      replies: ['Let me count.\n```bash\nls | wc -l\n```', 'There are 3 files.'],
      run: (block) => makeAction(block, { stdout: '3\n', exitCode: 0 }),
    });
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal: new AbortController().signal });

    expect(outcome).toEqual({ status: 'done', answer: 'There are 3 files.' });
    expect(hooks.runAction).toHaveBeenCalledTimes(1);
    // The action carries the id of the reply it came from.
    expect(hooks.runAction).toHaveBeenCalledWith({ language: 'bash', source: 'ls | wc -l' }, `message-${hooks.onAssistantMessage.mock.calls[0]![0].length}`);

    // The second request carries the first reply and then the observation, as a user message.
    expect(sent).toHaveLength(2);
    expect(sent[0]).toEqual(history);
    const second = sent[1]!;
    expect(second).toHaveLength(history.length + 2);
    expect(second[history.length]).toEqual({ role: 'assistant', content: 'Let me count.\n```bash\nls | wc -l\n```' });
    const observation = second[history.length + 1]!;
    expect(observation.role).toBe('user');
    expect(observation.content).toContain('3\n');
    expect(observation.content).toContain('stdout:');
    expect(observation.content).toContain('exit code 0');
    expect(hooks.onObservation).toHaveBeenCalledWith(observation.content);
    expect(hooks.onAssistantMessage).toHaveBeenCalledTimes(2);
  });

  it('runs several blocks of one reply in order and sends one observation holding each', async () => {
    const { hooks } = fakeHooks({
      replies: ['```bash\necho a\n```\n```python\nprint("b")\n```', 'ok'],
      run: (block) => makeAction(block, { stdout: `out:${block.source}` }),
    });
    await runAgent({ history, maxSteps: 5, hooks, signal: new AbortController().signal });
    expect(hooks.runAction.mock.calls.map(([b]) => b.source)).toEqual(['echo a', 'print("b")']);
    expect(hooks.onObservation).toHaveBeenCalledTimes(1);
    const text = hooks.onObservation.mock.calls[0]![0];
    expect(text.indexOf('out:echo a')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf('out:print("b")')).toBeGreaterThan(text.indexOf('out:echo a'));
  });

  it('stops at a failing block, skips the later ones and says how many were skipped', async () => {
    const reply = ['```bash\necho one\n```', '```bash\nfalse\n```', '```bash\necho three\n```', '```sh\necho four\n```'].join('\n');
    const { hooks, sent } = fakeHooks({
      replies: [reply, 'I will stop here.'],
      run: (block) =>
        block.source === 'false' ? makeAction(block, { stderr: 'boom', exitCode: 1 }) : makeAction(block, { stdout: 'fine' }),
    });
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal: new AbortController().signal });

    expect(outcome).toEqual({ status: 'done', answer: 'I will stop here.' });
    expect(hooks.runAction.mock.calls.map(([b]) => b.source)).toEqual(['echo one', 'false']);
    const observation = sent[1]!.at(-1)!.content;
    expect(observation).toContain('exit code 1');
    expect(observation).toContain('boom');
    expect(observation).toMatch(/2 later code block\(s\) in your reply were not run/);
  });

  it('does not mention skipped blocks when the failing block was the last one', async () => {
    const { hooks } = fakeHooks({
      replies: ['```bash\nexit 3\n```', 'ok'],
      run: (block) => makeAction(block, { exitCode: 3 }),
    });
    await runAgent({ history, maxSteps: 5, hooks, signal: new AbortController().signal });
    const observation = hooks.onObservation.mock.calls[0]![0];
    expect(observation).toContain('exit code 3');
    expect(observation).not.toMatch(/not run/);
  });

  it('fails with a message naming the step limit when every reply holds code', async () => {
    const { hooks } = fakeHooks({ replies: Array.from({ length: 10 }, (_, i) => `\`\`\`bash\necho ${i}\n\`\`\``) });
    const outcome = await runAgent({ history, maxSteps: 3, hooks, signal: new AbortController().signal });
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' && outcome.error).toMatch(/3 steps/);
    expect(outcome.status === 'failed' && outcome.error).toMatch(/step limit/);
    expect(hooks.complete).toHaveBeenCalledTimes(3);
    expect(hooks.runAction).toHaveBeenCalledTimes(3);
  });

  it('is cancelled without asking the model when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { hooks } = fakeHooks({ replies: ['never'] });
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal: controller.signal });
    expect(outcome).toEqual({ status: 'cancelled' });
    expect(hooks.complete).not.toHaveBeenCalled();
  });

  it('is cancelled when the signal aborts while an action runs, and runs no later block', async () => {
    const controller = new AbortController();
    const { hooks } = fakeHooks({
      replies: ['```bash\necho 1\n```\n```bash\necho 2\n```', 'unreachable'],
      run: (block) => {
        controller.abort();
        return makeAction(block);
      },
    });
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal: controller.signal });
    expect(outcome).toEqual({ status: 'cancelled' });
    expect(hooks.runAction).toHaveBeenCalledTimes(1);
    expect(hooks.complete).toHaveBeenCalledTimes(1);
  });

  it('records the observation of an action Stop interrupted, then ends cancelled without running later blocks', async () => {
    const controller = new AbortController();
    const { hooks } = fakeHooks({
      replies: ['```bash\necho 1\n```\n```bash\necho 2\n```', 'unreachable'],
      run: (block) => {
        controller.abort();
        return { ...makeAction(block, { exitCode: 137 }), status: 'interrupted', output: { ...makeAction(block).output, exitCode: 137, interrupted: { reason: 'Stopped by you.', recorded: true } } };
      },
    });
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal: controller.signal });
    expect(outcome).toEqual({ status: 'cancelled' });
    expect(hooks.runAction).toHaveBeenCalledTimes(1);
    const observation = hooks.onObservation.mock.calls[0]![0];
    expect(observation).toContain('interrupted: Stopped by you.');
    expect(observation).toMatch(/1 later code block\(s\) in your reply were not run because this one was interrupted/);
  });

  it('is cancelled (not failed) when the model call rejects because of the abort', async () => {
    const controller = new AbortController();
    const { hooks } = fakeHooks({ replies: [] });
    hooks.complete.mockImplementationOnce(async () => {
      controller.abort();
      throw new Error('Request was aborted.');
    });
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal: controller.signal });
    expect(outcome).toEqual({ status: 'cancelled' });
  });

  it('fails with the error message of the model call', async () => {
    const { hooks } = fakeHooks({ replies: [new Error('The model provider refused the API key (401).')] });
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal: new AbortController().signal });
    expect(outcome).toEqual({ status: 'failed', error: 'The model provider refused the API key (401).' });
    expect(hooks.onAssistantMessage).not.toHaveBeenCalled();
  });

  it('fails with the text of a non-Error rejection', async () => {
    const { hooks } = fakeHooks({ replies: [] });
    hooks.complete.mockRejectedValueOnce('socket hang up');
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal: new AbortController().signal });
    expect(outcome).toEqual({ status: 'failed', error: 'socket hang up' });
  });
});

describe('describeObservation', () => {
  const block: CodeBlock = { language: 'python', source: 'print(1)' };

  it('names the action, its language, exit code and output', () => {
    const action = makeAction(block, { stdout: 'hello', stderr: 'warn', exitCode: 0 });
    const text = describeObservation(action);
    expect(text).toContain(`action ${action.seq} (python)`);
    expect(text).toContain('exit code 0');
    expect(text).toContain('stdout:\nhello');
    expect(text).toContain('stderr:\nwarn');
  });

  it('leaves out empty streams', () => {
    const text = describeObservation(makeAction(block, { stdout: '', stderr: '' }));
    expect(text).not.toContain('stdout:');
    expect(text).not.toContain('stderr:');
  });

  it('says when the action timed out or did not finish', () => {
    expect(describeObservation(makeAction(block, { timedOut: true, exitCode: 124 }))).toContain('stopped by the action timeout');
    expect(describeObservation(makeAction(block, { exitCode: null }))).toContain('did not run to completion');
  });

  it('lists the files each effect changed', () => {
    const effect: FsEffect = {
      channel: 'fs',
      workspace: '/workspace',
      added: ['new.txt'],
      modified: ['a.txt', 'b.txt'],
      deleted: [],
      checkpointBefore: 'c1',
      checkpointAfter: 'c2',
    };
    const untouched: FsEffect = { ...effect, workspace: '/workspace/other', added: [], modified: [] };
    const text = describeObservation(makeAction(block, {}, [effect, untouched]));
    expect(text).toContain('files changed in /workspace: added new.txt; modified a.txt, b.txt');
    expect(text).not.toContain('deleted');
    expect(text).toContain('files changed in /workspace/other: none');
  });

  it('keeps short output whole', () => {
    const stdout = 'x'.repeat(8000);
    expect(describeObservation(makeAction(block, { stdout }))).toContain(stdout);
  });

  it('caps long output, keeping its head and tail and saying how much was cut', () => {
    const head = 'H'.repeat(4000);
    const middle = 'm'.repeat(12_000);
    const tail = 'T'.repeat(4000);
    const stdout = `${head}${middle}${tail}`;
    const text = describeObservation(makeAction(block, { stdout }));
    expect(text).toContain(`${head}\n[… 12000 characters cut …]\n${tail}`);
    expect(text).not.toContain('m'.repeat(100));
    expect(text.length).toBeLessThan(stdout.length);
    expect(text.length).toBeLessThan(8000 + 500);
  });

  it('caps stderr the same way', () => {
    const stderr = 'e'.repeat(50_000);
    const text = describeObservation(makeAction(block, { stderr, exitCode: 1 }));
    expect(text).toContain('[… 42000 characters cut …]');
    expect(text.length).toBeLessThan(8500);
  });
});
