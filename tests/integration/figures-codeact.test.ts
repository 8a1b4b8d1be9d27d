// CodeAct's showcase end to end, as a new user tries it: `posthoc run "fit sales against ads in sales.csv and
// plot it"` with a scripted model, against the real image (pandas, scikit-learn, matplotlib, openpyxl, Pillow)
// and the built CLI. The fit's coefficient is printed, plt.show() puts a PNG on the action (--json carries
// `figures`), `posthoc figure` writes it out (refused to a terminal and out of range), keep releases it.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliTestbed, jsonLines, POSTHOC_BIN, runPosthoc } from '../support/posthoc-cli';

const { dirs, model } = cliTestbed();

/** The CLI with stdout kept as bytes (a PNG), or run under a pseudo-terminal (`script`) when `tty`. */
function posthocBytes(args: string[], options: { tty?: boolean } = {}): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, POSTHOC_BIN, ...args];
    const [file, ...argv] = options.tty ? ['script', '-qec', command.map((a) => `'${a}'`).join(' '), '/dev/null'] : command;
    const child = spawn(file!, argv, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr }));
  });
}

const CODEACT_FIT = [
  "I'll fit sales against ads and plot it.",
  '',
  '```python',
  'import pandas as pd',
  'from sklearn.linear_model import LinearRegression',
  'import matplotlib.pyplot as plt',
  "df = pd.read_csv('sales.csv')",
  "model = LinearRegression().fit(df[['ads']], df['sales'])",
  "print(f'coefficient: {model.coef_[0]:.2f}, intercept: {model.intercept_:.2f}')",
  'fig, ax = plt.subplots(figsize=(6, 4))',
  "ax.scatter(df['ads'], df['sales'], label='weeks')",
  "ax.plot(df['ads'], model.predict(df[['ads']]), color='tab:red', label='fit')",
  "ax.set_xlabel('ads'); ax.set_ylabel('sales'); ax.legend()",
  'plt.show()',
  '```',
].join('\n');

const SALES_CSV = ['ads,sales', ...Array.from({ length: 12 }, (_, i) => `${10 + 5 * i},${30 + 2.5 * (10 + 5 * i)}`)].join('\n') + '\n';

describe('figures: CodeAct end to end (built CLI, real image)', () => {
  it('fits, prints the coefficient, puts the chart on the action, writes it with posthoc figure, and keep releases it', async () => {
    const llm = await model([CODEACT_FIT, 'The coefficient is 2.50; the chart is on the card.']);
    const ws = dirs.workspace();
    const dataDir = dirs.make('posthoc-data-');
    writeFileSync(join(ws, 'sales.csv'), SALES_CSV);
    const env = { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' };

    const run = await runPosthoc(['run', 'fit sales against ads in sales.csv and plot it', '--workspace', ws, '--data-dir', dataDir, '--json'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const action = jsonLines(run.stdout).find((l) => l.type === 'action')!.action;
    expect(action.output).toMatchObject({ stdout: 'coefficient: 2.50, intercept: 30.00\n', stderr: '', exitCode: 0 });
    expect(action.figures).toEqual([{ n: 1, mime: 'image/png', bytes: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/), width: 600, height: 400, released: false }]);
    // The chart is no file of the person's: nothing was added to the folder.
    expect(action.effects).toMatchObject([{ channel: 'fs', added: [], modified: [] }]);

    const figure = await posthocBytes(['figure', action.id, '1', '--data-dir', dataDir]);
    expect(figure.stderr).toBe('');
    expect(figure.code).toBe(0);
    expect(figure.stdout.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
    expect(createHash('sha256').update(figure.stdout).digest('hex')).toBe(action.figures[0].sha256);
    expect(figure.stdout.length).toBe(action.figures[0].bytes);
    // N defaults to 1.
    expect((await posthocBytes(['figure', action.id, '--data-dir', dataDir])).stdout.equals(figure.stdout)).toBe(true);

    const outOfRange = await posthocBytes(['figure', action.id, '2', '--data-dir', dataDir]);
    expect(outOfRange.code).toBe(2);
    expect(outOfRange.stdout.length).toBe(0);
    expect(outOfRange.stderr).toContain('No figure 2: this action drew 1 (1 to 1).');
    const toTerminal = await posthocBytes(['figure', action.id, '1', '--data-dir', dataDir], { tty: true });
    expect(toTerminal.code).toBe(2);
    // The terminal got the message only, no PNG bytes (the signature's first byte is 0x89).
    expect(toTerminal.stdout.includes(0x89)).toBe(false);
    expect(toTerminal.stdout.toString('utf8')).toContain(`stdout is a terminal: send the PNG to a file, e.g. posthoc figure ${action.id} 1 > figure-1.png`);

    const kept = await runPosthoc(['keep', action.id, '--data-dir', dataDir, '--json']);
    expect(kept.code).toBe(0);
    expect(JSON.parse(kept.stdout).figures).toEqual([expect.objectContaining({ n: 1, released: true })]);
    expect(existsSync(join(dataDir, 'figures', action.id))).toBe(false);
    const released = await posthocBytes(['figure', action.id, '1', '--data-dir', dataDir]);
    expect(released.code).toBe(1);
    expect(released.stderr).toContain('Figure 1 was released when the action was kept.');
    const listed = await runPosthoc(['actions', '--data-dir', dataDir, '--json']);
    expect(JSON.parse(listed.stdout)[0].figures).toEqual([expect.objectContaining({ n: 1, width: 600, height: 400, released: true })]);
  });

  it('openpyxl writes an xlsx and Pillow a png in the folder; savefig to a file is that file, not a figure', async () => {
    const llm = await model([
      [
        '```python',
        'from openpyxl import Workbook',
        'from PIL import Image',
        'import matplotlib.pyplot as plt',
        'wb = Workbook(); ws = wb.active; ws.title = "Sales"',
        'ws.append(["month", "sales"])',
        'for i in range(1, 31): ws.append([f"m{i}", 100 + i])',
        'wb.save("report.xlsx")',
        'Image.new("RGB", (64, 32), (200, 40, 40)).save("swatch.png")',
        'plt.plot([1, 2, 3]); plt.savefig("line.png")',
        'print("ok")',
        '```',
      ].join('\n'),
      'Done.',
    ]);
    const ws = dirs.workspace();
    const dataDir = dirs.make('posthoc-data-');
    const run = await runPosthoc(['run', 'write a report', '--workspace', ws, '--data-dir', dataDir, '--json'], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' });
    expect(run.stderr).toBe('');
    const action = jsonLines(run.stdout).find((l) => l.type === 'action')!.action;
    expect(action.output).toMatchObject({ stdout: 'ok\n', exitCode: 0 });
    expect([...action.effects[0].added].sort()).toEqual(['line.png', 'report.xlsx', 'swatch.png']);
    expect(action.figures).toEqual([]);
  });
});
