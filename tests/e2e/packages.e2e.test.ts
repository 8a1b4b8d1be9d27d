// Packages on the card and in Settings, in Chromium against the real services and the real image: an
// action pip- and npm-installs packages that are not in the image (from a local index the test builds)
// and uses them; the card lists both downloads with their versions; Settings → Packages turns fetching
// off, and the next install's refusal is on its card with what to do.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { expandCard } from '../support/cards';
import { startPackageIndex } from '../support/package-index';
import { startHarness, type Harness } from '../support/services-harness';

const { open, defer } = browserTestbed({ width: 1280, height: 1000 });

const INSTALL = [
  "I'll install both and use them.",
  '',
  '```bash',
  'pip install tiny-pkg && npm install -g tiny-npm >/dev/null',
  'python3 -c "import tiny_pkg; print(\'tiny_pkg says\', tiny_pkg.VALUE)"',
  'node -e "console.log(\'tiny-npm says\', require(\'tiny-npm\'))"',
  '```',
].join('\n');

describe('packages (browser)', () => {
  it('lists the downloads on the card, and a refusal after Settings turns fetching off', async () => {
    const index = await startPackageIndex();
    defer(() => index.close());
    index.addWheel('tiny-pkg', '1.0.0', { 'tiny_pkg.py': 'VALUE = 42\n' });
    index.addNpm('tiny-npm', '2.0.1', { 'index.js': "module.exports = 'hello';\n" });
    const harness: Harness = await startHarness([INSTALL, 'Both work.', '```bash\npip install tiny-pkg\n```', 'Fetching is off.']);
    defer(() => harness.close());
    await harness.services.handlers['settings:update']({ pipIndexUrl: index.pipIndexUrl, npmRegistryUrl: index.npmRegistryUrl });
    const page = await open(harness.services);

    await page.getByTestId('new-task-prompt').fill('install tiny-pkg and tiny-npm and use them');
    await page.getByTestId('new-task-workspace').fill(harness.workspace);
    await page.getByTestId('new-task-submit').click();
    const card = page.getByTestId('action-card').first();
    await card.and(page.locator('[data-status="done"]')).waitFor({ timeout: 120_000 });
    await expandCard(card);
    expect(await card.textContent()).toContain('tiny_pkg says 42');
    expect(await card.textContent()).toContain('tiny-npm says hello');
    const downloads = card.getByTestId('package-download');
    await expect.poll(() => downloads.allTextContents()).toEqual([expect.stringMatching(/^pip tiny-pkg 1\.0\.0 from 127\.0\.0\.1:\d+, \d+ KiB$/), expect.stringMatching(/^npm tiny-npm 2\.0\.1 from 127\.0\.0\.1:\d+, \d+ KiB$/)]);
    await card.getByTestId('package-downloads').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'packages-card.png') });

    await page.getByRole('button', { name: 'Settings' }).click();
    const form = page.getByTestId('package-settings');
    await form.getByTestId('package-fetching').selectOption('off');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Saved.').waitFor();
    await form.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'packages-settings.png') });
    expect(harness.services.settings.value('packageFetching')).toBe('off');

    const second = await harness.services.tasks.wait((await harness.services.tasks.start({ prompt: 'install again', workspaces: [harness.workspace] })).id);
    const [refused] = harness.services.tasks.get(second.id).actions;
    expect(refused!.effects).toEqual(expect.arrayContaining([expect.objectContaining({ channel: 'packages', name: 'tiny-pkg', refused: expect.stringMatching(/turned off/) })]));
  });
});
