// The agent's memory as a person meets it, through the built CLI against a scripted model: a fact the
// agent writes in one task (code POSTing to $POSTHOC_GATEWAY/memory/notes) is in the next task's first
// request; undo of the action that wrote it takes it off; an edit by the person since makes undo refuse,
// naming the memory; `posthoc memory show|edit|clear`; --no-memory runs without it.
import { describe, expect, it } from 'vitest';
import { cliTestbed, jsonLines, runPosthoc } from '../support/posthoc-cli';

const { dirs, model } = cliTestbed();

const FACT = 'The invoices of 2026 are in books/2026, one CSV per month.';
const WRITE = `\`\`\`python\nimport os, requests\nr = requests.post(os.environ['POSTHOC_GATEWAY'] + '/memory/notes', json={'note': ${JSON.stringify(FACT)}})\nprint(r.status_code, r.text)\n\`\`\``;

async function remember(dataDir: string, extra: string[] = []) {
  const llm = await model([WRITE, 'Noted where the invoices are.']);
  const run = await runPosthoc(['run', 'remember where my invoices are', '--workspace', dirs.workspace(), '--data-dir', dataDir, '--json', ...extra], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' });
  expect(run.code, run.stderr).toBe(0);
  return { llm, action: jsonLines(run.stdout)[0]!.action };
}

async function firstRequestOfNextTask(dataDir: string, extra: string[] = []): Promise<string> {
  const llm = await model(['Done.']);
  const run = await runPosthoc(['run', 'anything', '--workspace', dirs.workspace(), '--data-dir', dataDir, '--json', ...extra], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' });
  expect(run.code, run.stderr).toBe(0);
  return llm.requests[0]!.messages[0]!.content;
}

describe('memory', () => {
  it('a fact written in one task is in the next task\'s first request; undo of the action that wrote it takes it off', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const { action } = await remember(dataDir);
    expect(action.output.stdout).toMatch(/^200 /);
    expect(action.effects.filter((e: { channel: string }) => e.channel === 'memory')).toEqual([expect.objectContaining({ channel: 'memory', note: FACT, refused: null })]);
    expect(action.reverse.steps).toEqual([{ channel: 'memory', note: FACT }]);

    const shown = await runPosthoc(['memory', 'show', '--data-dir', dataDir]);
    expect(shown.stdout).toBe(`- ${FACT}\n`);
    expect(await firstRequestOfNextTask(dataDir)).toContain(`Memory:\n`);
    expect(await firstRequestOfNextTask(dataDir)).toContain(`- ${FACT}`);

    const undo = await runPosthoc(['undo', action.id, '--data-dir', dataDir, '--json']);
    expect(undo.code, undo.stderr).toBe(0);
    expect((await runPosthoc(['memory', 'show', '--data-dir', dataDir])).stdout).toMatch(/^The memory is empty/);
    expect(await firstRequestOfNextTask(dataDir)).not.toContain(FACT);
  }, 180_000);

  it('an edit by the person since makes undo refuse, naming the memory; edit and clear go through', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const { action } = await remember(dataDir);
    // The person's editor appends a line of their own.
    const edit = await runPosthoc(['memory', 'edit', '--data-dir', dataDir], { EDITOR: "sh -c 'echo \"- I prefer ISO dates.\" >> \"$0\"'" });
    expect(edit.code, edit.stderr).toBe(0);
    expect((await runPosthoc(['memory', 'show', '--data-dir', dataDir])).stdout).toBe(`- ${FACT}\n- I prefer ISO dates.\n`);

    const undo = await runPosthoc(['undo', action.id, '--data-dir', dataDir]);
    expect(undo.code).toBe(3);
    expect(undo.stderr).toMatch(/memory was edited since the note "The invoices of 2026/);
    expect((await runPosthoc(['memory', 'show', '--data-dir', dataDir])).stdout).toContain(FACT);

    expect((await runPosthoc(['memory', 'edit', '--data-dir', dataDir, '--text', '- Only this.\n'])).code).toBe(0);
    expect((await runPosthoc(['memory', 'show', '--data-dir', dataDir, '--json'])).stdout).toContain('"text":"- Only this.\\n"');
    expect((await runPosthoc(['memory', 'clear', '--data-dir', dataDir])).code).toBe(0);
    expect((await runPosthoc(['memory', 'show', '--data-dir', dataDir])).stdout).toMatch(/^The memory is empty/);
  }, 180_000);

  it('--no-memory: the prompt carries none of it and a write is refused', async () => {
    const dataDir = dirs.make('posthoc-data-');
    await runPosthoc(['memory', 'edit', '--data-dir', dataDir, '--text', '- A secret-free fact.\n']);
    expect(await firstRequestOfNextTask(dataDir, ['--no-memory'])).not.toContain('A secret-free fact');
    const { action } = await remember(dataDir, ['--no-memory']);
    expect(action.output.stdout).toMatch(/^403 .*--no-memory/);
    expect((await runPosthoc(['memory', 'show', '--data-dir', dataDir])).stdout).toBe('- A secret-free fact.\n');
  }, 180_000);
});
