// "Done means", tried as a new user would, in Chromium: add a generic OAuth provider (the local
// authorization server), connect it in the browser, define Slack and GitHub services that use the
// connection (local fakes), run a task whose code posts a message and opens an issue, see both calls and
// their inverse on the card, undo, and find the access token nowhere.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenSecret } from '../../main/oauth/oauth-connections';
import { Vault } from '../../main/vault/vault';
import { launchChromium, openApp, SCREENSHOTS } from '../support/browser';
import { expandCard } from '../support/cards';
import { findSecretInFiles, secretFinder } from '../support/canary';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack';
import { startAuthServer, type AuthServer } from '../support/oauth-server';
import { startHarness, type Harness } from '../support/services-harness';

const CODE = [
  'I will post the release notes and open the issue.',
  '',
  '```python',
  'import os, requests',
  "base = os.environ['POSTHOC_GATEWAY']",
  "m = requests.post(base + '/svc/slack/chat.postMessage', json={'channel': '#team', 'text': 'Release notes: 1.2 is out'}).json()",
  "print('slack', m['ok'], m['ts'])",
  "i = requests.post(base + '/svc/github/repos/ada/app/issues', json={'title': 'Crash on start', 'body': 'Seen in 1.2'})",
  "print('github', i.status_code, i.json()['number'])",
  "print(sorted(os.environ.items()))",
  '```',
].join('\n');

const SEND = [
  'Sending the announcement.',
  '',
  '```python',
  'import os, requests',
  "base = os.environ['POSTHOC_GATEWAY']",
  "r = requests.post(base + '/svc/announce/chat.postMessage', json={'channel': '#team', 'text': 'To everyone'})",
  "print(r.status_code, r.json()['error'][:40])",
  '```',
].join('\n');

let browser: Browser;
let auth: AuthServer;
let slack: FakeSlack;
let github: FakeGitHub;
let harness: Harness;
let vault: Vault;

beforeAll(async () => {
  browser = await launchChromium();
  auth = await startAuthServer();
  slack = await startFakeSlack('not-yet');
  github = await startFakeGitHub([]);
  vault = new Vault(`dev.posthoc.test-e2e-${randomUUID()}`);
  harness = await startHarness([CODE, 'Posted the release notes in #team and opened issue #1.', SEND, 'The person cancelled it.'], { vault });
});
afterAll(async () => {
  await harness?.close();
  for (const n of [tokenSecret.access('acme'), tokenSecret.refresh('acme')]) await vault?.remove(n).catch(() => false);
  await slack?.close();
  await github?.close();
  await auth?.close();
  await browser?.close();
});

