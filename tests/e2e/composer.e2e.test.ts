// The composer's grants in Chromium, keyboard only, against the real services: a folder added by typing with
// completion (folder:complete), a chip removed, the task started with what is left; the listbox follows
// ARIA's combobox pattern, and the completion refuses ".." and never offers Posthoc's own data folder.
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FALLBACK_SANDBOX_UID } from '../../main/sandbox/container-policy';
import { seriousViolations } from '../support/axe';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { tabTo } from '../support/keyboard';
import { startHarness } from '../support/services-harness';

const { open, defer } = browserTestbed({ width: 1280, height: 860 });

describe('the composer’s chips', () => {
  it('adds a folder by typing with completion, removes a chip and starts the task with the rest, keyboard only', async () => {
    const harness = await startHarness([
      "I'll write a note.\n\n```python\nopen('note.txt', 'w').write('from the agent\\n')\nprint('wrote note.txt')\n```",
      'Done: note.txt is written.',
    ]);
    defer(() => harness.close());
    const alpha = join(harness.workspace, 'project-alpha');
    const beta = join(harness.workspace, 'project-beta');
    for (const dir of [alpha, beta, join(harness.workspace, '.hidden-stuff')]) {
      mkdirSync(dir);
      if (process.getuid?.() === 0) chownSync(dir, FALLBACK_SANDBOX_UID, FALLBACK_SANDBOX_UID);
    }
    writeFileSync(join(harness.workspace, 'project-plan.txt'), 'a file, never offered\n');
    const page = await open(harness.services);

    // The prompt has the focus first.
    await page.getByTestId('new-task-prompt').waitFor();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('new-task-prompt');
    await page.keyboard.type('write note.txt');

    const field = page.getByTestId('new-task-workspace');
    const options = page.getByTestId('folder-options');
    await tabTo(page, '[data-testid="new-task-workspace"]');
    expect(await field.getAttribute('role')).toBe('combobox');
    expect(await field.getAttribute('aria-expanded')).toBe('false');

    // Typing lists the folders whose names start with what was typed: directories only, no hidden one.
    await page.keyboard.type(join(harness.workspace, 'proj'));
    await expect.poll(() => options.getByRole('option').allTextContents()).toEqual([alpha, beta]);
    expect(await field.getAttribute('aria-expanded')).toBe('true');
    expect(await field.getAttribute('aria-controls')).toBe(await options.getAttribute('id'));
    await page.screenshot({ path: join(SCREENSHOTS, 'composer-completion.png') });

    // Arrow keys move the highlighted option (aria-activedescendant), Enter takes it and lists inside it.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    const activeId = await field.getAttribute('aria-activedescendant');
    expect(await page.locator(`[id="${activeId}"]`).textContent()).toBe(alpha);
    expect(await page.locator(`[id="${activeId}"]`).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await expect.poll(() => field.inputValue()).toBe(alpha + '/');
    // Nothing inside it: the list is closed, and Enter adds the path as a chip and empties the field.
    expect(await field.getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Enter');
    const chips = page.getByTestId('grant-chip');
    await expect.poll(() => chips.allTextContents()).toEqual([`Folder${alpha}×`]);
    expect(await field.inputValue()).toBe('');

    // A second folder the same way, then removed with its chip's × (reached by Shift+Tab, pressed with Enter).
    await page.keyboard.type(join(harness.workspace, 'project-b'));
    await expect.poll(() => options.getByRole('option').allTextContents()).toEqual([beta]);
    // Escape closes the list and keeps what was typed; ArrowDown opens it again.
    await page.keyboard.press('Escape');
    expect(await field.getAttribute('aria-expanded')).toBe('false');
    expect(await options.isVisible()).toBe(false);
    expect(await field.inputValue()).toBe(join(harness.workspace, 'project-b'));
    await page.keyboard.press('ArrowDown');
    expect(await field.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('Enter');
    await expect.poll(() => field.inputValue()).toBe(beta + '/');
    await page.keyboard.press('Enter');
    await expect.poll(() => chips.count()).toBe(2);
    await page.screenshot({ path: join(SCREENSHOTS, 'composer-chips.png') });
    await tabTo(page, `[aria-label="Remove folder ${beta}"]`, { backwards: true });
    await page.keyboard.press('Enter');
    await expect.poll(() => chips.allTextContents()).toEqual([`Folder${alpha}×`]);

    // Hidden folders only when the typed name asks for them.
    await tabTo(page, '[data-testid="new-task-workspace"]');
    await page.keyboard.type(join(harness.workspace, '.h'));
    await expect.poll(() => options.getByRole('option').allTextContents()).toEqual([join(harness.workspace, '.hidden-stuff')]);
    await page.keyboard.press('Escape');
    await field.fill('');

    // Start from the keyboard.
    await tabTo(page, '[data-testid="new-task-submit"]');
    await page.keyboard.press('Enter');
    const card = page.getByTestId('action-card').first();
    await card.and(page.locator('[data-status="done"]')).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByTestId('task-status').textContent()).toBe('done');
    const [task] = harness.services.tasks.list();
    expect(task!.workspaces.map((w) => w.hostPath)).toEqual([alpha]);
    expect(readFileSync(join(alpha, 'note.txt'), 'utf8')).toBe('from the agent\n');
    expect(existsSync(join(beta, 'note.txt'))).toBe(false);
  });

  it('refuses ".." in the path and never offers Posthoc’s own data folder', async () => {
    const harness = await startHarness([]);
    defer(() => harness.close());
    const page = await open(harness.services);
    const field = page.getByTestId('new-task-workspace');
    const options = page.getByTestId('folder-options');

    // The web host has no native picker: Folder… brings the person to the path field.
    await page.getByTestId('new-task-choose-folder').press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('new-task-workspace');
    await page.keyboard.type(`${harness.workspace}/../`);
    await expect.poll(() => page.getByTestId('folder-hint').textContent()).toMatch(/without "\." or "\.\."/);
    expect(await field.getAttribute('aria-expanded')).toBe('false');

    // The data folder's parent lists its siblings, never the data folder itself.
    const data = harness.dataDir;
    const sibling = join(dirname(data), `${basename(data)}-sibling`);
    mkdirSync(sibling);
    defer(() => rmSync(sibling, { recursive: true, force: true }));
    await field.fill('');
    await page.keyboard.type(data);
    await expect.poll(() => options.getByRole('option').allTextContents()).toEqual([sibling]);
  });
});

describe('services as chips', () => {
  it('ticks services from the Service list, shows each as a chip, removes one with its × and starts with the other, keyboard only', async () => {
    const harness = await startHarness(['Nothing to do here.']);
    defer(() => harness.close());
    // Definitions only: nothing is called, so the address needs no server.
    harness.services.services.add('notes', 'http://127.0.0.1:9/notes');
    harness.services.services.add('mail', 'http://127.0.0.1:9/mail');
    const page = await open(harness.services);
    await page.getByTestId('new-task-prompt').waitFor();
    await page.keyboard.type('post the notes');

    const toggle = page.getByTestId('new-task-add-service');
    await tabTo(page, '[data-testid="new-task-add-service"]');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByTestId('new-task-service-notes').isVisible()).toBe(false);
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await tabTo(page, '[data-testid="new-task-service-notes"]');
    await page.keyboard.press('Space');
    await tabTo(page, '[data-testid="new-task-service-mail"]');
    await page.keyboard.press('Space');
    const chips = page.getByTestId('grant-chip');
    await expect.poll(() => chips.allTextContents()).toEqual(['Servicenotes×', 'Servicemail×']);
    // Escape closes the list and gives the focus back to its button.
    await page.keyboard.press('Escape');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('new-task-add-service');

    await tabTo(page, '[aria-label="Remove service notes"]', { backwards: true });
    await page.keyboard.press('Enter');
    await expect.poll(() => chips.allTextContents()).toEqual(['Servicemail×']);
    await tabTo(page, '[data-testid="new-task-add-service"]');
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('new-task-service-notes').isChecked()).toBe(false);
    expect(await page.getByTestId('new-task-service-mail').isChecked()).toBe(true);
    await page.keyboard.press('Escape');

    await tabTo(page, '[data-testid="new-task-submit"]');
    await page.keyboard.press('Enter');
    await page.getByTestId('task-answer').waitFor({ timeout: 60_000 });
    const [task] = harness.services.tasks.list();
    expect(task!.services).toEqual(['mail']);
  });
});

