// Output reaches the card while the action still runs, not only when it ends.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openApp } from '../support/browser';
import { expandCard } from '../support/cards';
import { startHarness, type Harness } from '../support/services-harness';

let browser: Browser;
let harness: Harness;

beforeAll(async () => {
  browser = await launchChromium();
  harness = await startHarness([
    "```python\nimport time\nprint('first line', flush=True)\ntime.sleep(4)\nprint('second line')\n```",
    'Done.',
  ]);
});
afterAll(async () => {
  await harness?.close();
  await browser?.close();
});

describe('streamed action output', () => {
  it('shows the first line on the running card before the action finishes', async () => {
    const { page, errors, close } = await openApp(browser, harness.services);
    try {
      await page.getByTestId('new-task-prompt').fill('print slowly');
      await page.getByTestId('new-task-workspace').fill(harness.workspace);
      await page.getByTestId('new-task-submit').click();
      const running = page.locator('[data-testid="action-card"][data-status="running"]');
      const liveOutput = running.getByTestId('action-stdout');
      await liveOutput.getByText('first line').waitFor({ timeout: 30_000 });
      expect(await liveOutput.textContent()).not.toContain('second line');
      const done = page.locator('[data-testid="action-card"][data-status="done"]');
      await done.waitFor({ timeout: 30_000 });
      await expandCard(done);
      await done.getByTestId('action-stdout').getByText('second line').waitFor({ timeout: 30_000 });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
