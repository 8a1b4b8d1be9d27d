// Model setup through the real services: saved providers besides the default one, each key in the vault
// (never in settings), Test connection answering in plain words with the provider's models, and a task
// run on the provider chosen for it (kept when the task is continued).
import { afterEach, describe, expect, it } from 'vitest';
import { createServices, type AppServices } from '../../main/services/app-services';
import { Vault } from '../../main/vault/vault';
import { startFaultServer, type FaultServer } from '../support/fault-openai-server';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const servers: FaultServer[] = [];
let services: AppServices | null = null;
let secrets = new Map<string, string>();

afterEach(async () => {
  await services?.close();
  services = null;
  for (const s of servers.splice(0)) await s.close();
  dirs.cleanup();
  secrets = new Map();
});

/** A keychain stand-in (the real keychain has its own tests): this test is about which key goes where. */
function memoryVault(): Vault {
  return new Vault('dev.posthoc.test', async () => ({
    getPassword: async (_s, a) => secrets.get(a) ?? null,
    setPassword: async (_s, a, p) => void secrets.set(a, p),
    deletePassword: async (_s, a) => secrets.delete(a),
    findCredentials: async () => [...secrets].map(([account, password]) => ({ account, password })),
  }));
}

async function server(...args: Parameters<typeof startFaultServer>): Promise<FaultServer> {
  const s = await startFaultServer(...args);
  servers.push(s);
  return s;
}

function open(defaultUrl: string): AppServices {
  services = createServices({ dataDir: dirs.make('posthoc-data-'), vault: memoryVault(), env: { OPENAI_BASE_URL: defaultUrl, POSTHOC_MODEL: 'scripted' } });
  return services;
}

