// The provider client against a fault-injecting OpenAI-compatible server on 127.0.0.1: passing faults are
// retried (Retry-After honoured, partial text discarded), "length" is continued, faults that do not pass
// say what to do, tool calls and reasoning come back apart from the text, and usage is the provider's own
// count (in the last streamed chunk only).
import { afterEach, describe, expect, it } from 'vitest';
import { CONTINUE_PROMPT, LlmClient, LlmError, type LlmConfig, type RetryInfo } from '../../main/agent/llm-client';
import { startFaultServer, type FaultServer, type Step } from '../support/fault-openai-server';

let server: FaultServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function client(steps: Step[], config: Partial<LlmConfig> = {}): Promise<{ llm: LlmClient; server: FaultServer }> {
  server = await startFaultServer(steps);
  const llm = new LlmClient({ apiKey: 'test-key', baseUrl: server.baseUrl, model: 'scripted', stream: true, retryBaseMs: 5, ...config });
  return { llm, server };
}

const messages = [
  { role: 'system' as const, content: 'You act by writing code.' },
  { role: 'user' as const, content: 'Count the files.' },
];

function recorder() {
  const shown: string[] = [];
  const retries: RetryInfo[] = [];
  return {
    shown,
    retries,
    events: {
      onDelta: (t: string) => shown.push(t),
      onRetry: (info: RetryInfo) => {
        retries.push(info);
        shown.length = 0; // what the UI showed of the failed call is dropped
      },
    },
  };
}

describe('provider faults', () => {
  it('waits out a 429 for its Retry-After, then answers', async () => {
    const { llm, server } = await client([{ status: 429, headers: { 'retry-after': '1' } }, { text: 'All done.' }]);
    const r = recorder();
    const reply = await llm.reply(messages, r.events);
    expect(reply.text).toBe('All done.');
    expect(reply.retries).toBe(1);
    expect(r.retries).toHaveLength(1);
    expect(r.retries[0]!.delayMs).toBe(1000);
    expect(r.retries[0]!.reason).toMatch(/429/);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 500 and a connection reset with backoff', async () => {
    const { llm, server } = await client([{ status: 500 }, { reset: true }, { text: 'Fine now.' }]);
    const r = recorder();
    const reply = await llm.reply(messages, r.events);
    expect(reply.text).toBe('Fine now.');
    expect(r.retries.map((x) => x.delayMs)).toEqual([5, 10]);
    expect(r.retries[0]!.reason).toMatch(/500/);
    expect(server.requests).toHaveLength(3);
  });

  it('discards a stream cut halfway and asks again', async () => {
    const full = 'I will list the folder.\n```bash\nls -la /work\n```\n';
    const { llm, server } = await client([{ cutAfter: 20, text: full }, { text: full }], { retryBaseMs: 1 });
    const r = recorder();
    const reply = await llm.reply(messages, r.events);
    expect(reply.text).toBe(full);
    expect(r.shown.join('')).toBe(full);
    expect(r.retries).toHaveLength(1);
    expect(r.retries[0]!.reason).toMatch(/stream/);
    // The retry is the same request: the partial text is not sent back.
    expect(server.requests[1]!.messages).toEqual(server.requests[0]!.messages);
  });

  it('gives up after the bounded number of retries, with a message that says to continue later', async () => {
    const { llm, server } = await client(Array.from({ length: 5 }, () => ({ status: 503 })), { maxRetries: 4, retryBaseMs: 1 });
    const error = await llm.reply(messages).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).message).toMatch(/kept failing.*after 4 retries.*continue the task/);
    expect(server.requests).toHaveLength(5);
  });

  it('continues a reply cut by the output limit', async () => {
    const { llm, server } = await client([
      { text: 'Here is the plan:\n```python\nprint(', finish: 'length', usage: { prompt: 30, completion: 12 } },
      { text: '1)\n```\n', usage: { prompt: 50, completion: 4 } },
    ]);
    const reply = await llm.reply(messages);
    expect(reply.text).toBe('Here is the plan:\n```python\nprint(1)\n```\n');
    expect(reply.finish).toBe('stop');
    expect(reply.continuations).toBe(1);
    const second = server.requests[1]!.messages;
    expect(second.at(-2)).toEqual({ role: 'assistant', content: 'Here is the plan:\n```python\nprint(' });
    expect(second.at(-1)).toEqual({ role: 'user', content: CONTINUE_PROMPT });
    expect(reply.usage).toEqual({ promptTokens: 80, completionTokens: 16, calls: 2 });
  });

  it.each([
    [{ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } }, 'auth', /refused the API key.*Settings.*continue/],
    [
      { status: 404, body: { error: { message: 'The model `gpt-9` does not exist', type: 'invalid_request_error', code: 'model_not_found' } } },
      'model',
      /does not know model "scripted".*Check the model name/,
    ],
    [
      {
        status: 400,
        body: { error: { message: "This model's maximum context length is 8192 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' } },
      },
      'context',
      /longer than model "scripted" accepts.*--context-window/,
    ],
  ] as const)('ends on a fault that does not pass, saying what to do (%#)', async (step, kind, message) => {
    const { llm, server } = await client([step]);
    const error = await llm.reply(messages).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).kind).toBe(kind);
    expect((error as LlmError).message).toMatch(message);
    expect(server.requests).toHaveLength(1);
  });
});

