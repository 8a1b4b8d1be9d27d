// A refused undo's way out: keep a copy of the person's edit and undo. The real engine (SQLite store,
// shadow repositories, journaled restore) around temporary folders: the person's edit goes to
// "NAME (your edit).ext" byte for byte in the same restore that puts the action's file back; later
// actions, deleted files and folders still refuse; the set-aside edit no longer stands in the way of
// earlier actions; a service that refuses afterwards puts everything back as it was, the edit in place.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UndoResult } from '../../shared/domain';
import type { RewindResult } from '../../shared/domain/undo';
import { startChannelsHarness } from '../support/channels-harness';
import { startFreezingUndoHarness, undoHarnessesPerTest } from '../support/undo-harness';

const { harness, closing } = undoHarnessesPerTest();

const read = (ws: string, p: string) => readFileSync(join(ws, p), 'utf8');
const conflict = (r: UndoResult | RewindResult) => {
  if (r.outcome !== 'conflict') throw new Error(`expected a refusal, got ${r.outcome}`);
  return r;
};

describe('keep a copy of your edit and undo', () => {
  it('keeps the edit as "notes (your edit).txt" and puts the action’s file back; redo and undo work after', async () => {
    const h = await harness();
    const ws = h.workspace;
    writeFileSync(join(ws, 'notes.txt'), 'original\n');
    const action = await h.act(() => writeFileSync(join(ws, 'notes.txt'), 'by the agent\n'));
    const mine = Buffer.from('the person’s own words\n\u0000binary tail', 'utf8');
    writeFileSync(join(ws, 'notes.txt'), mine);

    const refused = conflict(await h.undo.undo(action.id));
    expect(refused.canKeepCopies).toBe(true);
    expect(refused.blockers?.map((b) => [b.path, b.by, b.copyable])).toEqual([['notes.txt', 'external', true]]);
    expect(refused.message).toMatch(/keep a copy of your edits/);
    expect(readFileSync(join(ws, 'notes.txt'))).toEqual(mine);

    const done = await h.undo.undo(action.id, { keepCopies: true });
    expect(done.outcome).toBe('undone');
    if (done.outcome !== 'undone') return;
    expect(done.copies).toEqual([{ path: 'notes.txt', copy: 'notes (your edit).txt' }]);
    expect(read(ws, 'notes.txt')).toBe('original\n');
    expect(readFileSync(join(ws, 'notes (your edit).txt'))).toEqual(mine);
    expect(done.steps?.find((s) => s.channel === 'fs')?.items).toContain('notes.txt: your edit kept as notes (your edit).txt');
    expect(h.store.getAction(action.id)!.status).toBe('undone');
    // The copy is told by the operation, not shown as an outside edit.
    const external = h.views.timeline(h.task.id).entries.filter((e) => e.kind === 'external');
    expect(external.flatMap((e) => (e.kind === 'external' ? e.changes.added : []))).not.toContain('notes (your edit).txt');

    // Redo puts the action's file back and leaves the copy alone; undo then needs no copy.
    const redone = await h.undo.redo(action.id);
    expect(redone.outcome).toBe('redone');
    expect(read(ws, 'notes.txt')).toBe('by the agent\n');
    expect(readFileSync(join(ws, 'notes (your edit).txt'))).toEqual(mine);
    const again = await h.undo.undo(action.id);
    expect(again.outcome).toBe('undone');
    expect(read(ws, 'notes.txt')).toBe('original\n');
    expect(readFileSync(join(ws, 'notes (your edit).txt'))).toEqual(mine);
  });

  it('numbers the copy when the name is taken, and puts a copy out of a folder the undo removes', async () => {
    const h = await harness();
    const ws = h.workspace;
    writeFileSync(join(ws, 'notes.txt'), 'original\n');
    writeFileSync(join(ws, 'notes (your edit).txt'), 'an older copy\n');
    const action = await h.act(() => {
      writeFileSync(join(ws, 'notes.txt'), 'by the agent\n');
      mkdirSync(join(ws, 'out/deep'), { recursive: true });
      writeFileSync(join(ws, 'out/deep/.env'), 'A=1\n');
    });
    writeFileSync(join(ws, 'notes.txt'), 'mine\n');
    writeFileSync(join(ws, 'out/deep/.env'), 'A=2\n');

    const done = await h.undo.undo(action.id, { keepCopies: true });
    expect(done.outcome, JSON.stringify(done)).toBe('undone');
    if (done.outcome !== 'undone') return;
    expect(done.copies).toEqual([
      { path: 'notes.txt', copy: 'notes (your edit 2).txt' },
      { path: 'out/deep/.env', copy: '.env (your edit)' },
    ]);
    expect(read(ws, 'notes (your edit).txt')).toBe('an older copy\n');
    expect(read(ws, 'notes (your edit 2).txt')).toBe('mine\n');
    expect(read(ws, '.env (your edit)')).toBe('A=2\n');
    expect(existsSync(join(ws, 'out'))).toBe(false);
    expect(read(ws, 'notes.txt')).toBe('original\n');
  });

  it('refuses, changing nothing, where there is no file content to keep: a deleted file, a later action', async () => {
    const h = await harness();
    const ws = h.workspace;
    writeFileSync(join(ws, 'a.txt'), 'a0\n');
    writeFileSync(join(ws, 'b.txt'), 'b0\n');
    const first = await h.act(() => {
      writeFileSync(join(ws, 'a.txt'), 'a1\n');
      writeFileSync(join(ws, 'b.txt'), 'b1\n');
    });
    rmSync(join(ws, 'a.txt'));
    writeFileSync(join(ws, 'b.txt'), 'b mine\n');
    const before = readdirSync(ws).sort();

    const r = conflict(await h.undo.undo(first.id, { keepCopies: true }));
    expect(r.canKeepCopies).toBe(false);
    expect(Object.fromEntries((r.blockers ?? []).map((b) => [b.path, b.copyable]))).toEqual({ 'a.txt': false, 'b.txt': true });
    expect(r.blockers?.find((b) => b.path === 'a.txt')?.noCopy).toBe('deleted since: there is nothing to keep a copy of');
    expect(r.message).toMatch(/Keeping copies does not get past a\.txt/);
    expect(readdirSync(ws).sort()).toEqual(before);
    expect(read(ws, 'b.txt')).toBe('b mine\n');
    expect(h.store.getAction(first.id)!.status).toBe('done');

    // A later action in the way: not the person's edit, so no copy gets past it; a rewind with copies does.
    writeFileSync(join(ws, 'a.txt'), 'a1\n');
    const second = await h.act(() => writeFileSync(join(ws, 'a.txt'), 'a2\n'));
    writeFileSync(join(ws, 'a.txt'), 'a mine\n');
    const blocked = conflict(await h.undo.undo(first.id, { keepCopies: true }));
    expect((blocked.blockers ?? []).find((b) => b.path === 'a.txt')).toMatchObject({ by: 'action', copyable: false, noCopy: expect.stringMatching(/later action/) });
    expect(blocked.canKeepCopies).toBe(false);
    expect(read(ws, 'a.txt')).toBe('a mine\n');
    const rewound = await h.undo.rewind(first.id, { keepCopies: true });
    expect(rewound.outcome, JSON.stringify(rewound)).toBe('rewound');
    if (rewound.outcome !== 'rewound') return;
    expect(rewound.copies?.map((c) => c.copy).sort()).toEqual(['a (your edit).txt', 'b (your edit).txt']);
    expect(read(ws, 'a.txt')).toBe('a0\n');
    expect(read(ws, 'b.txt')).toBe('b0\n');
    expect(read(ws, 'a (your edit).txt')).toBe('a mine\n');
    expect(read(ws, 'b (your edit).txt')).toBe('b mine\n');
    expect([first, second].map((a) => h.store.getAction(a.id)!.status)).toEqual(['undone', 'undone']);
  });

  it('refuses for a file the person added inside a folder the action made, saying to move it', async () => {
    const h = await harness();
    const ws = h.workspace;
    const action = await h.act(() => {
      mkdirSync(join(ws, 'out'));
      writeFileSync(join(ws, 'out/report.txt'), 'report\n');
    });
    writeFileSync(join(ws, 'out/mine.txt'), 'mine\n');
    const r = conflict(await h.undo.undo(action.id, { keepCopies: true }));
    expect(r.blockers?.find((b) => b.path === 'out/mine.txt')).toMatchObject({ copyable: false, noCopy: expect.stringMatching(/in a folder the action made.*move it elsewhere/) });
    expect(read(ws, 'out/mine.txt')).toBe('mine\n');
    expect(read(ws, 'out/report.txt')).toBe('report\n');
  });

  it('sets the edit aside for earlier actions too, but a new edit after the copy blocks again', async () => {
    const h = await harness();
    const ws = h.workspace;
    writeFileSync(join(ws, 'n.txt'), 'v0\n');
    const w = await h.act(() => writeFileSync(join(ws, 'n.txt'), 'v1\n'));
    const x = await h.act(() => writeFileSync(join(ws, 'n.txt'), 'v2\n'));
    writeFileSync(join(ws, 'n.txt'), 'mine\n');
    expect((await h.undo.undo(x.id, { keepCopies: true })).outcome).toBe('undone');
    expect(read(ws, 'n.txt')).toBe('v1\n');
    // The edit lives in the copy now: undoing the earlier action overwrites nothing of the person's.
    expect((await h.undo.undo(w.id)).outcome).toBe('undone');
    expect(read(ws, 'n.txt')).toBe('v0\n');
    expect(read(ws, 'n (your edit).txt')).toBe('mine\n');
    // A new edit after that is the person's again: redo of w refuses for it.
    writeFileSync(join(ws, 'n.txt'), 'mine again\n');
    const redo = await h.undo.redo(w.id);
    expect(redo.outcome).toBe('conflict');
    expect(read(ws, 'n.txt')).toBe('mine again\n');
    // And the copy itself is the person's: nothing ever took it back.
    expect(read(ws, 'n (your edit).txt')).toBe('mine\n');
  });

  it('interrupted by a crash: finished at the next start, copy and all, and the edit stays set aside', async () => {
    const { h, reached } = await startFreezingUndoHarness(1);
    closing(h);
    const ws = h.workspace;
    writeFileSync(join(ws, 'n.txt'), 'v0\n');
    const w = await h.act(() => writeFileSync(join(ws, 'n.txt'), 'v1\n'));
    const x = await h.act(() => writeFileSync(join(ws, 'n.txt'), 'v2\n'));
    writeFileSync(join(ws, 'n.txt'), 'mine\n');
    void h.undo.undo(x.id, { keepCopies: true });
    await reached;

    const next = await h.reopen({ checkpoints: {} });
    closing(next);
    expect(read(ws, 'n.txt')).toBe('v1\n');
    expect(read(ws, 'n (your edit).txt')).toBe('mine\n');
    expect(next.store.getAction(x.id)!.status).toBe('undone');
    // The history the recovery wrote sets the edit aside: the earlier action undoes without a copy.
    expect((await next.undo.undo(w.id)).outcome).toBe('undone');
    expect(read(ws, 'n.txt')).toBe('v0\n');
    expect(read(ws, 'n (your edit).txt')).toBe('mine\n');
  });

  it('interrupted by a crash after the person changed the file again: rolled back, the newer edit kept, no copy left', async () => {
    const { h, reached } = await startFreezingUndoHarness(1);
    closing(h);
    const ws = h.workspace;
    writeFileSync(join(ws, 'n.txt'), 'v0\n');
    const x = await h.act(() => writeFileSync(join(ws, 'n.txt'), 'v1\n'));
    writeFileSync(join(ws, 'n.txt'), 'mine\n');
    void h.undo.undo(x.id, { keepCopies: true });
    await reached;
    writeFileSync(join(ws, 'n.txt'), 'mine, after the crash\n');

    const next = await h.reopen({ checkpoints: {} });
    closing(next);
    expect(read(ws, 'n.txt')).toBe('mine, after the crash\n');
    expect(existsSync(join(ws, 'n (your edit).txt'))).toBe(false);
    expect(next.store.getAction(x.id)!.status).toBe('done');
    expect(conflict(await next.undo.undo(x.id)).canKeepCopies).toBe(true);
  });
});

