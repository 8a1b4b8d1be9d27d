// The built CLI prints the agent's plan each time it changes: a "plan:" block in human output, a
// {"type": "plan"} line in --json; a CodeAct <execute> reply runs as an action.
import { describe, expect, it } from 'vitest';
import { cliTestbed, jsonLines, runPosthoc } from '../support/posthoc-cli';

const { dirs, model } = cliTestbed();

const replies = [
  '<plan>\n- [ ] list the folder\n- [ ] answer\n</plan>\n<execute>\nimport os\nprint(sorted(os.listdir(".")))\n</execute>',
  '<plan>\n- [x] list the folder\n- [x] answer\n</plan>\nThe folder is empty.',
];

describe('posthoc run and the plan', () => {
  it('--json carries a plan line each time the plan changes, before the task line', async () => {
    const llm = await model(replies);
    const run = await runPosthoc(['run', 'what is in the folder?', '--workspace', dirs.workspace(), '--data-dir', dirs.make('posthoc-data-'), '--json'], {
      OPENAI_BASE_URL: llm.baseUrl,
      POSTHOC_MODEL: 'scripted',
    });
    expect(run.code).toBe(0);
    const lines = jsonLines(run.stdout);
    expect(lines.map((l) => l.type)).toEqual(['plan', 'action', 'plan', 'task']);
    expect(lines[0]!.plan).toEqual([
      { text: 'list the folder', done: false },
      { text: 'answer', done: false },
    ]);
    expect(lines[1]!.action).toMatchObject({ language: 'python', status: 'done', output: { stdout: '[]\n' } });
    expect(lines[2]!.plan).toEqual([
      { text: 'list the folder', done: true },
      { text: 'answer', done: true },
    ]);
    expect(lines[3]!.task).toMatchObject({ status: 'done', answer: 'The folder is empty.' });
  });

  it('human output prints the plan as a checklist when it changes', async () => {
    const llm = await model(replies);
    const run = await runPosthoc(['run', 'what is in the folder?', '--workspace', dirs.workspace(), '--data-dir', dirs.make('posthoc-data-')], {
      OPENAI_BASE_URL: llm.baseUrl,
      POSTHOC_MODEL: 'scripted',
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('plan:\n  [ ] list the folder\n  [ ] answer');
    expect(run.stdout).toContain('plan:\n  [x] list the folder\n  [x] answer');
    expect(run.stdout.indexOf('[ ] list the folder')).toBeLessThan(run.stdout.indexOf('[x] list the folder'));
  });
});
