// action:figure and action:preview through the contract's handlers, after a real action in the real image:
// previews come from the checkpoint after the action, only for paths its effect records; a path the action
// did not write, a path with ../, a file changed on disk since and a fake image each get the answer they
// should; keep releases the figure.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/services-harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const REPLY = [
  '```python',
  'import matplotlib.pyplot as plt',
  'from PIL import Image',
  "Image.new('RGB', (30, 20), (0, 128, 0)).save('green.png')",
  "open('fake.png', 'w').write('<html><script>alert(1)</script></html>')",
  "open('table.csv', 'w').write('a,b\\n1,2\\n')",
  "open('notes.txt', 'w').write('text')",
  'plt.plot([1, 2]); plt.show()',
  '```',
].join('\n');

describe('figures and previews through the contract (real image)', () => {
  it('serves the figure and the previews of what the action wrote, from its checkpoint, and nothing else', async () => {
    harness = await startHarness([REPLY, 'Done.']);
    const { services, workspace } = harness;
    const call = <T>(name: string, input: unknown) => (services.handlers as unknown as Record<string, (i: unknown) => Promise<T>>)[name]!(input);
    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'draw', workspaces: [workspace] })).id);
    expect(task.status).toBe('done');
    const [action] = services.tasks.get(task.id).actions;
    expect(action!.figures).toHaveLength(1);

    const figure = await call<{ figure: { n: number; width: number }; base64: string }>('action:figure', { actionId: action!.id, n: 1 });
    expect(figure.figure).toMatchObject({ n: 1, width: 640, height: 480 });
    expect(Buffer.from(figure.base64, 'base64').subarray(1, 4).toString()).toBe('PNG');
    await expect(call('action:figure', { actionId: action!.id, n: 2 })).rejects.toThrow('No figure 2: this action drew 1 (1 to 1).');
    await expect(call('action:figure', { actionId: 'no-such-action', n: 1 })).rejects.toThrow(/No action no-such-action/);

    // Changed on disk since: the preview is still what the action wrote.
    writeFileSync(join(workspace, 'table.csv'), 'changed,by,the,person\n');
    expect(await call('action:preview', { actionId: action!.id, path: 'table.csv' })).toEqual({ kind: 'table', rows: [['a', 'b'], ['1', '2']], truncated: false });
    expect(await call('action:preview', { actionId: action!.id, path: 'green.png' })).toMatchObject({ kind: 'image', mime: 'image/png' });
    expect(await call('action:preview', { actionId: action!.id, path: 'fake.png' })).toEqual({ kind: 'none', reason: 'not an image its name says it is' });
    expect(await call('action:preview', { actionId: action!.id, path: 'notes.txt' })).toEqual({ kind: 'none', reason: 'no preview for this kind of file' });
    writeFileSync(join(workspace, 'mine.png'), 'x');
    await expect(call('action:preview', { actionId: action!.id, path: 'mine.png' })).rejects.toThrow('Action 1 added or changed no file mine.png.');
    await expect(call('action:preview', { actionId: action!.id, path: '../../etc/passwd' })).rejects.toThrow(/added or changed no file/);
    await expect(call('action:preview', { actionId: action!.id, path: 'green.png/../../x.png' })).rejects.toThrow(/added or changed no file/);

    await services.tasks.keep(action!.id);
    await expect(call('action:figure', { actionId: action!.id, n: 1 })).rejects.toThrow('Figure 1 was released when the action was kept.');
  });

  it('says on the action which figures were not kept, and keeps the first 20', async () => {
    const many = [
      '```python',
      'import os',
      'import matplotlib.pyplot as plt',
      "os.mkfifo('/run/posthoc-figures/0-fifo.png')",
      'for i in range(21):',
      '    plt.figure(figsize=(2, 1)); plt.plot([0, i])',
      'plt.show()',
      "print('drew 21')",
      '```',
    ].join('\n');
    harness = await startHarness([many, 'Done.']);
    const { services, workspace } = harness;
    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'draw many', workspaces: [workspace] })).id);
    const [action] = services.tasks.get(task.id).actions;
    expect(action).toMatchObject({ status: 'done', output: { stdout: 'drew 21\n' } });
    expect(action!.figures!.map((f) => f.n)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(action!.figures!.every((f) => f.width === 200 && f.height === 100)).toBe(true);
    // After matplotlib's own warning about 21 open figures, the line that says what was not kept.
    expect(action!.output.stderr).toMatch(/RuntimeWarning: More than 20 figures have been opened[\s\S]*\n\[posthoc\] figures not kept: a figure that was not a regular file\.\n$/);
  });
});
