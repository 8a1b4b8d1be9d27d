// End to end in Chromium: the built renderer served by the web host, real services (Docker, git
// checkpoints, SQLite) and a scripted local OpenAI-compatible model that streams its replies.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { expandCard } from '../support/cards';
import { createServices } from '../../main/services/app-services';
import { startHarness, type Harness } from '../support/services-harness';
import { tempDirs } from '../support/temp-dir';


const { open, defer } = browserTestbed({ width: 1280, height: 860 });

describe('delegating a task in the browser', () => {
  it('shows the action card, the file is on disk, Undo removes it and leaves the person\'s file', async () => {
    const harness: Harness = await startHarness([
      "I'll write a greeting into hello.txt.\n\n```python\nwith open('hello.txt', 'w') as f:\n    f.write('Hello from Posthoc!\\n')\nprint('wrote hello.txt')\n```",
      'Done: hello.txt now greets you.',
    ]);
    defer(() => harness.close());
    writeFileSync(join(harness.workspace, 'notes.txt'), 'my notes, not the agent\'s\n');
    const page = await open(harness.services);

    await page.getByTestId('new-task-prompt').fill('make a file hello.txt that greets me');
    await page.getByTestId('new-task-workspace').fill(harness.workspace);
    await page.getByTestId('new-task-submit').click();

    const card = page.getByTestId('action-card').first();
    await card.and(page.locator('[data-status="done"]')).waitFor({ timeout: 60_000 });
    await page.getByTestId('task-answer').waitFor();
    await expect.poll(() => page.getByTestId('task-status').textContent()).toBe('done');
    expect(await page.getByTestId('task-answer').textContent()).toContain('hello.txt now greets you');
    // Finished, the card is folded: its level and "Undo will" on the summary, the rest inside.
    expect(await card.getAttribute('data-expanded')).toBe('false');
    expect(await card.getByTestId('reverse-plan').textContent()).toMatch(/hello\.txt/);
    await expandCard(card);
    expect(await card.getByTestId('confinement-badge').textContent()).toBe('reversible');
    expect(await card.getByTestId('confinement-reason').textContent()).toMatch(/checkpointed/);
    expect(await card.getByTestId('changed-files').textContent()).toContain('hello.txt');
    expect(await card.getByTestId('reverse-plan').textContent()).toMatch(/hello\.txt/);
    expect(await card.textContent()).toContain('wrote hello.txt');
    expect(readFileSync(join(harness.workspace, 'hello.txt'), 'utf8')).toBe('Hello from Posthoc!\n');
    await page.screenshot({ path: join(SCREENSHOTS, 'task-view.png'), fullPage: true });

    await card.getByTestId('action-undo').click();
    await expect.poll(() => card.getByTestId('undo-result').textContent()).toMatch(/Undone/);
    await card.and(page.locator('[data-status="undone"]')).waitFor();
    expect(existsSync(join(harness.workspace, 'hello.txt'))).toBe(false);
    expect(readFileSync(join(harness.workspace, 'notes.txt'), 'utf8')).toBe('my notes, not the agent\'s\n');
    await page.screenshot({ path: join(SCREENSHOTS, 'after-undo.png'), fullPage: true });

    // The model's streamed text arrived through the same contract (streaming replies).
    expect(harness.llm.requests[0]!.stream).toBe(true);
  });

  it('shows the first-run screen when no model provider is configured', async () => {
    const dirs = tempDirs();
    const services = createServices({ dataDir: dirs.make('posthoc-data-'), env: {} });
    defer(async () => {
      await services.close();
      dirs.cleanup();
    });
    const page = await open(services);
    await page.getByTestId('first-run').waitFor();
    expect(await page.getByTestId('first-run').textContent()).toMatch(/OpenAI|Ollama/);
    await page.screenshot({ path: join(SCREENSHOTS, 'first-run.png'), fullPage: true });
  });
});
