// End to end in Chromium: sessions that survive. A tab opened while a task runs lands on it; the web host
// restarted mid-task (its services closed and made again over the same data folder, with the token and
// port kept for it) — the open tab connects again by itself, the task reads "interrupted" (not stopped by
// the person) and Continue finishes it; an MCP server added by the CLI appears in an open window without
// a reload. Screenshots of the interrupted task at 800×600 and 1600×1000, light and dark.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startWebHost, type WebHost } from '../../main/ipc/web-host';
import { loadWebHostState, saveWebHostState } from '../../main/ipc/web-host-state';
import { createServices, type AppServices } from '../../main/services/app-services';
import { launchChromium, RENDERER_DIR, SCREENSHOTS } from '../support/browser';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai-server';
import { assertCliBuilt, runPosthoc } from '../support/posthoc-cli';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const cleanups: Array<() => Promise<void>> = [];
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  dirs.cleanup();
});
afterAll(async () => {
  await browser?.close();
});

const WRITE_THEN_WAIT = "```bash\necho one > a.txt\nsleep 120\necho two > b.txt\n```";

/** `posthoc web` in this process: services over the data folder, the host with the folder's token and last port. */
async function webHost(dataDir: string, llm: FakeOpenAi): Promise<{ services: AppServices; host: WebHost; stop(): Promise<void> }> {
  const services = createServices({ dataDir, env: { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_STREAM: '1' } });
  await services.ready;
  const state = loadWebHostState(dataDir);
  const host = await startWebHost(services, { rendererDir: RENDERER_DIR, token: state.token, preferredPort: state.port ?? undefined });
  saveWebHostState(dataDir, { token: host.token, port: host.port });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await host.close();
    await services.close();
  };
  cleanups.push(stop);
  return { services, host, stop };
}

async function newPage(url: string, scheme: 'light' | 'dark' = 'light'): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: scheme });
  cleanups.push(() => context.close());
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  return { page, errors };
}

/** `show`: what must be in view in each picture. */
async function shoot(page: Page, name: string, show?: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [w, h] of [
      [800, 600],
      [1600, 1000],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      if (show !== undefined) await page.getByTestId(show).scrollIntoViewIfNeeded();
      await page.waitForTimeout(300); // the layout settles (a screenshot, not an assertion)
      await page.screenshot({ path: join(SCREENSHOTS, `${name}-${scheme}-${w}x${h}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 860 });
}

describe('sessions that survive, in the browser', () => {
  it('lands a reopened tab on the running task; after a restart of the web host mid-task the tab reconnects, reads "interrupted", and Continue finishes it', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const workspace = dirs.workspace();
    const llm = await startFakeOpenAi([WRITE_THEN_WAIT, "```bash\ncat a.txt\n```", 'a.txt holds one; b.txt was never written.']);
    cleanups.push(() => llm.close());
    const first = await webHost(dataDir, llm);
    const started = await first.services.handlers['task:start']({ prompt: 'write two files', workspaces: [workspace], actionTimeoutSeconds: 300 });

    // A tab opened (or reopened) while the task runs shows it, not New task.
    const { page, errors } = await newPage(first.host.url);
    await page.locator(`[data-testid="task-view"][data-task-id="${started.id}"]`).waitFor({ timeout: 30_000 });
    expect(await page.locator('.new-task-form').count()).toBe(0);
    await page.locator('[data-testid="action-card"][data-status="running"]').waitFor({ timeout: 90_000 });
    await expect.poll(() => existsSync(join(workspace, 'a.txt')), { timeout: 30_000 }).toBe(true);

    // The web host stops mid-action: the tab says it is connecting again, and no call of it hangs.
    await first.stop();
    await page.getByTestId('connection-lost').waitFor();
    expect(await page.getByTestId('connection-lost').textContent()).toBe('Lost the connection to Posthoc; connecting again…');

    // It comes back on the same address: the tab connects again by itself and reads the task afresh.
    const second = await webHost(dataDir, llm);
    expect(second.host.url).toBe(first.host.url);
    await page.getByTestId('connection-lost').waitFor({ state: 'detached', timeout: 30_000 });
    await expect.poll(() => page.getByTestId('task-status').textContent(), { timeout: 30_000 }).toBe('interrupted');
    const notice = page.getByTestId('task-interrupted');
    expect(await notice.textContent()).toMatch(/Interrupted when Posthoc stopped \(a restart or a quit\), not by you/);
    expect(await page.getByTestId('task-cancelled').count()).toBe(0);
    const card = page.locator('[data-testid="action-card"]').first();
    expect(await card.getAttribute('data-status')).toBe('interrupted');
    expect(await page.locator('[data-testid="task-list-item"][data-task-id="' + started.id + '"]').textContent()).toMatch(/write two files/);
    await shoot(page, 'sessions-interrupted', 'task-continue');

    // Continue: the conversation goes on with the record of what ran, and the task finishes.
    await page.getByTestId('task-continue').click();
    await page.getByTestId('task-answer').waitFor({ timeout: 90_000 });
    expect(await page.getByTestId('task-answer').textContent()).toContain('a.txt holds one; b.txt was never written.');
    expect(await page.getByTestId('task-status').textContent()).toBe('done');
    expect(await page.getByTestId('task-interrupted').count()).toBe(0);
    expect(lastUserMessage(llm, 1)).toContain('Action 1 was cut short by the restart');
    expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('one\n');
    await shoot(page, 'sessions-continued');

    // A reload works after the restart: the address (and its token) is the same.
    await page.reload();
    await page.locator(`[data-testid="task-list-item"][data-task-id="${started.id}"]`).waitFor();
    expect(errors).toEqual([]);
  });

  it('shows an MCP server added by the CLI in an open window without a reload', async () => {
    assertCliBuilt();
    const dataDir = dirs.make('posthoc-data-');
    const llm = await startFakeOpenAi([]);
    cleanups.push(() => llm.close());
    const { host } = await webHost(dataDir, llm);
    const { page, errors } = await newPage(host.url);
    await page.getByTestId('connections-link').click();
    await page.getByTestId('mcp-servers').waitFor();
    expect(await page.getByTestId('mcp-server-memory').count()).toBe(0);

    const added = await runPosthoc(['mcp', 'add', 'memory', '--data-dir', dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-memory']);
    expect(added.code).toBe(0);
    await page.getByTestId('mcp-server-memory').waitFor({ timeout: 15_000 });
    await shoot(page, 'sessions-cli-added-server', 'mcp-server-memory');
    expect(errors).toEqual([]);
  });
});

/** The last message the person's side sent in the model's request `index` (0-based). */
function lastUserMessage(llm: FakeOpenAi, index: number): string {
  return [...(llm.requests[index]?.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';
}
