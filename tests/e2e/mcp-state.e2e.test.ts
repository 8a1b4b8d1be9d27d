// What a stdio MCP server keeps between tasks, in the app (Chromium against `posthoc web`'s host): the
// Connections page's MCP list says how much a server keeps, its "Clear its data" button is refused in words
// while a task using the server runs (nothing is removed), then clears it once the task has ended.
// The state folder is written here as a server would have left it; no server is started.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openApp, SCREENSHOTS } from '../support/browser';
import { startHarness, type Harness } from '../support/services-harness';

let browser: Browser;
let harness: Harness;

beforeAll(async () => {
  browser = await launchChromium();
  harness = await startHarness([]);
});
afterAll(async () => {
  await harness?.close();
  await browser?.close();
});

describe("an MCP server's data in the app", () => {
  it('shows what it keeps between tasks, refuses to clear it while a task uses it, then clears it', async () => {
    const { handlers, store } = harness.services;
    await handlers['mcp:add']({ name: 'memory', transport: { kind: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: {} } });
    const folder = join(harness.dataDir, 'mcp-state', 'memory', String(process.getuid?.() ?? 1000));
    mkdirSync(join(folder, '.npm'), { recursive: true, mode: 0o700 });
    writeFileSync(join(folder, 'memory.jsonl'), `${JSON.stringify({ type: 'entity', name: 'alice', entityType: 'person', observations: ['likes tea'] })}\n`);
    writeFileSync(join(folder, '.npm', 'package.tgz'), Buffer.alloc(3 * 1024 * 1024, 1));
    const task = store.createTask({ title: 'remember alice', workspaces: [], model: 'scripted', mcp: ['memory'] });

    const { page, errors, close } = await openApp(browser, harness.services, { width: 1280, height: 860 });
    try {
      await page.getByTestId('connections-link').click();
      const server = page.getByTestId('mcp-server-memory');
      await server.waitFor();
      expect(await server.getByTestId('mcp-state').textContent()).toMatch(/^It keeps 3\.\d MB between tasks \(its data and its installed package\)\. Clear its data$/);
      await server.screenshot({ path: join(SCREENSHOTS, 'mcp-state.png') });

      // While the task runs: refused in words, nothing removed.
      await server.getByTestId('mcp-clear').click();
      const refused = page.getByTestId('mcp-error');
      await refused.waitFor();
      expect(await refused.textContent()).toBe(
        `Posthoc cannot clear the data of memory now: the task "remember alice" (${task.id}) uses memory and is still running. Clear it once that has ended.`,
      );
      expect(existsSync(join(folder, 'memory.jsonl'))).toBe(true);

      // The task ended: cleared, and the list says so.
      store.updateTask(task.id, { status: 'done' });
      await server.getByTestId('mcp-clear').click();
      const notice = page.getByTestId('mcp-notice');
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/^Cleared what memory kept between tasks \(3\.\d MB\): the next task starts it empty\.$/);
      expect(await server.getByTestId('mcp-state').textContent()).toMatch(/^It keeps nothing between tasks yet\.\s*$/);
      expect(await server.getByTestId('mcp-clear').count()).toBe(0);
      expect(existsSync(join(harness.dataDir, 'mcp-state', 'memory'))).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);
});
