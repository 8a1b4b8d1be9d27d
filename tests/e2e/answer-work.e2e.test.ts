// The answer shows the work, in Chromium against the real services and the real sandbox: "fit a regression and
// show me a plot" (pandas, scikit-learn, matplotlib: the figure saved with savefig and shown with plt.show())
// ends with the figure once and the coefficient in the answer, without a click, each naming its card; a SELECT's
// rows are on its folded card; at 800×600 the conversation has most of the height and is the one scroll
// container. Light and dark at 800×600 and 1600×1000, with screenshots, and axe finds nothing serious.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { seriousViolations } from '../support/axe';
import { startHarness, type Harness } from '../support/services-harness';
import { createSqliteShop } from '../support/shop-db';
import { tempDirs } from '../support/temp-dir';

const SALES_CSV = ['ads,sales', ...Array.from({ length: 12 }, (_, i) => `${10 + 5 * i},${30 + 2.5 * (10 + 5 * i)}`)].join('\n') + '\n';

const FIT = [
  '<plan>\n- [ ] fit sales against ads\n- [ ] plot the fit\n- [ ] look at the best products\n- [ ] report\n</plan>',
  "I'll fit sales against ads and plot it.",
  '',
  '```python',
  'import pandas as pd',
  'from sklearn.linear_model import LinearRegression',
  'import matplotlib.pyplot as plt',
  "df = pd.read_csv('sales.csv')",
  "model = LinearRegression().fit(df[['ads']], df['sales'])",
  "print(f'coefficient: {model.coef_[0]:.2f}')",
  "print(f'intercept: {model.intercept_:.1f}')",
  "df['fitted'] = model.predict(df[['ads']])",
  "df.to_csv('fitted.csv', index=False)",
  'fig, ax = plt.subplots(figsize=(6, 4))',
  "ax.scatter(df['ads'], df['sales'], label='weeks')",
  "ax.plot(df['ads'], df['fitted'], color='tab:red', label='fit')",
  "ax.set_xlabel('ads'); ax.set_ylabel('sales'); ax.legend(); ax.set_title('Sales against ads')",
  "plt.savefig('fit.png', dpi=120, bbox_inches='tight')",
  'plt.show()',
  '```',
].join('\n');

const SELECT = '<plan>\n- [x] fit sales against ads\n- [x] plot the fit\n- [ ] look at the best products\n- [ ] report\n</plan>\nAnd the products, dearest first.\n\n```sql shop\nSELECT sku, name, price_cents FROM products ORDER BY price_cents DESC;\n```';
const ANSWER = '<plan>\n- [x] fit sales against ads\n- [x] plot the fit\n- [x] look at the best products\n- [x] report\n</plan>\nSales rise by about **2.50 per unit of ads**; the fit is shown above, and the products are listed on their card.';

const dirs = tempDirs();
let harness: Harness;
let taskId: string;

beforeAll(async () => {
  harness = await startHarness([FIT, SELECT, ANSWER]);
  writeFileSync(join(harness.workspace, 'sales.csv'), SALES_CSV);
  const db = join(dirs.make('posthoc-e2e-answer-'), 'shop.db');
  createSqliteShop(db);
  const started = await harness.services.tasks.start({
    prompt: 'fit a regression of sales against ads in sales.csv and show me a plot; then list the products, dearest first',
    workspaces: [harness.workspace],
    databases: [{ name: 'shop', url: db }],
  });
  taskId = started.id;
  expect((await harness.services.tasks.wait(taskId)).status).toBe('done');
}, 180_000);

afterAll(async () => {
  await harness?.close();
  dirs.cleanup();
});

const { open } = browserTestbed({ width: 800, height: 600 });

async function openTask(size: { width: number; height: number }, scheme: 'light' | 'dark'): Promise<Page> {
  const page = await open(harness.services, size);
  await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
  const item = page.locator(`[data-testid="task-list-item"][data-task-id="${taskId}"]`);
  await item.waitFor({ state: 'attached' });
  if (!(await item.isVisible())) {
    await page.getByTestId('drawer-toggle').click();
    await item.waitFor();
  }
  await item.click();
  await page.getByTestId('task-answer').waitFor();
  if ((await page.getByTestId('sidebar-drawer').getAttribute('data-open')) !== null) await page.getByTestId('task-list').waitFor({ state: 'hidden' });
  // The answer's pictures are read before they show (each once); wait for them.
  await page.getByTestId('answer-pictures').locator('img').first().waitFor();
  await expect.poll(() => page.getByTestId('answer-pictures').locator('img').first().evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  return page;
}

/** Whether the element is wholly inside the conversation's visible part (on screen without scrolling). */
function onScreen(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((css) => {
    const view = document.querySelector('.conversation')!.getBoundingClientRect();
    const box = document.querySelector(css)!.getBoundingClientRect();
    return box.top >= view.top && box.bottom <= view.bottom && box.height > 0;
  }, selector);
}

/** Every element that scrolls up and down now: its overflow lets it, and its content is taller than it. */
function verticalScrollers(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('body *'))
      .filter((e) => {
        const style = getComputedStyle(e);
        return (style.overflowY === 'auto' || style.overflowY === 'scroll') && e.scrollHeight > e.clientHeight + 1 && e.clientHeight > 0;
      })
      .map((e) => e.className || e.tagName),
  );
}

