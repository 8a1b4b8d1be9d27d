// End to end in Chromium: a database granted in the new-task form, a scripted model's SQL actions, the
// query result as a table on the card, the exact compensating SQL, Approve for an action over the rows
// limit, and Undo that puts the rows back.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { expandCard } from '../support/cards';
import { startHarness } from '../support/services-harness';
import { createSqliteShop, sqliteFileDump } from '../support/shop-db';
import { tempDirs } from '../support/temp-dir';


// Registered first, so it runs after the harness and the page are closed (after-hooks run in reverse).
const dirs = tempDirs();
afterEach(() => dirs.cleanup());
const { open, defer } = browserTestbed({ width: 1280, height: 1000 });

describe('a database task in the browser', () => {
  it('names a database it cannot undo (Redis) in the form and at Start, and never grants its URL as a SQLite file', async () => {
    const harness = await startHarness(['Never asked.']);
    defer(() => harness.close());
    const page = await open(harness.services);
    await page.getByTestId('new-task-prompt').fill('raise prices by 10% and add a discount column');
    await page.getByTestId('new-task-add-database').click();
    await page.getByTestId('database-name-1').fill('shop');
    await page.getByTestId('database-url-1').fill('redis://me:hunter2@localhost/0');
    const said = 'Redis is not supported yet: Posthoc undoes SQLite, PostgreSQL and MySQL/MariaDB databases. Grant one of those (sqlite:./shop.db or postgres://me@localhost/crm or mysql://me@localhost/shop).';
    expect(await page.getByTestId('database-unsupported-1').textContent()).toBe(said);
    // The chip never shows the URL's password.
    const chip = await page.getByTestId('grant-chip').textContent();
    expect(chip).toContain('redis://me:***@localhost/0');
    expect(chip).not.toContain('hunter2');
    // No password box: no engine here takes this URL's password.
    expect(await page.getByTestId('database-password-1').count()).toBe(0);
    for (const [width, height] of [[800, 600], [1600, 1000]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme });
        await page.screenshot({ path: join(SCREENSHOTS, `database-unsupported-${width}x${height}-${colorScheme}.png`) });
      }
    }
    await page.getByTestId('new-task-submit').click();
    await expect.poll(() => page.getByTestId('form-error').textContent().catch(() => null)).toBe(said);
    expect(await page.getByTestId('form-error').textContent()).not.toContain('hunter2');
    expect(harness.services.tasks.list().length).toBe(0);
    // A PostgreSQL URL clears the message and asks for its password.
    await page.getByTestId('database-url-1').fill('postgres://me@localhost/shop');
    expect(await page.getByTestId('database-unsupported-1').count()).toBe(0);
    expect(await page.getByTestId('database-password-1').count()).toBe(1);
    // So does a MySQL or MariaDB one.
    await page.getByTestId('database-url-1').fill('mariadb://me@localhost/shop');
    expect(await page.getByTestId('database-unsupported-1').count()).toBe(0);
    expect(await page.getByTestId('database-password-1').count()).toBe(1);
  });

  it('grants a SQLite file in the form, shows results and compensating SQL, approves, and undoes exactly', async () => {
    const file = join(dirs.make('posthoc-e2e-db-'), 'shop.db');
    createSqliteShop(file);
    const dump = () => sqliteFileDump(file);
    const original = dump();
    const harness = await startHarness([
      "Let me look first.\n\n```sql\nSELECT sku, name, price_cents, weight FROM products ORDER BY id;\n```",
      "Now the prices.\n\n```sql shop\nUPDATE products SET price_cents = price_cents + 50;\n```",
      'All prices are up by 50 cents.',
    ]);
    defer(() => harness.close());
    const page = await open(harness.services);

    await page.getByTestId('new-task-prompt').fill('raise every price by 50 cents');
    await page.getByTestId('new-task-add-database').click();
    await page.getByTestId('database-name-1').fill('shop');
    await page.getByTestId('database-url-1').fill(file);
    await page.getByLabel('Database 1 rows before approval').fill('3');
    await page.getByTestId('new-task-submit').click();

    const query = page.getByTestId('action-card').first();
    await query.and(page.locator('[data-status="done"]')).waitFor({ timeout: 60_000 });
    await expandCard(query);
    // The result shows once, as a table: not again as the text the model was sent.
    expect(await query.getByTestId('action-stdout').count()).toBe(0);
    expect(await query.getByTestId('query-result-count').textContent()).toBe('4 rows');
    expect(await query.getByTestId('query-result').locator('tbody tr').count()).toBe(4);
    expect(await query.getByTestId('query-result').textContent()).toContain('Green tea');
    expect(await query.getByTestId('action-undo').isDisabled()).toBe(true);

    const update = page.getByTestId('action-card').nth(1);
    await update.and(page.locator('[data-status="awaiting-approval"]')).waitFor({ timeout: 60_000 });
    // 4 products and the 4 price_history rows the person's trigger wrote.
    expect(await update.textContent()).toMatch(/would change 8 rows in "shop", more than the 3/);
    expect(await update.textContent()).toMatch(/4 rows changed, then rolled back/);
    expect(dump()).toBe(original);
    await page.screenshot({ path: join(SCREENSHOTS, 'database-approval.png'), fullPage: true });
    await update.getByTestId('action-approve').click();

    await update.and(page.locator('[data-status="done"]')).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByTestId('task-status').textContent()).toBe('done');
    // The person approved it: the card stays open to show how it went.
    expect(await update.getAttribute('data-expanded')).toBe('true');
    expect(await update.getByTestId('db-changed').textContent()).toBe(
      "8 rows changed in price_history, products (4 by the statements, the rest by cascades and the database's own triggers).",
    );
    await update.getByTestId('db-compensating').locator('summary').click();
    expect(await update.getByTestId('db-compensating').textContent()).toContain('UPDATE "products" SET "price_cents" = 450 WHERE "id" = 1;');
    expect(await update.getByTestId('reverse-plan').textContent()).toMatch(/Run 8 compensating statements on shop/);
    expect(await update.getByTestId('confinement-badge').textContent()).toBe('reversible');
    // The timeline follows the approval: done, reversible, and what it changed in the database.
    const row = page.getByTestId('timeline-action').nth(1);
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 10_000 }).toBe('done');
    expect(await row.getByTestId('timeline-level').textContent()).toBe('reversible');
    expect(await row.getByTestId('timeline-changes').textContent()).toBe('8 rows in shop');
    // The query changed nothing: its row says so and, like its card, offers no Undo.
    const queryRow = page.getByTestId('timeline-action').first();
    expect(await queryRow.getByTestId('timeline-changes').textContent()).toBe('no changes');
    expect(await queryRow.getAttribute('data-changed')).toBe('false');
    expect(await queryRow.getByTestId('timeline-undo').count()).toBe(0); // the quiet strip: no control at all
    await page.screenshot({ path: join(SCREENSHOTS, 'database-card.png'), fullPage: true });

    await update.getByTestId('action-undo').click();
    await update.and(page.locator('[data-status="undone"]')).waitFor();
    expect(await update.getByTestId('undo-result').textContent()).toMatch(/Undone/);
    expect(dump()).toBe(original);
  });
});
