// End to end in Chromium: the agent's plan above the conversation, a message typed while the agent works
// reaching its next request, and reasoning shown folded. The built renderer served by the web host, real
// services, and a scripted local OpenAI-compatible model (the only stand-in).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { startHarness, type Harness } from '../support/services-harness';

const { open, defer } = browserTestbed({ width: 1280, height: 860 });

describe('the plan and steering in the browser', () => {
  it('shows the plan as it changes, delivers a message typed mid-task at the next turn, folds the reasoning', async () => {
    const harness: Harness = await startHarness([
      '<plan>\n- [ ] wait for go.txt\n- [ ] report how long it took\n</plan>\nWaiting for the marker file.\n\n```bash\nwhile [ ! -f go.txt ]; do sleep 0.1; done\necho found go.txt\n```',
      '<think>\nThe person asked for French.\n</think>\n<plan>\n- [x] wait for go.txt\n- [x] report how long it took\n</plan>\nJ\'ai trouvé go.txt.',
    ]);
    defer(() => harness.close());
    const page = await open(harness.services);

    await page.getByTestId('new-task-prompt').fill('wait for go.txt and tell me');
    await page.getByTestId('new-task-workspace').fill(harness.workspace);
    await page.getByTestId('new-task-submit').click();

    // The plan is above the conversation while the action runs.
    await page.getByTestId('task-plan').waitFor({ timeout: 60_000 });
    await page.getByTestId('action-card').and(page.locator('[data-status="running"]')).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('task-plan-item').allTextContents()).toEqual(['☐ wait for go.txt', '☐ report how long it took']);

    // The person types while the agent works.
    await page.getByTestId('follow-up-input').fill('Answer in French, please.');
    await page.getByTestId('follow-up-submit').click();
    await expect.poll(() => page.getByTestId('follow-up-input').inputValue()).toBe('');
    expect(await page.getByTestId('task-status').textContent()).toBe('running');
    await page.screenshot({ path: join(SCREENSHOTS, 'plan-while-running.png'), fullPage: true });
    writeFileSync(join(harness.workspace, 'go.txt'), 'go');

    await page.getByTestId('task-answer').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByTestId('task-status').textContent()).toBe('done');
    const second = harness.llm.requests[1]!;
    expect(second.messages.at(-1)).toEqual({ role: 'user', content: 'Answer in French, please.' });
    await expect.poll(() => page.locator('[data-testid="task-plan-item"][data-done="true"]').count()).toBe(2);
    expect(await page.getByTestId('task-answer').textContent()).toContain("J'ai trouvé go.txt.");
    // The reasoning is there, folded; the plan tag is not shown as text.
    const reasoning = page.getByTestId('task-answer').getByTestId('message-reasoning');
    expect(await reasoning.getAttribute('open')).toBeNull();
    expect(await page.getByTestId('task-answer').textContent()).not.toContain('<plan>');
    // The message is in the conversation as the person's.
    expect(await page.locator('[data-testid="message"][data-role="user"]').allTextContents()).toEqual([
      expect.stringContaining('wait for go.txt and tell me'),
      expect.stringContaining('Answer in French, please.'),
    ]);
    await page.screenshot({ path: join(SCREENSHOTS, 'plan-done.png'), fullPage: true });
  });
});
