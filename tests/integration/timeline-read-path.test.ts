// The timeline's read path (issue 27): read in one pass, it must say exactly what the old per-action read
// said (tests/support/timeline-reference.ts) on a task with every kind of row — applied, failed, undone,
// redone, kept, a later action depending on an earlier one, outside edits, a refused undo's blockers, a
// rewind, another task's action in the same folder, figures and a reply's usage. The answer's shape changed
// (the rewind order once per timeline, each row its rewind's count), so each row's rewind list is derived
// from it as the app and the CLI derive it (rewindSeqsOf) and the two are compared byte for byte.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UndoViews } from '../../main/services/undo-views';
import { FigureStore } from '../../main/store/figure-store';
import { UndoOperations } from '../../main/store/undo-operations';
import { Action } from '../../shared/domain';
import { rewindSeqsOf, type Timeline, type TimelineEntry } from '../../shared/domain/undo';
import { expandRewinds, referenceTimeline } from '../support/timeline-reference';
import { undoHarnessesPerTest, type UndoHarness } from '../support/undo-harness';

const { harness } = undoHarnessesPerTest();

/**
 * The new timeline (its rewind lists derived from the order it gives once) and the reference's, both as
 * JSON, with the task shown as running or not; `answer`: the new timeline as answered.
 */
function both(h: UndoHarness, running: boolean): { now: string; before: string; answer: Timeline } {
  const operations = new UndoOperations(h.db);
  const views = new UndoViews(h.store, h.fs, h.undo, () => running, operations);
  const answer = views.timeline(h.task.id);
  const now = JSON.stringify(expandRewinds(answer));
  const before = JSON.stringify(referenceTimeline({ db: h.db, store: h.store, fs: h.fs, undo: h.undo, operations, isRunning: () => running }, h.task.id));
  return { now, before, answer };
}

