// The design pass in Chromium against the real services: axe-core finds no serious or critical violation on
// the task view, Connections and Settings, light and dark; the dark theme follows the system and Settings can
// override it (kept across a reload); at 800×600 and 700×600 nothing overflows sideways, the sidebar is a
// drawer opened and closed by keyboard and the timeline a rail; at 1600×1000 both sit beside the conversation;
// the diff dialog takes focus, keeps Tab inside, closes on Escape and gives focus back. Screenshots of each.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebHost, type WebHost } from '../../main/ipc/web-host';
import { createServices } from '../../main/services/app-services';
import { Vault } from '../../main/vault/vault';
import { launchChromium, RENDERER_DIR, SCREENSHOTS } from '../support/browser';
import { startHarness, type Harness } from '../support/services-harness';
import { tempDirs } from '../support/temp-dir';

type Scheme = 'light' | 'dark';
type Violation = { id: string; impact: string | null; help: string; nodes: Array<{ target: string[]; failureSummary?: string }> };

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** The page background of each theme (styles.css's --bg). */
const BACKGROUND: Record<Scheme, string> = { light: 'rgb(246, 247, 249)', dark: 'rgb(15, 18, 22)' };

let browser: Browser;
let harness: Harness;
let host: WebHost;
let taskId: string;

beforeAll(async () => {
  browser = await launchChromium();
  harness = await startHarness([
    "I'll write two files.\n\n```python\nopen('a.txt', 'w').write('one\\n')\nopen('b.txt', 'w').write('bee\\n')\n```",
    "Now I'll rewrite a.txt.\n\n```bash\nprintf 'one\\ntwo\\n' > a.txt\n```",
    // A failed action too, so its red output and status are checked for contrast as well.
    "Let me check for c.txt.\n\n```bash\ncat c.txt\n```",
    'Done: **a.txt** and **b.txt** are written.\n\n| file | lines |\n| --- | --- |\n| a.txt | 2 |\n| b.txt | 1 |',
  ]);
  const started = await harness.services.tasks.start({ prompt: 'write a.txt and b.txt, then add a line to a.txt', workspaces: [harness.workspace] });
  taskId = started.id;
  expect((await harness.services.tasks.wait(taskId)).status).toBe('done');
  host = await startWebHost(harness.services, { rendererDir: RENDERER_DIR });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await harness?.close();
});

/** A fresh context at this size and system colour scheme, on the app; the test fails on any page error. */
async function withPage(size: { width: number; height: number }, scheme: Scheme, body: (page: Page) => Promise<void>): Promise<void> {
  // Reduced motion: the drawer opens and closes without sliding, so screenshots never catch it half-way.
  const context = await browser.newContext({ viewport: size, colorScheme: scheme, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(host.url);
    await body(page);
  } finally {
    await context.close();
  }
  expect(errors).toEqual([]);
}

async function openTask(page: Page): Promise<void> {
  const item = page.locator(`[data-testid="task-list-item"][data-task-id="${taskId}"]`);
  await item.waitFor({ state: 'attached' });
  if (!(await item.isVisible())) {
    await page.getByTestId('drawer-toggle').click();
    await item.waitFor();
  }
  await item.click();
  await page.getByTestId('task-answer').waitFor();
  if ((await page.getByTestId('sidebar-drawer').getAttribute('data-open')) !== null) await page.getByTestId('task-list').waitFor({ state: 'hidden' });
}

async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Violation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

function describeViolations(violations: Violation[]): string {
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')}: ${n.failureSummary ?? ''}`).join('\n')}`).join('\n');
}

async function expectAccessible(page: Page, where: string): Promise<void> {
  const violations = await seriousViolations(page);
  expect(violations, `${where}:\n${describeViolations(violations)}`).toEqual([]);
  expect(await smallText(page), `${where}: text under 13 px`).toEqual([]);
}

/** Visible text set in under 13 px, as "tag.class: text (size)". */
const smallText = (page: Page) =>
  page.evaluate(() => {
    const found: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      const ownText = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? '').trim() !== '');
      if (!ownText || el.getClientRects().length === 0 || el.closest('[aria-hidden="true"], .visually-hidden') !== null) continue;
      const size = parseFloat(getComputedStyle(el).fontSize);
      if (size < 12.95) found.push(`${el.tagName.toLowerCase()}.${el.className}: ${(el.textContent ?? '').trim().slice(0, 40)} (${size}px)`);
    }
    return found;
  });

const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

/** How far the page, the main pane and the conversation scroll sideways (0 when nothing overflows). */
const sidewaysOverflow = (page: Page) =>
  page.evaluate(() =>
    ['html', '.main-pane', '.conversation', '.task-header', '.task-footer'].map((selector) => {
      const el = selector === 'html' ? document.documentElement : document.querySelector(selector);
      return { selector, overflow: el === null ? 0 : el.scrollWidth - el.clientWidth };
    }),
  );