describe('the composer at 800×600 and 1600×1000', () => {
  for (const size of [
    { width: 800, height: 600 },
    { width: 1600, height: 1000 },
  ]) {
    it(`keeps the prompt first and the chips in one row at ${size.width}×${size.height}`, async () => {
      const harness = await startHarness([]);
      defer(() => harness.close());
      const alpha = join(harness.workspace, 'project-alpha');
      mkdirSync(alpha);
      const page = await open(harness.services);
      await page.setViewportSize(size);
      await page.getByTestId('new-task-prompt').fill('tidy the photos');
      const field = page.getByTestId('new-task-workspace');
      await field.fill(harness.workspace + '/');
      await field.press('Enter');
      await page.getByTestId('new-task-add-database').press('Enter');
      // Database… adds a row and puts the focus in its location.
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('database-url-1');
      await page.keyboard.type('/tmp/shop.db');
      await field.fill(join(harness.workspace, 'proj'));
      await page.getByTestId('folder-options').getByRole('option').first().waitFor();
      const chips = page.getByTestId('grant-chip');
      expect(await chips.allTextContents()).toEqual([`Folder${harness.workspace}×`, 'Databasedb/tmp/shop.db×']);
      // The chips sit under the prompt, side by side.
      const prompt = await page.getByTestId('new-task-prompt').boundingBox();
      const [first, second] = [await chips.nth(0).boundingBox(), await chips.nth(1).boundingBox()];
      expect(first!.y).toBeGreaterThan(prompt!.y + prompt!.height);
      expect(Math.abs(first!.y - second!.y)).toBeLessThan(4);
      await page.screenshot({ path: join(SCREENSHOTS, `composer-${size.width}x${size.height}.png`) });
      // With chips and the open list, axe finds nothing serious.
      expect(await seriousViolations(page)).toEqual([]);
    });
  }
});
