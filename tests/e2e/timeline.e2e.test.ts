// End to end in Chromium: the undo timeline. A task's actions write, rewrite and add files in Docker; the
// person edits a file between two runs; in the browser the timeline refuses an out-of-order undo with
// the path and the later action, rewinds, redoes, and shows each file's diff.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Locator, type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { expandCard } from '../support/cards';
import { startHarness, type Harness } from '../support/services-harness';


const { open: openServices, defer } = browserTestbed({ width: 1440, height: 900 });
const open = (harness: Harness): Promise<Page> => openServices(harness.services);

const row = (page: Page, seq: number): Locator => page.locator(`[data-testid="timeline-action"][data-seq="${seq}"]`);
const statusOf = (page: Page, seq: number) => row(page, seq).getAttribute('data-status');

describe('the undo timeline in the browser', () => {
  it('refuses an out-of-order undo with the reason, rewinds, redoes, and opens diffs', async () => {
    const harness = await startHarness([
      "I'll write two files.\n\n```python\nopen('a.txt', 'w').write('one\\n')\nopen('b.txt', 'w').write('bee\\n')\n```",
      "Now I'll rewrite a.txt.\n\n```bash\nprintf 'one\\ntwo\\n' > a.txt\n```",
      'Done: a.txt and b.txt are written.',
      "One more file.\n\n```python\nopen('c.txt', 'w').write('sea\\n')\n```",
      'Done again.',
    ]);
    defer(() => harness.close());
    const ws = harness.workspace;
    writeFileSync(join(ws, 'notes.txt'), 'my notes\n');
    const page = await open(harness);

    await page.getByTestId('new-task-prompt').fill('write a.txt and b.txt');
    await page.getByTestId('new-task-workspace').fill(ws);
    await page.getByTestId('new-task-submit').click();
    await page.getByTestId('task-answer').waitFor({ timeout: 90_000 });

    // The person edits a file between two runs of the agent.
    writeFileSync(join(ws, 'notes.txt'), 'my notes, edited by me\n');
    await page.getByTestId('follow-up-input').fill('add c.txt');
    await page.getByTestId('follow-up-submit').click();
    await expect.poll(() => page.getByTestId('task-answer').textContent(), { timeout: 90_000 }).toContain('Done again');

    const timeline = page.getByTestId('timeline');
    await expect.poll(() => timeline.getByTestId('timeline-action').count()).toBe(3);
    await timeline.getByTestId('timeline-external').waitFor();
    expect(await timeline.getByTestId('timeline-external').textContent()).toContain('notes.txt');
    expect(await row(page, 1).getByTestId('timeline-level').textContent()).toBe('reversible');
    expect(await row(page, 1).getByTestId('timeline-changes').textContent()).toContain('2 file changes');

    // Action 1 cannot be undone alone: action 2 rewrote a.txt. The timeline says so before any click.
    expect(await row(page, 1).getByTestId('timeline-undo').isDisabled()).toBe(true);
    expect(await row(page, 1).getByTestId('timeline-blocked').textContent()).toMatch(/a\.txt.*changed by action 2/);
    await page.screenshot({ path: join(SCREENSHOTS, 'timeline.png'), fullPage: true });

    // Undo the latest action, out of order with nothing in the way.
    await row(page, 3).getByTestId('timeline-undo').click();
    await expect.poll(() => statusOf(page, 3)).toBe('undone');
    expect(existsSync(join(ws, 'c.txt'))).toBe(false);

    // Rewind to before action 1: actions 2 and 1 undone, newest first; the person's edit stays.
    await row(page, 1).getByTestId('timeline-menu').click(); // Rewind is in the row's "More" menu
    await row(page, 1).getByTestId('timeline-rewind').click();
    await expect.poll(() => statusOf(page, 1)).toBe('undone');
    expect(await statusOf(page, 2)).toBe('undone');
    expect(await row(page, 1).getByTestId('timeline-outcome').textContent()).toMatch(/Rewound actions 2, 1/);
    expect([existsSync(join(ws, 'a.txt')), existsSync(join(ws, 'b.txt'))]).toEqual([false, false]);
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('my notes, edited by me\n');
    expect(await page.getByTestId('timeline-operation').count()).toBeGreaterThanOrEqual(2);

    // Redo replays them oldest first.
    await row(page, 1).getByTestId('timeline-redo').click();
    await expect.poll(() => statusOf(page, 1)).toBe('done');
    await row(page, 2).getByTestId('timeline-redo').click();
    await expect.poll(() => statusOf(page, 2)).toBe('done');
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('bee\n');

    // Action 2's change to a.txt, side by side and unified, as text.
    await row(page, 2).getByTestId('timeline-changes').click(); // the count opens the list of files
    await row(page, 2).getByTestId('open-diff').first().click();
    const diff = page.getByTestId('diff-view');
    await diff.getByTestId('diff-split').waitFor();
    expect(await diff.getByTestId('diff-path').textContent()).toBe('a.txt');
    expect(await diff.locator('.diff-added').allTextContents()).toContain('two');
    await page.screenshot({ path: join(SCREENSHOTS, 'diff-view.png') });
    await diff.getByTestId('diff-mode-unified').click();
    expect(await diff.getByTestId('diff-unified').textContent()).toContain('+two');
    await diff.getByTestId('diff-close').click();
    await diff.waitFor({ state: 'detached' });
    await page.screenshot({ path: join(SCREENSHOTS, 'timeline-after.png'), fullPage: true });

    // The person edits a.txt; undoing action 2 now would overwrite it: refused, and the edit is on the timeline.
    writeFileSync(join(ws, 'a.txt'), 'the person rewrote this\n');
    await row(page, 2).getByTestId('timeline-undo').click();
    await expect.poll(() => row(page, 2).getByTestId('timeline-outcome').getAttribute('data-tone')).toBe('warn');
    expect(await row(page, 2).getByTestId('timeline-outcome').textContent()).toMatch(/a\.txt — edited outside Posthoc since/);
    await expect.poll(() => timeline.getByTestId('timeline-external').count()).toBe(2);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('the person rewrote this\n');
    // The way out: the person's edit, as a diff of what action 2 left against the file now.
    await row(page, 2).getByTestId('timeline-show-edit').click();
    await page.getByTestId('diff-since').waitFor();
    await page.getByTestId('diff-mode-unified').click();
    expect(await page.getByTestId('diff-unified').textContent()).toContain('+the person rewrote this');
    expect(await page.getByTestId('diff-unified').textContent()).toContain('-two');
    await page.screenshot({ path: join(SCREENSHOTS, 'timeline-way-out.png') });
    await page.getByTestId('diff-close').click();

    // Settings: the folder's undo storage, and a budget the person sets.
    await page.getByTestId('settings-link').click();
    const storage = page.getByTestId('undo-storage');
    await storage.waitFor();
    expect(await storage.textContent()).toContain(ws);
    await storage.getByTestId('budget-default').fill('2');
    await storage.getByRole('button', { name: 'Save' }).first().click();
    await expect.poll(async () => (await harness.services.undoViews.storage()).defaultBudgetBytes).toBe(2 * 1024 ** 3);
    await page.locator('section', { has: storage }).screenshot({ path: join(SCREENSHOTS, 'undo-storage.png') });
  });

  it('names files not covered by undo, before and after, and the level drops when an action changed one', async () => {
    const harness = await startHarness([
      "```python\nopen('big.bin', 'wb').write(b'x' * (9 * 1024 * 1024))\nopen('small.txt', 'w').write('hi\\n')\n```",
      "```python\nopen('big.bin', 'ab').write(b'more')\n```",
      'Done.',
    ]);
    defer(() => harness.close());
    await harness.services.undoViews.setBudget({ folder: null, bytes: 0 }); // no room for large files
    const page = await open(harness);
    await page.getByTestId('new-task-prompt').fill('make a big file and grow it');
    await page.getByTestId('new-task-workspace').fill(harness.workspace);
    await page.getByTestId('new-task-submit').click();
    await page.getByTestId('task-answer').waitFor({ timeout: 90_000 });

    const cards = page.getByTestId('action-card');
    const grown = cards.nth(1);
    await expandCard(grown);
    await expandCard(cards.nth(0));
    expect(await grown.getByTestId('confinement-badge').textContent()).toBe('confined');
    expect(await grown.getByTestId('not-covered').textContent()).toMatch(/big\.bin \(9\.0 MB\).*over the folder’s undo storage budget, before and after.*changed by this action/);
    expect(await cards.nth(0).getByTestId('not-covered').textContent()).toMatch(/big\.bin.*after this action/);
    await grown.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'not-covered.png') });

    await row(page, 2).getByTestId('timeline-undo').click();
    await expect.poll(() => statusOf(page, 2)).toBe('undone');
    expect(await row(page, 2).getByTestId('timeline-outcome').textContent()).toMatch(/left big\.bin as it is \(not covered by undo\)/);
  });
});
