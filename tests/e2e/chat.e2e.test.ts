// The chat in Chromium: a final answer rendered as markdown (heading, table, task list, code with Copy), the
// agent's hostile markup shown as text and never run, a final answer's code block shown and never run as an
// action, folded action cards opened and closed by keyboard, and the composer (Enter sends, Shift+Enter adds
// a line, Enter during an IME composition does not send). Screenshots at 800×600 and 1600×1000.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import type { ChatRequest } from '../support/fake-openai-server';
import { startHarness, type Harness } from '../support/services-harness';

const { open, defer } = browserTestbed({ width: 1280, height: 860 });

const LINES = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);

const ANSWER = [
  '<answer>',
  '## Sales summary',
  '',
  '**Total: 503.**',
  '',
  '| region | total |',
  '| --- | ---: |',
  '| north | 301 |',
  '| south | 202 |',
  '',
  '- [x] read the CSV',
  '- [ ] send the report',
  '',
  '~~Draft~~ Final. The report: https://example.com/report, or [write to me](mailto:me@example.com).',
  '',
  'Hostile: <img src=x onerror="window.__pwned=1"> and [click me](javascript:window.__pwned=3) and [this](data:text/html,hi) and ![tracker](http://127.0.0.1:9/t.png)',
  '',
  '<script>window.__pwned=2</script>',
  '',
  'To run it again:',
  '',
  '```bash',
  'touch /workspace/ran-again.txt',
  '```',
  '</answer>',
].join('\n');