describe('the timeline read in one pass', () => {
  it('says what the per-action read said, rewind lists included, on a task of mixed actions', async () => {
    const h = await harness({ folders: 2 });
    const [w0, w1] = h.folders as [string, string];
    const write = (ws: string, p: string, text: string) => () => writeFileSync(join(ws, p), text);

    const a1 = await h.act(write(w0, 'a.txt', 'one\n'));
    const a2 = await h.act(write(w0, 'a.txt', 'two\n')); // depends on a1: a1's undo waits for it
    const a3 = await h.act(write(w1, 'b.txt', 'b\n'));
    await h.act(write(w1, 'c.txt', 'c\n'), { fails: true });
    writeFileSync(join(w0, 'outside.txt'), 'the person\n'); // found by the next action's checkpoint
    const a5 = await h.act(write(w0, 'e.txt', 'e\n'));
    const a6 = await h.act(write(w1, 'c.txt', 'c again\n'));
    const kept = await h.act(write(w0, 'k.txt', 'k\n'));
    const a8 = await h.act(write(w0, 'g.txt', 'g\n'));
    const a9 = await h.act(write(w1, 'h.txt', 'h\n'));
    await h.act(write(w1, 'h.txt', 'h twice\n'));
    await h.act(() => {
      writeFileSync(join(w0, 'i.txt'), 'i\n');
      writeFileSync(join(w1, 'j.txt'), 'j\n');
    });
    // Another task writes in the same folder: its action's state is read for the history, not listed.
    const other = h.newTask('other');
    await h.act(write(w0, 'e.txt', 'the other task\n'), { task: other });

    expect(await h.undo.undo(a3.id)).toMatchObject({ outcome: 'undone' });
    expect(await h.undo.undo(a6.id)).toMatchObject({ outcome: 'undone' });
    expect(await h.undo.redo(a6.id)).toMatchObject({ outcome: 'redone' }); // moves a6 in the rewind order
    expect(await h.undo.keep(kept.id)).toMatchObject({ status: 'kept' });
    expect(await h.undo.rewind(a9.id)).toMatchObject({ outcome: 'rewound' }); // a11, a10, a9 undone
    writeFileSync(join(w0, 'a.txt'), 'edited by the person\n');
    expect(await h.undo.undo(a2.id)).toMatchObject({ outcome: 'conflict' }); // an outside edit in the way
    await h.undo.settle();

    // A figure and a reply's usage on some actions, read for all of them at once.
    new FigureStore(h.db).add(a1.id, [{ n: 1, mime: 'image/png', bytes: 10, sha256: 'a'.repeat(64), width: 2, height: 3, released: false }]);
    new FigureStore(h.db).add(a8.id, [
      { n: 2, mime: 'image/png', bytes: 20, sha256: 'c'.repeat(64), width: 4, height: 5, released: false },
      { n: 1, mime: 'image/png', bytes: 30, sha256: 'b'.repeat(64), width: 6, height: 7, released: false },
    ]);
    new FigureStore(h.db).markReleased(a8.id);
    const reply = h.store.addMessage(h.task.id, 'assistant', 'ran it');
    h.store.setMessageUsage(reply.id, { promptTokens: 12, completionTokens: 3, calls: 1, costUsd: 0.001 });
    const bare = h.store.addMessage(h.task.id, 'assistant', 'no usage reported');
    h.db.prepare('UPDATE actions SET message_id = ? WHERE id IN (?, ?)').run(reply.id, a5.id, a8.id);
    h.db.prepare('UPDATE actions SET message_id = ? WHERE id = ?').run(bare.id, a1.id);

    // The store reads its own rows back without zod (it parsed each action when it saved it): what it
    // answers is what the parse would give, key for key and in the schema's order.
    for (const listed of h.store.listActions(h.task.id)) {
      const { reverse, ...fields } = listed;
      expect(JSON.stringify({ ...Action.omit({ reverse: true }).parse(fields), reverse })).toBe(JSON.stringify(listed));
    }

    const idle = both(h, false);
    expect(idle.now).toBe(idle.before);
    const running = both(h, true);
    expect(running.now).toBe(running.before);

    // The task has what the test meant it to have (so the equality above covers each kind of row).
    const timeline = JSON.parse(JSON.stringify(idle.answer)) as Timeline;
    const rows = timeline.entries.filter((e): e is Extract<TimelineEntry, { kind: 'action' }> => e.kind === 'action');
    const row = (a: Action) => rows.find((e) => e.action.id === a.id)!;
    const seqs = (a: Action) => rewindSeqsOf(timeline.rewindOrder, row(a));
    // The redo moved a6 out of newest-first order: the lists are filtered from the order, not its prefixes.
    expect(timeline.rewindOrder[0]).toBe(a6.seq);
    expect(timeline.rewindOrder).toHaveLength(rows.filter((e) => e.action.status !== 'undone').length);
    expect(rows.map((e) => e.action.status)).toEqual(['done', 'done', 'undone', 'failed', 'done', 'done', 'kept', 'done', 'undone', 'undone', 'undone']);
    expect(row(a1).undo.blockers.map((b) => b.actionSeq)).toEqual([a2.seq, null]); // a2, and the outside edit of a.txt
    expect(row(a2).undo.blockers.map((b) => b.by)).toEqual(['external']);
    expect(row(a1).rewind.possible).toBe(false); // past the kept action
    expect(row(a8).rewind).toMatchObject({ possible: true, count: 1 });
    expect(seqs(a8)).toEqual([a8.seq]);
    expect(seqs(a5)).toEqual([a6.seq, a8.seq, kept.seq, a5.seq]);
    expect(row(a3).rewind.count).toBe(0); // undone: no rewind starts there
    expect(seqs(a3)).toEqual([]);
    expect(row(a5).undo.blockers.map((b) => b.taskTitle)).toEqual(['other']);
    expect(seqs(a6)[0]).toBe(a6.seq); // redone last: first in the rewind order
    expect(row(a1).action.figures).toHaveLength(1);
    expect(row(a8).action.figures!.map((f) => [f.n, f.released])).toEqual([[1, true], [2, true]]);
    expect(row(a5).action.usage).toMatchObject({ promptTokens: 12 });
    expect('usage' in row(a1).action).toBe(false);
    expect(timeline.entries.some((e) => e.kind === 'external')).toBe(true);
    expect(timeline.entries.filter((e) => e.kind === 'operation').map((e) => e.kind === 'operation' && e.operation)).toEqual(
      expect.arrayContaining(['undo', 'redo', 'rewind']),
    );
  });

  it('says what the per-action read said of rewinds that later actions and the person’s edits stand in the way of', async () => {
    const h = await harness();
    const write = (p: string, text: string) => () => writeFileSync(join(h.workspace, p), text);
    const a1 = await h.act(write('x.txt', 'one\n'));
    await h.act(write('x.txt', 'two\n')); // a1's undo waits for it; a rewind from a1 undoes it first
    const a3 = await h.act(write('y.txt', 'y\n'));
    writeFileSync(join(h.workspace, 'y.txt'), 'the person\n'); // stands in the way of every rewind reaching a3
    const a4 = await h.act(write('z.txt', 'z\n'));
    await h.act(write('x.txt', 'three\n'));
    expect(await h.undo.undo(a4.id)).toMatchObject({ outcome: 'undone' });
    expect(await h.undo.redo(a4.id)).toMatchObject({ outcome: 'redone' }); // a4 first in the rewind order
    await h.undo.settle();
    const { now, before, answer } = both(h, false);
    expect(now).toBe(before);
    const rows = answer.entries.filter((e): e is Extract<TimelineEntry, { kind: 'action' }> => e.kind === 'action');
    expect(answer.rewindOrder).toEqual([4, 5, 3, 2, 1]);
    expect(rows.map((e) => e.rewind.blockers.map((b) => b.path))).toEqual([['y.txt'], ['y.txt'], ['y.txt'], [], []]);
    expect(rows.map((e) => e.rewind.count)).toEqual([5, 4, 3, 2, 1]);
    expect(rows.find((e) => e.action.id === a1.id)!.undo.blockers.map((b) => b.actionSeq)).toEqual([2, 5]);
    expect(rows.find((e) => e.action.id === a3.id)!.undo.blockers.map((b) => b.by)).toEqual(['external']);
  });

  it('lists a task’s actions as reading each by itself would, and reads them in a fixed number of queries', async () => {
    const h = await harness();
    for (let i = 0; i < 6; i++) await h.act(() => writeFileSync(join(h.workspace, `f${i}.txt`), `${i}\n`));
    const one = h.store.listActions(h.task.id);
    expect(JSON.stringify(one)).toBe(JSON.stringify(one.map((a) => h.store.getAction(a.id))));
    // No redo: the rewind order is newest first (each rewind's seqs a prefix of it).
    const plain = both(h, false);
    expect(plain.now).toBe(plain.before);

    const prepare = h.db.prepare.bind(h.db);
    let queries = 0;
    h.db.prepare = ((sql: string) => {
      queries += 1;
      return prepare(sql);
    }) as typeof h.db.prepare;
    h.store.listActions(h.task.id);
    const few = queries;
    for (let i = 0; i < 6; i++) await h.act(() => writeFileSync(join(h.workspace, `g${i}.txt`), `${i}\n`));
    queries = 0;
    h.store.listActions(h.task.id);
    expect(queries).toBe(few);
    expect(few).toBe(4); // rows, effects, figures, usage
    queries = 0;
    h.views.timeline(h.task.id);
    const timelineQueries = queries;
    for (let i = 0; i < 6; i++) await h.act(() => writeFileSync(join(h.workspace, `h${i}.txt`), `${i}\n`));
    queries = 0;
    h.views.timeline(h.task.id);
    expect(queries).toBe(timelineQueries); // not one more per action
  });
});