const activeTestId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName ?? null);
const focusInside = (page: Page, testId: string) =>
  page.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.contains(document.activeElement) ?? false, testId);

describe('the design pass (browser)', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`has no serious or critical accessibility violation on the task, Connections and Settings (${scheme})`, async () => {
      await withPage({ width: 1280, height: 860 }, scheme, async (page) => {
        await openTask(page);
        expect(await background(page)).toBe(BACKGROUND[scheme]);
        await expectAccessible(page, `task view, ${scheme}`);
        // Unfolded, every card shows its code, output and files: checked too.
        const folded = page.locator('[data-testid="action-toggle"][aria-expanded="false"]');
        for (let left = await folded.count(); left > 0; left--) await folded.first().click();
        expect(await folded.count()).toBe(0);
        await expectAccessible(page, `task view with the cards open, ${scheme}`);
        await page.screenshot({ path: join(SCREENSHOTS, `design-cards-open-${scheme}.png`) });
        await page.getByTestId('connections-link').click();
        await page.getByRole('heading', { name: 'Connections' }).first().waitFor();
        await expectAccessible(page, `Connections, ${scheme}`);
        await page.getByTestId('settings-link').click();
        await page.getByTestId('theme-choice').waitFor();
        await expectAccessible(page, `Settings, ${scheme}`);
        // The window never scrolls: the panes do (a long page once stretched the layout past the window).
        expect(await page.evaluate(() => document.documentElement.scrollHeight - document.documentElement.clientHeight)).toBe(0);
        await page.locator('.main-pane').evaluate((pane) => pane.scrollTo(0, 0)); // axe scrolls as it checks contrast
        await page.screenshot({ path: join(SCREENSHOTS, `design-settings-${scheme}.png`) });
        // The check can fail: grey on grey text and an unnamed button are found.
        await page.evaluate(() => {
          const probe = document.createElement('p');
          probe.textContent = 'Faint words';
          probe.style.cssText = 'color: #8a8a8a; background: #9a9a9a';
          const button = document.createElement('button');
          document.querySelector('.page')?.append(probe, button);
        });
        expect((await seriousViolations(page)).map((v) => v.id).sort()).toEqual(['button-name', 'color-contrast']);
        await page.evaluate(() => {
          const tiny = document.createElement('p');
          tiny.textContent = 'Tiny words';
          tiny.style.fontSize = '11px';
          document.querySelector('.page')?.append(tiny);
        });
        expect(await smallText(page)).toEqual(['p.: Tiny words (11px)']);
      });
    });
  }

  it('follows the system theme unless Settings chose one, and keeps the choice across a reload', async () => {
    await withPage({ width: 1280, height: 860 }, 'light', async (page) => {
      await page.getByTestId('settings-link').click();
      expect(await page.getByTestId('theme-system').isChecked()).toBe(true);
      expect(await background(page)).toBe(BACKGROUND.light);
      await page.getByTestId('theme-dark').check();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      expect(await background(page)).toBe(BACKGROUND.dark);
      await page.reload();
      await page.getByTestId('new-task-button').waitFor();
      expect(await background(page)).toBe(BACKGROUND.dark);
      await page.getByTestId('settings-link').click();
      expect(await page.getByTestId('theme-dark').isChecked()).toBe(true);
      await page.getByTestId('theme-system').check();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBeUndefined();
      expect(await background(page)).toBe(BACKGROUND.light);
    });
    await withPage({ width: 1280, height: 860 }, 'dark', async (page) => {
      await page.getByTestId('settings-link').click();
      await page.getByTestId('theme-light').check();
      expect(await background(page)).toBe(BACKGROUND.light);
    });
  });

  for (const size of [
    { width: 800, height: 600 },
    { width: 700, height: 600 },
  ]) {
    it(`fits ${size.width}×${size.height}: no sideways overflow, the sidebar a drawer opened and closed by keyboard, the timeline a rail`, async () => {
      for (const scheme of ['light', 'dark'] as const) {
        await withPage(size, scheme, async (page) => {
          // The drawer is closed and out of the tab order; the Tasks button opens it.
          expect(await page.getByTestId('sidebar-drawer').getAttribute('data-open')).toBe('false');
          expect(await page.getByTestId('task-list').isVisible()).toBe(false);
          await openTask(page);
          expect(await page.getByTestId('sidebar-drawer').getAttribute('data-open')).toBe('false');
          expect((await sidewaysOverflow(page)).filter((o) => o.overflow > 0)).toEqual([]);
          const conversation = await page.locator('.conversation').boundingBox();
          expect(conversation!.width).toBeGreaterThan(size.width - 120);
          // The timeline is a rail at this width, and opens from the keyboard over the conversation.
          const timeline = page.getByTestId('timeline');
          expect(await timeline.getAttribute('class')).toContain('timeline-collapsed');
          expect((await timeline.boundingBox())!.width).toBeLessThan(60);
          await page.screenshot({ path: join(SCREENSHOTS, `design-${size.width}x${size.height}-${scheme}.png`) });
          await page.getByTestId('timeline-toggle').focus();
          await page.keyboard.press('Enter');
          await page.locator('[data-testid="timeline"]:not(.timeline-collapsed)').waitFor();
          expect((await sidewaysOverflow(page)).filter((o) => o.overflow > 0)).toEqual([]);
          await page.screenshot({ path: join(SCREENSHOTS, `design-${size.width}x${size.height}-${scheme}-timeline.png`) });
          await page.getByTestId('timeline-toggle').focus();
          await page.keyboard.press('Enter');
          await page.locator('[data-testid="timeline"].timeline-collapsed').waitFor();

          // Keyboard only: the Tasks button opens the drawer with focus inside, Tab stays inside, Escape closes it.
          await page.getByTestId('drawer-toggle').focus();
          await page.keyboard.press('Enter');
          expect(await page.getByTestId('sidebar-drawer').getAttribute('data-open')).toBe('true');
          await expect.poll(() => focusInside(page, 'sidebar-drawer')).toBe(true);
          expect(await page.getByTestId('task-list').isVisible()).toBe(true);
          for (let i = 0; i < 12; i++) {
            await page.keyboard.press(i % 3 === 2 ? 'Shift+Tab' : 'Tab');
            expect(await focusInside(page, 'sidebar-drawer')).toBe(true);
          }
          await page.screenshot({ path: join(SCREENSHOTS, `design-${size.width}x${size.height}-${scheme}-drawer.png`) });
          if (scheme === 'dark') await expectAccessible(page, `drawer open at ${size.width}×${size.height}, dark`);
          await page.keyboard.press('Escape');
          expect(await page.getByTestId('sidebar-drawer').getAttribute('data-open')).toBe('false');
          expect(await activeTestId(page)).toBe('drawer-toggle');
          // A choice in the drawer closes it too: Settings, reached by keyboard.
          await page.keyboard.press('Enter');
          await page.getByTestId('settings-link').focus();
          await page.keyboard.press('Enter');
          await page.getByTestId('settings').waitFor();
          expect(await page.getByTestId('sidebar-drawer').getAttribute('data-open')).toBe('false');
          expect((await sidewaysOverflow(page)).filter((o) => o.overflow > 0)).toEqual([]);
          await expectAccessible(page, `Settings at ${size.width}×${size.height}, ${scheme}`);
          // Connections and the new-task form fit too.
          for (const link of ['connections-link', 'new-task-button']) {
            await page.getByTestId('drawer-toggle').click();
            await page.getByTestId(link).click();
            await page.getByTestId('task-list').waitFor({ state: 'hidden' });
            await page.locator('.main-pane h1').first().waitFor();
            expect((await sidewaysOverflow(page)).filter((o) => o.overflow > 0), link).toEqual([]);
            expect(await page.evaluate(() => document.documentElement.scrollHeight - document.documentElement.clientHeight)).toBe(0);
          }
          await page.screenshot({ path: join(SCREENSHOTS, `design-${size.width}x${size.height}-${scheme}-new-task.png`) });
        });
      }
    });
  }

  it('lays out 1600×1000 with the sidebar and the timeline beside the conversation', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await withPage({ width: 1600, height: 1000 }, scheme, async (page) => {
        expect(await page.getByTestId('drawer-toggle').count()).toBe(0);
        await openTask(page);
        expect(await page.getByTestId('task-list').isVisible()).toBe(true);
        const timeline = page.getByTestId('timeline');
        expect(await timeline.getAttribute('class')).not.toContain('timeline-collapsed');
        const [conversation, panel] = [await page.locator('.conversation').boundingBox(), await timeline.boundingBox()];
        expect(panel!.x).toBeGreaterThanOrEqual(conversation!.x + conversation!.width - 1); // beside, not over it
        expect(conversation!.width).toBeGreaterThan(800);
        expect((await sidewaysOverflow(page)).filter((o) => o.overflow > 0)).toEqual([]);
        await page.screenshot({ path: join(SCREENSHOTS, `design-1600x1000-${scheme}.png`) });
      });
    }
  });

  it('first run: an empty submit says what is missing, a base URL without http(s) is refused in words, and nothing is saved', async () => {
    const dirs = tempDirs();
    const services = createServices({ dataDir: dirs.make('posthoc-data-'), env: {} });
    const firstRunHost = await startWebHost(services, { rendererDir: RENDERER_DIR });
    const context = await browser.newContext({ viewport: { width: 800, height: 600 }, colorScheme: 'dark' });
    try {
      const page = await context.newPage();
      await page.goto(firstRunHost.url);
      await page.getByTestId('first-run').waitFor();
      await page.getByTestId('settings-save').click();
      expect(await page.getByTestId('settings-error').textContent()).toBe('Fill in the base URL and the model first, or pick a provider above.');
      expect(await page.getByTestId('settings-saved').count()).toBe(0);
      await page.getByTestId('settings-base-url').fill('localhost:11434/v1');
      await page.getByTestId('settings-model').fill('llama3.1');
      await page.getByTestId('settings-save').click();
      expect(await page.getByTestId('settings-error').textContent()).toBe('The base URL must start with http:// or https://, for example http://localhost:11434/v1.');
      await page.getByTestId('settings-base-url').fill('http://localhost:11434/v1');
      await page.getByTestId('settings-model').fill('');
      await page.getByTestId('settings-save').click();
      expect(await page.getByTestId('settings-error').textContent()).toBe('Fill in the model first.');
      const settings = await services.settings.get();
      expect([settings.baseUrl, settings.model, settings.configured]).toEqual([null, null, false]);
      await expectAccessible(page, 'first run, dark');
      await page.screenshot({ path: join(SCREENSHOTS, 'design-first-run-800x600-dark.png') });
    } finally {
      await context.close();
      await firstRunHost.close();
      await services.close();
      dirs.cleanup();
    }
  });

  it('names keychain entries by what they are, never by their internal names', async () => {
    const dirs = tempDirs();
    const entries = new Map([
      ['llm-api-key', 'sk-default'],
      ['llm-api-key:local-vllm', 'sk-local'],
      ['oauth:github:access', 'gho_x'],
      ['github-token', 'ghp_y'],
    ]);
    // A keychain stand-in (the real keychain has its own tests): this test is about the words on screen.
    const vault = new Vault('dev.posthoc.test', async () => ({
      getPassword: async (_s, account) => entries.get(account) ?? null,
      setPassword: async (_s, account, value) => void entries.set(account, value),
      deletePassword: async (_s, account) => entries.delete(account),
      findCredentials: async () => [...entries].map(([account, password]) => ({ account, password })),
    }));
    const services = createServices({ dataDir: dirs.make('posthoc-data-'), vault, env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', POSTHOC_MODEL: 'm' } });
    const keysHost = await startWebHost(services, { rendererDir: RENDERER_DIR });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const page = await context.newPage();
      await page.goto(keysHost.url);
      await page.getByTestId('connections-link').click();
      const list = page.getByTestId('secret-list');
      await list.waitFor();
      expect(await list.locator('li').allTextContents()).toEqual(
        expect.arrayContaining([
          expect.stringContaining("The model's API key"),
          expect.stringContaining('The API key of the model provider local-vllm'),
          expect.stringContaining('Sign-in token for github'),
          expect.stringContaining('github-token secret'),
        ]),
      );
      expect(await list.textContent()).not.toMatch(/llm-api-key|oauth:/);
    } finally {
      await context.close();
      await keysHost.close();
      await services.close();
      dirs.cleanup();
    }
  });

  it('moves focus into the diff dialog, keeps Tab inside it, closes it on Escape and gives focus back', async () => {
    await withPage({ width: 1280, height: 860 }, 'dark', async (page) => {
      await openTask(page);
      // A file of the second action opens its diff: from the timeline when it lists files, else from the card.
      const visibleOpeners = page.locator('[data-testid="open-diff"]:visible');
      if ((await visibleOpeners.count()) === 0) await page.getByTestId('action-card').nth(1).getByTestId('action-toggle').click();
      const opener = visibleOpeners.first();
      await opener.focus();
      const openerPath = await opener.textContent();
      await page.keyboard.press('Enter');
      const dialog = page.getByTestId('diff-view');
      await dialog.getByTestId('diff-split').waitFor();
      expect(await page.evaluate(() => document.querySelector('dialog[data-testid="diff-view"]')?.matches(':modal') ?? false)).toBe(true);
      expect(await focusInside(page, 'diff-view')).toBe(true);
      for (let i = 0; i < 9; i++) {
        await page.keyboard.press(i % 4 === 3 ? 'Shift+Tab' : 'Tab');
        expect(await focusInside(page, 'diff-view')).toBe(true);
      }
      await expectAccessible(page, 'diff dialog, dark');
      await page.screenshot({ path: join(SCREENSHOTS, 'design-diff-dark.png') });
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await activeTestId(page)).toBe('open-diff');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(openerPath);

      // A click on the backdrop closes it too, and focus goes back the same way.
      await opener.click();
      await dialog.getByTestId('diff-split').waitFor();
      await page.mouse.click(5, 5);
      await dialog.waitFor({ state: 'detached' });
      expect(await activeTestId(page)).toBe('open-diff');
    });
  });
});
