// The timeline shows a refusal of the memory channel before the click, as it does for files: task:timeline
// asks every channel whose look writes nothing (UndoChannel.preview), and the look changes nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryFile } from '../../main/effects/memory/memory-file';
import { MemoryRoute } from '../../main/effects/memory/memory-route';
import type { Effect, MemoryEffect } from '../../shared/domain';
import { startUndoHarness, type UndoHarness } from '../support/undo-harness';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const open: UndoHarness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  dirs.cleanup();
});

async function remember(m: MemoryFile, note: string): Promise<MemoryEffect> {
  const effects: Effect[] = [];
  const route = new MemoryRoute(m);
  const reply = await route.route({ task: { id: 't' } as never, actionId: 'a', recordEffect: (e) => effects.push(e as Effect) }, { method: 'POST', path: '/notes', body: Buffer.from(JSON.stringify({ note })) });
  expect(reply.status).toBe(200);
  return effects[0] as MemoryEffect;
}

describe('the timeline asks the channels that can look without touching anything', () => {
  it('names an edited memory on the undo of the note before the click, writing nothing and recording no operation', async () => {
    const memory = new MemoryFile(dirs.make('posthoc-preview-memory-'));
    const h = await startUndoHarness({ channels: { memory } });
    open.push(h);
    const note = await remember(memory, 'Reports go to out/.');
    const a = await h.act(() => writeFileSync(join(h.workspace, 'a.txt'), 'one\n'), { effects: () => [note] });

    // As the action left it: the undo is possible, by the record and by the memory's look.
    const before = await h.views.timelineChecked(h.task.id);
    expect(before.entries.find((e) => e.kind === 'action' && e.action.id === a.id)).toMatchObject({ undo: { possible: true, blockers: [] } });

    // The person edits the memory: the timeline says the undo would be refused, naming the memory.
    writeFileSync(memory.path, `${memory.read()}- my own line\n`);
    const text = readFileSync(memory.path, 'utf8');
    const after = await h.views.timelineChecked(h.task.id);
    const entry = after.entries.find((e) => e.kind === 'action' && e.action.id === a.id);
    expect(entry).toMatchObject({
      undo: { possible: false, reason: expect.stringMatching(/^Undo would be refused: .*memory was edited since the note "Reports go to out\/\." was written/), blockers: [{ channel: 'memory' }] },
    });
    // The record's read alone does not know it; the look wrote nothing and recorded no operation.
    expect(h.views.timeline(h.task.id).entries.find((e) => e.kind === 'action' && e.action.id === a.id)).toMatchObject({ undo: { possible: true } });
    expect(readFileSync(memory.path, 'utf8')).toBe(text);
    expect(readFileSync(join(h.workspace, 'a.txt'), 'utf8')).toBe('one\n');
    expect(after.entries.filter((e) => e.kind === 'operation')).toEqual([]);
    expect(h.store.getAction(a.id)!.status).toBe('done');

    // The click says the same.
    expect(await h.undo.undo(a.id)).toMatchObject({ outcome: 'conflict', blockers: [{ channel: 'memory' }] });
  });
});
