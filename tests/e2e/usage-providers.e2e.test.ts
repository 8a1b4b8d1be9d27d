// End to end in Chromium: a provider added in Settings and tested (its models listed), a task run on it
// through a 429, and the tokens and cost on screen — the task's totals in its header, each reply's on its
// card. The built renderer served by the web host, real services, and the fault-injecting local provider.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createServices } from '../../main/services/app-services';
import { Vault } from '../../main/vault/vault';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { expandCard } from '../support/cards';
import { startFaultServer } from '../support/fault-openai-server';
import { tempDirs } from '../support/temp-dir';

const { open, defer } = browserTestbed({ width: 1280, height: 900 });

function memoryVault(): Vault {
  const secrets = new Map<string, string>();
  return new Vault('dev.posthoc.test', async () => ({
    getPassword: async (_s, a) => secrets.get(a) ?? null,
    setPassword: async (_s, a, p) => void secrets.set(a, p),
    deletePassword: async (_s, a) => secrets.delete(a),
    findCredentials: async () => [...secrets].map(([account, password]) => ({ account, password })),
  }));
}

describe('model setup and usage in the browser', () => {
  it('adds and tests a provider, runs a task on it, and shows the usage in the header and on the card', async () => {
    const dirs = tempDirs();
    const fallback = await startFaultServer([]);
    const local = await startFaultServer(
      [
        { text: 'ok' }, // Test connection's one-token call
        { status: 429, headers: { 'retry-after': '1' } },
        { text: 'Counting.\n```bash\nls | wc -l\n```', usage: { prompt: 1234, completion: 56 } },
        { text: 'There are no files.', usage: { prompt: 1400, completion: 7 } },
      ],
      { models: ['qwen2.5-coder:7b', 'llama3.1:8b'] },
    );
    const services = createServices({ dataDir: dirs.make('posthoc-data-'), vault: memoryVault(), env: { OPENAI_BASE_URL: fallback.baseUrl, POSTHOC_MODEL: 'scripted' } });
    defer(async () => {
      await services.close();
      await local.close();
      await fallback.close();
      dirs.cleanup();
    });
    await services.handlers['settings:update']({ prices: { 'qwen2.5-coder:7b': { promptPerMTok: 0.5, completionPerMTok: 1.5 } } });
    const page = await open(services);

    await page.getByRole('button', { name: 'Settings' }).click();
    const add = page.getByTestId('add-provider');
    await add.getByTestId('provider-name').fill('Local Ollama');
    await add.getByTestId('provider-url').fill(local.baseUrl);
    await add.getByTestId('provider-add').click();
    const saved = page.getByTestId('saved-provider');
    await saved.waitFor();
    await saved.getByTestId('provider-test-button').click();
    await expect.poll(() => saved.getByTestId('provider-test-result').textContent()).toBe(`Connected to ${local.baseUrl}: 2 models listed. Choose one.`);
    await saved.getByTestId('provider-models').locator('summary').click();
    await saved.getByTestId('provider-models').getByRole('button', { name: 'Use' }).first().click();
    await expect.poll(() => saved.textContent()).toContain('model llama3.1:8b');
    // The second one is the coder model: use it instead.
    await saved.getByTestId('provider-models').getByRole('button', { name: 'Use' }).nth(1).click();
    await expect.poll(() => saved.textContent()).toContain('model qwen2.5-coder:7b');
    await saved.getByTestId('provider-test-button').click();
    await expect.poll(() => saved.getByTestId('provider-test-result').textContent()).toBe(`Connected to ${local.baseUrl}: model "qwen2.5-coder:7b" answered.`);
    await saved.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'providers-settings.png') });

    // What the provider counted so far was Test connection's; the task's calls are the rest.
    const before = { ...local.counted };
    await page.getByRole('button', { name: 'New task' }).click();
    await page.getByTestId('new-task-prompt').fill('how many files are there?');
    await page.getByTestId('new-task-workspace').fill(dirs.workspace());
    await page.getByTestId('new-task-provider').selectOption('local-ollama');
    await page.getByTestId('new-task-submit').click();

    await page.getByTestId('task-answer').waitFor({ timeout: 120_000 });
    expect({
      promptTokens: local.counted.promptTokens - before.promptTokens,
      completionTokens: local.counted.completionTokens - before.completionTokens,
      calls: local.counted.calls - before.calls,
    }).toEqual({ promptTokens: 2634, completionTokens: 63, calls: 2 });
    // 2,634 × $0.50 + 63 × $1.50 per million = $0.0014115
    await expect.poll(() => page.getByTestId('task-usage').textContent()).toBe('2,634 in · 63 out tokens · 2 calls · $0.0014');
    await expandCard(page.getByTestId('action-card').first());
    expect(await page.getByTestId('action-usage').textContent()).toBe('1,234 in · 56 out tokens · 1 call · $0.0007');
    expect(await page.locator('.task-model').textContent()).toBe('qwen2.5-coder:7b');
    await page.screenshot({ path: join(SCREENSHOTS, 'usage-task.png') });
  });
});
