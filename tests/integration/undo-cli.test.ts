// The built CLI's undo engine commands as a person runs them: undo refused (exit 3, the path and the
// later action named, rewind suggested), rewind, redo, timeline, diff and budget — each a fresh process,
// so the stat cache and the history come back from disk every time.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliTestbed, runPosthoc } from '../support/posthoc-cli';

const { dirs, model } = cliTestbed();
const posthoc = runPosthoc;

describe('posthoc undo, rewind, redo, timeline, diff, budget', () => {
  it('refuses an out-of-order undo with exit 3, then rewinds and redoes', async () => {
    const llm = await model([
      "```python\nopen('a.txt','w').write('one\\n')\n```",
      "```sh\nprintf 'one\\ntwo\\n' > a.txt\n```",
      'Done.',
    ]);
    const ws = dirs.workspace();
    const data = dirs.make('posthoc-data-');
    const run = await posthoc(['run', 'write a.txt twice', '--workspace', ws, '--data-dir', data, '--json'], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'm' });
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    const [first, second] = lines.filter((l) => l.type === 'action').map((l) => l.action as { id: string });
    const taskId = lines.find((l) => l.type === 'task')!.task.id as string;

    const refused = await posthoc(['undo', first!.id, '--data-dir', data]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/a\.txt: changed by action 2/);
    expect(refused.stderr).toContain(`posthoc rewind ${first!.id}`);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('one\ntwo\n');

    const diff = await posthoc(['diff', second!.id, 'a.txt', '--data-dir', data]);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toBe('--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,2 @@\n one\n+two\n');

    const rewind = await posthoc(['rewind', first!.id, '--data-dir', data]);
    expect(rewind.code).toBe(0);
    expect(rewind.stdout).toMatch(/Rewound to before action 1: undid 2, 1\./);
    expect(existsSync(join(ws, 'a.txt'))).toBe(false);

    const redoOutOfOrder = await posthoc(['redo', second!.id, '--data-dir', data, '--json']);
    expect(redoOutOfOrder.code).toBe(3);
    expect(JSON.parse(redoOutOfOrder.stdout)).toMatchObject({ outcome: 'conflict', paths: ['a.txt'] });
    expect((await posthoc(['redo', first!.id, '--data-dir', data])).code).toBe(0);
    expect((await posthoc(['redo', second!.id, '--data-dir', data])).code).toBe(0);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('one\ntwo\n');

    writeFileSync(join(ws, 'a.txt'), 'mine now\n');
    const blocked = await posthoc(['undo', second!.id, '--data-dir', data]);
    expect(blocked.code).toBe(3);
    expect(blocked.stderr).toMatch(/a\.txt: edited outside Posthoc/);

    const timeline = await posthoc(['timeline', taskId, '--data-dir', data]);
    expect(timeline.code).toBe(0);
    expect(timeline.stdout).toMatch(/#1 {2}done/);
    expect(timeline.stdout).toMatch(/edited outside Posthoc in .*: a\.txt/);
    expect(timeline.stdout).toMatch(/rewind of #2, #1: completed/);
    // The rewind order once (a rewind to before #1 undoes both, #2 first), each row its rewind's count.
    expect(timeline.stdout).toMatch(/^rewind order, newest applied first: #2, #1$/m);
    const asJson = JSON.parse((await posthoc(['timeline', taskId, '--data-dir', data, '--json'])).stdout) as {
      rewindOrder: number[];
      entries: Array<{ kind: string; action?: { seq: number }; rewind?: { count: number } }>;
    };
    expect(asJson.rewindOrder).toEqual([2, 1]);
    expect(asJson.entries.filter((e) => e.kind === 'action').map((e) => [e.action!.seq, e.rewind!.count])).toEqual([[1, 2], [2, 1]]);
  });

  it('sets and shows storage budgets, and says how to write a size', async () => {
    const data = dirs.make('posthoc-data-');
    const set = await posthoc(['budget', '--set', '2GB', '--data-dir', data]);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/default budget: 2\.0 GB/);
    const bad = await posthoc(['budget', '--set', 'lots', '--data-dir', data]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/write it like 500MB or 2GB/);
  });
});
