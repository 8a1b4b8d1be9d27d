// End to end in Chromium: a provider added in Settings and tested (its models listed), a task run on it
// through a 429, and the tokens and cost on screen — the task's totals in its header, each reply's on its
// card. Anthropic and a local Ollama chosen from the gallery's menu, their models from their own lists,
// a task on each: Anthropic's priced from the gallery's table, Ollama's (which streams no usage) estimated
// and marked so. The built renderer served by the web host, real services, and local stand-in providers.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createServices } from '../../main/services/app-services';
import { Vault } from '../../main/vault/vault';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { expandCard } from '../support/cards';
import { startFakeAnthropic } from '../support/fake-anthropic-server';
import { startFakeOpenAi } from '../support/fake-openai-server';
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
    await add.getByTestId('provider-kind').selectOption('openai-compatible');
    await add.getByTestId('provider-name').fill('Local Ollama');
    await add.getByTestId('provider-url').fill(local.baseUrl);
    await add.getByTestId('provider-add').click();
    const saved = page.getByTestId('saved-provider');
    await saved.waitFor();
    // The model menu is the provider's own list, read when the provider is shown.
    const menu = saved.getByTestId('provider-model');
    await expect.poll(() => menu.locator('option').allTextContents()).toEqual(['Choose one of 2 models', 'llama3.1:8b', 'qwen2.5-coder:7b', 'Another model (type its name)…']);
    await menu.selectOption('llama3.1:8b');
    await expect.poll(() => menu.inputValue()).toBe('llama3.1:8b');
    // The second one is the coder model: use it instead.
    await menu.selectOption('qwen2.5-coder:7b');
    await expect.poll(() => menu.inputValue()).toBe('qwen2.5-coder:7b');
    await saved.getByTestId('provider-test-button').click();
    await expect.poll(() => saved.getByTestId('provider-test-result').textContent()).toBe(`Connected to Local Ollama (${local.baseUrl}): model "qwen2.5-coder:7b" answered.`);
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

  it('sets up Anthropic and a local Ollama from the gallery, picks their models from their lists, and runs a task on each', async () => {
    const dirs = tempDirs();
    const fallback = await startFaultServer([]);
    const anthropic = await startFakeAnthropic(
      [
        { text: 'Counting.\n```bash\nls | wc -l\n```', usage: { input: 500, output: 20 } },
        { text: 'There are no files.', usage: { input: 600, output: 5 } },
      ],
      { apiKey: 'sk-ant-e2e-secret', models: ['claude-haiku-4-5-20251001', 'claude-sonnet-4-5-20250929'] },
    );
    const ollama = await startFakeOpenAi(['Hello from the local model.'], { models: ['llama3.2:3b', 'qwen2.5-coder:7b'] });
    const services = createServices({ dataDir: dirs.make('posthoc-data-'), vault: memoryVault(), env: { OPENAI_BASE_URL: fallback.baseUrl, POSTHOC_MODEL: 'scripted' } });
    defer(async () => {
      await services.close();
      await ollama.close();
      await anthropic.close();
      await fallback.close();
      dirs.cleanup();
    });
    const page = await open(services);
    await page.getByRole('button', { name: 'Settings' }).click();
    const add = page.getByTestId('add-provider');
    const kinds = await add.getByTestId('provider-kind').locator('option').allTextContents();
    expect(kinds).toEqual([
      'OpenAI',
      'Anthropic',
      'Google Gemini',
      'OpenRouter',
      'Groq',
      'DeepSeek',
      'Mistral',
      'Ollama (on this computer)',
      'LM Studio (on this computer)',
      'Any OpenAI-compatible URL',
    ]);

    // Anthropic: its base URL filled in, a link to where its key is made; the key is required.
    await add.getByTestId('provider-kind').selectOption('anthropic');
    expect(await add.getByTestId('provider-url').inputValue()).toBe('https://api.anthropic.com');
    expect(await add.getByTestId('provider-key-link').locator('a').getAttribute('href')).toBe('https://console.anthropic.com/settings/keys');
    await add.getByTestId('provider-url').fill(anthropic.baseUrl);
    await add.getByTestId('provider-add').click();
    expect(await add.getByTestId('provider-add-error').textContent()).toBe('Paste your Anthropic key (get one at https://console.anthropic.com/settings/keys).');
    await add.getByTestId('provider-key').fill('sk-ant-e2e-secret');
    await add.getByTestId('provider-add').click();
    const claude = page.locator('[data-testid="saved-provider"][data-provider-id="anthropic"]');
    await claude.waitFor();
    expect(await add.getByTestId('provider-key').inputValue()).toBe('');
    const claudeMenu = claude.getByTestId('provider-model');
    await expect
      .poll(() => claudeMenu.locator('option').allTextContents())
      .toEqual([
        'Choose one of 2 models',
        'claude-haiku-4-5-20251001 · 200k context · $1 / $5 per 1M tokens',
        'claude-sonnet-4-5-20250929 · 200k context · $3 / $15 per 1M tokens',
        'Another model (type its name)…',
      ]);
    await claudeMenu.selectOption('claude-sonnet-4-5-20250929');
    await expect.poll(() => claudeMenu.inputValue()).toBe('claude-sonnet-4-5-20250929');
    expect(await claude.textContent()).toContain('key in the keychain');
    // A wrong key: Test connection names Anthropic and says where to get a key; the right one again, and it answers.
    await claude.getByTestId('provider-change-key').locator('summary').click();
    await claude.getByTestId('provider-new-key').fill('sk-ant-wrong');
    await claude.getByTestId('provider-save-key').click();
    await expect.poll(() => services.vault.get('llm-api-key:anthropic')).toBe('sk-ant-wrong');
    await claude.getByTestId('provider-test-button').click();
    await expect
      .poll(() => claude.getByTestId('provider-test-result').textContent())
      .toBe(
        `The model provider at Anthropic (${anthropic.baseUrl}) refused the API key (401). Get a key at https://console.anthropic.com/settings/keys and save it for this provider in Settings → Model providers, then continue the task.`,
      );
    await claude.getByTestId('provider-new-key').fill('sk-ant-e2e-secret');
    await claude.getByTestId('provider-save-key').click();
    await expect.poll(() => services.vault.get('llm-api-key:anthropic')).toBe('sk-ant-e2e-secret');
    await expect.poll(() => claude.getByTestId('provider-test-result').count()).toBe(0);
    await claude.getByTestId('provider-change-key').locator('summary').click();

    // Ollama: on this computer, no key field at all.
    await add.getByTestId('provider-kind').selectOption('ollama');
    expect(await add.getByTestId('provider-url').inputValue()).toBe('http://localhost:11434/v1');
    expect(await add.getByTestId('provider-key').count()).toBe(0);
    expect(await add.getByTestId('provider-key-link').textContent()).toMatch(/^Runs on this computer: no key needed\. Get it at ollama\.com/);
    await add.getByTestId('provider-url').fill(ollama.baseUrl);
    await add.getByTestId('provider-add').click();
    const local = page.locator('[data-testid="saved-provider"][data-provider-id="ollama"]');
    await local.waitFor();
    const localMenu = local.getByTestId('provider-model');
    await expect.poll(() => localMenu.locator('option').allTextContents()).toEqual(['Choose one of 2 models', 'llama3.2:3b', 'qwen2.5-coder:7b', 'Another model (type its name)…']);
    // A model the list lacks is typed instead (the menu's last option), then the list's own is chosen again.
    await localMenu.selectOption({ label: 'Another model (type its name)…' });
    await local.getByTestId('provider-model-typed').fill('my-finetune:1b');
    await local.getByTestId('provider-model-use').click();
    await expect.poll(() => localMenu.inputValue()).toBe('my-finetune:1b');
    await localMenu.selectOption('qwen2.5-coder:7b');
    await expect.poll(() => localMenu.inputValue()).toBe('qwen2.5-coder:7b');
    expect(await local.textContent()).toContain('no key needed');

    // The key went to the keychain (main's vault), never back to the page.
    expect(await page.evaluate(() => document.documentElement.outerHTML.includes('sk-ant-e2e-secret'))).toBe(false);
    const settings = await page.evaluate(async () => JSON.stringify(await window.posthoc.settingsGet({})));
    expect(settings).not.toContain('sk-ant-e2e-secret');
    expect(await services.vault.get('llm-api-key:anthropic')).toBe('sk-ant-e2e-secret');

    // The built-in prices say where they come from.
    const sources = page.getByTestId('price-sources');
    expect(await sources.locator('a').first().getAttribute('href')).toBe('https://platform.openai.com/docs/pricing');
    expect(await sources.textContent()).toContain('Anthropic (2025-11-25)');
    for (const [width, height] of [
      [800, 600],
      [1600, 1000],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme: scheme });
        await page.getByRole('heading', { name: 'More providers' }).scrollIntoViewIfNeeded();
        // The sidebar becomes a drawer below 1000 px: its slide ends before the picture is taken.
        await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));
        await page.screenshot({ path: join(SCREENSHOTS, `provider-gallery-${width}x${height}-${scheme}.png`) });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 900 });

    // A task on Anthropic, priced from the gallery's table ($3 / $15 per 1M tokens).
    await page.getByRole('button', { name: 'New task' }).click();
    await page.getByTestId('new-task-prompt').fill('how many files are there?');
    await page.getByTestId('new-task-workspace').fill(dirs.workspace());
    await page.getByTestId('new-task-provider').selectOption('anthropic');
    await page.getByTestId('new-task-submit').click();
    await page.getByTestId('task-answer').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('task-answer').textContent()).toContain('There are no files.');
    // 1,100 × $3 + 25 × $15 per million = $0.003675
    await expect.poll(() => page.getByTestId('task-usage').textContent()).toBe('1,100 in · 25 out tokens · 2 calls · $0.0037');
    expect(await page.locator('.task-model').textContent()).toBe('claude-sonnet-4-5-20250929');
    expect(anthropic.requests.map((r) => r.model)).toEqual(['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5-20250929']);

    // A task on Ollama, which streams no usage: the call counts, its tokens estimated and marked so.
    await page.getByRole('button', { name: 'New task' }).click();
    await page.getByTestId('new-task-prompt').fill('say hello');
    await page.getByTestId('new-task-workspace').fill(dirs.workspace());
    await page.getByTestId('new-task-provider').selectOption('ollama');
    await page.getByTestId('new-task-submit').click();
    await expect.poll(() => page.getByTestId('task-answer').textContent(), { timeout: 120_000 }).toContain('Hello from the local model.');
    await expect.poll(() => page.getByTestId('task-usage').textContent()).toMatch(/^≈[\d,]+ in · ≈\d+ out tokens \(estimated\) · 1 call$/);
    expect(await page.getByTestId('task-usage').getAttribute('title')).toMatch(/estimated by Posthoc: the provider reported no usage/);
    expect(ollama.requests.map((r) => r.model)).toEqual(['qwen2.5-coder:7b']);
    await page.screenshot({ path: join(SCREENSHOTS, 'provider-gallery-estimated-usage.png') });
  });

  it('a new user sets up Anthropic on the first screen from the menu, picks its model, and the first task runs on it', async () => {
    const dirs = tempDirs();
    const anthropic = await startFakeAnthropic([{ text: 'Hello! Ready when you are.', usage: { input: 300, output: 6 } }], {
      apiKey: 'sk-ant-first',
      models: ['claude-haiku-4-5-20251001', 'claude-sonnet-4-5-20250929'],
    });
    const services = createServices({ dataDir: dirs.make('posthoc-data-'), vault: memoryVault(), env: {} });
    defer(async () => {
      await services.close();
      await anthropic.close();
      dirs.cleanup();
    });
    const page = await open(services, { width: 800, height: 600 });
    const first = page.getByTestId('first-run');
    await first.waitFor();
    await first.getByTestId('provider-kind').selectOption('anthropic');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: join(SCREENSHOTS, `provider-gallery-first-run-800x600-${scheme}.png`) });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await first.getByTestId('provider-url').fill(anthropic.baseUrl);
    await first.getByTestId('provider-key').fill('sk-ant-first');
    await first.getByTestId('provider-add').click();
    const menu = first.getByTestId('first-run-model').getByTestId('provider-model');
    await expect.poll(() => menu.locator('option').count()).toBe(4);
    await menu.selectOption('claude-haiku-4-5-20251001');
    // The app opens, and the new task goes to the provider just set up.
    await page.getByTestId('new-task-prompt').waitFor();
    expect(await page.getByTestId('new-task-provider').inputValue()).toBe('anthropic');
    await page.getByTestId('new-task-prompt').fill('say hello');
    await page.getByTestId('new-task-workspace').fill(dirs.workspace());
    await page.getByTestId('new-task-submit').click();
    await expect.poll(() => page.getByTestId('task-answer').textContent(), { timeout: 120_000 }).toContain('Hello! Ready when you are.');
    // 300 × $1 + 6 × $5 per million (claude-haiku-4-5) = $0.00033
    await expect.poll(() => page.getByTestId('task-usage').textContent()).toBe('300 in · 6 out tokens · 1 call · $0.0003');
    expect(anthropic.requests.map((r) => r.model)).toEqual(['claude-haiku-4-5-20251001']);
  });
});
