// Figures and pictures on the card, in Chromium against the real services and the real image: CodeAct's fit
// (pandas, scikit-learn, matplotlib's plt.show()) puts its chart on the card; the png Pillow wrote shows as a
// thumbnail that opens full size; the xlsx openpyxl wrote and the CSV pandas wrote show their first rows; an
// SVG with a script shows as an image and its script never runs; keep releases the figure and the card says so.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { expandCard } from '../support/cards';
import { startHarness, type Harness } from '../support/services-harness';

const { open, defer } = browserTestbed({ width: 1280, height: 1100 });

const SALES_CSV = ['ads,sales', ...Array.from({ length: 12 }, (_, i) => `${10 + 5 * i},${30 + 2.5 * (10 + 5 * i)}`)].join('\n') + '\n';

const REPLY = [
  "I'll fit sales against ads, plot it, and write the results.",
  '',
  '```python',
  'import pandas as pd',
  'from sklearn.linear_model import LinearRegression',
  'import matplotlib.pyplot as plt',
  'from openpyxl import Workbook',
  'from PIL import Image, ImageDraw',
  "df = pd.read_csv('sales.csv')",
  "model = LinearRegression().fit(df[['ads']], df['sales'])",
  "print(f'coefficient: {model.coef_[0]:.2f}')",
  "df['fitted'] = model.predict(df[['ads']])",
  "df.to_csv('fitted.csv', index=False)",
  'fig, ax = plt.subplots(figsize=(6, 4))',
  "ax.scatter(df['ads'], df['sales'], label='weeks')",
  "ax.plot(df['ads'], df['fitted'], color='tab:red', label=f'fit: sales = {model.coef_[0]:.2f} x ads + {model.intercept_:.1f}')",
  "ax.set_xlabel('ads'); ax.set_ylabel('sales'); ax.legend(); ax.set_title('Sales against ads')",
  'plt.show()',
  'wb = Workbook(); sheet = wb.active; sheet.title = "Fit"',
  'sheet.append(["ads", "sales", "fitted"])',
  'for row in df.itertuples(index=False): sheet.append([row.ads, row.sales, round(row.fitted, 2)])',
  'wb.save("fit.xlsx")',
  'img = Image.new("RGB", (160, 100), (240, 240, 255)); d = ImageDraw.Draw(img)',
  'd.rectangle([20, 20, 140, 80], fill=(47, 95, 208))',
  'img.save("swatch.png")',
  "open('badge.svg', 'w').write('<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"80\" height=\"40\"><script>parent.pwned = 1; window.pwned = 1</script><rect width=\"80\" height=\"40\" fill=\"#1a7f37\"/></svg>')",
  '```',
].join('\n');

describe('figures and pictures on the card (browser)', () => {
  it('shows the chart plt.show() drew, thumbnails that open full size, the first rows of an xlsx and a csv; keep releases the figure', async () => {
    const harness: Harness = await startHarness([REPLY, 'The coefficient is 2.50; the chart is on the card.']);
    defer(() => harness.close());
    writeFileSync(join(harness.workspace, 'sales.csv'), SALES_CSV);
    const page = await open(harness.services);

    await page.getByTestId('new-task-prompt').fill('fit sales against ads in sales.csv and plot it');
    await page.getByTestId('new-task-workspace').fill(harness.workspace);
    await page.getByTestId('new-task-submit').click();

    const card = page.getByTestId('action-card').first();
    await card.and(page.locator('[data-status="done"]')).waitFor({ timeout: 120_000 });
    await expandCard(card);
    expect(await card.textContent()).toContain('coefficient: 2.50');

    const figure = card.getByTestId('action-figure');
    await figure.waitFor();
    await expect.poll(() => figure.locator('img').evaluate((img: HTMLImageElement) => [img.complete, img.naturalWidth, img.naturalHeight])).toEqual([true, 600, 400]);
    expect(await figure.locator('img').getAttribute('src')).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(await figure.textContent()).toContain('Figure 1 · 600 × 400');

    const thumbs = card.getByTestId('file-thumbnail');
    await expect.poll(() => thumbs.count()).toBe(2);
    const swatch = thumbs.filter({ hasText: 'swatch.png' });
    await expect.poll(() => swatch.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(160);
    const badge = thumbs.filter({ hasText: 'badge.svg' });
    expect(await badge.locator('img').getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    // Shown only as an image: the SVG's script never ran and no markup of it is in the page.
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await card.locator('script, svg rect').count()).toBe(0);

    const tables = card.getByTestId('file-table');
    await expect.poll(() => tables.count()).toBe(2);
    const xlsx = tables.filter({ hasText: 'fit.xlsx' });
    expect(await xlsx.locator('th').allTextContents()).toEqual(['ads', 'sales', 'fitted']);
    expect(await xlsx.locator('tbody tr').first().locator('td').allTextContents()).toEqual(['10', '55', '55']);
    const csv = tables.filter({ hasText: 'fitted.csv' });
    expect(await csv.locator('th').allTextContents()).toEqual(['ads', 'sales', 'fitted']);
    expect(await csv.locator('tbody tr').count()).toBe(12);
    await figure.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'figures-card.png') });
    await csv.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'figures-card-tables.png') });

    await figure.locator('button.picture-open').click();
    const full = page.getByTestId('picture-full');
    await full.waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'figure-full-size.png') });
    await page.keyboard.press('Escape');
    await expect.poll(() => full.count()).toBe(0);

    await card.getByTestId('action-keep').click();
    await card.and(page.locator('[data-status="kept"]')).waitFor();
    await card.getByTestId('figure-released').waitFor();
    expect(await card.getByTestId('figure-released').textContent()).toContain('Figure 1 (600 × 400) was released when the action was kept.');
  });
});
