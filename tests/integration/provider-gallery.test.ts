// Whole tasks through the real services (Docker sandbox, SQLite) on providers from the gallery: an
// Anthropic provider saved with its key runs run_code through the Messages API stand-in as the OpenAI
// client does (the action's output goes back as a tool_result), a provider that streams no usage still
// counts every call (estimated, and marked so), and a gallery provider without its key, or with a refused one,
// says where to get one.
import { afterEach, describe, expect, it } from 'vitest';
import { createServices, type AppServices } from '../../main/services/app-services';
import { Vault } from '../../main/vault/vault';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic-server';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai-server';
import { startFaultServer } from '../support/fault-openai-server';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  dirs.cleanup();
});

function memoryVault(): Vault {
  const secrets = new Map<string, string>();
  return new Vault('dev.posthoc.test', async () => ({
    getPassword: async (_s, a) => secrets.get(a) ?? null,
    setPassword: async (_s, a, p) => void secrets.set(a, p),
    deletePassword: async (_s, a) => secrets.delete(a),
    findCredentials: async () => [...secrets].map(([account, password]) => ({ account, password })),
  }));
}

function services(env: Record<string, string> = {}): AppServices {
  const s = createServices({ dataDir: dirs.make('posthoc-data-'), vault: memoryVault(), env: { POSTHOC_STREAM: '1', ...env } });
  closers.push(() => s.close());
  return s;
}

