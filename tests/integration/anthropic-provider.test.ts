// Anthropic through its native Messages API (the official SDK) against a local stand-in that speaks that
// protocol on 127.0.0.1: streamed text and usage, run_code as a tool_use whose result goes back as a
// tool_result, the system prompt apart, the model list page by page, and faults in words that name the
// provider and say what to do (401, 404, 429 with retry-after, 529 and 500 retried, a cut stream retried).
import { afterEach, describe, expect, it } from 'vitest';
import { LlmClient, LlmError, type ChatMessage, type LlmConfig } from '../../main/agent/llm-client';
import { startFakeAnthropic, type AnthropicScript, type FakeAnthropic } from '../support/fake-anthropic-server';

let server: FakeAnthropic | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function anthropic(script: AnthropicScript[], config: Partial<LlmConfig> = {}, options: Parameters<typeof startFakeAnthropic>[1] = {}) {
  server = await startFakeAnthropic(script, options);
  const llm = new LlmClient({
    api: 'anthropic',
    providerName: 'Anthropic',
    keyUrl: 'https://console.anthropic.com/settings/keys',
    apiKey: 'sk-ant-test',
    baseUrl: server.baseUrl,
    model: 'claude-sonnet-4-5',
    stream: true,
    retryBaseMs: 5,
    ...config,
  });
  return { llm, server };
}

const messages: ChatMessage[] = [
  { role: 'system', content: 'You act by writing code.' },
  { role: 'user', content: 'Count the files.' },
];