describe('keep a copy of your edit and undo, across channels', () => {
  it('a service that refuses its inverse puts the edit back where it was, the copy gone, and undo refuses for it again', async () => {
    const h = await startChannelsHarness();
    closing(h);
    const ws = h.workspace;
    writeFileSync(join(ws, 'report.txt'), 'draft\n');
    const action = await h.actAcross({ files: () => writeFileSync(join(ws, 'report.txt'), 'final\n'), messages: ['report is final'] });
    writeFileSync(join(ws, 'report.txt'), 'final, with my note\n');
    h.slack.cannotDelete = () => true;

    const r = await h.undo.undo(action.id, { keepCopies: true });
    expect(r.outcome, JSON.stringify(r)).toBe('conflict');
    const files = r.outcome === 'conflict' ? r.steps?.find((s) => s.channel === 'fs') : undefined;
    expect(files?.result).toBe('compensated');
    expect(read(ws, 'report.txt')).toBe('final, with my note\n');
    expect(existsSync(join(ws, 'report (your edit).txt'))).toBe(false);
    expect(h.store.getAction(action.id)!.status).toBe('done');

    // As before the attempt: the person's edit stands in the way of a plain undo.
    h.slack.cannotDelete = () => false;
    const plain = conflict(await h.undo.undo(action.id));
    expect((plain.blockers ?? []).map((b) => [b.path, b.by])).toEqual([['report.txt', 'external']]);
    expect(h.slack.messages.filter((m) => !m.deleted)).toHaveLength(1);
    // And keeping a copy now goes through, message deleted.
    const done = await h.undo.undo(action.id, { keepCopies: true });
    expect(done.outcome).toBe('undone');
    expect(read(ws, 'report.txt')).toBe('draft\n');
    expect(read(ws, 'report (your edit).txt')).toBe('final, with my note\n');
    expect(h.slack.messages.filter((m) => !m.deleted)).toHaveLength(0);
  });
});