describe('model providers', () => {
  it('keeps a saved provider with its key in the vault, tests it, and runs a task on it', async () => {
    const fallback = await server([]);
    const vllm = await server([{ text: 'ok' }, { text: 'From vLLM.' }, { text: 'Still vLLM.' }], { apiKey: 'sk-local-1', models: ['qwen2.5-coder', 'llama3.1'] });
    const s = open(fallback.baseUrl);

    const saved = await s.handlers['provider:save']({ name: 'Local vLLM', baseUrl: vllm.baseUrl, model: 'qwen2.5-coder', apiKey: 'sk-local-1' });
    expect(saved).toEqual([{ id: 'local-vllm', name: 'Local vLLM', baseUrl: vllm.baseUrl, model: 'qwen2.5-coder', catalog: null, apiKeySet: true }]);
    expect(secrets.get('llm-api-key:local-vllm')).toBe('sk-local-1');
    // The key is in the vault only: not in the settings table, not in what settings:get answers.
    const rows = s.db.prepare('SELECT value_json FROM settings').all() as Array<{ value_json: string }>;
    expect(rows.some((r) => r.value_json.includes('sk-local-1'))).toBe(false);
    expect(JSON.stringify(await s.handlers['settings:get']({}))).not.toContain('sk-local-1');
    expect((await s.handlers['settings:get']({})).providers).toEqual(saved);

    const check = await s.handlers['provider:test']({ provider: 'local-vllm' });
    expect(check).toEqual({ ok: true, message: `Connected to Local vLLM (${vllm.baseUrl}): model "qwen2.5-coder" answered.`, models: ['llama3.1', 'qwen2.5-coder'] });
    expect(vllm.requests.at(-1)).toMatchObject({ model: 'qwen2.5-coder', max_tokens: 1 });
    vllm.requests.length = 0;
    // reach (the new-task screen): the model list only, never a model call.
    expect(await s.handlers['provider:test']({ provider: 'local-vllm', reach: true })).toEqual({ ok: true, message: `Local vLLM (${vllm.baseUrl}) answers.`, models: ['llama3.1', 'qwen2.5-coder'] });
    expect(vllm.requests).toHaveLength(0);

    const workspace = dirs.workspace();
    const started = await s.handlers['task:start']({ prompt: 'hello', workspaces: [workspace], provider: 'local-vllm' });
    expect(started.provider).toBe('local-vllm');
    const task = await s.tasks.wait(started.id);
    expect(task).toMatchObject({ status: 'done', answer: 'From vLLM.', model: 'qwen2.5-coder' });
    await s.tasks.wait((await s.handlers['task:send']({ taskId: task.id, prompt: 'again' })).id);
    expect(vllm.requests.map((r) => r.model)).toEqual(['qwen2.5-coder', 'qwen2.5-coder']);
    expect(fallback.requests).toHaveLength(0);

    const removed = await s.handlers['provider:remove']({ id: 'local-vllm' });
    expect(removed).toEqual([]);
    expect(secrets.has('llm-api-key:local-vllm')).toBe(false);
  });

  it('Test connection says what is wrong in plain words: a refused key, nothing listening, an unknown model', async () => {
    const guarded = await server([], { apiKey: 'right' });
    const s = open(guarded.baseUrl);
    await s.handlers['provider:save']({ name: 'Wrong key', baseUrl: guarded.baseUrl, apiKey: 'wrong' });
    const refused = await s.handlers['provider:test']({ provider: 'wrong-key' });
    expect(refused.ok).toBe(false);
    expect(refused.message).toMatch(/refused the API key \(401\)\. Set a valid key/);

    const gone = await server([]);
    const url = gone.baseUrl;
    await gone.close();
    await s.handlers['provider:save']({ name: 'Ollama', baseUrl: url });
    const nothing = await s.handlers['provider:test']({ provider: 'ollama' });
    expect(nothing).toMatchObject({ ok: false, models: [] });
    expect(nothing.message).toMatch(/^Nothing answered at Ollama \(http:\/\/127\.0\.0\.1:\d+\/v1\) .*Check the URL, and that the server is running/);
    expect(await s.handlers['provider:test']({ provider: 'ollama', reach: true })).toEqual(nothing);

    const lists = await server([{ status: 404, body: { error: { message: 'The model `gpt-9` does not exist', code: 'model_not_found' } } }], { models: ['gpt-4o-mini'] });
    await s.handlers['provider:save']({ name: 'Lists', baseUrl: lists.baseUrl });
    expect(await s.handlers['provider:test']({ provider: 'lists' })).toEqual({
      ok: true,
      message: `Connected to Lists (${lists.baseUrl}): 1 model listed. Choose one.`,
      models: ['gpt-4o-mini'],
    });
    const unknown = await s.handlers['provider:test']({ provider: 'lists', model: 'gpt-9' });
    expect(unknown).toMatchObject({ ok: false, models: ['gpt-4o-mini'] });
    expect(unknown.message).toMatch(/does not know model "gpt-9"/);
  });

  it('refuses a task on a provider that is not saved, and a provider named like the default one', async () => {
    const s = open((await server([])).baseUrl);
    await expect(s.handlers['task:start']({ prompt: 'p', workspaces: [dirs.workspace()], provider: 'nope' })).rejects.toThrow(/No saved provider nope/);
    await expect(s.handlers['provider:save']({ name: 'Default', baseUrl: null })).rejects.toThrow(/names the provider set above/);
  });

  it('keeps protocol, budget and prices as settings', async () => {
    const s = open((await server([])).baseUrl);
    const updated = await s.handlers['settings:update']({ protocol: 'auto', budget: '$1.50', prices: { 'my-model': { promptPerMTok: 1, completionPerMTok: 2 } } });
    expect([updated.values.protocol.value, updated.values.budget.value]).toEqual(['auto', '$1.50']);
    expect(updated.values.prices.value['my-model']).toEqual({ promptPerMTok: 1, completionPerMTok: 2 });
    expect(updated.values.prices.value['gpt-4o']).toEqual({ promptPerMTok: 2.5, completionPerMTok: 10 });
    expect(updated.values.prices.source).toBe('settings');
    const cleared = await s.handlers['settings:update']({ budget: null, prices: { 'my-model': null } });
    expect(cleared.values.budget).toEqual({ value: null, source: 'default' });
    expect(cleared.values.prices.value['my-model']).toBeUndefined();
    expect(cleared.values.prices.source).toBe('default');
    await expect(s.handlers['settings:update']({ budget: 'much' })).rejects.toThrow(/neither tokens/);
  });
});