describe('the chat', () => {
  it('renders the answer as markdown, shows hostile markup as text, never runs the answer\'s code, and folds cards', async () => {
    // The task's replies by turn (the assistant replies so far), whatever other requests (a check of the model
    // before the task starts) reach the model.
    const turns = [
      `Let me print the lines.\n\n\`\`\`python\nprint('\\n'.join(f'line {i}' for i in range(1, 31)))\n\`\`\``,
      ANSWER,
      '<answer>\nNoted: two lines.\n</answer>',
    ];
    const reply = (request: ChatRequest): string =>
      request.messages.some((m) => m.role === 'system') ? (turns[request.messages.filter((m) => m.role === 'assistant').length] ?? 'Done.') : 'ok';
    const harness: Harness = await startHarness(Array.from({ length: 10 }, () => reply));
    defer(() => harness.close());
    const page = await open(harness.services);
    const consoleErrors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    });
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);

    // The new-task form: Shift+Enter adds a line, Enter starts the task.
    await page.getByTestId('new-task-workspace').fill(harness.workspace);
    const prompt = page.getByTestId('new-task-prompt');
    await prompt.fill('print 30 lines');
    await prompt.press('Shift+Enter');
    await prompt.pressSequentially('then summarise');
    expect(await prompt.inputValue()).toBe('print 30 lines\nthen summarise');
    expect(await page.getByTestId('new-task-hint').textContent()).toBe('Enter sends · Shift+Enter adds a line');
    await prompt.press('Enter');

    const answer = page.getByTestId('task-answer');
    await answer.waitFor({ timeout: 90_000 });
    await expect.poll(() => page.getByTestId('task-status').textContent(), { timeout: 30_000 }).toBe('done');
    const asked = harness.llm.requests.flatMap((r) => r.messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content)));
    expect(asked.some((c) => c.includes('print 30 lines\\nthen summarise'))).toBe(true);

    // Markdown: a heading, bold, a table, a task list, strikethrough, links.
    expect(await answer.locator('h2').textContent()).toBe('Sales summary');
    expect(await answer.locator('strong').first().textContent()).toBe('Total: 503.');
    const table = answer.locator('table');
    expect(await table.locator('th').allTextContents()).toEqual(['region', 'total']);
    expect(await table.locator('tbody tr').count()).toBe(2);
    expect(await table.locator('tbody tr').nth(1).locator('td').allTextContents()).toEqual(['south', '202']);
    const boxes = answer.locator('input[type="checkbox"]');
    expect(await boxes.count()).toBe(2);
    expect(await boxes.nth(0).isChecked()).toBe(true);
    expect(await boxes.nth(1).isChecked()).toBe(false);
    // Not styled as the sidebar's task rows (which share remark-gfm's class name).
    expect(await answer.locator('li.md-task-item').count()).toBe(2);
    expect(await answer.locator('.task-list-item').count()).toBe(0);
    expect(await answer.locator('del').textContent()).toBe('Draft');
    expect(await answer.locator('a[href="https://example.com/report"]').count()).toBe(1);
    expect(await answer.locator('a[href="https://example.com/report"]').getAttribute('rel')).toBe('noopener noreferrer');
    expect(await answer.locator('a[href="mailto:me@example.com"]').textContent()).toBe('write to me');

    // Hostile markup: text, never elements; no javascript: or data: link; no image fetched; nothing ran.
    const text = (await answer.textContent()) ?? '';
    expect(text).toContain('<img src=x onerror="window.__pwned=1">');
    expect(text).toContain('<script>window.__pwned=2</script>');
    expect(await answer.locator('img, script, iframe').count()).toBe(0);
    expect(await answer.locator('a').count()).toBe(2);
    expect(await answer.getByTestId('md-not-a-link').allTextContents()).toEqual(['click me', 'this']);
    expect(await answer.getByTestId('md-image').textContent()).toBe('[image: tracker]');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await answer.screenshot({ path: join(SCREENSHOTS, 'chat-answer.png') });
    expect(dialogs).toEqual([]);

    // The answer's bash block is shown as code with Copy, and never ran: one action only, no file.
    const block = answer.getByTestId('code-block');
    expect(await block.getAttribute('data-language')).toBe('bash');
    expect(await block.locator('pre').textContent()).toBe('touch /workspace/ran-again.txt');
    await block.getByTestId('copy-code').click();
    await expect.poll(() => block.getByTestId('copy-code').textContent()).toContain('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('touch /workspace/ran-again.txt');
    expect(await page.getByTestId('action-card').count()).toBe(1);
    expect(existsSync(join(harness.workspace, 'ran-again.txt'))).toBe(false);

    // The finished card is folded: its summary line says what it is; code and output are behind the toggle.
    const card = page.getByTestId('action-card');
    const toggle = card.getByTestId('action-toggle');
    expect(await card.getAttribute('data-expanded')).toBe('false');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await card.getByTestId('action-body').count()).toBe(0);
    expect(await card.getByTestId('action-status').textContent()).toBe('done');
    expect(await card.getByTestId('action-changed').textContent()).toBe('no changes');
    expect(await card.getByTestId('confinement-badge').textContent()).toBe('reversible');
    await page.setViewportSize({ width: 800, height: 600 });
    await page.screenshot({ path: join(SCREENSHOTS, 'chat-800x600.png') });

    // Keyboard: Enter opens it, the output shows its line count and the first 20 lines, Space on "Show all" shows all.
    await toggle.focus();
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const body = card.getByTestId('action-body');
    await body.waitFor();
    expect(await toggle.getAttribute('aria-controls')).toBe(await body.getAttribute('id'));
    expect(await body.getByTestId('action-code').textContent()).toContain("range(1, 31)");
    await body.getByTestId('action-code-copy').click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("print('\\n'.join(f'line {i}' for i in range(1, 31)))");
    expect(await body.getByTestId('action-output-lines').textContent()).toBe('Output · 30 lines · the first 20 shown');
    expect(await body.getByTestId('action-stdout').textContent()).toBe(`${LINES.slice(0, 20).join('\n')}\n`);
    await body.getByTestId('action-output-all').focus();
    await page.keyboard.press('Space');
    expect(await body.getByTestId('action-stdout').textContent()).toBe(`${LINES.join('\n')}\n`);
    await body.getByTestId('action-output-copy').click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${LINES.join('\n')}\n`);
    await page.setViewportSize({ width: 1600, height: 1000 });
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'chat-1600x1000.png') });
    await toggle.focus();
    await page.keyboard.press('Space');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await card.getByTestId('action-body').count()).toBe(0);

    // The follow-up box: Shift+Enter adds a line; Enter during an IME composition does not send; Enter sends.
    const followUp = page.getByTestId('follow-up-input');
    await followUp.fill('first line');
    await followUp.press('Shift+Enter');
    await followUp.pressSequentially('second line');
    expect(await followUp.inputValue()).toBe('first line\nsecond line');
    await followUp.evaluate((element) => {
      element.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', bubbles: true, cancelable: true, isComposing: true }));
    });
    expect(await followUp.inputValue()).toBe('first line\nsecond line');
    expect(await page.locator('[data-testid="message"][data-role="user"]').count()).toBe(1);
    expect(await page.getByTestId('follow-up-hint').textContent()).toBe('Enter sends · Shift+Enter adds a line');
    await followUp.press('Enter');
    await expect.poll(() => page.getByTestId('task-answer').textContent(), { timeout: 60_000 }).toContain('Noted: two lines.');
    expect(await page.locator('[data-testid="message"][data-role="user"]').nth(1).textContent()).toContain('first line\nsecond line');

    // The CSP held: nothing refused in the console.
    expect(consoleErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
  });
});
