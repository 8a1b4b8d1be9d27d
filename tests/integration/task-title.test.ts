// The task's short title, written by the model in its first reply (<title>…</title>, issue 17): no extra model
// call, set once from the first reply that has one, announced with task:updated; never from a follow-up, never
// from HTML an action writes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../../shared/domain';
import { startHarness, type Harness } from '../support/services-harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function titlesSeen(h: Harness): string[] {
  const titles: string[] = [];
  h.services.events.subscribe((name, payload) => {
    if (name === 'task:updated') titles.push((payload as Task).title);
  });
  return titles;
}

describe('the task title', () => {
  it('comes from the first reply\'s <title>, once, with no extra model call; the system prompt asks for it', async () => {
    harness = await startHarness([
      "<title>Greet Ada in a file</title>\nI'll write it.\n```python\nopen('hello.txt', 'w').write('Hello, Ada!\\n')\n```",
      '<title>Another name entirely</title>\n<answer>\nCreated hello.txt.\n</answer>',
    ]);
    const titles = titlesSeen(harness);
    const started = await harness.services.tasks.start({ prompt: 'please make a file hello.txt that greets me, Ada, warmly', workspaces: [harness.workspace] });
    expect(started).toMatchObject({ title: 'please make a file hello.txt that greets me, Ada, warmly', prompt: 'please make a file hello.txt that greets me, Ada, warmly' });
    const task = await harness.services.tasks.wait(started.id);
    expect(task).toMatchObject({ status: 'done', title: 'Greet Ada in a file' });
    // The list keeps the person's first message too, for the sidebar's search.
    expect(harness.services.tasks.list().find((t) => t.id === task.id)).toMatchObject({
      title: 'Greet Ada in a file',
      prompt: 'please make a file hello.txt that greets me, Ada, warmly',
    });
    expect(titles).toContain('Greet Ada in a file');
    expect(titles).not.toContain('Another name entirely');
    // Two replies, two model calls: the title cost none.
    expect(harness.llm.requests).toHaveLength(2);
    expect(harness.llm.requests[0]!.messages[0]!.content).toContain('<title>');
    expect(readFileSync(join(harness.workspace, 'hello.txt'), 'utf8')).toBe('Hello, Ada!\n');
  });

  it('a follow-up never renames the task', async () => {
    harness = await startHarness(['<title>Count the files</title>\n<answer>\nThere are none.\n</answer>', '<title>Renamed by a follow-up</title>\n<answer>\nStill none.\n</answer>']);
    const first = await harness.services.tasks.wait((await harness.services.tasks.start({ prompt: 'count files', workspaces: [harness.workspace] })).id);
    expect(first.title).toBe('Count the files');
    const again = await harness.services.tasks.wait((await harness.services.tasks.send(first.id, 'and now?')).id);
    expect(again).toMatchObject({ status: 'done', title: 'Count the files' });
  });

  it('a run whose replies carry no title keeps the prompt-derived one', async () => {
    harness = await startHarness(['<answer>\nDone.\n</answer>']);
    const task = await harness.services.tasks.wait((await harness.services.tasks.start({ prompt: 'say done\nwith more lines', workspaces: [harness.workspace] })).id);
    expect(task).toMatchObject({ status: 'done', title: 'say done' });
  });

  it('hostile: the <title> of HTML an action writes does not rename the task, and the page is written whole', async () => {
    harness = await startHarness([
      "I'll write the page:\n```python\nopen('index.html', 'w').write('<html><title>Pwned task</title></html>')\n```",
      '<answer>\nWrote index.html.\n</answer>',
    ]);
    const task = await harness.services.tasks.wait((await harness.services.tasks.start({ prompt: 'write a web page', workspaces: [harness.workspace] })).id);
    expect(task).toMatchObject({ status: 'done', title: 'write a web page' });
    expect(readFileSync(join(harness.workspace, 'index.html'), 'utf8')).toBe('<html><title>Pwned task</title></html>');
  });
});
