// End to end in Chromium: a refused undo's last way out, "Keep a copy of your edit and undo". A task's
// actions write todo.txt and rewrite notes.txt in Docker; the person edits both files on disk. The
// timeline's Undo is refused and offers the copy, reached by keyboard only: notes.txt holds what it held
// before the action again, "notes (your edit).txt" the person's bytes, the outcome names the copy, the
// action is undone and Redo offered. The timeline then offers the same way out from the history alone, and
// the card's Undo gives it too (the name numbered once taken). Hostile: a file the person deleted has no
// edit to keep: the button, shown from the history, gets a refusal that says so, and nothing on disk
// changes. At 800×600, where the timeline is a folded rail, the card itself says why its Undo is off and
// offers the way out, by keyboard. Screenshots at 800×600 and 1600×1000, light and dark, with axe-core
// finding nothing serious.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { AppServices } from '../../main/services/app-services';
import { seriousViolations } from '../support/axe';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { activeTestId, tabTo } from '../support/keyboard';
import { startHarness, type Harness } from '../support/services-harness';

const { open: openServices, defer } = browserTestbed({ width: 1440, height: 900 });
const open = (harness: Harness): Promise<Page> => openServices(harness.services);

const row = (page: Page, seq: number): Locator => page.locator(`[data-testid="timeline-action"][data-seq="${seq}"]`);
const card = (page: Page, seq: number): Locator => page.getByTestId('action-card').nth(seq - 1);
/** Opens a task from the sidebar (below 1000 px the sidebar is a drawer, opened first). */
async function showTask(page: Page, id: string): Promise<void> {
  const drawer = page.getByTestId('drawer-toggle');
  await page.locator('[data-testid=drawer-toggle]:visible, [data-testid=task-list-item]:visible').first().waitFor();
  if (await drawer.isVisible()) await drawer.click();
  await page.locator(`[data-testid="task-list-item"][data-task-id="${id}"]`).click();
}

/** Starts a task through the services (the form is another test's subject), opens it and waits for its end. */
async function runTask(page: Page, services: AppServices, prompt: string, workspace: string): Promise<string> {
  const start = services.handlers['task:start'] as (input: unknown) => Promise<{ id: string }>;
  const { id } = await start({ prompt, workspaces: [workspace] });
  await showTask(page, id);
  await expect.poll(() => page.getByTestId('task-status').textContent(), { timeout: 90_000 }).toBe('done');
  return id;
}

/**
 * Screenshots of `target` (a timeline row) at 800×600 and 1600×1000, light and dark, each with no serious
 * accessibility violation (axe-core). Below 1200 px the timeline is a rail: it is opened to show the row.
 * Ends back at 1440×900 in the light theme.
 */
