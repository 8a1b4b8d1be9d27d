// The agent's memory in the app, in Chromium against the real services and the real image: an action
// writes a note through the gateway; its card lists it; Settings → Memory shows it, saves the person's
// edit and clears it; undo of the action then refuses, naming the memory.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { expandCard } from '../support/cards';
import { startHarness, type Harness } from '../support/services-harness';

const { open, defer } = browserTestbed({ width: 1280, height: 1000 });

const NOTE = 'Monthly reports go to reports/, named YYYY-MM.md.';
const WRITE = ['I will remember where reports go.', '', '```python', 'import os, requests', `print(requests.post(os.environ['POSTHOC_GATEWAY'] + '/memory/notes', json={'note': ${JSON.stringify(NOTE)}}).status_code)`, '```'].join('\n');

describe('memory (browser)', () => {
  it('shows the note on the card and in Settings, where the person edits and clears it', async () => {
    const harness: Harness = await startHarness([WRITE, 'Noted.']);
    defer(() => harness.close());
    const page = await open(harness.services);

    await page.getByTestId('new-task-prompt').fill('remember where my monthly reports go');
    await page.getByTestId('new-task-workspace').fill(harness.workspace);
    await page.getByTestId('new-task-submit').click();
    const card = page.getByTestId('action-card').first();
    await card.and(page.locator('[data-status="done"]')).waitFor({ timeout: 120_000 });
    await expandCard(card);
    await expect.poll(async () => card.getByTestId('memory-note').allTextContents()).toEqual([`remembered: ${NOTE}`]);
    expect(await card.textContent()).toContain("it wrote a note to the agent's memory");
    expect(await card.getByTestId('reverse-plan').textContent()).toContain(`Take "${NOTE}" off the memory`);
    expect(await card.getByRole('button', { name: 'Undo' }).isEnabled()).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'memory-card.png') });

    await page.getByRole('button', { name: 'Settings' }).click();
    const form = page.getByTestId('memory-settings');
    const text = form.getByTestId('memory-text');
    await expect.poll(() => text.inputValue()).toBe(`- ${NOTE}\n`);
    await text.fill(`- ${NOTE}\n- The person prefers short answers.\n`);
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Saved.').waitFor();
    await form.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'memory-settings.png') });
    const memory = await harness.services.handlers['memory:get']({});
    expect(memory.text).toBe(`- ${NOTE}\n- The person prefers short answers.\n`);
    expect(readFileSync(memory.path, 'utf8')).toContain('short answers');

    const [action] = harness.services.tasks.get(harness.services.tasks.list()[0]!.id).actions;
    const undo = await harness.services.handlers['action:undo']({ actionId: action!.id });
    expect(JSON.stringify(undo)).toMatch(/memory was edited since the note/);

    await form.getByTestId('memory-clear').click();
    await form.getByText('Cleared.').waitFor();
    expect(await text.inputValue()).toBe('');
  });
});
