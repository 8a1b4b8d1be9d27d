// Undo, redo and rewind through the real undo engine (SQLite history, shadow repositories, journaled
// restores) on real folders; actions are plain functions run between the checkpoints, as the sandbox's
// code would be.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startUndoHarness, type UndoHarness } from '../support/undo-harness';

let h: UndoHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const read = (ws: string, p: string) => (existsSync(join(ws, p)) ? readFileSync(join(ws, p), 'utf8') : null);
const status = (id: string) => h!.store.getAction(id)!.status;

describe('undo out of order', () => {
  it('undoes the latest action, and an earlier one whose paths nothing later touched', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    const a1 = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'one\n'));
    const a2 = await h.act(() => writeFileSync(join(ws, 'b.txt'), 'two\n'));
    const a3 = await h.act(() => writeFileSync(join(ws, 'c.txt'), 'three\n'));

    expect(await h.undo.undo(a3.id)).toMatchObject({ outcome: 'undone', removed: ['c.txt'] });
    expect(await h.undo.undo(a1.id)).toMatchObject({ outcome: 'undone', removed: ['a.txt'] });
    expect([read(ws, 'a.txt'), read(ws, 'b.txt'), read(ws, 'c.txt')]).toEqual([null, 'two\n', null]);
    expect([status(a1.id), status(a2.id), status(a3.id)]).toEqual(['undone', 'done', 'undone']);
    await expect(h.undo.undo(a1.id)).rejects.toThrow(/already undone/);
  });

  it('refuses an earlier undo when a later action changed the same path, naming it; rewind undoes both, newest first', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    writeFileSync(join(ws, 'notes.txt'), 'mine\n');
    const a1 = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'one\n'));
    const a2 = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'two\n'));
    const a3 = await h.act(() => writeFileSync(join(ws, 'other.txt'), 'x\n'));

    const refused = await h.undo.undo(a1.id);
    expect(refused).toMatchObject({
      outcome: 'conflict',
      paths: ['a.txt'],
      canRewind: true,
      blockers: [{ path: 'a.txt', by: 'action', actionSeq: 2, taskTitle: null }],
    });
    expect(refused.outcome === 'conflict' && refused.message).toMatch(/a\.txt \(changed by action 2\).*Rewind/);
    expect(read(ws, 'a.txt')).toBe('two\n');

    const rewound = await h.undo.rewind(a1.id);
    expect(rewound.outcome).toBe('rewound');
    expect(rewound.outcome === 'rewound' && rewound.undone.map((a) => a.seq)).toEqual([3, 2, 1]);
    expect([read(ws, 'a.txt'), read(ws, 'other.txt'), read(ws, 'notes.txt')]).toEqual([null, null, 'mine\n']);
    expect([status(a1.id), status(a2.id), status(a3.id)]).toEqual(['undone', 'undone', 'undone']);
  });

  it('counts a folder an action created as touched when a later change lands inside it', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    const a1 = await h.act(() => {
      mkdirSync(join(ws, 'out'));
      writeFileSync(join(ws, 'out', 'report.txt'), 'r\n');
    });
    await h.act(() => writeFileSync(join(ws, 'out', 'more.txt'), 'm\n'));
    const refused = await h.undo.undo(a1.id);
    expect(refused).toMatchObject({ outcome: 'conflict', paths: ['out/more.txt'] });
    expect(read(ws, 'out/more.txt')).toBe('m\n');
    expect(read(ws, 'out/report.txt')).toBe('r\n');
  });

  it('rewinds all or nothing: an outside edit in any of the actions refuses the whole rewind', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    const a1 = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'one\n'));
    await h.act(() => writeFileSync(join(ws, 'b.txt'), 'two\n'));
    writeFileSync(join(ws, 'b.txt'), 'the person edited this\n');
    const refused = await h.undo.rewind(a1.id);
    expect(refused).toMatchObject({ outcome: 'conflict', paths: ['b.txt'], blockers: [{ path: 'b.txt', by: 'external' }] });
    expect([read(ws, 'a.txt'), read(ws, 'b.txt')]).toEqual(['one\n', 'the person edited this\n']);
    expect(h.store.listActions(h.task.id).map((a) => a.status)).toEqual(['done', 'done']);
  });

  it('does not undo under a running agent, nor a kept action', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    const a1 = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'one\n'));
    await h.undo.keep(a1.id);
    await expect(h.undo.undo(a1.id)).rejects.toThrow(/kept/);
    await expect(h.undo.rewind(a1.id)).rejects.toThrow(/kept/);
    const a2 = await h.act(() => writeFileSync(join(ws, 'b.txt'), 'two\n'));
    let during: unknown;
    await h.act(async () => {
      during = await h!.undo.undo(a2.id).catch((e: Error) => e.message);
    });
    expect(during).toMatch(/still working on this task/);
  });
});

