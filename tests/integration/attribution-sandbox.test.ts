// Attribution end to end, with the real sandbox and its claim library: the person writes a file and edits
// another on the host while an action waits and then writes its own. The card lists the person's changes
// apart, undo takes back only the action's, and the person's edits survive it. Root-owned folder (the
// sandbox then runs as the owner, uid 0 of the container) and a folder owned by uid 1000.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FsEffect } from '../../shared/domain';
import { OWNERS, own } from '../support/claims';
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
    own(ws, uid);
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
});
