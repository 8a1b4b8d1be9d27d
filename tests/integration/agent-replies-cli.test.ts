// Replies in other harnesses' habits through the built CLI and the real sandbox, one task of many turns
// against the scripted model server: a native run_code call with reasoning, OpenHands' function format,
// a Qwen <tool_call>, a SWE-agent untagged command, an aider edit block in a python fence, an IPython cell,
// a tool Posthoc lacks (answered, not ended), Llama's <|python_tag|>, and an answer whose example is not run.
// A representative subset of the replay set end to end; the whole set is measured by the unit replay.
import { chownSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi, type Reply } from '../support/fake-openai-server';
import { assertCliBuilt, jsonLines, runPosthoc } from '../support/posthoc-cli';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let model: FakeOpenAi | null = null;
beforeAll(assertCliBuilt);
afterEach(async () => {
  await model?.close();
  model = null;
  dirs.cleanup();
});

const replies: Reply[] = [
  { reasoning_content: 'First a file, through the tool.\n```bash\nrm -rf /workspace\n```', content: 'Starting.', tool_calls: [{ name: 'run_code', arguments: { language: 'bash', code: 'echo zero > zero.txt' } }] },
  "I'll create the first file.\n\n<function=execute_bash>\n<parameter=command>echo one > one.txt</parameter>\n</function>",
  '<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "open(\'two.txt\', \'w\').write(\'two\')"}}\n</tool_call>',
  'The first file is not needed any more.\n```\nrm one.txt\n```',
  'Here is the fix:\n\n```python\napp.py\n<<<<<<< SEARCH\nprint("helo")\n=======\nprint("hello")\n>>>>>>> REPLACE\n```',
  'Now from IPython:\n<execute_ipython>\nimport os\n!echo ipy > three.txt\nprint(os.path.exists("three.txt"))\n</execute_ipython>',
  'Let me search the web for it.\n<function=web_search>\n<parameter=query>hello</parameter>\n</function>',
  '<|python_tag|>print(6 * 7)<|eom_id|>',
  'Done: app.py prints hello, and two.txt and three.txt are written. You can run it yourself with:\n```bash\npython3 app.py\n```',
];

describe('replies in other harnesses\' habits, through the built CLI', () => {
  it('runs every call the model meant, answers the tool it lacks, and runs no example', async () => {
    model = await startFakeOpenAi(replies);
    const ws = dirs.workspace();
    writeFileSync(join(ws, 'app.py'), 'print("helo")\n');
    // The person's own file, as the folder is theirs (the harness gives it to the sandbox uid under root).
    const owner = statSync(ws);
    if (process.getuid?.() === 0) chownSync(join(ws, 'app.py'), owner.uid, owner.gid);
    const run = await runPosthoc(['run', 'tidy the folder', '--workspace', ws, '--data-dir', dirs.make('posthoc-data-'), '--json', '--max-steps', '12'], {
      OPENAI_BASE_URL: model.baseUrl,
      POSTHOC_MODEL: 'scripted',
      POSTHOC_STREAM: '1',
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = jsonLines(run.stdout);
    const actions = lines.filter((l) => l.type === 'action').map((l) => l.action as { language: string; source: string; status: string; output: { stdout: string } });
    expect(actions.map((a) => [a.language, a.status])).toEqual([
      ['bash', 'done'],
      ['bash', 'done'],
      ['python', 'done'],
      ['bash', 'done'],
      ['python', 'done'],
      ['python', 'done'],
      ['python', 'done'],
    ]);
    expect(actions[3]!.source).toBe('rm one.txt');
    expect(actions[4]!.output.stdout).toBe('Edited app.py\n');
    expect(actions[5]!.output.stdout).toBe('True\n');
    expect(actions[6]!.output.stdout).toBe('42\n');
    expect(readFileSync(join(ws, 'zero.txt'), 'utf8')).toBe('zero\n');
    expect(existsSync(join(ws, 'one.txt'))).toBe(false);
    expect(readFileSync(join(ws, 'two.txt'), 'utf8')).toBe('two');
    expect(readFileSync(join(ws, 'three.txt'), 'utf8')).toBe('ipy\n');
    expect(readFileSync(join(ws, 'app.py'), 'utf8')).toBe('print("hello")\n');
    const task = lines.find((l) => l.type === 'task')!.task as { status: string; answer: string };
    expect(task.status).toBe('done');
    expect(task.answer).toMatch(/^Done: app\.py prints hello/);
    // The tool it lacks was answered with what Posthoc has, and the task went on.
    const told = model.requests[7]!.messages.at(-1)!.content;
    expect(told).toMatch(/"web_search", which Posthoc does not have/);
    // The reasoning was never sent back.
    expect(JSON.stringify(model.requests[1]!.messages)).not.toContain('rm -rf /workspace');
    expect(model.remaining()).toBe(0);
  });
});
