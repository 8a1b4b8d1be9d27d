// Attribution end to end, with the real sandbox and its claim library: the person writes a file and edits
// another on the host while an action waits and then writes its own. The card lists the person's changes
// apart, undo takes back only the action's, and the person's edits survive it. Root-owned folder (the
// sandbox then runs as the owner, uid 0 of the container) and a folder owned by uid 1000.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FsEffect } from '../../shared/domain';
import { OWNERS, own, ownPaths } from '../support/claims';
import type { ChatRequest } from '../support/fake-openai-server';
import { startHarness, type Harness } from '../support/services-harness';
import { tempDirs } from '../support/temp-dir';

let harness: Harness | undefined;
const dirs = tempDirs();
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  dirs.cleanup();
});

const read = (ws: string, p: string) => (existsSync(join(ws, p)) ? readFileSync(join(ws, p), 'utf8') : null);

// The action says it started, waits for the person's file, then writes its own.
const WAITING_WRITER = [
  '```python',
  'import os, time',
  "open('started.txt', 'w').write('started\\n')",
  "while not os.path.exists('person.txt'):",
  '    time.sleep(0.05)',
  "open('action.txt', 'w').write('written by the action\\n')",
  '```',
].join('\n');

// The action writes notes.txt, says so, and waits for the person's go before it ends.
const WRITE_THEN_WAIT = [
  '```python',
  'import os, time',
  "open('notes.txt', 'w').write('the action\\n')",
  "open('started.txt', 'w').write('started\\n')",
  "while not os.path.exists('go.txt'):",
  '    time.sleep(0.05)',
  '```',
].join('\n');

const B_WRITER = "```python\nopen('b.txt', 'w').write('task B\\n')\n```";

describe.each(OWNERS)('attribution with the real sandbox ($who)', ({ uid }) => {
  it("keeps the person's edits made while the action ran, on the card and through undo", async () => {
    harness = await startHarness([WAITING_WRITER, 'Done.']);
    const { services } = harness;
    const ws = dirs.make('posthoc-attr-ws-');
    writeFileSync(join(ws, 'notes.txt'), 'v0\n');
    own(ws, uid);

    const started = await services.tasks.start({ prompt: 'write a file', workspaces: [ws] });
    // The person, while the action waits: edits notes.txt, then writes person.txt (which lets it go on).
    while (!existsSync(join(ws, 'started.txt'))) await sleep(20);
    writeFileSync(join(ws, 'notes.txt'), 'the person edited this while the action ran\n');
    writeFileSync(join(ws, 'person.txt'), 'the person\n');
    ownPaths(ws, uid, ['person.txt']);
    const task = await services.tasks.wait(started.id);
    expect(task.status, task.error ?? '').toBe('done');

    const [action] = services.tasks.get(task.id).actions;
    expect(action!.status).toBe('done');
    const effect = action!.effects.find((e): e is FsEffect => e.channel === 'fs')!;
    expect(effect).toMatchObject({ added: ['action.txt', 'started.txt'], modified: [], deleted: [] });
    expect(effect.whileRunning).toEqual({ added: ['person.txt'], modified: ['notes.txt'], deleted: [], renamed: [], ambiguous: [] });
    expect(effect.unattributed).toBeUndefined();

    expect(await services.undo.undo(action!.id)).toMatchObject({ outcome: 'undone', removed: ['action.txt', 'started.txt'] });
    expect([read(ws, 'action.txt'), read(ws, 'started.txt'), read(ws, 'person.txt'), read(ws, 'notes.txt')]).toEqual([
      null,
      null,
      'the person\n',
      'the person edited this while the action ran\n',
    ]);
  });

  it('refuses to undo a file the person edited after the action wrote it, saying why', async () => {
    harness = await startHarness([WRITE_THEN_WAIT, 'Done.']);
    const { services } = harness;
    const ws = dirs.make('posthoc-attr-ws-');
    writeFileSync(join(ws, 'notes.txt'), 'v0\n');
    own(ws, uid);
    const started = await services.tasks.start({ prompt: 'edit the notes', workspaces: [ws] });
    while (!existsSync(join(ws, 'started.txt'))) await sleep(20);
    writeFileSync(join(ws, 'notes.txt'), 'the person, after the action wrote it\n');
    writeFileSync(join(ws, 'go.txt'), 'go\n');
    ownPaths(ws, uid, ['go.txt']);
    const task = await services.tasks.wait(started.id);
    const [action] = services.tasks.get(task.id).actions;
    const effect = action!.effects.find((e): e is FsEffect => e.channel === 'fs')!;
    expect(effect).toMatchObject({ added: ['started.txt'], modified: ['notes.txt'] });
    expect(effect.whileRunning).toMatchObject({ added: ['go.txt'], modified: ['notes.txt'], ambiguous: ['notes.txt'] });

    const result = await services.undo.undo(action!.id);
    expect(result).toMatchObject({
      outcome: 'conflict',
      message: expect.stringContaining("notes.txt (also edited outside Posthoc while action 1 ran, so undo cannot tell your edit from the action's and leaves it)"),
    });
    expect([read(ws, 'notes.txt'), read(ws, 'started.txt')]).toEqual(['the person, after the action wrote it\n', 'started\n']);
  });

  it("runs a second task's action on the same folder only after the first one's, and undoing one leaves the other's files", async () => {
    // Replies by task and turn: the two conversations ask in either order.
    const reply = (r: ChatRequest) =>
      r.messages.some((m) => m.role === 'assistant') ? 'Done.' : r.messages.some((m) => m.content.includes('second task')) ? B_WRITER : WRITE_THEN_WAIT;
    harness = await startHarness([reply, reply, reply, reply], { stream: false });
    const { services } = harness;
    const ws = dirs.make('posthoc-attr-ws-');
    own(ws, uid);
    const a = await services.tasks.start({ prompt: 'the first task', workspaces: [ws] });
    while (!existsSync(join(ws, 'started.txt'))) await sleep(20);
    const b = await services.tasks.start({ prompt: 'the second task', workspaces: [ws] });
    // Task B's action is on the record, waiting for task A's lease (without it, it would run now and
    // its b.txt would land in A's window); then the person lets A finish.
    while (services.tasks.get(b.id).actions.length === 0) await sleep(20);
    expect(existsSync(join(ws, 'b.txt'))).toBe(false);
    writeFileSync(join(ws, 'go.txt'), 'go\n');
    ownPaths(ws, uid, ['go.txt']);
    const [doneA, doneB] = await Promise.all([services.tasks.wait(a.id), services.tasks.wait(b.id)]);
    expect([doneA.status, doneB.status]).toEqual(['done', 'done']);
    const [actionA] = services.tasks.get(a.id).actions;
    const [actionB] = services.tasks.get(b.id).actions;
    const fsOf = (x: typeof actionA) => x!.effects.find((e): e is FsEffect => e.channel === 'fs')!;
    // Neither window holds the other's writes: B ran after A's checkpoint after.
    expect(fsOf(actionA)).toMatchObject({ added: ['notes.txt', 'started.txt'], whileRunning: { added: ['go.txt'] } });
    expect(fsOf(actionB)).toMatchObject({ added: ['b.txt'] });
    expect(fsOf(actionB).whileRunning).toBeUndefined();

    expect(await services.undo.undo(actionA!.id)).toMatchObject({ outcome: 'undone', removed: ['notes.txt', 'started.txt'] });
    expect([read(ws, 'b.txt'), read(ws, 'go.txt'), read(ws, 'notes.txt')]).toEqual(['task B\n', 'go\n', null]);
  });
});
