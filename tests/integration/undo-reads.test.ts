// What one undo of a file action reads and writes of the record, counted through spies on the real
// store and event bus (issue 27): the outcome is unchanged, the work is done once.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startUndoHarness, type UndoHarness } from '../support/undo-harness';

let h: UndoHarness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
  h = undefined;
});

function spies(harness: UndoHarness) {
  const getAction = vi.spyOn(harness.store, 'getAction');
  const getTask = vi.spyOn(harness.store, 'getTask');
  const setStatus = vi.spyOn(harness.store, 'setActionStatus');
  const writeStatus = vi.spyOn(harness.store, 'writeActionStatus');
  const emit = vi.spyOn(harness.events, 'emit');
  return {
    /** Reads of the action's row, outside setActionStatus's own read before its write. */
    reads: (id: string) => getAction.mock.calls.filter(([x]) => x === id).length - setStatus.mock.calls.filter(([x]) => x === id).length,
    taskReads: () => getTask.mock.calls.length,
    writes: (id: string) => setStatus.mock.calls.filter(([x]) => x === id).length + writeStatus.mock.calls.filter(([a]) => a.id === id).length,
    emits: (name: string) => emit.mock.calls.filter(([n]) => n === name).length,
    clear: () => [getAction, getTask, setStatus, writeStatus, emit].forEach((m) => m.mockClear()),
  };
}

describe('one undo of a file action', () => {
  it('writes its status once and tells the timeline once, undo and redo alike, reading its row and its task once', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    const a1 = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'one\n'));

    const s = spies(h);
    expect(await h.undo.undo(a1.id)).toMatchObject({ outcome: 'undone', removed: ['a.txt'], action: { status: 'undone' } });
    expect(existsSync(join(ws, 'a.txt'))).toBe(false);
    // Before issue 27: two status writes, two timeline events, seven reads of the row (one inside each write) and four of the task.
    expect(s.writes(a1.id)).toBe(1);
    expect(s.emits('timeline:updated')).toBe(1);
    expect(s.emits('action:updated')).toBe(1);
    expect(s.reads(a1.id)).toBe(1);
    expect(s.taskReads()).toBe(1);
    expect(h.store.getAction(a1.id)!.status).toBe('undone');

    s.clear();
    expect(await h.undo.redo(a1.id)).toMatchObject({ outcome: 'redone', action: { status: 'done' } });
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('one\n');
    expect(s.writes(a1.id)).toBe(1);
    expect(s.emits('timeline:updated')).toBe(1);
    expect(s.emits('action:updated')).toBe(1);
    expect(s.reads(a1.id)).toBe(1);
    expect(h.store.getAction(a1.id)!.status).toBe('done');
  });

  it('a refused undo writes nothing and tells the timeline once', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    const a1 = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'one\n'));
    writeFileSync(join(ws, 'a.txt'), 'the person edited it\n');

    const s = spies(h);
    expect(await h.undo.undo(a1.id)).toMatchObject({ outcome: 'conflict', action: { status: 'done' } });
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('the person edited it\n');
    expect(s.writes(a1.id)).toBe(0);
    expect(s.emits('timeline:updated')).toBe(1);
    expect(s.emits('action:updated')).toBe(1);
  });
});