describe('redo', () => {
  it('redoes an undone action, and replays a rewind oldest first', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    const a1 = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'one\n'));
    const a2 = await h.act(() => {
      writeFileSync(join(ws, 'a.txt'), 'two\n');
      rmSync(join(ws, 'a.txt'));
      writeFileSync(join(ws, 'b.txt'), 'one\n');
    });
    await h.undo.rewind(a1.id);
    expect([read(ws, 'a.txt'), read(ws, 'b.txt')]).toEqual([null, null]);

    // a2 assumed a1's a.txt: redoing it first is refused, a1 then a2 works.
    expect(await h.undo.redo(a2.id)).toMatchObject({ outcome: 'conflict' });
    expect(await h.undo.redo(a1.id)).toMatchObject({ outcome: 'redone', restored: ['a.txt'] });
    expect(read(ws, 'a.txt')).toBe('one\n');
    expect(await h.undo.redo(a2.id)).toMatchObject({ outcome: 'redone' });
    expect([read(ws, 'a.txt'), read(ws, 'b.txt')]).toEqual([null, 'one\n']);
    expect([status(a1.id), status(a2.id)]).toEqual(['done', 'done']);

    // And it can be undone again after the redo.
    expect(await h.undo.undo(a2.id)).toMatchObject({ outcome: 'undone' });
    expect([read(ws, 'a.txt'), read(ws, 'b.txt')]).toEqual(['one\n', null]);
  });

  it('refuses a redo when something touched its paths since the undo', async () => {
    h = await startUndoHarness();
    const ws = h.workspace;
    const a1 = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'agent\n'));
    await h.undo.undo(a1.id);
    writeFileSync(join(ws, 'a.txt'), 'person\n');
    expect(await h.undo.redo(a1.id)).toMatchObject({ outcome: 'conflict', paths: ['a.txt'], blockers: [{ by: 'external' }] });
    expect(read(ws, 'a.txt')).toBe('person\n');

    // A later action on the same path blocks it too.
    rmSync(join(ws, 'a.txt'));
    const a2 = await h.act(() => writeFileSync(join(ws, 'b.txt'), 'b\n'));
    await h.undo.undo(a2.id);
    await h.act(() => writeFileSync(join(ws, 'b.txt'), 'newer\n'));
    expect(await h.undo.redo(a2.id)).toMatchObject({ outcome: 'conflict', blockers: [{ path: 'b.txt', by: 'action', actionSeq: 3 }] });
  });

  it('refuses to redo an action that is not undone', async () => {
    h = await startUndoHarness();
    const a1 = await h.act(() => writeFileSync(join(h!.workspace, 'a.txt'), 'x'));
    await expect(h.undo.redo(a1.id)).rejects.toThrow(/only an undone action can be redone/);
  });
});

describe('several folders', () => {
  it('undoes an action across two granted folders at once, or refuses without writing either', async () => {
    h = await startUndoHarness({ folders: 2 });
    const [w0, w1] = h.folders as [string, string];
    const a1 = await h.act(() => {
      writeFileSync(join(w0, 'x.txt'), 'x\n');
      writeFileSync(join(w1, 'y.txt'), 'y\n');
    });
    expect(a1.effects.map((e) => e.channel === 'fs' && e.added)).toEqual([['x.txt'], ['y.txt']]);
    expect(await h.undo.undo(a1.id)).toMatchObject({ outcome: 'undone', removed: ['w0/x.txt', 'w1/y.txt'] });
    expect([read(w0, 'x.txt'), read(w1, 'y.txt')]).toEqual([null, null]);

    const a2 = await h.act(() => {
      writeFileSync(join(w0, 'x.txt'), 'x2\n');
      writeFileSync(join(w1, 'y.txt'), 'y2\n');
    });
    writeFileSync(join(w1, 'y.txt'), 'edited\n');
    expect(await h.undo.undo(a2.id)).toMatchObject({ outcome: 'conflict', paths: ['w1/y.txt'] });
    expect([read(w0, 'x.txt'), read(w1, 'y.txt')]).toEqual(['x2\n', 'edited\n']);
  });
});
