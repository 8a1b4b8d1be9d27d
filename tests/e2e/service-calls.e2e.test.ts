// A task whose code calls services through the gateway, seen in the browser: the card lists the calls
// (the refused one too), says what undo cannot take back, and the level drops to confined.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEchoServer, type EchoServer } from '../support/echo-server';
import { launchChromium, openApp, SCREENSHOTS } from '../support/browser';
import { expandCard } from '../support/cards';
import { startHarness, type Harness } from '../support/services-harness';

let browser: Browser;
let echo: EchoServer;
let harness: Harness;

beforeAll(async () => {
  browser = await launchChromium();
  echo = await startEchoServer();
  harness = await startHarness([
    [
      "I'll post the note.",
      '',
      '```python',
      'import os, requests',
      "base = os.environ['POSTHOC_GATEWAY']",
      "r = requests.post(base + '/svc/notes/notes', json={'text': 'release notes'})",
      'print(r.status_code)',
      "print(requests.get(base + '/svc/mail/send').status_code)",
      '```',
    ].join('\n'),
    'Posted the note.',
  ]);
  harness.services.services.add('notes', echo.baseUrl);
  harness.services.services.add('mail', echo.baseUrl);
});
afterAll(async () => {
  await harness?.close();
  await echo?.close();
  await browser?.close();
});

describe('service calls on the action card', () => {
  it('lists each call, refused ones too, and the level is confined with the reason', async () => {
    const { page, errors, close } = await openApp(browser, harness.services);
    try {
      await page.getByTestId('new-task-prompt').fill('post the release notes');
      await page.getByTestId('new-task-workspace').fill(harness.workspace);
      await page.getByTestId('new-task-add-service').click();
      await page.getByTestId('new-task-service-notes').check();
      await page.getByTestId('new-task-submit').click();

      const card = page.getByTestId('action-card').first();
      await card.and(page.locator('[data-status="done"]')).waitFor({ timeout: 60_000 });
      await expandCard(card);
      const calls = card.getByTestId('service-calls');
      await calls.waitFor();
      const text = await calls.textContent();
      expect(text).toContain('POST svc/notes/notes');
      expect(text).toContain('HTTP 200');
      expect(text).toMatch(/GET svc\/mail\/send\s*refused \(403\)/);
      expect(await card.getByTestId('confinement-badge').textContent()).toBe('confined');
      expect(await card.getByTestId('confinement-reason').textContent()).toMatch(/POST svc\/notes\/notes may have changed the service/);
      expect(await card.getByTestId('reverse-plan').textContent()).toMatch(/cannot be undone/);
      expect(echo.received.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /notes']);
      await page.screenshot({ path: join(SCREENSHOTS, 'service-calls.png'), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
