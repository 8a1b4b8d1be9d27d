// Whole tasks through the real services (Docker sandbox, SQLite) against the fault-injecting provider:
// passing faults do not end the task and the front ends hear "retrying"; faults that do not pass end it
// with what to do and it can be continued; usage totals are the provider's own counts; a budget stops it.
import { afterEach, describe, expect, it } from 'vitest';
import type { EventPayload } from '../../shared/contract';
import { createServices, type AppServices } from '../../main/services/app-services';
import { startFaultServer, type FaultServer, type Step } from '../support/fault-openai-server';
import { tempDirs } from '../support/temp-dir';

type Bed = { services: AppServices; server: FaultServer; workspace: string; deltas: Array<EventPayload<'message:delta'>> };
let bed: Bed | null = null;
const dirs = tempDirs();

afterEach(async () => {
  if (bed) {
    await bed.services.close();
    await bed.server.close();
  }
  bed = null;
  dirs.cleanup();
});

async function start(steps: Step[], model = 'scripted'): Promise<Bed> {
  const server = await startFaultServer(steps);
  const services = createServices({ dataDir: dirs.make('posthoc-data-'), env: { OPENAI_BASE_URL: server.baseUrl, POSTHOC_MODEL: model, POSTHOC_STREAM: '1' } });
  const deltas: Array<EventPayload<'message:delta'>> = [];
  services.events.subscribe((event, payload) => {
    if (event === 'message:delta') deltas.push(payload as EventPayload<'message:delta'>);
  });
  bed = { services, server, workspace: dirs.workspace(), deltas };
  return bed;
}

const code = (n: number) => `Step ${n}.\n\`\`\`python\nprint('step ${n}')\n\`\`\``;

describe('a task against a faulty provider', () => {
  it('rides out a 429 and a stream cut halfway; the usage totals are what the provider counted', async () => {
    const { services, server, workspace, deltas } = await start([
      { status: 429, headers: { 'retry-after': '1' } },
      { text: code(1), usage: { prompt: 120, completion: 30 } },
      { cutAfter: 12, text: code(2) },
      { text: code(2), usage: { prompt: 260, completion: 31 } },
      { text: 'Both steps ran.', usage: { prompt: 400, completion: 5 } },
    ]);
    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'two steps', workspaces: [workspace] })).id);
    expect(task).toMatchObject({ status: 'done', answer: 'Both steps ran.' });
    expect(server.requests).toHaveLength(5);
    expect(server.counted).toEqual({ promptTokens: 780, completionTokens: 66, calls: 3 });
    expect(task.usage).toEqual({ promptTokens: 780, completionTokens: 66, calls: 3, costUsd: null });

    const actions = services.tasks.get(task.id).actions;
    expect(actions.map((a) => a.output.stdout)).toEqual(['step 1\n', 'step 2\n']);
    expect(actions.map((a) => a.usage)).toEqual([
      { promptTokens: 120, completionTokens: 30, calls: 1, costUsd: null },
      { promptTokens: 260, completionTokens: 31, calls: 1, costUsd: null },
    ]);
    // The front ends were told twice to drop the streamed text and say "retrying".
    const retrying = deltas.filter((d) => d.retrying !== undefined).map((d) => d.retrying);
    expect(retrying).toHaveLength(2);
    expect(retrying[0]).toMatch(/rate limited \(429\)\); retrying in 1 s \(retry 1 of 4\)/);
    expect(retrying[1]).toMatch(/the stream (broke|ended)/);
    // The cut reply was not kept: the assistant messages are the whole replies only.
    expect(services.tasks.get(task.id).messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([code(1), code(2), 'Both steps ran.']);
  });

  it('prices the usage from the model price table, built-in or set in Settings', async () => {
    const { services, workspace } = await start([{ text: code(1), usage: { prompt: 1000, completion: 100 } }, { text: 'ok', usage: { prompt: 2000, completion: 10 } }], 'gpt-4o-mini-2024-07-18');
    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'p', workspaces: [workspace] })).id);
    // gpt-4o-mini: $0.15 per 1M prompt tokens, $0.60 per 1M completion tokens.
    expect(task.usage!.costUsd).toBeCloseTo((3000 * 0.15 + 110 * 0.6) / 1e6, 12);
    expect(services.tasks.get(task.id).actions[0]!.usage!.costUsd).toBeCloseTo((1000 * 0.15 + 100 * 0.6) / 1e6, 12);
  });

  it.each([
    [{ status: 401, body: { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } } }, /refused the API key \(401\)\. Set a valid key/],
    [{ status: 404, body: { error: { message: 'The model `scripted` does not exist', code: 'model_not_found' } } }, /does not know model "scripted".*Check the model name/],
    [{ status: 400, body: { error: { message: 'maximum context length is 8192 tokens', code: 'context_length_exceeded' } } }, /context length exceeded.*--context-window/],
  ] as const)('ends on a fault that does not pass, saying what to do, and the task can be continued (%#)', async (fault, message) => {
    const { services, workspace, server } = await start([{ text: code(1) }, fault, { text: 'Finished after the fix.' }]);
    const failed = await services.tasks.wait((await services.tasks.start({ prompt: 'p', workspaces: [workspace] })).id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(message);
    expect(server.requests).toHaveLength(2);
    const resumed = await services.tasks.wait((await services.tasks.send(failed.id, 'Go on.')).id);
    expect(resumed).toMatchObject({ status: 'done', answer: 'Finished after the fix.' });
    expect(services.tasks.get(failed.id).actions).toHaveLength(1);
  });
});

describe('budget', () => {
  it('stops the task once its tokens reach the budget, and a larger budget continues it', async () => {
    const steps: Step[] = [1, 2, 3].map((n) => ({ text: code(n), usage: { prompt: 100, completion: 50 } }));
    const { services, workspace, server } = await start([...steps, { text: 'All three.', usage: { prompt: 100, completion: 50 } }]);
    const stopped = await services.tasks.wait((await services.tasks.start({ prompt: 'p', workspaces: [workspace] }, { budget: '250' })).id);
    expect(stopped.status).toBe('failed');
    expect(stopped.error).toMatch(/^Stopped: the task's budget of 250 tokens is reached \(300 tokens used over 2 model calls\)\. Continue the task with a larger --budget/);
    // The reply that crossed the budget still ran its action; no call was made after it.
    expect(server.requests).toHaveLength(2);
    expect(services.tasks.get(stopped.id).actions).toHaveLength(2);
    expect(stopped.usage).toMatchObject({ promptTokens: 200, completionTokens: 100, calls: 2 });

    const again = await services.tasks.wait((await services.tasks.send(stopped.id, 'Go on.', { budget: '50k' })).id);
    expect(again).toMatchObject({ status: 'done', answer: 'All three.' });
    expect(again.usage).toMatchObject({ promptTokens: 400, completionTokens: 200, calls: 4 });
  });

  it('a dollar budget stops at its cost, and says so when the model has no price', async () => {
    const { services, workspace } = await start([{ text: code(1), usage: { prompt: 10, completion: 10 } }, { text: 'never' }]);
    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'p', workspaces: [workspace] }, { budget: '$0.50' })).id);
    expect(task.status).toBe('failed');
    expect(task.error).toMatch(/budget of \$0\.50 but the model has no price in Settings/);
  });

  it('refuses an unreadable budget before the task starts', async () => {
    const { services, workspace, server } = await start([]);
    await expect(services.tasks.start({ prompt: 'p', workspaces: [workspace] }, { budget: 'lots' })).rejects.toThrow(/--budget lots is neither tokens/);
    expect(services.tasks.list()).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
  });
});
