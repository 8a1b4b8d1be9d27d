// End to end in Chromium: control that is real. One truth for Undo (a final answer streamed slowly over
// several seconds, then the timeline's and the card's Undo enabled with no reload); Stop during a 20 s
// action (the button says "Stopping…" until the task stopped, the action ends "stopped" with the files
// it wrote so far undoable); the attention state of an action held for approval (a banner above the
// composer, a "needs you" badge in the sidebar, a desktop notification, never the thinking line); and
// the problems that would stop a task shown on the new-task screen before Start (image absent, model
// unreachable), with Retry and Open Settings. Screenshots at 800×600 and 1600×1000.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createServices, type AppServices } from '../../main/services/app-services';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { startFakeOpenAi, type Reply } from '../support/fake-openai-server';
import { createSqliteShop, sqliteFileDump } from '../support/shop-db';
import { tempDirs } from '../support/temp-dir';

// Registered first, so it runs after the services and the page are closed (after-hooks run in reverse).
const dirs = tempDirs();
afterEach(() => dirs.cleanup());
const { open, defer } = browserTestbed({ width: 1440, height: 900 });

/** Real services over a temp data folder; the model a local scripted server, slow from reply `slowFrom` on. */
async function harness(replies: Reply[], options: { chunkDelayMs?: number; slowFrom?: number; image?: string; baseUrl?: string } = {}) {
  const llm = await startFakeOpenAi(replies, { chunkDelayMs: options.chunkDelayMs, slowFrom: options.slowFrom });
  const dataDir = dirs.make('posthoc-data-');
  const workspace = dirs.workspace();
  const services = createServices({ dataDir, image: options.image, env: { OPENAI_BASE_URL: options.baseUrl ?? llm.baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_STREAM: '1' } });
  defer(async () => {
    await services.close();
    await llm.close();
  });
  return { services, llm, workspace };
}

