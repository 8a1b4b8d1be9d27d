// The Connections gallery in Chromium, as a new user: each provider a card saying what it lets the agent do and
// what undo takes back, with one Connect button; a provider not set up opens a guided setup (the registration
// page, the exact redirect address to paste — none for a device sign-in); and a provider offering the device
// sign-in (a real one, oidc-provider) connects with a code the person enters on its page, with no redirect.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenSecret } from '../../main/oauth/oauth-connections';
import { Vault } from '../../main/vault/vault';
import { launchChromium, openApp, SCREENSHOTS } from '../support/browser';
import { startDeviceAuthServer, type DeviceAuthServer } from '../support/device-auth-server';
import { startHarness, type Harness } from '../support/services-harness';

let browser: Browser;
let auth: DeviceAuthServer;
let harness: Harness;
let vault: Vault;

beforeAll(async () => {
  browser = await launchChromium();
  auth = await startDeviceAuthServer();
  vault = new Vault(`dev.posthoc.test-gallery-${randomUUID()}`);
  harness = await startHarness([], { vault });
});
afterAll(async () => {
  await harness?.close();
  for (const n of [tokenSecret.access('local'), tokenSecret.refresh('local')]) await vault?.remove(n).catch(() => false);
  await auth?.close();
  await browser?.close();
});

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
        // One Connect button; not set up yet, it opens the guided setup instead of failing.
        await slack.getByTestId('connection-connect').click();
        const setup = slack.getByTestId('connection-setup');
        await expect(setup.getByTestId('connection-redirect-uri').textContent()).resolves.toBe('http://127.0.0.1/callback');
        expect(await setup.getByRole('link', { name: 'https://api.slack.com/apps' }).count()).toBe(1);
        // Save and connect with no client id says what is missing, and changes nothing.
        await setup.getByTestId('connection-save').click();
        await expect(slack.getByRole('alert').textContent()).resolves.toMatch(/Paste the client id of the app you registered with Slack/);
        // GitHub offers the device sign-in: no redirect address to register.
        const github = page.getByTestId('connection-github');
        await github.getByTestId('connection-connect').click();
        await expect(github.getByTestId('connection-setup').textContent()).resolves.toMatch(/Enable Device Flow.*No redirect address is needed/);
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