describe('usage', () => {
  it('asks for usage when streaming and reads it from the last chunk only', async () => {
    const { llm, server } = await client([{ text: 'Counted.', usage: { prompt: 123, completion: 7 } }]);
    const reply = await llm.reply(messages);
    expect(server.requests[0]!.stream_options).toEqual({ include_usage: true });
    expect(reply.usage).toEqual({ promptTokens: 123, completionTokens: 7, calls: 1 });
    expect(server.counted).toEqual({ promptTokens: 123, completionTokens: 7, calls: 1 });
  });

  it('streams on without stream_options when an older server refuses it (usage estimated then, and marked so)', async () => {
    const { llm, server } = await client([
      { status: 400, body: { error: { message: "Unrecognized request argument supplied: stream_options" } } },
      { text: 'one' },
      { text: 'two' },
    ]);
    const first = await llm.reply(messages);
    expect(first).toMatchObject({ text: 'one', usage: { calls: 1, completionTokens: 1, estimated: true } });
    expect(first.usage!.promptTokens).toBeGreaterThan(10);
    expect((await llm.reply(messages)).text).toBe('two');
    expect(server.requests.map((r) => r.stream_options)).toEqual([{ include_usage: true }, undefined, undefined]);
  });

  it('estimates a whole (not streamed) reply that carries no usage, marked so, and counts its call', async () => {
    const { llm, server } = await client([{ text: 'Counted the files: there are three of them.', usage: false }], { stream: false });
    const reply = await llm.reply(messages);
    expect(server.counted.calls).toBe(0);
    expect(reply.usage).toMatchObject({ calls: 1, estimated: true });
    expect(reply.usage!.promptTokens).toBeGreaterThan(10);
    expect(reply.usage!.completionTokens).toBeGreaterThan(5);
  });

  it('reads usage from a whole (not streamed) reply', async () => {
    const { llm } = await client([{ text: 'Counted.', usage: { prompt: 40, completion: 3 } }], { stream: false });
    expect((await llm.reply(messages)).usage).toEqual({ promptTokens: 40, completionTokens: 3, calls: 1 });
  });

  it('counts only the calls the provider reported, retries included', async () => {
    const { llm, server } = await client([{ status: 500 }, { cutAfter: 3, text: 'abcdef' }, { text: 'ok' }], { retryBaseMs: 1 });
    const reply = await llm.reply(messages);
    expect(reply.usage).toEqual(server.counted);
    expect(reply.usage!.calls).toBe(1);
  });
});