describe('connected services, as a new user', () => {
  it('connects through the generic OAuth provider, runs a task on Slack and GitHub, shows and undoes both calls, and leaks no token', async () => {
    const { page, errors, close } = await openApp(browser, harness.services);
    const frames: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', (f) => frames.push(String(f.payload))));
    // The socket opens with the page: reload so its frames are recorded from the first one.
    await page.reload();
    try {
      await page.getByTestId('connections-link').click();
      await page.getByTestId('connections-page').waitFor();

      // Add the provider by its issuer, and connect it in the browser.
      await page.locator('.add-provider summary').click();
      await page.getByTestId('custom-provider-name').fill('acme');
      await page.getByTestId('custom-provider-display').fill('Acme ID');
      await page.getByTestId('custom-provider-client-id').fill('posthoc-desktop');
      await page.getByTestId('custom-provider-issuer').fill(auth.issuer);
      await page.getByTestId('custom-provider-submit').click();
      const row = page.getByTestId('connection-acme');
      await row.getByTestId('connection-connect').click();
      const popupPromise = page.waitForEvent('popup');
      await row.getByTestId('connection-sign-in-link').click();
      const popup = await popupPromise;
      await popup.getByRole('heading', { name: 'Connected to Acme ID' }).waitFor();
      await popup.close();
      await row.and(page.locator('[data-status="connected"]')).waitFor();
      expect(await row.getByTestId('connection-status').textContent()).toBe('connected as johndoe');
      const token = auth.issued.at(-1)!;
      slack.token = token;
      github.tokens.add(token);

      // Two services on the connection, with the person's rule for Slack.
      await page.getByTestId('add-service').locator(':scope > summary').click();
      for (const s of [
        { name: 'slack', url: slack.baseUrl, api: 'slack', channels: '#team, C0TEAM' },
        { name: 'github', url: github.baseUrl, api: 'github', channels: '' },
      ]) {
        await page.getByTestId('service-name').fill(s.name);
        await page.getByTestId('service-base-url').fill(s.url);
        await page.getByTestId('service-auth').selectOption('oauth');
        await page.getByTestId('service-provider').selectOption('acme');
        await page.getByTestId('service-api').selectOption(s.api);
        if (s.channels) {
          // The rule in words: "Only these channels", written as the rule language's lines, shown under Rules as text.
          await page.getByTestId('rule-preset-channels').click();
          await page.getByTestId('rule-preset-value').fill(s.channels);
          await page.getByTestId('rule-preset-add').click();
          expect(await page.getByTestId('service-body-rules').inputValue()).toBe('POST /chat.postMessage channel=#team,C0TEAM\nPOST /chat.scheduleMessage channel=#team,C0TEAM');
        }
        await page.getByTestId('service-submit').click();
        if (s.name === 'github') {
          // The connection's token went only to Slack's origin so far: the form asks before sending it to another.
          const confirm = page.getByTestId('service-origin-confirm');
          await confirm.waitFor();
          expect(await confirm.textContent()).toContain(`Send the acme connection's token to ${new URL(github.baseUrl).origin}?`);
          expect(await page.getByTestId('service-github').count()).toBe(0);
          await page.getByTestId('service-origin-allow').click();
        }
        await page.getByTestId(`service-${s.name}`).waitFor();
      }
      expect(await page.getByTestId('service-slack').textContent()).toContain('OAuth connection acme');
      await page.getByTestId('add-service').locator(':scope > summary').click();
      await page.getByTestId('connections-page').evaluate((el) => el.closest('.main-pane')?.scrollTo(0, 0));
      await page.screenshot({ path: join(SCREENSHOTS, 'connections.png'), fullPage: true });

      // The task.
      await page.getByTestId('new-task-button').click();
      await page.getByTestId('new-task-prompt').fill('post the release notes in #team and open an issue for the bug');
      await page.getByTestId('new-task-workspace').fill(harness.workspace);
      await page.getByTestId('new-task-add-service').click();
      await page.getByTestId('new-task-service-slack').check();
      await page.getByTestId('new-task-service-github').check();
      await page.getByTestId('new-task-submit').click();

      const card = page.getByTestId('action-card').first();
      await card.and(page.locator('[data-status="done"]')).waitFor({ timeout: 90_000 });
      await expandCard(card);
      await page.getByTestId('task-answer').waitFor({ timeout: 60_000 });
      const inverses = await card.getByTestId('call-inverse').allTextContents();
      expect(inverses).toHaveLength(2);
      expect(inverses[0]).toMatch(/undo sends POST svc\/slack\/chat\.delete \{"channel":"C0TEAM","ts":"\d+\.\d+"\} — Delete the message/);
      expect(inverses[1]).toMatch(/undo sends PATCH svc\/github\/repos\/ada\/app\/issues\/1 .*— Close issue #1 in ada\/app/);
      expect(await card.getByTestId('confinement-badge').textContent()).toBe('compensable');
      expect(await card.getByTestId('reverse-plan').textContent()).toMatch(/Send PATCH svc\/github\/repos\/ada\/app\/issues\/1 \(Close issue #1 in ada\/app\), then POST svc\/slack\/chat\.delete/);
      expect(slack.messages).toHaveLength(1);
      expect(github.issues).toEqual([expect.objectContaining({ number: 1, state: 'open' })]);
      await page.screenshot({ path: join(SCREENSHOTS, 'connections-task.png'), fullPage: true });

      await card.getByTestId('action-undo').click();
      await card.and(page.locator('[data-status="undone"]')).waitFor();
      expect(await card.getByTestId('undo-result').textContent()).toMatch(/^Undone: took back Close issue #1 in ada\/app; Delete the message \d+\.\d+ in C0TEAM$/);
      expect(slack.messages[0]!.deleted).toBe(true);
      expect(github.issues[0]!.state).toBe('closed');
      expect(await card.getByTestId('call-undone').allTextContents()).toEqual([' sent (HTTP 200)', ' sent (HTTP 200)']);
      await page.screenshot({ path: join(SCREENSHOTS, 'connections-undone.png'), fullPage: true });

      // The token is nowhere: not in the model's requests, the action, the data folder, or what the page received.
      expect(await vault.get(tokenSecret.access('acme'))).toBe(token);
      const finds = secretFinder([token, (await vault.get(tokenSecret.refresh('acme')))!]);
      expect(finds(JSON.stringify(harness.llm.requests))).toBe(false);
      expect(finds(JSON.stringify(harness.services.tasks.get(harness.services.tasks.list()[0]!.id)))).toBe(false);
      expect(await findSecretInFiles(harness.dataDir, finds)).toEqual([]);
      expect(frames.length).toBeGreaterThan(5);
      expect(frames.filter(finds)).toEqual([]);
      expect(await page.content().then(finds)).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('keeps a send that can never be taken back in its hold window, and Cancel on the card stops it', async () => {
    await harness.services.handlers['service:add']({
      name: 'announce',
      baseUrl: slack.baseUrl,
      auth: { kind: 'oauth', provider: 'acme' },
      api: 'slack',
      rules: { sends: [{ method: 'POST', path: '/chat.postMessage' }], holdSeconds: 600 },
    });
    const before = slack.calls.length;
    const { page, errors, close } = await openApp(browser, harness.services);
    try {
      await page.getByTestId('new-task-prompt').fill('announce the release to everyone');
      await page.getByTestId('new-task-workspace').fill(harness.workspace);
      await page.getByTestId('new-task-add-service').click();
      await page.getByTestId('new-task-service-announce').check();
      await page.getByTestId('new-task-submit').click();
      const card = page.getByTestId('action-card').first();
      const cancel = card.getByTestId('call-cancel');
      await cancel.waitFor({ timeout: 60_000 });
      expect(await card.getByTestId('call-hold').textContent()).toMatch(/held until .*: it can never be taken back/);
      await page.screenshot({ path: join(SCREENSHOTS, 'connections-hold.png'), fullPage: true });
      await cancel.click();
      await card.and(page.locator('[data-status="done"]')).waitFor({ timeout: 60_000 });
      // Cancel was pressed inside the open card: it stays open when the action finishes.
      expect(await card.getAttribute('data-expanded')).toBe('true');
      expect(await card.getByTestId('call-hold').textContent()).toBe('cancelled: never sent');
      expect(await card.getByTestId('action-output').textContent()).toContain('409 The person cancelled POST');
      expect(slack.calls.length).toBe(before);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
