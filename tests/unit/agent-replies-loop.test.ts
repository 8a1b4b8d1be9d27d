// The loop's side of the reply formats: the one corrective observation, reasoning kept from the model,
// the plan handed on, and messages the person sends while the agent works delivered at the next turn.
import { describe, expect, it, vi } from 'vitest';
import { correction, runAgent, type AgentHooks } from '../../main/agent/agent-loop';
import type { CodeBlock } from '../../main/agent/codeact-parser';
import type { ChatMessage } from '../../main/agent/llm-client';
import { Action } from '../../shared/domain';

let seq = 1;
function action(block: CodeBlock): Action {
  const n = seq++;
  return Action.parse({
    id: `action-${n}`,
    taskId: 'task-1',
    seq: n,
    kind: 'code',
    language: block.language,
    source: block.source,
    status: 'done',
    output: { stdout: 'ok\n', stderr: '', exitCode: 0, timedOut: false, truncated: false },
    effects: [],
    reverse: { state: 'ready', folders: 0, steps: [], irreversible: [], takenBack: [] },
    messageId: null,
    confinement: { level: 'reversible', reason: 'test' },
    startedAt: '2025-01-01T00:00:00.000Z',
    finishedAt: '2025-01-01T00:00:01.000Z',
    undoneAt: null,
  });
}

function hooksFor(replies: string[], extra: Partial<AgentHooks> = {}) {
  const sent: ChatMessage[][] = [];
  const queue = [...replies];
  const hooks: AgentHooks = {
    complete: vi.fn(async (messages: ChatMessage[]) => {
      sent.push(messages.map((m) => ({ ...m })));
      const next = queue.shift();
      if (next === undefined) throw new Error('out of replies');
      return next;
    }),
    onDelta: vi.fn(),
    onAssistantMessage: vi.fn(() => 'm'),
    runAction: vi.fn(async (block: CodeBlock) => action(block)),
    onObservation: vi.fn(),
    ...extra,
  };
  return { hooks, sent };
}

const history: ChatMessage[] = [
  { role: 'system', content: 'test' },
  { role: 'user', content: 'Count the files.' },
];
const signal = new AbortController().signal;

describe('runAgent: replies that need a correction', () => {
  it('a CodeAct <execute> reply runs instead of ending the task with 0 actions', async () => {
    const { hooks } = hooksFor(['<execute>print(1)</execute>', 'There is 1.']);
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal });
    expect(outcome).toEqual({ status: 'done', answer: 'There is 1.' });
    expect(hooks.runAction).toHaveBeenCalledWith({ language: 'python', source: 'print(1)' }, 'm');
  });

  it('a promise with no code gets one corrective observation, then the next code-less reply is the answer', async () => {
    const { hooks, sent } = hooksFor(["I'll list the files in the folder next.", "Let me check again, I'll look at it.", 'unused']);
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal });
    expect(outcome).toEqual({ status: 'done', answer: "Let me check again, I'll look at it." });
    expect(sent).toHaveLength(2);
    expect(sent[1]!.at(-1)).toEqual({ role: 'user', content: correction('promise') });
    expect(hooks.onObservation).toHaveBeenCalledWith(correction('promise'));
  });

  it('corrects again after a reply that acted', async () => {
    const { hooks } = hooksFor(["I'll run it:", '```bash\nls\n```', 'Let me check the sizes next.', 'Done.']);
    const outcome = await runAgent({ history, maxSteps: 6, hooks, signal });
    expect(outcome).toEqual({ status: 'done', answer: 'Done.' });
    expect(hooks.onObservation).toHaveBeenCalledTimes(3);
  });

  it('never sends the reasoning back to the model, and never runs code inside it', async () => {
    const { hooks, sent } = hooksFor(['<think>maybe\n```python\nboom()\n```\n</think>\n```python\nprint(2)\n```', '<think>ok</think>It printed 2.']);
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal });
    expect(outcome).toEqual({ status: 'done', answer: 'It printed 2.' });
    expect(hooks.runAction).toHaveBeenCalledTimes(1);
    expect(sent[1]![2]).toEqual({ role: 'assistant', content: '```python\nprint(2)\n```' });
    // The stored reply keeps the reasoning (the app shows it folded).
    expect(hooks.onAssistantMessage).toHaveBeenNthCalledWith(1, expect.stringContaining('<think>maybe'));
  });

  it('hands the plan on when a reply carries one', async () => {
    const onPlan = vi.fn();
    const { hooks } = hooksFor(['<plan>\n- [ ] list\n- [ ] count\n</plan>\n```bash\nls\n```', '<plan>\n- [x] list\n- [x] count\n</plan>\nTwo files.'], { onPlan });
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal });
    expect(outcome).toEqual({ status: 'done', answer: 'Two files.' });
    expect(onPlan).toHaveBeenNthCalledWith(1, [{ text: 'list', done: false }, { text: 'count', done: false }]);
    expect(onPlan).toHaveBeenNthCalledWith(2, [{ text: 'list', done: true }, { text: 'count', done: true }]);
  });
});

