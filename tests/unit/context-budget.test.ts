// The context budget: what it shortens, what it summarises (by the model, once per turn), and what it never touches.
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ContextBudget, ContextWindowTooSmall, replyReserve, shorten } from '../../main/agent/context-budget';
import { LlmClient } from '../../main/agent/llm-client';
import type { ChatMessage } from '../../main/agent/llm-client';
import { estimateRequestTokens, estimateTokens } from '../../main/agent/token-estimate';
import { startFakeOpenAi } from '../support/fake-openai-server';

const never = new AbortController().signal;
const system: ChatMessage = { role: 'system', content: 'You are Posthoc. '.repeat(20) };
const task: ChatMessage = { role: 'user', content: 'Count the lines of every log.' };
const big = (seq: number, n = 6000) => `Observation for action ${seq} (python): exit code 0\nstdout:\nSTART-${seq} ${'word '.repeat(n / 5)}END-${seq}`;

function turns(n: number, size?: number): ChatMessage[] {
  return Array.from({ length: n }, (_, i): ChatMessage[] => [
    { role: 'assistant', content: `Step ${i + 1}.\n\`\`\`python\nprint(${i + 1})\n\`\`\`` },
    { role: 'user', content: big(i + 1, size) },
  ]).flat();
}

describe('ContextBudget', () => {
  it('sends a history that fits as it is, without asking the model anything', async () => {
    const calls: ChatMessage[][] = [];
    const budget = new ContextBudget(32000, async (m) => (calls.push(m), 'x'));
    const history = [system, task, ...turns(2, 500)];
    expect(await budget.fit(history, never)).toEqual(history);
    expect(calls).toHaveLength(0);
  });

  it('shortens old observations first, head and tail kept with the action number; the last turn whole', async () => {
    const budget = new ContextBudget(8000, async () => 'summary');
    const history = [system, task, ...turns(6)];
    const fitted = await budget.fit(history, never);
    expect(estimateRequestTokens(fitted)).toBeLessThanOrEqual(8000 - replyReserve(8000));
    expect(fitted.slice(0, 2)).toEqual([system, task]);
    expect(fitted.slice(-2)).toEqual(history.slice(-2));
    expect(fitted[3]!.content).toMatch(/^Observation for action 1 \(python\)/);
    expect(fitted[3]!.content).toContain('END-1');
    expect(fitted[3]!.content).toMatch(/characters cut to fit the context window \(the full output is on action 1's card/);
    expect(fitted).toHaveLength(history.length);
  });

  it('then summarises the oldest turns by the model into one message of their own, each turn once', async () => {
    const asked: ChatMessage[][] = [];
    const budget = new ContextBudget(4096, async (messages) => {
      asked.push(messages);
      return `Ran ${asked.length} summary call(s); the logs have 10 lines each.`;
    });
    const history = [system, task, ...turns(30)];
    const fitted = await budget.fit(history, never);
    expect(estimateRequestTokens(fitted)).toBeLessThanOrEqual(budget.budget);
    expect(fitted.slice(0, 2)).toEqual([system, task]);
    expect(fitted[2]).toMatchObject({ role: 'user', content: expect.stringMatching(/^\[Summary of earlier turns[^\n]*\]\nRan \d summary call\(s\)/) });
    expect(fitted.slice(-2)).toEqual(history.slice(-2));
    for (const request of asked) expect(estimateRequestTokens(request)).toBeLessThanOrEqual(budget.budget);
    expect(asked[0]![1]!.content).toContain('Step 1.');
    const first = asked.length;

    // The next request: only the new turns are added to the summary, which goes on from the last one.
    const longer = [...history, ...turns(31).slice(60)];
    const again = await budget.fit(longer, never);
    expect(estimateRequestTokens(again)).toBeLessThanOrEqual(budget.budget);
    expect(asked.length - first).toBeLessThanOrEqual(2);
    if (asked.length > first) expect(asked[first]![1]!.content).toMatch(/^The summary so far:\nRan/);
  });

  it('refuses, saying what to do, rather than send a request over the window', async () => {
    const budget = new ContextBudget(2048, async () => 'x');
    const hugeTask: ChatMessage = { role: 'user', content: 'word '.repeat(4000) };
    await expect(budget.fit([system, hugeTask], never)).rejects.toThrow(/context window \(2048 tokens\) is too small.*--context-window/);
    expect(() => new ContextBudget(100, async () => 'x')).toThrow(ContextWindowTooSmall);
  });

  it('shorten keeps each action of a several-action observation under its own number', () => {
    const text = `${big(4)}\n\n${big(5)}`;
    const cut = shorten({ role: 'user', content: text }, 400).content;
    expect(estimateTokens(cut)).toBeLessThan(600);
    expect(cut).toContain("action 4's card");
    expect(cut).toContain("action 5's card");
    expect(cut).toContain('END-5');
  });
});

describe('the context window the provider states (LlmClient.contextWindow, through the one client)', () => {
  const window = (baseUrl: string, model: string, api?: 'anthropic') => new LlmClient({ baseUrl, apiKey: 'k', model, stream: false, ...(api ? { api } : {}) }).contextWindow();
  const serve = async (answer: (url: string) => unknown) => {
    const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(req.url ?? ''))));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return { base: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => { server.closeAllConnections(); return new Promise((resolve) => server.close(resolve)); } };
  };

  it('reads what the provider\'s model list says, null when it says nothing or cannot be reached', async () => {
    const server = await startFakeOpenAi([]);
    try {
      expect(await window(server.baseUrl, 'scripted')).toBeNull();
      expect(await window('http://127.0.0.1:9/v1', 'scripted')).toBeNull();
    } finally {
      await server.close();
    }
    // vLLM's max_model_len, as its /v1/models answers.
    const vllm = await serve(() => ({ object: 'list', data: [{ id: 'qwen', object: 'model', max_model_len: 32768 }] }));
    try {
      expect(await window(`${vllm.base}/v1`, 'qwen')).toBe(32768);
      expect(await window(`${vllm.base}/v1`, 'other')).toBeNull();
    } finally {
      await vllm.close();
    }
  });

  it('reads Anthropic\'s max_input_tokens from the model\'s own entry', async () => {
    const seen: string[] = [];
    const anthropic = await serve((url) => {
      seen.push(url);
      return { type: 'model', id: 'claude-test', display_name: 'Claude Test', created_at: '2026-01-01T00:00:00Z', max_input_tokens: 200000 };
    });
    try {
      expect(await window(anthropic.base, 'claude-test', 'anthropic')).toBe(200000);
      expect(seen).toEqual(['/v1/models/claude-test']);
    } finally {
      await anthropic.close();
    }
  });

  it('ignores a stated window too small to hold a conversation', async () => {
    const tiny = await serve(() => ({ object: 'list', data: [{ id: 'm', object: 'model', context_length: 512 }] }));
    try {
      expect(await window(`${tiny.base}/v1`, 'm')).toBeNull();
    } finally {
      await tiny.close();
    }
  });
});

describe('the context window per model (settings:update contextWindows)', () => {
  it('is saved per model and removed with null', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { openDatabase } = await import('../../main/store/database');
    const { TaskStore } = await import('../../main/store/task-store');
    const { Vault } = await import('../../main/vault/vault');
    const { SettingsService } = await import('../../main/services/settings-service');
    const dir = mkdtempSync(join(tmpdir(), 'posthoc-window-'));
    const db = openDatabase(dir);
    try {
      const settings = new SettingsService(new TaskStore(db), new Vault('test', async () => { throw new Error('no keychain in this test'); }), {});
      expect(settings.contextWindow('qwen2.5-coder')).toBeNull();
      await settings.update({ contextWindows: { 'qwen2.5-coder': 32768, llama3: 8192 } });
      expect(settings.contextWindow('qwen2.5-coder')).toBe(32768);
      expect(settings.contextWindow('llama3')).toBe(8192);
      await settings.update({ contextWindows: { llama3: null } });
      expect(settings.contextWindow('llama3')).toBeNull();
      expect(settings.contextWindow('qwen2.5-coder')).toBe(32768);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
