// Issue 17's "Done means" as one walk, the way a new person takes it, keyboard only (Tab, Shift+Tab, Enter
// and typing; the only other move is the person editing a file on disk), at 800×600 in the light theme and
// at 1600×1000 in the dark one, against the real services (Docker sandbox, SQLite, git checkpoints) with the
// model a local scripted server: start a task from the composer with a folder chip; Stop its 20 s action
// ("Stopping…", then the card says stopped and its files so far are undoable); a follow-up whose answer has
// a table, rendered as one; a card opened; the card's Undo right after the task ends, with no reload; Redo on
// the timeline; the person's edit refuses the next Undo, and its way out — keep a copy of the edit and undo —
// puts the file back and keeps the person's bytes beside it. axe finds nothing serious at the end.
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import type { ChatRequest } from '../support/fake-openai-server';
import { activeTestId, tabTo } from '../support/keyboard';
import { startHarness } from '../support/services-harness';

const { open, defer } = browserTestbed({ width: 1280, height: 860 });

const PROMPT = 'Write the project parts, one a second';
const FOLLOW_UP = 'Enough parts. Write notes.txt and sum up in a table';

/** The agent's replies by turn (its replies so far in the request); a request without the system prompt (a check of the model) gets "ok". */
const TURNS = [
  "<title>Project parts and notes</title>\nI'll write the parts, one a second.\n\n```python\nimport time\nfor i in range(20):\n    open(f'part-{i:02}.txt', 'w').write(f'part {i}\\n')\n    time.sleep(1)\n```",
  "Now the notes.\n\n```python\nopen('notes.txt', 'w').write('notes by the agent\\n')\nprint('wrote notes.txt')\n```",
  '<answer>\n## What is in the folder\n\n| file | written by |\n| --- | --- |\n| notes.txt | the agent, just now |\n| part-00.txt … | the agent, until you stopped it |\n</answer>',
];
const reply = (request: ChatRequest): string =>
  request.messages.some((m) => m.role === 'system') ? (TURNS[request.messages.filter((m) => m.role === 'assistant').length] ?? 'Done.') : 'ok';

/** Whether all of the element is in the visible part of the conversation (not scrolled away, not under the composer). */
async function inView(page: Page, element: Locator): Promise<boolean> {
  const [box, pane] = [await element.boundingBox(), await page.locator('.conversation').boundingBox()];
  return box !== null && pane !== null && box.y >= pane.y - 1 && box.y + box.height <= pane.y + pane.height + 1;
}

const cardSel = (seq: number) => `[data-testid="action-card"][aria-label="Action ${seq}"]`;
const rowSel = (seq: number) => `[data-testid="timeline-action"][data-seq="${seq}"]`;