describe('the answer shows the work (browser)', () => {
  it('shows the figure once and the coefficient in the answer without a click, each naming its card; the rows on the SELECT card', async () => {
    const page = await openTask({ width: 1600, height: 1000 }, 'light');
    const answer = page.getByTestId('task-answer');
    const conversation = page.locator('.conversation');

    // Every card is folded: nothing was opened.
    const cards = page.getByTestId('action-card');
    expect(await cards.count()).toBe(2);
    expect(await cards.evaluateAll((list) => list.map((c) => c.getAttribute('data-expanded')))).toEqual(['false', 'false']);

    // The coefficient (and the intercept) in the answer, from the card of action 1.
    const coefficient = answer.getByTestId('answer-number').filter({ hasText: 'coefficient' });
    expect(await coefficient.locator('dd').textContent()).toBe('2.50 · Action 1');
    expect(await coefficient.isVisible()).toBe(true);
    expect(await answer.getByTestId('answer-number').locator('dt').allTextContents()).toEqual(['coefficient', 'intercept']);

    // The figure once: savefig's fit.png is the figure plt.show() handed over, so only the file shows.
    const pictures = answer.getByTestId('answer-pictures');
    expect(await pictures.locator('img').count()).toBe(1);
    expect(await pictures.getByTestId('answer-figure').count()).toBe(0);
    const thumb = pictures.getByTestId('file-thumbnail');
    expect(await thumb.locator('figcaption').textContent()).toMatch(/^fit\.png · \d+ KiB · Action 1$/);
    expect(await thumb.locator('img').getAttribute('src')).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(await thumb.isVisible()).toBe(true);
    expect(await conversation.locator('img:visible').count()).toBe(1);

    // The table it wrote, its first rows; the files it made; where the query rows are.
    const table = answer.getByTestId('file-table');
    expect(await table.locator('th').allTextContents()).toEqual(['ads', 'sales', 'fitted']);
    expect(await table.locator('tbody tr').count()).toBe(8);
    expect(await answer.getByTestId('answer-file').evaluateAll((list) => list.map((li) => li.textContent))).toEqual(['fit.png made · Action 1', 'fitted.csv made · Action 1']);
    expect(await answer.getByTestId('answer-queries').textContent()).toBe('4 rows from shop, on the card of Action 2');

    // The SELECT's rows are on its folded card.
    const select = cards.nth(1);
    const glance = select.getByTestId('query-glance');
    expect(await glance.isVisible()).toBe(true);
    expect(await glance.locator('tbody tr').count()).toBe(4);
    expect(await glance.textContent()).toContain('Green tea');
    await page.screenshot({ path: join(SCREENSHOTS, 'answer-work-1600-light.png') });

    // A card link goes to its card and opens it; open, the card shows the figure once too.
    await coefficient.getByTestId('card-link').click();
    const fit = cards.first();
    await expect.poll(() => fit.getAttribute('data-expanded')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.closest('[data-testid="action-card"]')?.getAttribute('aria-label'))).toBe('Action 1');
    const onCard = fit.getByTestId('action-pictures');
    await onCard.getByTestId('file-thumbnail').waitFor();
    expect(await onCard.locator('img').count()).toBe(1);
    expect(await onCard.getByTestId('action-figure').count()).toBe(0);
    expect(await fit.textContent()).toContain('coefficient: 2.50');
    expect(await seriousViolations(page)).toEqual([]);
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`at 800×600 (${scheme}) the conversation has most of the height and is the one scroll container; the plan is one line`, async () => {
      const page = await openTask({ width: 800, height: 600 }, scheme);
      await page.screenshot({ path: join(SCREENSHOTS, `answer-work-800-${scheme}.png`) });
      const plan = page.getByTestId('task-plan');
      expect(await plan.evaluate((e) => (e as HTMLDetailsElement).open)).toBe(false);
      expect(await page.getByTestId('task-plan-summary').textContent()).toBe('Plan 4 of 4 done');
      const planHeight = await plan.evaluate((e) => e.getBoundingClientRect().height);
      expect(planHeight).toBeLessThan(32);
      const header = await page.locator('.task-header').evaluate((e) => e.getBoundingClientRect().height);
      expect(header).toBeLessThan(60);
      const conversation = await page.locator('.conversation').evaluate((e) => e.getBoundingClientRect().height);
      expect(conversation / 600).toBeGreaterThan(0.55);

      // The answer's figure and number are on screen where the view starts: the answer is taller than the view, so its top.
      expect(await onScreen(page, '[data-testid="answer-number"]')).toBe(true);
      expect(await onScreen(page, '[data-testid="answer-pictures"] img')).toBe(true);
      const scrollers = await verticalScrollers(page);
      expect(scrollers).toEqual(['conversation']);

      // Open, every card still scrolls with the conversation, not inside itself.
      for (const toggle of await page.getByTestId('action-toggle').all()) await toggle.click();
      await page.getByTestId('action-body').nth(1).waitFor();
      expect(await verticalScrollers(page)).toEqual(['conversation']);
      await page.getByTestId('task-plan-summary').click();
      expect(await page.getByTestId('task-plan-item').count()).toBe(4);
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByTestId('action-code').first().evaluate((e) => e.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: join(SCREENSHOTS, `answer-work-800-${scheme}-open.png`) });
    });
  }

  it('at 1600×1000 (dark) the answer and the cards read the same', async () => {
    const page = await openTask({ width: 1600, height: 1000 }, 'dark');
    expect(await onScreen(page, '[data-testid="answer-number"]')).toBe(true);
    expect(await onScreen(page, '[data-testid="answer-pictures"] img')).toBe(true);
    expect(await page.getByTestId('query-glance').isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'answer-work-1600-dark.png') });
  });
});
