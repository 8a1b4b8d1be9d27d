// Meaning over noise, in Chromium against the real services and the real sandbox: an agent makes a git
// repository, commits, branches and commits again (real git in Docker). The cards say what happened to the
// repository, never its object files; rewound from the timeline, the task reads "rewound", its plan and
// answer follow, no outside edit is said to be "kept as you left it", no object hash is anywhere on the page,
// and nothing overflows sideways. Light and dark at 800×600 and 1600×1000, with screenshots; axe finds nothing serious.
import { chownSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { startHarness, type Harness } from '../support/services-harness';

const INIT = [
  '<plan>\n- [ ] make the repository\n- [ ] commit the notes\n- [ ] branch and commit again\n</plan>',
  "I'll make a repository and commit the notes.",
  '',
  '```bash',
  'git init -q -b main .',
  'git config user.email agent@example.com && git config user.name Agent',
  'git add notes.txt && git commit -qm "first notes"',
  '```',
].join('\n');
const BRANCH = [
  '<plan>\n- [x] make the repository\n- [x] commit the notes\n- [ ] branch and commit again\n</plan>',
  'Now a branch with a second commit.',
  '',
  '```bash',
  'git checkout -qb feature',
  "printf 'second line\\n' >> notes.txt",
  'git commit -qam "second line" && git log --oneline | wc -l',
  '```',
].join('\n');
const ANSWER = '<plan>\n- [x] make the repository\n- [x] commit the notes\n- [x] branch and commit again\n</plan>\nDone: the notes are committed as two commits, the second on the branch feature.';

const HASH = /\b[0-9a-f]{38,40}\b/;
let harness: Harness;
let taskId: string;

beforeAll(async () => {
  harness = await startHarness([INIT, BRANCH, ANSWER]);
  const notes = join(harness.workspace, 'notes.txt');
  writeFileSync(notes, 'first line\n');
  // The folder's owner's, as a person's file is (the tests may run as root; the sandbox acts as the folder's owner).
  const owner = statSync(harness.workspace);
  chownSync(notes, owner.uid, owner.gid);
  const started = await harness.services.tasks.start({ prompt: 'put notes.txt in git, then commit a second line on a branch', workspaces: [harness.workspace] });
  taskId = started.id;
  expect((await harness.services.tasks.wait(taskId)).status).toBe('done');
}, 180_000);

afterAll(async () => {
  await harness?.close();
});

const { open } = browserTestbed({ width: 1600, height: 1000 });

async function openTask(size: { width: number; height: number }, scheme: 'light' | 'dark'): Promise<Page> {
  const page = await open(harness.services, size);
  await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
  const item = page.locator(`[data-testid="task-list-item"][data-task-id="${taskId}"]`);
  await item.waitFor({ state: 'attached' });
  if (!(await item.isVisible())) {
    await page.getByTestId('drawer-toggle').click();
    await item.waitFor();
  }
  await item.click();
  await page.getByTestId('task-answer').waitFor();
  if ((await page.getByTestId('sidebar-drawer').getAttribute('data-open')) !== null) await page.getByTestId('task-list').waitFor({ state: 'hidden' });
  await page.getByTestId('action-card').first().waitFor();
  return page;
}

/** Elements whose content is wider than their box (and that do not scroll it): what overflows sideways. */
const overflowing = (page: Page): Promise<string[]> =>
  page.evaluate(() => {
    const wide: string[] = [];
    const root = document.scrollingElement!;
    if (root.scrollWidth > root.clientWidth + 1) wide.push('the page');
    for (const el of document.querySelectorAll<HTMLElement>('.undo-result, .rewind-outcome, .tl-outcome, .reverse-plan, .tl-note, .changed-files, .task-answer')) {
      const style = getComputedStyle(el);
      if (style.overflowX === 'auto' || style.overflowX === 'scroll') continue;
      if (el.scrollWidth > el.clientWidth + 1) wide.push(`${el.className}: ${el.scrollWidth} > ${el.clientWidth}`);
    }
    return wide;
  });

describe('a git task, rewound', () => {
  it('says what happened to the repository, then reads "rewound" with no object hash anywhere', async () => {
    // The repository is real: two commits, the second on feature.
    expect(readFileSync(join(harness.workspace, '.git/HEAD'), 'utf8')).toBe('ref: refs/heads/feature\n');

    const page = await openTask({ width: 1600, height: 1000 }, 'light');
    const cards = page.getByTestId('action-card');
    expect(await cards.count()).toBe(2);
    expect(await cards.nth(0).getByTestId('action-changed').textContent()).toBe('git: created, committed to main');
    expect(await cards.nth(1).getByTestId('action-changed').textContent()).toBe('1 file change (~1), git: branch feature created, committed to feature, HEAD moved');
    expect(await cards.nth(0).getByTestId('reverse-plan').textContent()).toMatch(/^Undo will: Delete the git repository it made \(\d+ files in \.git\)\.$/);
    // Opened, the card lists notes.txt and the repository as one line, its files folded away.
    await cards.nth(1).getByTestId('action-toggle').click();
    expect(await cards.nth(1).getByTestId('git-summary').textContent()).toMatch(/git repository: branch feature created, committed to feature, HEAD moved \(\d+ files in \.git\)/);
    expect(await cards.nth(1).getByTestId('changed-files').textContent()).not.toContain('.git/');
    expect(await page.getByTestId('task-status').textContent()).toBe('done');
    expect(await page.locator('body').innerText()).not.toMatch(HASH);

    // Rewind to before action 1 from the timeline.
    const row = page.locator('[data-testid="timeline-action"][data-seq="1"]');
    await row.getByTestId('timeline-menu').click();
    await row.getByTestId('timeline-rewind').click();
    await expect.poll(() => row.getAttribute('data-status')).toBe('undone');
    const outcome = await row.getByTestId('timeline-outcome').textContent();
    expect(outcome).toMatch(/^Rewound actions 2, 1: removed .*the git repository \(\d+ files in \.git\)/);
    expect(outcome).not.toContain('.git/');
    expect(existsSync(join(harness.workspace, '.git'))).toBe(false);
    expect(readFileSync(join(harness.workspace, 'notes.txt'), 'utf8')).toBe('first line\n');

    // The task, its plan and its answer follow the rewind; nothing on screen says otherwise.
    await expect.poll(() => page.getByTestId('task-status').textContent()).toBe('rewound');
    expect(await page.getByTestId('task-status').getAttribute('title')).toBe('rewound to before action 1');
    expect(await page.locator('.task-status .status-dot').getAttribute('aria-label')).toBe('rewound'); // not "done" beside it
    expect(await page.getByTestId('task-plan-state').textContent()).toBe('rewound: its 3 done steps were undone');
    expect(await page.getByTestId('task-answer-rewound').textContent()).toMatch(/^Rewound since: what this answer describes was undone/);
    const text = await page.locator('body').innerText();
    expect(text).not.toMatch(HASH);
    expect(text).not.toContain('.git/objects');
    expect(text).not.toContain('Kept as you left it');
    expect(text).not.toContain('of 3 done');
    for (const step of await page.getByTestId('timeline-step').allTextContents()) expect(step).not.toContain('.git/');
    expect(await overflowing(page)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'git-rewound-1600-light.png') });
  });

  for (const [size, scheme] of [
    [{ width: 1600, height: 1000 }, 'dark'],
    [{ width: 800, height: 600 }, 'light'],
    [{ width: 800, height: 600 }, 'dark'],
  ] as const) {
    it(`reads "rewound" at ${size.width}×${size.height}, ${scheme}, with nothing overflowing and nothing serious for axe`, async () => {
      const page = await openTask(size, scheme);
      expect(await page.getByTestId('task-status').textContent()).toBe('rewound');
      expect(await page.locator('body').innerText()).not.toMatch(HASH);
      await page.getByTestId('action-card').nth(1).getByTestId('action-toggle').click();
      expect(await overflowing(page)).toEqual([]);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, `git-rewound-${size.width}-${scheme}.png`) });
    });
  }
});