describe('Anthropic Messages API', () => {
  it('streams the text with its usage, sends the system prompt apart, the key and an API version', async () => {
    const { llm, server } = await anthropic([{ text: 'There are three files in the folder.', thinking: 'Count first.', usage: { input: 321, output: 12 } }]);
    const shown: string[] = [];
    const reasoning: string[] = [];
    const reply = await llm.reply(messages, { onDelta: (t) => shown.push(t), onReasoning: (t) => reasoning.push(t) });
    expect(reply).toMatchObject({ text: 'There are three files in the folder.', reasoning: 'Count first.', finish: 'stop', toolCalls: [] });
    expect(reply.usage).toEqual({ promptTokens: 321, completionTokens: 12, calls: 1 });
    expect(shown.length).toBeGreaterThan(1);
    expect(shown.join('')).toBe(reply.text);
    expect(reasoning.join('')).toBe('Count first.');
    const request = server.requests[0]!;
    expect(request).toMatchObject({ model: 'claude-sonnet-4-5', stream: true, system: 'You act by writing code.', messages: [{ role: 'user', content: [{ type: 'text', text: 'Count the files.' }] }] });
    expect(request.max_tokens).toBeGreaterThan(0);
    expect(request.tools).toBeUndefined();
    const sent = server.headers[0]!;
    expect(sent['x-api-key'] ?? sent.authorization).toMatch(/^(Bearer )?sk-ant-test$/);
    expect(sent['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('offers run_code as a tool, reads a streamed tool_use as an action and sends its result back as a tool_result', async () => {
    const { llm, server } = await anthropic(
      [
        { text: 'Listing.', toolUses: [{ id: 'toolu_1', name: 'run_code', input: { language: 'bash', code: 'ls | wc -l' } }], usage: { input: 100, output: 20 } },
        { text: 'Three files.', usage: { input: 150, output: 4 } },
      ],
      { protocol: 'tools' },
    );
    const first = await llm.reply(messages);
    expect(first.finish).toBe('tool_calls');
    expect(first.toolCalls).toHaveLength(1);
    expect(first.toolCalls[0]).toMatchObject({ id: 'toolu_1', name: 'run_code', language: 'bash', code: 'ls | wc -l', error: null, block: { language: 'bash', source: 'ls | wc -l' } });
    expect(server.requests[0]!.tools).toEqual([
      expect.objectContaining({ name: 'run_code', input_schema: expect.objectContaining({ required: ['language', 'code'] }) }),
    ]);
    const second = await llm.reply([
      ...messages,
      { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
      { role: 'tool', content: '3\n', toolCallId: 'toolu_1' },
      { role: 'user', content: 'And the biggest?' },
    ]);
    expect(second.text).toBe('Three files.');
    expect(server.requests[1]!.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Count the files.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Listing.' },
          { type: 'tool_use', id: 'toolu_1', name: 'run_code', input: { language: 'bash', code: 'ls | wc -l' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '3\n' },
          { type: 'text', text: 'And the biggest?' },
        ],
      },
    ]);
  });

  it('reads a reply that is not streamed, tool calls and usage included', async () => {
    const { llm } = await anthropic([{ toolUses: [{ name: 'run_code', input: { language: 'python', code: 'print(1)' } }], usage: { input: 40, output: 9 } }], {
      stream: false,
      protocol: 'tools',
    });
    const reply = await llm.reply(messages);
    expect(reply.toolCalls[0]).toMatchObject({ language: 'python', code: 'print(1)', error: null });
    expect(reply.usage).toEqual({ promptTokens: 40, completionTokens: 9, calls: 1 });
  });

  it('estimates the usage, marked so, when the stream reports none, and still counts the call', async () => {
    const { llm } = await anthropic([{ text: 'Done: the folder holds three files.', usage: false }]);
    const counted: unknown[] = [];
    llm.meter = { onUsage: (u) => counted.push(u) };
    const reply = await llm.reply(messages);
    expect(reply.usage).toMatchObject({ calls: 1, estimated: true });
    expect(reply.usage!.promptTokens).toBeGreaterThan(5);
    expect(reply.usage!.completionTokens).toBeGreaterThan(3);
    expect(counted).toEqual([reply.usage]);
  });

  it('lists the models page by page, and Test connection says so', async () => {
    const models = ['claude-haiku-4-5-20251001', 'claude-opus-4-5-20251101', 'claude-sonnet-4-5-20250929'];
    const { llm, server } = await anthropic([{ text: 'ok' }], { model: '' }, { models, pageSize: 2 });
    expect(await llm.listModels()).toEqual(models);
    expect(server.modelPages).toBe(2);
    const check = await llm.check(undefined, { reachOnly: true });
    expect(check).toEqual({ ok: true, message: `Anthropic (${server.baseUrl}) answers.`, models });
  });

  it('Test connection asks the model for one token', async () => {
    const { llm, server } = await anthropic([{ text: 'ok', usage: { input: 5, output: 1 } }]);
    const check = await llm.check();
    expect(check.ok).toBe(true);
    expect(check.message).toBe(`Connected to Anthropic (${server.baseUrl}): model "claude-sonnet-4-5" answered.`);
    expect(server.requests[0]).toMatchObject({ max_tokens: 1, model: 'claude-sonnet-4-5' });
  });

  it('a refused key names Anthropic and where to get a key; nothing is retried', async () => {
    const { llm, server } = await anthropic([], { apiKey: 'sk-ant-wrong' });
    const error = await llm.reply(messages).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).kind).toBe('auth');
    expect((error as LlmError).message).toBe(
      `The model provider at Anthropic (${server.baseUrl}) refused the API key (401). Get a key at https://console.anthropic.com/settings/keys and save it for this provider in Settings → Model providers, then continue the task.`,
    );
    expect(server.headers).toHaveLength(1);
    const check = await llm.check();
    expect(check).toMatchObject({ ok: false, models: [] });
    expect(check.message).toMatch(/refused the API key \(401\)/);
  });

  it('an unknown model says to choose one from the list', async () => {
    const { llm } = await anthropic([], { model: 'claude-9' });
    const error = (await llm.reply(messages).catch((e: unknown) => e)) as LlmError;
    expect(error.kind).toBe('model');
    expect(error.message).toMatch(/^The model provider at Anthropic \(.*\) does not know model "claude-9" \(404\)\. Check the model name/);
  });

  it('waits out a 429 for its retry-after, retries a 529 (overloaded) and a cut stream, then answers', async () => {
    const { llm, server } = await anthropic([
      { status: 429, type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit', headers: { 'retry-after': '0' } },
      { status: 529, type: 'overloaded_error', message: 'Overloaded' },
      { text: 'This reply is cut in the middle.', cutAfter: 10 },
      { text: 'Whole at last.', usage: { input: 7, output: 3 } },
    ]);
    const retries: string[] = [];
    const reply = await llm.reply(messages, { onRetry: (info) => retries.push(info.reason) });
    expect(reply.text).toBe('Whole at last.');
    expect(retries).toEqual(['rate limited (429)', 'server error (529)', expect.stringMatching(/^the stream ended after 10 characters without a stop reason$/)]);
    expect(server.requests).toHaveLength(4);
    // The failed calls reported nothing the provider billed: only the one that answered counts.
    expect(reply.usage).toEqual({ promptTokens: 7, completionTokens: 3, calls: 1 });
  });

  it('a 500 that does not pass ends with a message naming the provider and what to do', async () => {
    const fault = { status: 500, type: 'api_error', message: 'Internal server error' };
    const { llm } = await anthropic([fault, fault, fault], { maxRetries: 2 });
    const error = (await llm.reply(messages).catch((e: unknown) => e)) as LlmError;
    expect(error.kind).toBe('server');
    expect(error.message).toMatch(/^The model provider at Anthropic \(http:\/\/127\.0\.0\.1:\d+\) kept failing \(server error \(500\)\) after 2 retries\. Try again later/);
  });
});
