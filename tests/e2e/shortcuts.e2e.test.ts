// Every keyboard shortcut, in Chromium against the real services and the real sandbox, as a keyboard user
// presses them: the help sheet (? and Ctrl+/, listing them all), settings (Ctrl+,), a new task (Ctrl+N and
// Ctrl+Shift+O), the message box (Ctrl+L, Shift+Esc), search (Ctrl+K, which opens the drawer at 800×600),
// stop the running task (Ctrl+.), and undo the last action (Ctrl+Z, after a confirmation that says what undo
// will do; a text box keeps Ctrl+Z for itself). Light and dark at 800×600 and 1600×1000, with screenshots; axe
// finds nothing serious.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { activeTestId } from '../support/keyboard';
import { startHarness } from '../support/services-harness';

const WRITE = "I'll write the greeting.\n\n```python\nopen('hello.txt', 'w').write('hello\\n')\nprint('wrote hello.txt')\n```";
const SLOW = "Now a long step.\n\n```bash\nsleep 120\n```";

const { open, defer } = browserTestbed({ width: 1600, height: 1000 });

async function look(page: Page, name: string): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

describe('keyboard shortcuts', () => {
  it('each one does what the help sheet says, Ctrl+. stops the running task and Ctrl+Z asks before it undoes', async () => {
    const harness = await startHarness([WRITE, SLOW, 'Stopped before the end.']);
    defer(() => harness.close());
    const page = await open(harness.services);
    await page.getByTestId('new-task-prompt').waitFor();

    // ? and Ctrl+/ open the help sheet, which lists every shortcut with Ctrl (this is Linux).
    await page.locator('body').click();
    await page.keyboard.press('Shift+?');
    const help = page.getByTestId('shortcuts-help');
    await help.waitFor();
    expect(await help.getByTestId('shortcut-row').count()).toBe(7);
    const sheet = await help.textContent();
    for (const words of ['New task', 'Ctrl+N', 'Search tasks', 'Ctrl+K', 'Stop the running task', 'Ctrl+.', 'Ctrl+L', 'Settings', 'Ctrl+,', 'Undo the last action', 'Ctrl+Z', 'Ctrl+/']) expect(sheet).toContain(words);
    expect(sheet).not.toContain('⌘');
    await look(page, 'shortcuts-help-1600-light');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    await page.keyboard.press('Control+/');
    await help.waitFor();
    await page.keyboard.press('Control+/');
    await help.waitFor({ state: 'detached' });
    // The sidebar offers it too, with its keys as this platform presses them.
    expect(await page.getByTestId('shortcuts-link').getAttribute('title')).toBe('Keyboard shortcuts (Ctrl+/ or ?)');
    await page.getByTestId('shortcuts-link').click();
    await help.waitFor();
    await page.getByTestId('shortcuts-close').click();
    await help.waitFor({ state: 'detached' });

    // Ctrl+, opens Settings; Ctrl+N (and Ctrl+Shift+O, for a browser that keeps Ctrl+N) a new task, its box focused.
    await page.keyboard.press('Control+,');
    await page.getByTestId('settings').waitFor();
    await page.keyboard.press('Control+n');
    await page.getByTestId('new-task-prompt').waitFor();
    await expect.poll(() => activeTestId(page)).toBe('new-task-prompt');
    await page.keyboard.press('Control+,');
    await page.getByTestId('settings').waitFor();
    await page.keyboard.press('Control+Shift+O');
    await expect.poll(() => activeTestId(page)).toBe('new-task-prompt');

    // A task whose second action runs for two minutes.
    await page.getByTestId('new-task-prompt').fill('write hello.txt, then take your time');
    await page.getByTestId('new-task-workspace').fill(harness.workspace);
    await page.getByTestId('new-task-submit').click();
    const running = page.locator('[data-testid="action-card"][data-status="running"][aria-label="Action 2"]');
    await running.waitFor({ timeout: 90_000 });
    expect(readFileSync(join(harness.workspace, 'hello.txt'), 'utf8')).toBe('hello\n');

    // Ctrl+K goes to the search box; Ctrl+L and Shift+Esc back to the message box.
    await page.keyboard.press('Control+k');
    await expect.poll(() => activeTestId(page)).toBe('task-search');
    await page.keyboard.press('Control+l');
    await expect.poll(() => activeTestId(page)).toBe('follow-up-input');
    await page.keyboard.press('Control+k');
    await expect.poll(() => activeTestId(page)).toBe('task-search');
    await page.keyboard.press('Shift+Escape');
    await expect.poll(() => activeTestId(page)).toBe('follow-up-input');

    // Ctrl+. stops the running task, as its Stop button does.
    await page.keyboard.press('Control+.');
    await expect.poll(() => page.getByTestId('task-status').textContent(), { timeout: 60_000 }).toBe('cancelled');
    expect(await page.locator('[data-testid="action-card"][data-status="running"]').count()).toBe(0);

    // In the message box Ctrl+Z undoes typing, not an action.
    await page.getByTestId('follow-up-input').focus();
    await page.keyboard.type('abc');
    await page.keyboard.press('Control+z');
    expect(await page.getByTestId('undo-last-dialog').count()).toBe(0);
    await page.getByTestId('follow-up-input').fill('');

    // Outside it, Ctrl+Z asks first, saying what undo will do; Cancel changes nothing.
    await page.locator('.task-title').click();
    await page.keyboard.press('Control+z');
    const confirm = page.getByTestId('undo-last-dialog');
    await confirm.waitFor();
    expect(await confirm.getByRole('heading').textContent()).toBe('Undo action 1?');
    expect(await confirm.getByTestId('undo-last-plan').textContent()).toBe('Undo will: Delete hello.txt.');
    await look(page, 'shortcuts-undo-1600-light');
    await confirm.getByTestId('undo-last-cancel').click();
    await confirm.waitFor({ state: 'detached' });
    expect(existsSync(join(harness.workspace, 'hello.txt'))).toBe(true);
    await page.locator('.task-title').click();
    await page.keyboard.press('Control+z');
    await confirm.waitFor();
    await confirm.getByTestId('undo-last-confirm').click();
    await expect.poll(() => confirm.getByTestId('undo-last-result').textContent()).toBe('Undone: removed hello.txt');
    expect(existsSync(join(harness.workspace, 'hello.txt'))).toBe(false);
    await confirm.getByTestId('undo-last-close').click();
    await expect.poll(() => page.locator('[data-testid="action-card"]').first().getAttribute('data-status')).toBe('undone');

    // Nothing left to undo: it says so.
    await page.locator('.task-title').click();
    await page.keyboard.press('Control+z');
    await page.getByTestId('undo-last-nothing').waitFor();
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });

    // Dark, and at 800×600, where Ctrl+K opens the drawer to reach the search box.
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await page.keyboard.press('Control+/');
    await help.waitFor();
    await look(page, 'shortcuts-help-1600-dark');
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 800, height: 600 });
    await page.getByTestId('drawer-toggle').waitFor();
    await page.keyboard.press('Control+/');
    await help.waitFor();
    await look(page, 'shortcuts-help-800-dark');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    await page.keyboard.press('Control+k');
    await expect.poll(() => page.getByTestId('sidebar-drawer').getAttribute('data-open')).toBe('true');
    await expect.poll(() => activeTestId(page)).toBe('task-search');
    await look(page, 'shortcuts-search-800-dark');
    await page.keyboard.press('Escape');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
    await page.keyboard.press('Control+/');
    await help.waitFor();
    await look(page, 'shortcuts-help-800-light');
  });
});