async function shoot(page: Page, target: Locator, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height] of [
      [800, 600],
      [1600, 1000],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(300); // the media queries and the layout's transitions settle (a screenshot, not an assertion)
      if ((await page.getByTestId('timeline').getAttribute('class'))?.includes('timeline-collapsed')) {
        await page.getByTestId('timeline-toggle').click();
        await page.locator('[data-testid="timeline"]:not(.timeline-collapsed)').waitFor();
      }
      await target.scrollIntoViewIfNeeded();
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}x${height}-${scheme}.png`) });
      expect(await seriousViolations(page), `${name} at ${width}×${height}, ${scheme}`).toEqual([]);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.locator('[data-testid="timeline"]:not(.timeline-collapsed)').waitFor();
}

describe('a refused undo’s way out: keep a copy of your edit and undo', () => {
  it('keeps the person’s edit as "NAME (your edit).ext" and undoes, from the timeline by keyboard and from the card', async () => {
    const harness = await startHarness([
      "I'll write the todo list.\n\n```python\nopen('todo.txt', 'w').write('agent todo\\n')\n```",
      "Now the notes.\n\n```python\nopen('notes.txt', 'w').write('written by the agent\\n')\n```",
      'Done: todo.txt and notes.txt are written.',
    ]);
    defer(() => harness.close());
    const ws = harness.workspace;
    const before = Buffer.from('before the agent\n');
    writeFileSync(join(ws, 'notes.txt'), before);
    chmodSync(join(ws, 'notes.txt'), 0o666); // the sandbox's user may rewrite it
    const page = await open(harness);
    await runTask(page, harness.services, 'write todo.txt and notes.txt', ws);
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('written by the agent\n');
    await expect.poll(() => row(page, 2).getByTestId('timeline-undo').isDisabled()).toBe(false);

    // The person edits both files on disk: bytes a text box would not keep (CRLF, no final newline, UTF-8).
    const mine = Buffer.from('my own words \u2014 \u00fcn\u00efcode\r\nand no newline at the end', 'utf8');
    writeFileSync(join(ws, 'notes.txt'), mine);
    writeFileSync(join(ws, 'todo.txt'), 'my todo\n');

    // Keyboard only. Undo action 2: refused, nothing changed, and the way out is offered in the outcome.
    await row(page, 2).getByTestId('timeline-undo').focus();
    await page.keyboard.press('Enter');
    const outcome = row(page, 2).getByTestId('timeline-outcome');
    await expect.poll(() => outcome.getAttribute('data-tone'), { timeout: 30_000 }).toBe('warn');
    expect(await outcome.textContent()).toMatch(/Undo refused: this path changed since.*notes\.txt — edited outside Posthoc since/);
    expect(readFileSync(join(ws, 'notes.txt'))).toEqual(mine);
    expect(existsSync(join(ws, 'notes (your edit).txt'))).toBe(false);
    const keep = outcome.getByTestId('timeline-way-out-keep-copy');
    expect(await keep.textContent()).toBe('Keep a copy of your edit and undo');
    expect(await keep.getAttribute('title')).toBe(
      'Copies your edit of notes.txt to "notes (your edit).txt" beside it (numbered "(your edit 2)" if that name is taken), then undoes action 2. Your edit stays in the copy.',
    );
    // The Undo that was pressed is disabled now (the timeline knows the edit): the focus went to the outcome.
    await expect.poll(() => row(page, 2).getByTestId('timeline-undo').isDisabled()).toBe(true);
    expect(await activeTestId(page)).toBe('timeline-outcome');
    await shoot(page, row(page, 2), 'undo-way-out-refused');
    await outcome.focus(); // where the app left the focus, before the screenshots moved it

    // Tab reaches the button (after "Show the edit"), with a visible focus ring; Enter keeps the copy and undoes.
    expect(await tabTo(page, '[data-testid="timeline-way-out-keep-copy"]', { most: 3 })).toBeLessThanOrEqual(3);
    expect(await keep.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('solid');
    await page.screenshot({ path: join(SCREENSHOTS, 'undo-way-out-focus.png') });
    await page.keyboard.press('Enter');

    await expect.poll(() => row(page, 2).getAttribute('data-status'), { timeout: 30_000 }).toBe('undone');
    await expect.poll(() => outcome.getAttribute('data-tone')).toBe('ok');
    expect(readFileSync(join(ws, 'notes.txt'))).toEqual(before);
    expect(readFileSync(join(ws, 'notes (your edit).txt'))).toEqual(mine);
    expect(readFileSync(join(ws, 'todo.txt'), 'utf8')).toBe('my todo\n'); // not action 2's: untouched
    expect(await outcome.textContent()).toContain('Undone: restored notes.txt.Your edit of notes.txt is kept in notes (your edit).txt.');
    expect(await outcome.getByTestId('kept-copy').getAttribute('data-copy')).toBe('notes (your edit).txt');
    expect(await outcome.getByTestId('timeline-way-out-keep-copy').count()).toBe(0);
    await expect.poll(() => card(page, 2).getByTestId('action-status').textContent()).toBe('undone');
    const redo = row(page, 2).getByTestId('timeline-redo');
    expect(await redo.isVisible()).toBe(true);
    expect(await redo.isDisabled()).toBe(false);
    await shoot(page, row(page, 2), 'undo-way-out-kept');

    // Action 1: the refused undo's check recorded the edit of todo.txt too, so the timeline offers the way
    // out before any click, from the history alone.
    const wayOut = row(page, 1).getByTestId('timeline-blocked');
    await wayOut.waitFor();
    expect(await row(page, 1).getByTestId('timeline-undo').isDisabled()).toBe(true);
    expect(await wayOut.textContent()).toMatch(/todo\.txt — edited outside Posthoc since/);
    expect(await wayOut.textContent()).not.toMatch(/copy what you want to keep elsewhere/);
    await shoot(page, row(page, 1), 'undo-way-out-timeline');
    await wayOut.getByTestId('timeline-way-out-keep-copy').click();
    await expect.poll(() => row(page, 1).getAttribute('data-status'), { timeout: 30_000 }).toBe('undone');
    expect(existsSync(join(ws, 'todo.txt'))).toBe(false); // the action made it: undo removes it
    expect(readFileSync(join(ws, 'todo (your edit).txt'), 'utf8')).toBe('my todo\n');
    expect(await row(page, 1).getByTestId('timeline-outcome').textContent()).toContain('Your edit of todo.txt is kept in todo (your edit).txt.');

    // The card gives the same way out: redo action 1, the person edits todo.txt again, the card's Undo is
    // refused and offers the copy; the first copy's name is taken, so this one is numbered.
    await row(page, 1).getByTestId('timeline-redo').click();
    await expect.poll(() => row(page, 1).getAttribute('data-status'), { timeout: 30_000 }).toBe('done');
    expect(readFileSync(join(ws, 'todo.txt'), 'utf8')).toBe('agent todo\n');
    writeFileSync(join(ws, 'todo.txt'), 'my todo, again\n');
    const undo = card(page, 1).getByTestId('action-undo');
    await expect.poll(() => undo.isDisabled()).toBe(false);
    await undo.click();
    const feedback = card(page, 1).getByTestId('undo-result');
    await expect.poll(() => feedback.getAttribute('data-tone'), { timeout: 30_000 }).toBe('warn');
    expect(await feedback.textContent()).toMatch(/todo\.txt/);
    const fromCard = card(page, 1).getByTestId('action-keep-copy');
    expect(await fromCard.textContent()).toBe('Keep a copy of your edit and undo');
    await card(page, 1).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'undo-way-out-card.png') });
    expect(await seriousViolations(page), 'the card’s refused Undo').toEqual([]);
    await fromCard.click();
    const kept = card(page, 1).getByTestId('keep-copy-outcome');
    await expect.poll(() => kept.getAttribute('data-tone'), { timeout: 30_000 }).toBe('ok');
    expect(await kept.getByTestId('kept-copy').getAttribute('data-copy')).toBe('todo (your edit 2).txt');
    expect(await kept.textContent()).toContain('Your edit of todo.txt is kept in todo (your edit 2).txt.');
    expect(readFileSync(join(ws, 'todo (your edit 2).txt'), 'utf8')).toBe('my todo, again\n');
    expect(readFileSync(join(ws, 'todo (your edit).txt'), 'utf8')).toBe('my todo\n');
    expect(existsSync(join(ws, 'todo.txt'))).toBe(false);
    await expect.poll(() => card(page, 1).getAttribute('data-status')).toBe('undone');
    // One truth: the timeline shows the same outcome (the card called the same thing).
    expect(await row(page, 1).getByTestId('timeline-outcome').textContent()).toContain('todo (your edit 2).txt');
    await card(page, 1).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'undo-way-out-card-kept.png') });
    expect(await seriousViolations(page), 'the card’s kept copy').toEqual([]);
  }, 240_000);

  it('keeps a copy and rewinds when a later action stands in the way too and only the person’s edit stops the rewind', async () => {
    const harness = await startHarness([
      "```python\nopen('a.txt', 'w').write('one\\n')\nopen('notes.txt', 'w').write('agent notes\\n')\n```",
      "```bash\nprintf 'one\\ntwo\\n' > a.txt\n```",
      'Done: a.txt and notes.txt are written.',
    ]);
    defer(() => harness.close());
    const ws = harness.workspace;
    const page = await open(harness);
    await runTask(page, harness.services, 'write a.txt and notes.txt, then add a line to a.txt', ws);
    writeFileSync(join(ws, 'notes.txt'), 'my notes\n');

    // Action 2 rewrote a.txt: undo alone is out, a plain rewind is offered (the history does not know the edit yet).
    const wayOut = row(page, 1).getByTestId('timeline-blocked');
    await wayOut.waitFor({ timeout: 30_000 });
    expect(await wayOut.getByTestId('timeline-way-out-keep-copy').count()).toBe(0);
    // The card says the same, and offers the same rewind.
    const blockedOnCard = card(page, 1).getByTestId('action-undo-blocked');
    expect(await blockedOnCard.textContent()).toMatch(/a\.txt — /);
    expect(await blockedOnCard.getByTestId('action-rewind').textContent()).toBe('Rewind to before action 1');
    expect(await blockedOnCard.getByTestId('action-keep-copy').count()).toBe(0);
    await wayOut.getByTestId('timeline-way-out-rewind').click();
    // Refused by the person's edit of notes.txt; main checked the folder and offers the copy with the rewind.
    const outcome = row(page, 1).getByTestId('timeline-outcome');
    await expect.poll(() => outcome.getAttribute('data-tone'), { timeout: 30_000 }).toBe('warn');
    expect(await outcome.textContent()).toMatch(/Rewind refused.*notes\.txt — edited outside Posthoc since/);
    const fromOutcome = outcome.getByTestId('timeline-way-out-keep-copy');
    expect(await fromOutcome.textContent()).toBe('Keep a copy and rewind');
    expect(await fromOutcome.getAttribute('title')).toMatch(/^Copies your edit of notes\.txt to "notes \(your edit\)\.txt" beside it .*then undoes actions 2, 1, newest first\./);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('one\ntwo\n');

    // From the history alone (after a reload) the timeline offers the same; pressed, both actions are undone.
    await page.reload();
    await page.locator('[data-testid="task-list-item"]').first().click();
    await wayOut.waitFor({ timeout: 30_000 });
    const keep = wayOut.getByTestId('timeline-way-out-keep-copy');
    expect(await keep.textContent()).toBe('Keep a copy and rewind');
    expect(await wayOut.getByTestId('timeline-way-out-rewind').count()).toBe(0); // a plain rewind would be refused
    expect(await blockedOnCard.getByTestId('action-keep-copy').textContent()).toBe('Keep a copy and rewind');
    expect(await blockedOnCard.getByTestId('action-rewind').count()).toBe(0);
    await shoot(page, row(page, 1), 'undo-way-out-rewind');
    await keep.click();
    await expect.poll(() => row(page, 1).getAttribute('data-status'), { timeout: 30_000 }).toBe('undone');
    // Taken from the timeline: the card's note goes with the blockers.
    await expect.poll(() => blockedOnCard.count()).toBe(0);
    expect(await row(page, 2).getAttribute('data-status')).toBe('undone');
    expect([existsSync(join(ws, 'a.txt')), existsSync(join(ws, 'notes.txt'))]).toEqual([false, false]);
    expect(readFileSync(join(ws, 'notes (your edit).txt'), 'utf8')).toBe('my notes\n');
    expect(await outcome.textContent()).toMatch(/^Rewound actions 2, 1: removed .*Your edit of notes\.txt is kept in notes \(your edit\)\.txt\.$/);
  }, 180_000);

  it('at 800×600, where the timeline is a folded rail, the card says why its Undo is off and offers the way out, by keyboard', async () => {
    const harness = await startHarness(["```python\nopen('notes.txt', 'w').write('written by the agent\\n')\n```", 'Done: notes.txt is written.']);
    defer(() => harness.close());
    const ws = harness.workspace;
    writeFileSync(join(ws, 'notes.txt'), 'before the agent\n');
    chmodSync(join(ws, 'notes.txt'), 0o666); // the sandbox's user may rewrite it
    const page = await openServices(harness.services, { width: 800, height: 600 });
    const id = await runTask(page, harness.services, 'write notes.txt', ws);

    // The person edits the file; another front end (the CLI) tries the undo, is refused, and the history knows the edit.
    writeFileSync(join(ws, 'notes.txt'), 'my edit\n');
    const actionId = (await card(page, 1).getAttribute('data-action-id'))!;
    const undo = harness.services.handlers['action:undo'] as (input: unknown) => Promise<{ outcome: string }>;
    expect((await undo({ actionId })).outcome).toBe('conflict');
    await page.reload();
    await showTask(page, id);

    // The timeline is a folded rail; the card's Undo is off, and the card says why, with the way out.
    expect(await page.getByTestId('timeline').getAttribute('class')).toContain('timeline-collapsed');
    const blocked = card(page, 1).getByTestId('action-undo-blocked');
    await blocked.waitFor({ timeout: 30_000 });
    expect(await card(page, 1).getByTestId('action-undo').isDisabled()).toBe(true);
    expect(await blocked.textContent()).toMatch(/^Undo would overwrite a later change:notes\.txt — edited outside Posthoc since/);
    const keep = blocked.getByTestId('action-keep-copy');
    expect(await keep.textContent()).toBe('Keep a copy of your edit and undo');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await blocked.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, `undo-way-out-card-blocked-800x600-${scheme}.png`) });
      expect(await seriousViolations(page), `the card's blocked Undo, ${scheme}`).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // Keyboard only: from the card's title, Tab reaches the button past the disabled Undo; Enter keeps the copy and undoes.
    await card(page, 1).getByTestId('action-toggle').focus();
    await tabTo(page, '[data-testid="action-keep-copy"]', { most: 4 });
    await page.keyboard.press('Enter');
    const kept = blocked.getByTestId('keep-copy-outcome');
    await expect.poll(() => kept.getAttribute('data-tone'), { timeout: 30_000 }).toBe('ok');
    expect(await activeTestId(page)).toBe('keep-copy-outcome');
    expect(await kept.getByTestId('kept-copy').getAttribute('data-copy')).toBe('notes (your edit).txt');
    expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('before the agent\n');
    expect(readFileSync(join(ws, 'notes (your edit).txt'), 'utf8')).toBe('my edit\n');
    await expect.poll(() => card(page, 1).getAttribute('data-status')).toBe('undone');
    // What stood in the way is history now: only the outcome stays on the card.
    expect(await blocked.textContent()).not.toMatch(/Undo would overwrite/);
    await page.screenshot({ path: join(SCREENSHOTS, 'undo-way-out-card-blocked-kept-800x600.png') });
    expect(await seriousViolations(page), 'the card after its way out').toEqual([]);
  }, 180_000);

  it('refuses to keep a copy of a file the person deleted, says why, and changes nothing on disk', async () => {
    const harness = await startHarness(["```python\nopen('notes.txt', 'w').write('written by the agent\\n')\n```", 'Done: notes.txt is written.']);
    defer(() => harness.close());
    const ws = harness.workspace;
    writeFileSync(join(ws, 'notes.txt'), 'before the agent\n');
    chmodSync(join(ws, 'notes.txt'), 0o666); // the sandbox's user may rewrite it
    writeFileSync(join(ws, 'other.txt'), 'left alone\n');
    const page = await open(harness);
    await runTask(page, harness.services, 'write notes.txt', ws);
    await expect.poll(() => row(page, 1).getByTestId('timeline-undo').isDisabled()).toBe(false);

    // The person deletes the file the action wrote.
    rmSync(join(ws, 'notes.txt'));
    const listing = () => readdirSync(ws).filter((f) => f !== '.posthoc').sort();
    const onDisk = listing();
    expect(onDisk).toEqual(['other.txt']);

    // Undo is refused, and main (which checked the folder) does not offer a copy: there is nothing to copy.
    await row(page, 1).getByTestId('timeline-undo').click();
    const outcome = row(page, 1).getByTestId('timeline-outcome');
    await expect.poll(() => outcome.getAttribute('data-tone'), { timeout: 30_000 }).toBe('warn');
    expect(await outcome.textContent()).toMatch(/notes\.txt/);
    expect(await outcome.getByTestId('timeline-way-out-keep-copy').count()).toBe(0);

    // After a reload the timeline, which reads the history only, shows the way out with the button; pressed,
    // it is refused with the reason, and nothing changes.
    await page.reload();
    await page.locator('[data-testid="task-list-item"]').first().click();
    const wayOut = row(page, 1).getByTestId('timeline-blocked');
    await wayOut.waitFor({ timeout: 30_000 });
    const keep = wayOut.getByTestId('timeline-way-out-keep-copy');
    expect(await keep.isDisabled()).toBe(false);
    await keep.click();
    await expect.poll(() => outcome.getAttribute('data-tone'), { timeout: 30_000 }).toBe('warn');
    const said = (await outcome.textContent()) ?? '';
    expect(said).toContain('Undo refused, nothing was changed: keeping a copy does not get past this path.');
    expect(said).toContain('notes.txt — deleted since: there is nothing to keep a copy of');
    expect(await outcome.getByTestId('timeline-way-out-keep-copy').count()).toBe(0);
    expect(listing()).toEqual(onDisk);
    expect(readFileSync(join(ws, 'other.txt'), 'utf8')).toBe('left alone\n');
    expect(await row(page, 1).getAttribute('data-status')).toBe('done');
    await shoot(page, row(page, 1), 'undo-way-out-deleted');
  }, 180_000);
});