describe('runAgent: steering', () => {
  it('delivers a message sent while an action ran as a user message of the next request', async () => {
    const inbox: string[] = [];
    const { hooks, sent } = hooksFor(['```bash\nls\n```', 'Done.'], {
      takeMessages: () => inbox.splice(0),
      runAction: vi.fn(async (block: CodeBlock) => {
        inbox.push('Only count .csv files.');
        return action(block);
      }),
    });
    await runAgent({ history, maxSteps: 5, hooks, signal });
    const second = sent[1]!;
    expect(second.at(-1)).toEqual({ role: 'user', content: 'Only count .csv files.' });
    expect(second.at(-2)!.content).toMatch(/^Observation for action/);
  });

  it('a message that arrives while the model writes its final answer keeps the task going', async () => {
    const inbox: string[] = [];
    const { hooks, sent } = hooksFor(['There are 2 files.', 'Of those, 1 is a CSV.'], {
      takeMessages: () => inbox.splice(0),
      onAssistantMessage: vi.fn(() => {
        if (sent.length === 1) inbox.push('How many are CSV?');
        return 'm';
      }),
    });
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal });
    expect(outcome).toEqual({ status: 'done', answer: 'Of those, 1 is a CSV.' });
    expect(sent[1]!.at(-1)).toEqual({ role: 'user', content: 'How many are CSV?' });
  });
});

describe('runAgent: native tool calls and streamed reasoning', () => {
  const call = (id: string, code: string, block: CodeBlock | null = { language: 'python', source: code }) => ({
    id,
    language: 'python',
    code,
    database: null,
    block,
    error: block ? null : 'language "ruby" is not one Posthoc runs',
    name: 'run_code',
    arguments: JSON.stringify({ language: 'python', code }),
  });

  it('runs each run_code call as an action and answers each with a tool message', async () => {
    const turns = [
      { text: 'Counting.', toolCalls: [call('c1', 'print(1)'), call('c2', 'puts 1', null)] },
      { text: 'One.', reasoning: 'The output says 1.' },
    ];
    const sent: ChatMessage[][] = [];
    const { hooks } = hooksFor([], {
      complete: vi.fn(async (messages: ChatMessage[]) => {
        sent.push(messages.map((m) => ({ ...m })));
        return turns.shift()!;
      }),
    });
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal });
    expect(outcome).toEqual({ status: 'done', answer: 'One.' });
    expect(hooks.runAction).toHaveBeenCalledTimes(1);
    const second = sent[1]!;
    expect(second[2]).toMatchObject({ role: 'assistant', content: 'Counting.', toolCalls: [{ id: 'c1' }, { id: 'c2' }] });
    expect(second[3]).toMatchObject({ role: 'tool', toolCallId: 'c1' });
    expect((second[3] as { content: string }).content).toMatch(/^Observation for action \d+ \(python\): exit code 0/);
    expect(second[4]).toEqual({ role: 'tool', toolCallId: 'c2', content: 'language "ruby" is not one Posthoc runs' });
    // The streamed reasoning is stored with the reply, folded in the app.
    expect(hooks.onAssistantMessage).toHaveBeenLastCalledWith('<think>\nThe output says 1.\n</think>\n\nOne.');
  });
});

describe('runAgent: the final answer in <answer>', () => {
  it('ends the task with the answer, its bash block shown and never run (issue 17)', async () => {
    const { hooks } = hooksFor([
      '```python\nprint(503)\n```',
      '<answer>\n## Sales summary\n\n**Total: 503.**\n\nTo run it again:\n```bash\npython3 sum_sales.py\n```\n</answer>',
    ]);
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal });
    expect(hooks.runAction).toHaveBeenCalledTimes(1);
    expect(outcome).toEqual({ status: 'done', answer: '## Sales summary\n\n**Total: 503.**\n\nTo run it again:\n```bash\npython3 sum_sales.py\n```' });
  });

  it('the system prompt teaches the form and says its code is never run', async () => {
    const { systemPrompt } = await import('../../main/agent/system-prompt');
    const prompt = systemPrompt([], 10);
    expect(prompt).toContain('<answer>…</answer>');
    expect(prompt).toMatch(/Code blocks inside <answer> are shown to the person and never run/);
  });

  it('the corrections name the answer form', () => {
    expect(correction('promise')).toContain('<answer>…</answer>');
    expect(correction('empty')).toContain('<answer>…</answer>');
  });
});

describe('runAgent: calls Posthoc cannot run never end the task', () => {
  it('a tool Posthoc lacks is answered with what it has, every time, and the task goes on', async () => {
    const call = '<function=web_search>\n<parameter=query>weather</parameter>\n</function>';
    const { hooks, sent } = hooksFor([call, call, '<answer>I cannot search the web from here.</answer>']);
    const outcome = await runAgent({ history, maxSteps: 5, hooks, signal });
    expect(outcome).toEqual({ status: 'done', answer: 'I cannot search the web from here.' });
    expect(hooks.runAction).not.toHaveBeenCalled();
    expect(sent).toHaveLength(3);
    const told = sent[1]!.at(-1)!.content;
    expect(told).toBe(correction('unknown-tool', ['web_search']));
    expect(told).toMatch(/"web_search", which Posthoc does not have.*```bash or ```python/s);
    expect(sent[2]!.at(-1)!.content).toBe(told);
  });

  it('runs the calls it can and names the ones it cannot in the same observation', async () => {
    const reply = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>';
    const { hooks, sent } = hooksFor([reply, 'Done.']);
    await runAgent({ history, maxSteps: 5, hooks, signal });
    expect(hooks.runAction).toHaveBeenCalledWith({ language: 'bash', source: 'ls' }, 'm');
    expect(sent[1]!.at(-1)!.content).toMatch(/^Observation for action \d+ \(bash\)[\s\S]*"get_weather", which Posthoc does not have/);
  });

  it('an OpenHands <finish> ends the task with the prose as the answer', async () => {
    const { hooks } = hooksFor(['The file is fixed.\n\n<finish></finish>']);
    expect(await runAgent({ history, maxSteps: 5, hooks, signal })).toEqual({ status: 'done', answer: 'The file is fixed.' });
  });
});
