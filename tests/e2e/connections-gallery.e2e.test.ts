// The Connections gallery in Chromium, as a new user: each provider a card saying what it lets the agent do and
// what undo takes back, and what connecting needs before anything is clicked, with one Connect button. Where the
// distribution ships a public client (GitHub, against a local stand-in speaking GitHub's device flow), Connect
// signs in at once: no form. Without one, Connect opens exactly the provider's fields (a secret only where the
// provider requires one) and points at the field to fill; a personal access token is the path beside OAuth; and
// a provider offering the device sign-in (a real one, oidc-provider) connects with a code entered on its page.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenSecret } from '../../main/oauth/oauth-connections';
import { Vault } from '../../main/vault/vault';
import { seriousViolations } from '../support/axe';
import { launchChromium, openApp, SCREENSHOTS } from '../support/browser';
import { startDeviceAuthServer, type DeviceAuthServer } from '../support/device-auth-server';
import { startFakeGitHubOAuth, toFakeGitHub, type FakeGitHubOAuth } from '../support/fake-github-oauth';
import { startHarness, type Harness } from '../support/services-harness';

let browser: Browser;
let auth: DeviceAuthServer;
let github: FakeGitHubOAuth;
let harness: Harness;
let shipped: Harness;
let vault: Vault;
let shippedVault: Vault;
const SHIPPED_CLIENT = 'Iv1.posthoc-distribution';

beforeAll(async () => {
  browser = await launchChromium();
  auth = await startDeviceAuthServer();
  github = await startFakeGitHubOAuth([SHIPPED_CLIENT]);
  vault = new Vault(`dev.posthoc.test-gallery-${randomUUID()}`);
  shippedVault = new Vault(`dev.posthoc.test-gallery-shipped-${randomUUID()}`);
  // This repository ships no public client: the first harness reads the real data file.
  harness = await startHarness([], { vault });
  // A distribution that ships its registered GitHub client (device flow, no secret).
  shipped = await startHarness([], { vault: shippedVault, connections: { send: toFakeGitHub(() => github), publicClients: { github: { clientId: SHIPPED_CLIENT, flow: 'device' } } } });
});
afterAll(async () => {
  await harness?.close();
  await shipped?.close();
  for (const n of [tokenSecret.access('local'), tokenSecret.refresh('local'), 'github-token']) await vault?.remove(n).catch(() => false);
  for (const n of [tokenSecret.access('github'), tokenSecret.refresh('github')]) await shippedVault?.remove(n).catch(() => false);
  await github?.close();
  await auth?.close();
  await browser?.close();
});

async function openConnections(services: Harness['services'], viewport: { width: number; height: number }, scheme: 'light' | 'dark' = 'light') {
  const opened = await openApp(browser, services, viewport);
  await opened.page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
  // Narrow, the sidebar is a drawer its Tasks button opens.
  const toggle = opened.page.getByTestId('drawer-toggle');
  await opened.page.locator('[data-testid=drawer-toggle]:visible, [data-testid=connections-link]:visible').first().waitFor();
  if (await toggle.isVisible()) await toggle.click();
  await opened.page.getByTestId('connections-link').click();
  await opened.page.getByTestId('connections-page').waitFor();
  return opened;
}

