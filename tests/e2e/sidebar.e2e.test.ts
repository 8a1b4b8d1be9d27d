// End to end in Chromium: the sidebar's tasks — titled by the model's <title> in its first reply, each with its date
// in plain words, grouped Today / Yesterday / Earlier — and its search box (title and prompt, Escape clears).
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../main/store/database';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { startHarness } from '../support/services-harness';

const { open, defer } = browserTestbed({ width: 1600, height: 1000 });

const items = (page: Page) => page.getByTestId('task-list-item');
const titles = (page: Page) => page.locator('[data-testid="task-list-item"] .task-list-title').allTextContents();

describe('the sidebar', () => {
  it('shows the model\'s short title, the date in plain words by day group, and searches title and prompt', async () => {
    const harness = await startHarness([
      '<title>Summarise the invoices</title>\n<answer>\nThree invoices, 1,240 in all.\n</answer>',
      '<title>Count the photos</title>\n<answer>\nThere are 12.\n</answer>',
      "<title>Greet Ada in a file</title>\nI'll write the greeting.\n```python\nopen('hello.txt', 'w').write('Hello, Ada!\\n')\nprint('wrote hello.txt')\n```",
      '<answer>\nhello.txt now greets Ada.\n</answer>',
    ]);
    defer(() => harness.close());
    const { services, workspace } = harness;

    // Two earlier tasks, dated last year and yesterday (local time, as the browser shows them).
    const old = await services.tasks.wait((await services.tasks.start({ prompt: 'summarise the quarterly invoices', workspaces: [workspace] })).id);
    const photos = await services.tasks.wait((await services.tasks.start({ prompt: 'count my holiday pictures', workspaces: [workspace] })).id);
    const now = new Date();
    const lastYear = new Date(now.getFullYear() - 1, 2, 3, 10, 0).toISOString();
    const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1, 12, 0).toISOString();
    const db = openDatabase(harness.dataDir);
    db.prepare('UPDATE tasks SET created_at = ? WHERE id = ?').run(lastYear, old.id);
    db.prepare('UPDATE tasks SET created_at = ? WHERE id = ?').run(yesterday, photos.id);
    db.close();

    const page = await open(services);
    await items(page).nth(1).waitFor();

    // A new task from the form: its title becomes the model's once the first reply arrives.
    await page.getByTestId('new-task-prompt').fill('please write a warm greeting for Ada into a file called hello.txt');
    await page.getByTestId('new-task-workspace').fill(workspace);
    await page.getByTestId('new-task-submit').click();
    await page.getByTestId('task-answer').waitFor({ timeout: 60_000 });
    await expect.poll(() => titles(page)).toEqual(['Greet Ada in a file', 'Count the photos', 'Summarise the invoices']);
    // The tag is read, never shown.
    expect(await page.locator('.conversation').textContent()).not.toContain('<title>');

    // Groups and dates in plain words.
    expect(await page.locator('[data-testid="task-group"] h2').allTextContents()).toEqual(['Today', 'Yesterday', 'Earlier']);
    const dates = await page.getByTestId('task-date').allTextContents();
    expect(dates[0]).toMatch(/^\d{1,2}:\d{2}/);
    expect(dates[1]).toBe('Yesterday');
    expect(dates[2]).toContain(String(now.getFullYear() - 1));
    expect(await page.getByTestId('task-date').nth(2).getAttribute('datetime')).toBe(lastYear);
    await page.screenshot({ path: join(SCREENSHOTS, 'sidebar-1600x1000.png') });

    // Search: by title, by prompt (words the title lacks), case-insensitive; nothing found says so; Escape clears.
    const search = page.getByTestId('task-search');
    await search.fill('INVOICES');
    await expect.poll(() => titles(page)).toEqual(['Summarise the invoices']);
    expect(await page.locator('[data-testid="task-group"] h2').allTextContents()).toEqual(['Earlier']);
    await search.fill('holiday');
    await expect.poll(() => titles(page)).toEqual(['Count the photos']);
    await search.fill('warm ada');
    await expect.poll(() => titles(page)).toEqual(['Greet Ada in a file']);
    await search.fill('zebra');
    await expect.poll(() => items(page).count()).toBe(0);
    expect(await page.getByTestId('task-search-empty').textContent()).toContain('No task matches');
    await page.screenshot({ path: join(SCREENSHOTS, 'sidebar-search-empty.png') });
    await search.press('Escape');
    expect(await search.inputValue()).toBe('');
    await expect.poll(() => items(page).count()).toBe(3);
    expect(await page.getByTestId('task-search-empty').count()).toBe(0);

    // A search result opens its task.
    await search.fill('photos');
    await items(page).first().click();
    await expect.poll(() => page.getByTestId('task-answer').textContent()).toContain('There are 12.');

    // 800×600: the sidebar is a drawer; opened, it holds the same search and groups.
    await page.setViewportSize({ width: 800, height: 600 });
    await page.getByTestId('drawer-toggle').click();
    await page.getByTestId('task-list').waitFor();
    await search.fill('');
    await expect.poll(() => items(page).count()).toBe(3);
    await page.screenshot({ path: join(SCREENSHOTS, 'sidebar-800x600.png') });
    const [searchBox, list] = [await search.boundingBox(), await page.getByTestId('task-list').boundingBox()];
    expect(searchBox!.y + searchBox!.height).toBeLessThanOrEqual(list!.y);
    expect(searchBox!.x + searchBox!.width).toBeLessThanOrEqual(800);
  });
});
