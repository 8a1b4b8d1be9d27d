// The built CLI (bin/posthoc.js → out/main/cli.js) as a person runs it, against a scripted local model.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliTestbed, jsonLines, runPosthoc } from '../support/posthoc-cli';

const { dirs, model } = cliTestbed();
const posthoc = runPosthoc;


describe('posthoc CLI', () => {
  it('run --json creates the file, reports the action, and undo removes it (exit 0)', async () => {
    const llm = await model(["```python\nopen('hello.txt','w').write('hi there')\nprint('ok')\n```", 'Made hello.txt.']);
    const ws = dirs.workspace();
    const dataDir = dirs.make('posthoc-data-');
    writeFileSync(join(ws, 'keep.txt'), 'unrelated');
    const env = { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' };

    const run = await posthoc(['run', 'make a file hello.txt that greets me', '--workspace', ws, '--data-dir', dataDir, '--json'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = jsonLines(run.stdout);
    expect(lines.map((l) => l.type)).toEqual(['action', 'task']);
    const action = lines[0]!.action;
    expect(action).toMatchObject({
      seq: 1,
      language: 'python',
      status: 'done',
      output: { stdout: 'ok\n', stderr: '', exitCode: 0 },
      effects: [{ channel: 'fs', added: ['hello.txt'], modified: [], deleted: [] }],
      reverse: { state: 'ready' },
      confinement: { level: 'reversible' },
    });
    expect(typeof action.id).toBe('string');
    expect(typeof action.source).toBe('string');
    expect(lines[1]!.task).toMatchObject({ status: 'done', answer: 'Made hello.txt.' });
    expect(readFileSync(join(ws, 'hello.txt'), 'utf8')).toBe('hi there');

    const listed = await posthoc(['actions', '--data-dir', dataDir, '--json']);
    expect(JSON.parse(listed.stdout).map((a: { id: string }) => a.id)).toEqual([action.id]);
    const tasks = await posthoc(['tasks', '--data-dir', dataDir, '--json']);
    expect(JSON.parse(tasks.stdout)[0]).toMatchObject({ id: lines[1]!.task.id, status: 'done' });

    const undo = await posthoc(['undo', action.id, '--data-dir', dataDir, '--json']);
    expect(undo.code).toBe(0);
    expect(JSON.parse(undo.stdout)).toMatchObject({ outcome: 'undone', removed: ['hello.txt'] });
    expect(existsSync(join(ws, 'hello.txt'))).toBe(false);
    expect(readFileSync(join(ws, 'keep.txt'), 'utf8')).toBe('unrelated');

    const again = await posthoc(['undo', action.id, '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already undone/);
  });

  it('exits 3 naming the path when undo would overwrite a later edit', async () => {
    const llm = await model(["```sh\necho agent > f.txt\n```", 'ok']);
    const ws = dirs.workspace();
    const dataDir = dirs.make('posthoc-data-');
    const run = await posthoc(['run', 'write f', '--workspace', ws, '--data-dir', dataDir, '--json'], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'm' });
    const action = jsonLines(run.stdout)[0]!.action;
    writeFileSync(join(ws, 'f.txt'), 'my edit\n');
    const undo = await posthoc(['undo', action.id, '--data-dir', dataDir]);
    expect(undo.code).toBe(3);
    expect(undo.stderr).toContain('f.txt');
    expect(readFileSync(join(ws, 'f.txt'), 'utf8')).toBe('my edit\n');
  });

  it('exits 1 when the task fails (step limit)', async () => {
    const llm = await model(["```sh\ntrue\n```"]);
    const ws = dirs.workspace();
    const run = await posthoc(['run', 'x', '--workspace', ws, '--data-dir', dirs.make(), '--max-steps', '1'], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'm' });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/step limit/);
  });

  it('exits 2 with what to do when no model is configured, Docker is unreachable, or usage is wrong', async () => {
    const ws = dirs.workspace();
    const noModel = await posthoc(['run', 'x', '--workspace', ws, '--data-dir', dirs.make()]);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toMatch(/No model is configured.*POSTHOC_MODEL/);

    const noDocker = await posthoc(['run', 'x', '--workspace', ws, '--data-dir', dirs.make()], {
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      POSTHOC_MODEL: 'm',
      DOCKER_HOST: 'unix:///nonexistent/docker.sock',
    });
    expect(noDocker.code).toBe(2);
    expect(noDocker.stderr).toMatch(/Docker is not running/);

    const status = await posthoc(['sandbox', 'status'], { DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
    expect(status.code).toBe(2);
    expect(status.stdout).toMatch(/not reachable/);

    const usage = await posthoc(['run']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/missing required argument/);

    const badSteps = await posthoc(['run', 'x', '--max-steps', 'zero']);
    expect(badSteps.code).toBe(2);
  });

  it('sandbox status reports Docker and the image', async () => {
    const status = await posthoc(['sandbox', 'status', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ dockerAvailable: true, imagePresent: true });
  });
});