describe('the Connections gallery', () => {
  it('shows each provider as a card with what it does, and guides the setup of one not set up', async () => {
    for (const viewport of [{ width: 800, height: 600 }, { width: 1600, height: 1000 }]) {
      const { page, errors, close } = await openApp(browser, harness.services, viewport);
      try {
        // Narrow, the sidebar is a drawer its Tasks button opens.
        const toggle = page.getByTestId('drawer-toggle');
        await page.locator('[data-testid=drawer-toggle]:visible, [data-testid=connections-link]:visible').first().waitFor();
        if (await toggle.isVisible()) await toggle.click();
        await page.getByTestId('connections-link').click();
        await page.getByTestId('connections-page').waitFor();
        const slack = page.getByTestId('connection-slack');
        await expect(slack.textContent()).resolves.toMatch(/Undo deletes what it posted/);
        await expect(slack.getByTestId('connection-status').textContent()).resolves.toBe('not set up');
        // One Connect button; not set up yet, it opens the guided setup at the field to fill instead of failing.
        await slack.getByTestId('connection-connect').click();
        const setup = slack.getByTestId('connection-setup');
        await expect(setup.getByTestId('connection-redirect-uri').textContent()).resolves.toBe('http://127.0.0.1/callback');
        expect(await setup.getByRole('link', { name: 'https://api.slack.com/apps' }).count()).toBe(1);
        await expect(slack.getByTestId('connection-field-error-clientId').textContent()).resolves.toBe('Fill in the client id of the app you registered with Slack.');
        // GitHub offers the device sign-in: no redirect address to register.
        const github = page.getByTestId('connection-github');
        await github.getByTestId('connection-connect').click();
        await expect(github.getByTestId('connection-setup').textContent()).resolves.toMatch(/Enable Device Flow.*No redirect address and no client secret are needed/);
        expect(await github.getByTestId('connection-redirect-uri').count()).toBe(0);
        await page.screenshot({ path: join(SCREENSHOTS, `connections-gallery-${viewport.width}.png`), fullPage: true });
        // Nothing overflows sideways.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow).toBeLessThanOrEqual(0);
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }
  });

  it('without a shipped client, asks each provider for exactly what it needs, points at the field to fill, and offers a token', async () => {
    for (const [viewport, scheme] of [
      [{ width: 800, height: 600 }, 'light'],
      [{ width: 1600, height: 1000 }, 'dark'],
    ] as const) {
      const { page, errors, close } = await openConnections(harness.services, viewport, scheme);
      try {
        const card = (id: string) => page.getByTestId(`connection-${id}`);
        // Said before anything is clicked, and the same as the form then asks.
        await expect(card('github').getByTestId('connection-needs').textContent()).resolves.toBe(
          'Needs the client id of an app you register with GitHub; no client secret. Or use a fine-grained personal access token.',
        );
        await expect(card('slack').getByTestId('connection-needs').textContent()).resolves.toBe('Needs the client id and client secret of an app you register with Slack. Or use a bot or user token.');
        await expect(card('spotify').getByTestId('connection-needs').textContent()).resolves.toBe('Needs the client id of an app you register with Spotify; a client secret is optional.');
        await expect(card('google').getByTestId('connection-needs').textContent()).resolves.toBe('Needs the client id and client secret of an app you register with Google (Gmail).');
        // GitHub (the device sign-in): the client id only, focused and marked.
        await card('github').getByTestId('connection-connect').click();
        expect(await card('github').getByTestId('connection-client-secret').count()).toBe(0);
        await expect(page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).resolves.toBe('connection-client-id');
        await expect(card('github').getByTestId('connection-client-id').getAttribute('aria-invalid')).resolves.toBe('true');
        // Slack: the client id and its secret; with the id alone, Save and connect points at the secret's field.
        await card('slack').getByTestId('connection-connect').click();
        await card('slack').getByTestId('connection-client-id').fill('1234.5678');
        await expect(card('slack').getByTestId('connection-client-secret').getAttribute('required')).resolves.toBe('');
        await card('slack').getByTestId('connection-save').click();
        await expect(card('slack').getByTestId('connection-field-error-clientSecret').textContent()).resolves.toBe('Fill in the app’s client secret: Slack requires one.');
        await expect(page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).resolves.toBe('connection-client-secret');
        // Spotify: the secret's field says it is optional.
        await card('spotify').getByTestId('connection-connect').click();
        await expect(card('spotify').getByTestId('connection-setup').textContent()).resolves.toMatch(/Client secret \(optional\)/);
        // No text sends the person to the page they are on.
        await expect(page.getByTestId('connections-page').textContent()).resolves.not.toMatch(/Connections page/);
        expect(await seriousViolations(page)).toEqual([]);
        await page.screenshot({ path: join(SCREENSHOTS, `connections-setup-${viewport.width}-${scheme}.png`), fullPage: true });
        expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }
  });

  it('stores a personal access token for GitHub and defines its service to send it', async () => {
    const { page, errors, close } = await openConnections(harness.services, { width: 1600, height: 1000 });
    try {
      const card = page.getByTestId('connection-github');
      await card.getByTestId('connection-token-toggle').click();
      const form = card.getByTestId('connection-token-form');
      expect(await form.getByRole('link', { name: 'https://github.com/settings/personal-access-tokens/new' }).count()).toBe(1);
      await form.getByTestId('connection-token').fill('github_pat_11AAAAAAA0123456789abcdefghijklmnop');
      await form.getByTestId('connection-token-save').click();
      await expect(card.getByTestId('connection-token-in-use').textContent()).resolves.toBe(
        'Your fine-grained personal access token is in the keychain as github-token; the agent reaches GitHub through github with it.',
      );
      await expect(page.getByTestId('service-github').textContent()).resolves.toMatch(/https:\/\/api\.github\.com · bearer token from github-token · undo rules: github/);
      expect(await vault.get('github-token')).toBe('github_pat_11AAAAAAA0123456789abcdefghijklmnop');
      expect(await page.content()).not.toContain('github_pat_11AAAAAAA0123456789abcdefghijklmnop');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('connects GitHub in one click with the client the distribution ships: no form, a code, no secret', async () => {
    for (const [viewport, scheme] of [
      [{ width: 800, height: 600 }, 'dark'],
      [{ width: 1600, height: 1000 }, 'light'],
    ] as const) {
      const { page, errors, close } = await openConnections(shipped.services, viewport, scheme);
      try {
        const card = page.getByTestId('connection-github');
        if (viewport.width !== 800) {
          // Connected (in the first pass): the card says as whom, and offers Disconnect.
          await expect(card.getByTestId('connection-status').textContent()).resolves.toBe('connected as ada');
          expect(await card.getByTestId('connection-disconnect').count()).toBe(1);
          expect(await seriousViolations(page)).toEqual([]);
          await page.screenshot({ path: join(SCREENSHOTS, `connections-one-click-${viewport.width}-${scheme}.png`), fullPage: true });
          expect(errors).toEqual([]);
          continue;
        }
        await expect(card.getByTestId('connection-needs').textContent()).resolves.toBe(
          'Connects in one click: you then enter a code on GitHub’s page. Or use a fine-grained personal access token.',
        );
        await expect(card.getByTestId('connection-status').textContent()).resolves.toBe('not connected');
        // The person may still use an app of their own instead.
        expect(await card.getByRole('button', { name: 'Use your own app' }).count()).toBe(1);
        await card.getByTestId('connection-connect').click();
        const code = card.getByTestId('connection-device-code');
        await code.waitFor();
        expect(await card.getByTestId('connection-setup').count()).toBe(0);
        const userCode = (await code.locator('.device-code').textContent()) ?? '';
        expect(userCode).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}$/);
        await expect(card.getByTestId('connection-sign-in-link').getAttribute('href')).resolves.toBe('https://github.com/login/device');
        expect(await seriousViolations(page)).toEqual([]);
        await page.screenshot({ path: join(SCREENSHOTS, `connections-one-click-${viewport.width}-${scheme}.png`), fullPage: true });
        // The person enters the code on GitHub's page (the stand-in's) and authorizes.
        const gh = await page.context().newPage();
        await gh.goto(`${github.baseUrl}/login/device`);
        await gh.getByLabel('Enter the code displayed on your device').fill(userCode);
        await gh.getByRole('button', { name: 'Continue' }).click();
        await gh.getByRole('button', { name: 'Authorize' }).click();
        await gh.getByRole('heading', { name: 'Congratulations, you’re all set!' }).waitFor();
        await gh.close();
        await card.and(page.locator('[data-status="connected"]')).waitFor({ timeout: 60_000 });
        await expect(card.getByTestId('connection-status').textContent()).resolves.toBe('connected as ada');
        expect(await shippedVault.get(tokenSecret.access('github'))).toMatch(/^gho_/);
        // The shipped client's id went to GitHub, and never a client secret.
        const start = github.requests.find((r) => r.path === '/login/device/code');
        expect(start?.form.client_id).toBe(SHIPPED_CLIENT);
        expect(github.requests.some((r) => 'client_secret' in r.form)).toBe(false);
        await expect(page.getByTestId('service-github').textContent()).resolves.toMatch(/OAuth connection github/);
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }
  });

  it('connects a provider that offers the device sign-in with the code shown on its card', async () => {
    const { page, errors, close } = await openApp(browser, harness.services, { width: 1600, height: 1000 });
    try {
      await page.getByTestId('connections-link').click();
      await page.getByTestId('connections-page').waitFor();
      await page.locator('.add-provider summary').click();
      await page.getByTestId('custom-provider-name').fill('local');
      await page.getByTestId('custom-provider-client-id').fill(auth.clientId);
      await page.getByTestId('custom-provider-issuer').fill(auth.issuer);
      await page.getByTestId('custom-provider-submit').click();
      const card = page.getByTestId('connection-local');
      await card.getByTestId('connection-connect').click();
      const code = card.getByTestId('connection-device-code');
      await code.waitFor();
      const userCode = (await code.locator('.device-code').textContent()) ?? '';
      expect(userCode).toMatch(/^[A-Z-]{6,}$/);
      await page.screenshot({ path: join(SCREENSHOTS, 'connections-device-code.png') });
      // The person opens the provider's page from the card, confirms the code, signs in and allows.
      const popupPromise = page.waitForEvent('popup');
      await card.getByTestId('connection-sign-in-link').click();
      const popup = await popupPromise;
      await popup.getByRole('button', { name: /continue/i }).click();
      await popup.locator('input[name=login]').fill('ada');
      await popup.locator('input[name=password]').fill('any password');
      await popup.getByRole('button', { name: /sign-in/i }).click();
      await popup.getByRole('button', { name: /continue/i }).click();
      // The person closes the page once it says so: closing it while the allow is still being sent can cancel that
      // request, and Chromium never finishes closing a page caught mid-navigation (page.close() has no timeout).
      await popup.getByRole('heading', { name: 'Sign-in Success' }).waitFor();
      await popup.close();
      await card.and(page.locator('[data-status="connected"]')).waitFor({ timeout: 60_000 });
      await expect(card.getByTestId('connection-status').textContent()).resolves.toBe('connected as ada@example.test');
      expect(await vault.get(tokenSecret.access('local'))).toMatch(/.{20,}/);
      // No redirect was ever asked for.
      expect(auth.requests.some((r) => r.path === '/auth')).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