for (const { width, height, scheme } of [
  { width: 800, height: 600, scheme: 'light' },
  { width: 1600, height: 1000, scheme: 'dark' },
] as const) {
  describe(`a new person at ${width}×${height} (${scheme}), keyboard only`, () => {
    it('starts a task, stops its action, reads the table, opens a card, undoes from the card, redoes, and follows a refused undo’s way out', async () => {
      const harness = await startHarness(Array.from({ length: 12 }, () => reply));
      defer(() => harness.close());
      const ws = harness.workspace;
      const before = Buffer.from('notes from before the agent\n');
      writeFileSync(join(ws, 'notes.txt'), before);
      chmodSync(join(ws, 'notes.txt'), 0o666); // the sandbox's user may rewrite it
      const parts = () => readdirSync(ws).filter((f) => f.startsWith('part-')).length;

      const page = await open(harness.services, { width, height });
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      let shot = 0;
      const screenshot = (step: string) => page.screenshot({ path: join(SCREENSHOTS, `journey-${width}x${height}-${scheme}-${++shot}-${step}.png`) });
      const card = (seq: number): Locator => page.locator(cardSel(seq));
      const row = (seq: number): Locator => page.locator(rowSel(seq));

      // 1. The composer: the prompt has the focus; the folder is added as a chip by typing its path; Enter sends.
      await page.getByTestId('new-task-prompt').waitFor();
      expect(await activeTestId(page)).toBe('new-task-prompt');
      await page.keyboard.type(PROMPT);
      await tabTo(page, '[data-testid="new-task-workspace"]');
      await page.keyboard.type(ws);
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('grant-chip').allTextContents()).toEqual([`Folder${ws}×`]);
      await screenshot('composer');
      await tabTo(page, '[data-testid="new-task-prompt"]', { backwards: true });
      await page.keyboard.press('Enter');
      await page.getByTestId('task-view').waitFor({ timeout: 30_000 });
      const [task] = harness.services.tasks.list();
      expect(task!.workspaces.map((w) => w.hostPath)).toEqual([ws]);

      // 2. The first action writes a part a second for 20 s. Tab to Stop, Enter: "Stopping…", then stopped.
      await expect.poll(parts, { timeout: 90_000 }).toBeGreaterThanOrEqual(3);
      expect(await card(1).getAttribute('data-status')).toBe('running');
      await page.evaluate(() => {
        // Every label the Stop button shows from now on (it may say "Stopping…" only briefly).
        const seen: string[] = [];
        (window as unknown as { __stopLabels: string[] }).__stopLabels = seen;
        new MutationObserver(() => {
          const text = document.querySelector('[data-testid="task-cancel"]')?.textContent;
          if (text != null && seen.at(-1) !== text) seen.push(text);
        }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      });
      await tabTo(page, '[data-testid="task-cancel"]', { most: 60 });
      expect(await page.getByTestId('task-cancel').textContent()).toBe('Stop');
      await screenshot('stop-focused');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('task-status').textContent(), { timeout: 30_000 }).toBe('cancelled');
      expect(await page.evaluate(() => (window as unknown as { __stopLabels: string[] }).__stopLabels)).toContain('Stopping…');
      const written = parts();
      expect(written).toBeGreaterThanOrEqual(3);
      expect(written).toBeLessThan(20);
      await expect.poll(() => card(1).getAttribute('data-status')).toBe('interrupted');
      expect(await card(1).getByTestId('action-status').textContent()).toBe('stopped');
      await page.getByTestId('task-cancelled').waitFor();
      await expect.poll(() => card(1).getByTestId('action-undo').isDisabled(), { timeout: 10_000 }).toBe(false);
      await screenshot('stopped');

      // 3. Stop went away with the run and the focus went on to the follow-up box: Enter there sends. An
      // action writes notes.txt, then an answer with a table.
      await expect.poll(() => activeTestId(page)).toBe('follow-up-input');
      await page.keyboard.type(FOLLOW_UP);
      await page.keyboard.press('Enter');
      const answer = page.getByTestId('task-answer');
      await answer.waitFor({ timeout: 90_000 });
      await expect.poll(() => page.getByTestId('task-status').textContent(), { timeout: 30_000 }).toBe('done');
      // The focus stayed in the box through the run (the same box steers the agent while it works).
      expect(await activeTestId(page)).toBe('follow-up-input');
      expect(await page.getByTestId('follow-up-input').inputValue()).toBe('');
      expect(harness.llm.requests.some((r) => r.messages.some((m) => m.role === 'user' && JSON.stringify(m.content).includes(FOLLOW_UP)))).toBe(true);
      expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('notes by the agent\n');
      expect(await answer.locator('h2').textContent()).toBe('What is in the folder');
      const table = answer.locator('table');
      expect(await table.locator('th').allTextContents()).toEqual(['file', 'written by']);
      expect(await table.locator('tbody tr').nth(0).locator('td').allTextContents()).toEqual(['notes.txt', 'the agent, just now']);
      expect(await table.locator('tbody tr').nth(1).locator('td').allTextContents()).toEqual(['part-00.txt …', 'the agent, until you stopped it']);
      expect(await answer.textContent()).not.toContain('|');
      // On screen without scrolling: sending the follow-up brought the view back to the newest output.
      await expect.poll(() => inView(page, table)).toBe(true);
      await screenshot('answer');

      // 4. Open action 2's card by keyboard (back from the follow-up box, past the answer): its code shows.
      const toggle = card(2).getByTestId('action-toggle');
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      await tabTo(page, `${cardSel(2)} [data-testid="action-toggle"]`, { backwards: true, most: 20 });
      await page.keyboard.press('Enter');
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      const code = card(2).getByTestId('action-body').getByTestId('action-code');
      expect(await code.isVisible()).toBe(true);
      expect(await code.textContent()).toContain("open('notes.txt', 'w')");
      await screenshot('card-open');

      // 5. Right after the task ended, the card's Undo is enabled with no reload; Enter puts notes.txt back.
      const undo = card(2).getByTestId('action-undo');
      await expect.poll(() => undo.isDisabled(), { timeout: 10_000 }).toBe(false);
      await tabTo(page, `${cardSel(2)} [data-testid="action-undo"]`, { most: 10 });
      await page.keyboard.press('Enter');
      await expect.poll(() => card(2).getAttribute('data-status'), { timeout: 30_000 }).toBe('undone');
      expect(readFileSync(join(ws, 'notes.txt'))).toEqual(before);
      expect(parts()).toBe(written); // action 1's parts are its own to undo
      await screenshot('card-undone');

      // 6. Redo on the timeline (at 800×600 a rail, opened by keyboard first).
      if ((await page.getByTestId('timeline').getAttribute('class'))?.includes('timeline-collapsed')) {
        await tabTo(page, '[data-testid="timeline-toggle"]', { most: 60 });
        await page.keyboard.press('Enter');
        await page.locator('[data-testid="timeline"]:not(.timeline-collapsed)').waitFor();
        // The focus follows the toggle into the open rail (its Hide button), not back to the page.
        expect(await activeTestId(page)).toBe('timeline-toggle');
      }
      await tabTo(page, `${rowSel(2)} [data-testid="timeline-redo"]`, { most: 60 });
      await page.keyboard.press('Enter');
      await expect.poll(() => row(2).getAttribute('data-status'), { timeout: 30_000 }).toBe('done');
      expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('notes by the agent\n');
      // The card's own "Undone: …" no longer stands under a done action.
      await expect.poll(() => card(2).getByTestId('undo-result').count()).toBe(0);
      await screenshot('redone');

      // The focus went to what happened ("Redone…"); Undo is just before it. The person edits notes.txt on
      // disk; Undo is refused and the way out is offered where the focus goes.
      const mine = Buffer.from('my own words \u2014 \u00fcn\u00efcode\r\nand no newline at the end', 'utf8');
      writeFileSync(join(ws, 'notes.txt'), mine);
      await expect.poll(() => activeTestId(page)).toBe('timeline-outcome');
      await tabTo(page, `${rowSel(2)} [data-testid="timeline-undo"]`, { backwards: true, most: 3 });
      await page.keyboard.press('Enter');
      const outcome = row(2).getByTestId('timeline-outcome');
      await expect.poll(() => outcome.getAttribute('data-tone'), { timeout: 30_000 }).toBe('warn');
      expect(await outcome.textContent()).toMatch(/Undo refused.*notes\.txt — edited outside Posthoc since/);
      expect(readFileSync(join(ws, 'notes.txt'))).toEqual(mine);
      const keep = outcome.getByTestId('timeline-way-out-keep-copy');
      expect(await keep.textContent()).toBe('Keep a copy of your edit and undo');
      await expect.poll(() => activeTestId(page)).toBe('timeline-outcome');
      await screenshot('undo-refused');
      expect(await tabTo(page, `${rowSel(2)} [data-testid="timeline-way-out-keep-copy"]`, { most: 3 })).toBeGreaterThan(0);
      expect(await keep.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('solid'); // a visible focus ring
      await screenshot('keep-copy-focused');
      await page.keyboard.press('Enter');
      await expect.poll(() => row(2).getAttribute('data-status'), { timeout: 30_000 }).toBe('undone');
      expect(readFileSync(join(ws, 'notes.txt'))).toEqual(before);
      expect(readFileSync(join(ws, 'notes (your edit).txt'))).toEqual(mine);
      expect(await outcome.getByTestId('kept-copy').getAttribute('data-copy')).toBe('notes (your edit).txt');
      await expect.poll(() => card(2).getAttribute('data-status')).toBe('undone');
      expect(existsSync(join(ws, 'part-00.txt'))).toBe(true); // action 1 untouched
      await screenshot('kept');

      // At the end of the walk, axe finds nothing serious or critical.
      expect(await seriousViolations(page)).toEqual([]);
    }, 300_000);
  });
}
