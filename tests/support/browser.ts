// Chromium (Debian's, driven by playwright-core) against the web host serving the built renderer.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startWebHost } from '../../main/ipc/web-host';
import type { AppServices } from '../../main/services/app-services';

export const RENDERER_DIR = resolve('out/renderer');
export const SCREENSHOTS = resolve('test-output/e2e');

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) throw new Error('The renderer is not built: run "npm run build" (npm test does it first).');
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.POSTHOC_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // No traffic leaves the machine: every host but localhost and 127.0.0.1 fails at once, without a DNS lookup. Pages that
      // are not Posthoc's (oidc-provider's sign-in pages import a web font) would otherwise wait on the resolver.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
    ],
  });
}

/** Opens the app for `services` in a fresh browser context; returns the page, its page errors, and a close function. */
export async function openApp(
  browser: Browser,
  services: AppServices,
  viewport = { width: 1280, height: 860 },
): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
  const host = await startWebHost(services, { rendererDir: RENDERER_DIR });
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(host.url);
  return {
    page,
    errors,
    async close() {
      await context.close();
      await host.close();
    },
  };
}

/**
 * What a browser test file needs, registered once: Chromium for the file, `open` for the app of some
 * services (the page must end without page errors), and `defer` for cleanups, run after each test in
 * reverse order.
 */
export function browserTestbed(viewport: { width: number; height: number }): {
  /** `size`: this page's viewport instead of the file's. */
  open(services: AppServices, size?: { width: number; height: number }): Promise<Page>;
  defer(cleanup: () => Promise<void> | void): void;
} {
  let browser: Browser | undefined;
  const cleanups: Array<() => Promise<void> | void> = [];
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    async open(services, size) {
      const app = await openApp(browser!, services, size ?? viewport);
      cleanups.push(async () => {
        await app.close();
        expect(app.errors).toEqual([]);
      });
      return app.page;
    },
    defer(cleanup) {
      cleanups.push(cleanup);
    },
  };
}