async function shoot(page: Page, name: string): Promise<void> {
  for (const [w, h] of [
    [800, 600],
    [1600, 1000],
  ] as const) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(400); // the layout's transitions settle (a screenshot, not an assertion)
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${w}x${h}.png`) });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** Starts a task through the services (the form is another test's subject) and opens it in the sidebar. */
async function startTask(page: Page, services: AppServices, input: { prompt: string; workspaces: string[]; databases?: unknown[] }): Promise<string> {
  const start = services.handlers['task:start'] as (input: unknown) => Promise<{ id: string }>;
  const { id } = await start(input);
  await page.locator(`[data-testid="task-list-item"][data-task-id="${id}"]`).click();
  return id;
}

describe('control that is real, in the browser', () => {
  it('enables the timeline’s and the card’s Undo as soon as a slowly streamed final answer ends, with no reload', async () => {
    const answer = `Done: notes.txt is written. ${'It holds one line, and this answer takes a while to arrive. '.repeat(6)}`;
    // Reply 2 (the final answer) streams 16 characters every 400 ms: about 10 s.
    const { services, workspace } = await harness(["```python\nopen('notes.txt', 'w').write('hello\\n')\n```", answer], { chunkDelayMs: 400, slowFrom: 1 });
    const page = await open(services);
    await startTask(page, services, { prompt: 'write notes.txt', workspaces: [workspace] });

    const card = page.getByTestId('action-card').first();
    const row = page.locator('[data-testid="timeline-action"][data-seq="1"]');
    await card.and(page.locator('[data-status="done"]')).waitFor({ timeout: 90_000 });
    // While the answer streams the task runs: the timeline knows, and the card says the same.
    expect(await page.getByTestId('task-status').textContent()).toBe('running');
    await expect.poll(() => row.getByTestId('timeline-undo').isDisabled()).toBe(true);
    expect(await card.getByTestId('action-undo').isDisabled()).toBe(true);
    expect(await card.getByTestId('action-undo').getAttribute('title')).toMatch(/still working/i);

    await page.getByTestId('task-answer').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('task-status').textContent()).toBe('done');
    // No reload, no click: the task's end alone refreshes the one answer both read.
    await expect.poll(() => row.getByTestId('timeline-undo').isDisabled(), { timeout: 10_000 }).toBe(false);
    await expect.poll(() => card.getByTestId('action-undo').isDisabled(), { timeout: 10_000 }).toBe(false);
    await card.getByTestId('action-undo').click();
    await expect.poll(() => row.getAttribute('data-status')).toBe('undone');
    expect(existsSync(join(workspace, 'notes.txt'))).toBe(false);
  }, 180_000);

  it('stops a 20 s action: "Stopping…" until the task stopped, the card says stopped, and its files so far are undoable', async () => {
    const slowWriter = "```python\nimport time\nfor i in range(40):\n    open(f'part-{i:02}.txt', 'w').write(str(i))\n    time.sleep(0.5)\n```";
    const { services, workspace } = await harness([slowWriter, 'Never reached.']);
    const page = await open(services);
    await startTask(page, services, { prompt: 'write forty parts slowly', workspaces: [workspace] });
    const parts = () => readdirSync(workspace).filter((f) => f.startsWith('part-')).length;
    await expect.poll(parts, { timeout: 90_000 }).toBeGreaterThanOrEqual(3);

    const stop = page.getByTestId('task-cancel');
    expect(await stop.textContent()).toBe('Stop');
    await stop.click();
    // Pressed: it says so and cannot be pressed twice; the task has not stopped yet or has just stopped.
    const statusAfterClick = await page.getByTestId('task-status').textContent();
    if (statusAfterClick === 'running') {
      expect(await stop.textContent()).toBe('Stopping…');
      expect(await stop.isDisabled()).toBe(true);
    }
    await expect.poll(() => page.getByTestId('task-status').textContent(), { timeout: 30_000 }).toBe('cancelled');
    const written = parts();
    expect(written).toBeLessThan(40);
    const card = page.getByTestId('action-card').first();
    await expect.poll(() => card.getAttribute('data-status')).toBe('interrupted');
    expect(await card.getByTestId('action-status').textContent()).toBe('stopped');
    await page.getByTestId('task-cancelled').waitFor();
    await shoot(page, 'control-stopped');
    // Nothing more is written once stopped.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(parts()).toBe(written);

    await expect.poll(() => card.getByTestId('action-undo').isDisabled(), { timeout: 10_000 }).toBe(false);
    await card.getByTestId('action-undo').click();
    await expect.poll(() => card.getAttribute('data-status')).toBe('undone');
    expect(parts()).toBe(0);
  }, 180_000);

  it('shows an action held for approval as waiting for the person: banner, sidebar badge, notification', async () => {
    const file = join(dirs.make('posthoc-e2e-db-'), 'shop.db');
    createSqliteShop(file);
    const original = sqliteFileDump(file);
    const raise = '```sql shop\nUPDATE products SET price_cents = price_cents + 50;\n```';
    const { services } = await harness([raise, raise, 'All prices are up by a euro.']);
    const page = await open(services);
    // A desktop notification is recorded instead of shown.
    await page.addInitScript(() => {
      const notes: Array<{ title: string; body: string }> = [];
      (window as unknown as { __notes: typeof notes }).__notes = notes;
      class RecordedNotification {
        static permission = 'granted';
        static requestPermission = async () => 'granted';
        onclick: (() => void) | null = null;
        constructor(title: string, options: { body?: string } = {}) {
          notes.push({ title, body: options.body ?? '' });
        }
      }
      (window as unknown as { Notification: unknown }).Notification = RecordedNotification;
    });
    await page.reload();
    await page.getByTestId('new-task-prompt').waitFor();

    const started = await (services.handlers['task:start'] as (input: unknown) => Promise<{ id: string }>)({
      prompt: 'raise every price by 50 cents',
      workspaces: [],
      databases: [{ name: 'shop', url: `sqlite:${file}`, maxRowsAffected: 2 }],
    });
    const item = page.locator(`[data-testid="task-list-item"][data-task-id="${started.id}"]`);
    await item.getByTestId('task-needs-you-badge').waitFor({ timeout: 60_000 });
    expect(await item.getByTestId('task-needs-you-badge').textContent()).toBe('needs you');
    await expect.poll(() => page.evaluate(() => (window as unknown as { __notes: Array<{ title: string; body: string }> }).__notes)).toEqual([
      { title: 'Posthoc needs you: raise every price by 50 cents', body: expect.stringMatching(/^Action 1 \(sql\) waits for your approval\. Over the rows-affected limit of "shop" \(2\)/) },
    ]);

    await item.click();
    const banner = page.getByTestId('attention-banner');
    await banner.waitFor();
    const held = await banner.getByTestId('attention-item').getAttribute('data-id');
    expect(await banner.textContent()).toMatch(/Action 1 \(sql\) waits for your approval before it runs; nothing was changed yet\..*rows-affected limit/);
    expect(await page.getByTestId('task-needs-you').textContent()).toBe('needs you');
    expect(await page.getByTestId('task-working').count()).toBe(0); // never the ordinary "thinking" line
    expect(sqliteFileDump(file)).toBe(original);
    await shoot(page, 'control-needs-you');

    await banner.getByTestId('attention-approve').click();
    // The second raise waits too, while the person looks at the task: the banner again, no notification.
    await page.locator('[data-testid="attention-item"]').and(page.locator(`[data-id]:not([data-id="${held}"])`)).waitFor({ timeout: 60_000 });
    expect(await page.evaluate(() => (window as unknown as { __notes: unknown[] }).__notes.length)).toBe(1);
    await page.getByTestId('attention-banner').getByTestId('attention-approve').click();
    await page.getByTestId('task-answer').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('attention-banner').count()).toBe(0);
    expect(await item.getByTestId('task-needs-you-badge').count()).toBe(0);
    expect(sqliteFileDump(file)).not.toBe(original);
    expect(await page.getByTestId('action-card').first().getAttribute('data-status')).toBe('done');
    expect(await page.getByTestId('action-card').nth(1).getAttribute('data-status')).toBe('done');
  }, 180_000);

  it('shows what would stop a task on the new-task screen, before Start: image absent, model unreachable', async () => {
    // A data folder whose sandbox image does not exist, and a model URL nothing listens on.
    const { services } = await harness([], { image: 'posthoc-sandbox:absent-in-this-test', baseUrl: 'http://127.0.0.1:9/v1' });
    const page = await open(services);
    const problems = page.getByTestId('start-problem');
    await expect.poll(() => problems.count(), { timeout: 30_000 }).toBe(2);
    const sandbox = page.locator('[data-testid="start-problem"][data-problem="sandbox"]');
    const model = page.locator('[data-testid="start-problem"][data-problem="model"]');
    expect(await sandbox.textContent()).toMatch(/The sandbox image is missing.*posthoc-sandbox:absent-in-this-test/i);
    expect(await model.textContent()).toMatch(/The model does not answer/);
    // Nothing typed yet: the problems are there before the form is filled.
    expect(await page.getByTestId('new-task-prompt').inputValue()).toBe('');
    await shoot(page, 'control-start-problems');

    await model.getByTestId('start-problem-retry').click();
    await expect.poll(() => model.getByTestId('start-problem-retry').textContent()).toBe('Retry');
    expect(await problems.count()).toBe(2);
    await sandbox.getByTestId('start-problem-settings').click();
    await page.getByTestId('sandbox-status').waitFor();
  }, 120_000);
});