describe('providers from the gallery', () => {
  it('runs a task on Anthropic with the run_code tool: the action runs and its output goes back as a tool_result', async () => {
    const fake: FakeAnthropic = await startFakeAnthropic(
      [
        { text: 'Counting.', toolUses: [{ id: 'toolu_a', name: 'run_code', input: { language: 'python', code: 'print(6 * 7)' } }], usage: { input: 900, output: 30 } },
        { text: 'The answer is 42.', usage: { input: 1000, output: 8 } },
      ],
      { apiKey: 'sk-ant-e2e' },
    );
    closers.push(() => fake.close());
    const s = services();
    await s.handlers['settings:update']({ protocol: 'tools' });
    const saved = await s.handlers['provider:save']({ name: 'Anthropic', baseUrl: fake.baseUrl, catalog: 'anthropic', apiKey: 'sk-ant-e2e', model: 'claude-sonnet-4-5' });
    expect(saved).toEqual([{ id: 'anthropic', name: 'Anthropic', baseUrl: fake.baseUrl, model: 'claude-sonnet-4-5', catalog: 'anthropic', apiKeySet: true }]);
    // The model menu is the provider's own list.
    expect((await s.handlers['provider:test']({ provider: 'anthropic', reach: true })).models).toEqual(['claude-haiku-4-5-20251001', 'claude-sonnet-4-5-20250929']);

    const started = await s.tasks.start({ prompt: 'what is six times seven?', workspaces: [dirs.workspace()] }, { provider: 'anthropic' });
    const task = await s.tasks.wait(started.id);
    expect(task).toMatchObject({ status: 'done', answer: 'The answer is 42.', model: 'claude-sonnet-4-5', provider: 'anthropic' });
    const actions = s.tasks.get(task.id).actions;
    expect(actions.map((a) => a.output.stdout)).toEqual(['42\n']);
    const followUp = fake.requests[1]!.messages.at(-1)!;
    expect(followUp.role).toBe('user');
    expect(followUp.content).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_a', content: expect.stringContaining('42') })]);
    // Priced from the gallery's table: claude-sonnet-4-5 at $3 / $15 per 1M tokens.
    expect(task.usage).toMatchObject({ promptTokens: 1900, completionTokens: 38, calls: 2 });
    expect(task.usage!.estimated).toBeUndefined();
    expect(task.usage!.costUsd).toBeCloseTo((1900 * 3 + 38 * 15) / 1e6, 12);
  });

  it('counts every call of a provider that streams no usage, estimated and marked so', async () => {
    const fake: FakeOpenAi = await startFakeOpenAi(['Step one.\n```python\nprint("one")\n```', 'Both done.']);
    closers.push(() => fake.close());
    const s = services({ OPENAI_BASE_URL: fake.baseUrl, POSTHOC_MODEL: 'scripted' });
    const task = await s.tasks.wait((await s.tasks.start({ prompt: 'two steps', workspaces: [dirs.workspace()] })).id);
    expect(task.status).toBe('done');
    expect(fake.requests).toHaveLength(2);
    expect(task.usage).toMatchObject({ calls: 2, estimated: true, costUsd: null });
    expect(task.usage!.promptTokens).toBeGreaterThan(100);
    expect(task.usage!.completionTokens).toBeGreaterThan(4);
    expect(s.tasks.get(task.id).actions[0]!.usage).toMatchObject({ calls: 1, estimated: true });
  });

  it('a saved provider with its model (and its key where it needs one) is enough to start: the app is configured', async () => {
    const s = services();
    expect((await s.handlers['settings:get']({})).configured).toBe(false);
    await s.handlers['provider:save']({ name: 'Anthropic', baseUrl: 'https://api.anthropic.com', catalog: 'anthropic', model: 'claude-sonnet-4-5' });
    expect((await s.handlers['settings:get']({})).configured).toBe(false);
    await s.handlers['provider:save']({ id: 'anthropic', name: 'Anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'sk-ant-x' });
    expect((await s.handlers['settings:get']({})).configured).toBe(true);
    await s.handlers['provider:remove']({ id: 'anthropic' });
    await s.handlers['provider:save']({ name: 'Ollama', baseUrl: 'http://localhost:11434/v1', catalog: 'ollama' });
    expect((await s.handlers['settings:get']({})).configured).toBe(false);
    await s.handlers['provider:save']({ id: 'ollama', name: 'Ollama', baseUrl: 'http://localhost:11434/v1', model: 'qwen2.5-coder:7b' });
    expect((await s.handlers['settings:get']({})).configured).toBe(true);
  });

  it('an OpenAI-compatible gallery provider that refuses the key is named, with where to get a key', async () => {
    const groq = await startFaultServer([], { apiKey: 'gsk-right', models: ['llama-3.3-70b-versatile'] });
    closers.push(() => groq.close());
    const s = services();
    await s.handlers['provider:save']({ name: 'Groq', baseUrl: groq.baseUrl, catalog: 'groq', apiKey: 'gsk-wrong', model: 'llama-3.3-70b-versatile' });
    const check = await s.handlers['provider:test']({ provider: 'groq' });
    expect(check).toEqual({
      ok: false,
      message: `The model provider at Groq (${groq.baseUrl}) refused the API key (401). Get a key at https://console.groq.com/keys and save it for this provider in Settings → Model providers, then continue the task.`,
      models: [],
    });
    await s.handlers['provider:save']({ id: 'groq', name: 'Groq', baseUrl: groq.baseUrl, apiKey: 'gsk-right' });
    expect(await s.handlers['provider:test']({ provider: 'groq', reach: true })).toEqual({ ok: true, message: `Groq (${groq.baseUrl}) answers.`, models: ['llama-3.3-70b-versatile'] });
  });

  it('a gallery provider saved without its key says where to get one; a local one needs none', async () => {
    const local = await startFakeOpenAi(['Hello from the local model.'], {});
    closers.push(() => local.close());
    const s = services();
    await s.handlers['provider:save']({ name: 'Groq', baseUrl: 'https://api.groq.com/openai/v1', catalog: 'groq', model: 'llama-3.3-70b-versatile' });
    await expect(s.tasks.start({ prompt: 'hi', workspaces: [dirs.workspace()] }, { provider: 'groq' })).rejects.toThrow(
      'Provider Groq has no key. Get one at https://console.groq.com/keys and save it for this provider in Settings → Model providers.',
    );
    await s.handlers['provider:save']({ name: 'Ollama', baseUrl: local.baseUrl, catalog: 'ollama', model: 'scripted' });
    const task = await s.tasks.wait((await s.tasks.start({ prompt: 'hi', workspaces: [dirs.workspace()] }, { provider: 'ollama' })).id);
    expect(task).toMatchObject({ status: 'done', answer: 'Hello from the local model.' });
    await expect(s.handlers['provider:save']({ name: 'Nope', baseUrl: null, catalog: 'no-such' })).rejects.toThrow(/No provider "no-such" in the gallery/);
  });
});
