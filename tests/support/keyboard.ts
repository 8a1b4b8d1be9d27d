// Walking the app as a keyboard user does: where the focus is, and Tab (or Shift+Tab) until it reaches
// what the person wants.
import type { Page } from 'playwright-core';

/** The focused element's data-testid (its tag name when it has none; null when nothing has the focus). */
export const activeTestId = (page: Page): Promise<string | null> =>
  page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName ?? null);

/**
 * Presses Tab (Shift+Tab when `backwards`) until the focused element matches `selector`, and returns how many
 * presses it took (0 when it already had the focus); fails after `most` presses, naming where the focus was.
 */
export async function tabTo(page: Page, selector: string, options: { backwards?: boolean; most?: number } = {}): Promise<number> {
  const most = options.most ?? 30;
  for (let presses = 0; ; presses++) {
    if (await page.evaluate((s: string) => document.activeElement?.matches(s) ?? false, selector)) return presses;
    if (presses === most) throw new Error(`Tab never reached ${selector} in ${most} presses (the focus is on ${await activeTestId(page)})`);
    await page.keyboard.press(options.backwards === true ? 'Shift+Tab' : 'Tab');
  }
}