describe('tool calls and reasoning', () => {
  it('sends run_code as a tool and returns the calls the model made, streamed in pieces', async () => {
    const { llm, server } = await client(
      [
        {
          text: 'Looking.',
          toolCalls: [
            { arguments: JSON.stringify({ language: 'python', code: 'import os\nprint(len(os.listdir(".")))' }) },
            { arguments: JSON.stringify({ language: 'sql', code: 'select 1', database: 'shop' }) },
            { arguments: '{"language": "ruby", "code": "puts 1"}' },
          ],
        },
      ],
      { protocol: 'tools' },
    );
    const reply = await llm.reply(messages);
    expect((server.requests[0]!.tools as Array<{ function: { name: string } }>)[0]!.function.name).toBe('run_code');
    expect(reply.finish).toBe('tool_calls');
    expect(reply.text).toBe('Looking.');
    expect(reply.toolCalls.map((c) => c.block)).toEqual([
      { language: 'python', source: 'import os\nprint(len(os.listdir(".")))' },
      { language: 'sql', source: 'select 1', database: 'shop' },
      null,
    ]);
    expect(reply.toolCalls[2]!.error).toMatch(/does not run "ruby"/);
    expect(reply.toolCalls[0]!.id).toBe('call_1_0');
  });

  it('sends tool results back as tool messages after the assistant turn that called them', async () => {
    const { llm, server } = await client(
      [{ toolCalls: [{ id: 'call_a', arguments: '{"language":"bash","code":"ls"}' }] }, { text: 'There are 3 files.' }],
      { protocol: 'tools', stream: false },
    );
    const first = await llm.reply(messages);
    const second = await llm.reply([
      ...messages,
      { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'call_a', content: 'a\nb\nc' },
    ]);
    expect(second.text).toBe('There are 3 files.');
    const sent = server.requests[1]!.messages;
    expect(sent.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'run_code' } }] });
    expect(sent.at(-1)).toEqual({ role: 'tool', content: 'a\nb\nc', tool_call_id: 'call_a' });
  });

  it('auto falls back to fenced code for good when the provider refuses tools', async () => {
    const { llm, server } = await client(
      [{ status: 400, body: { error: { message: 'tools is not supported for this model' } } }, { text: 'one' }, { text: 'two' }],
      { protocol: 'auto' },
    );
    expect(llm.protocol).toBe('tools');
    expect((await llm.reply(messages)).text).toBe('one');
    expect((await llm.reply(messages)).text).toBe('two');
    expect(llm.protocol).toBe('fenced');
    expect(server.requests.map((r) => Boolean(r.tools))).toEqual([true, false, false]);
  });

  it('the fenced protocol sends no tools', async () => {
    const { llm, server } = await client([{ text: 'hi' }]);
    await llm.reply(messages);
    expect(server.requests[0]!.tools).toBeUndefined();
  });

  it('passes reasoning_content through apart from the text, streamed or not', async () => {
    for (const stream of [true, false]) {
      const { llm } = await client([{ reasoning: 'The user wants a count; ls will do.', text: 'Done.' }], { stream });
      const thoughts: string[] = [];
      const reply = await llm.reply(messages, { onReasoning: (t) => thoughts.push(t) });
      expect(reply.reasoning).toBe('The user wants a count; ls will do.');
      expect(thoughts.join('')).toBe(reply.reasoning);
      expect(reply.text).toBe('Done.');
      await server!.close();
      server = null;
    }
  });

  it('lists the provider models', async () => {
    server = await startFaultServer([], { models: ['llama3.1:8b', 'gpt-4o-mini'] });
    const llm = new LlmClient({ apiKey: 'k', baseUrl: server.baseUrl, model: 'x', stream: true });
    expect(await llm.listModels()).toEqual(['gpt-4o-mini', 'llama3.1:8b']);
  });
});
