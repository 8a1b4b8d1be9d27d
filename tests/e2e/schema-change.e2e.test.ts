// A database task in Chromium, against the real services and a real SQLite file: the header names the
// database (not "No folders granted"), and an ALTER TABLE card says the schema change it made, not the row
// count SQLite reports for it; light and dark at 800×600, axe finds nothing serious.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { startHarness, type Harness } from '../support/services-harness';
import { createSqliteShop } from '../support/shop-db';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let harness: Harness;
let taskId: string;

beforeAll(async () => {
  const file = join(dirs.make('posthoc-e2e-schema-'), 'shop.db');
  createSqliteShop(file);
  harness = await startHarness(["I'll add the column.\n\n```sql shop\nALTER TABLE products ADD COLUMN sku2 TEXT;\n```", 'The column sku2 is added to products.']);
  const started = await harness.services.tasks.start({
    prompt: 'add a column sku2 to products',
    workspaces: [],
    databases: [{ name: 'shop', url: file, statements: ['query', 'dml', 'ddl'] }],
  });
  taskId = started.id;
  expect((await harness.services.tasks.wait(taskId)).status).toBe('done');
}, 180_000);

afterAll(async () => {
  await harness?.close();
  dirs.cleanup();
});

const { open } = browserTestbed({ width: 800, height: 600 });

describe('a schema change on a database task', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`names the database in the header and the change on the card (${scheme})`, async () => {
      const page = await open(harness.services);
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      const item = page.locator(`[data-testid="task-list-item"][data-task-id="${taskId}"]`);
      await page.getByTestId('drawer-toggle').click();
      await item.click();
      await page.getByTestId('task-answer').waitFor();
      expect(await page.getByTestId('task-database').textContent()).toBe('database shop (SQLite)');
      expect(await page.locator('.task-meta').textContent()).not.toContain('No folders granted');
      const card = page.getByTestId('action-card').first();
      expect(await card.getByTestId('action-changed').textContent()).toBe('column products.sku2 added in shop');
      expect(await card.textContent()).not.toMatch(/\d+ rows? in shop/);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, `schema-change-800-${scheme}.png`) });
    });
  }
});
