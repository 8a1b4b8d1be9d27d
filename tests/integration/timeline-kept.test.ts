// The timeline keeps the task's actions and each folder's changes across reads (issue 27,
// main/store/kept-reads.ts): after every kind of change — by the store's own methods, by plain SQL on its
// connection, inside a transaction rolled back, or by ANOTHER connection to the same file (the `posthoc` CLI
// and the app share the data folder) — the kept timeline must say exactly what a fresh read says. The oracle
// is the read path from before issue 27 (tests/support/timeline-reference.ts), which keeps nothing; each
// change is made after a read, so the keep is full when it happens.
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FigureStore } from '../../main/store/figure-store';
import { KEPT_TASKS } from '../../main/store/kept-reads';
import { UndoOperations } from '../../main/store/undo-operations';
import type { Action, FsEffect, Task } from '../../shared/domain';
import { expandRewinds, referenceTimeline } from '../support/timeline-reference';
import { undoHarnessesPerTest, type UndoHarness } from '../support/undo-harness';

const { harness } = undoHarnessesPerTest();

/** The kept timeline of `task` and the reference's read of it, as JSON. */
function both(h: UndoHarness, task: Task = h.task): { kept: string; fresh: string } {
  const kept = JSON.stringify(expandRewinds(h.views.timeline(task.id)));
  const parts = { db: h.db, store: h.store, fs: h.fs, undo: h.undo, operations: new UndoOperations(h.db), isRunning: () => false };
  return { kept, fresh: JSON.stringify(referenceTimeline(parts, task.id)) };
}

/** Reads the timeline (the keep is full), makes the change, then checks the kept timeline against a fresh read. */
async function afterChange(h: UndoHarness, change: () => unknown, task: Task = h.task): Promise<string> {
  const before = both(h, task);
  expect(before.kept).toBe(before.fresh);
  await change();
  await h.undo.settle();
  const after = both(h, task);
  expect(after.kept).toBe(after.fresh);
  return after.kept;
}

/** Counts the runs (`all`) of statements of the harness's connection whose SQL matches `pattern` (the keep prepares its statements once). */
function counting(h: UndoHarness, pattern: RegExp): () => number {
  const proto = Object.getPrototypeOf(h.db.prepare('SELECT 1')) as { all: (...args: unknown[]) => unknown[] };
  const all = proto.all;
  let n = 0;
  proto.all = function (this: { source: string }, ...args: unknown[]) {
    if (pattern.test(this.source)) n += 1;
    return all.apply(this, args);
  };
  onTestFinished(() => {
    proto.all = all;
  });
  return () => n;
}

const write = (folder: string, path: string, text: string) => () => writeFileSync(join(folder, path), text);

describe('the kept timeline says what a fresh read says', () => {
  it('after each change the app makes: an action, undo, redo, keep, effects, output, figures, usage, outside edits', async () => {
    const h = await harness({ folders: 2 });
    const [w0, w1] = h.folders as [string, string];
    const a1 = await h.act(write(w0, 'a.txt', 'one\n'));
    const a2 = await h.act(write(w1, 'b.txt', 'b\n'));
    let shown = '';

    shown = await afterChange(h, () => h.act(write(w0, 'a.txt', 'two\n'))); // a new action; a1's undo now waits for it
    expect(shown).toContain('"actionSeq":3');
    const a4 = await h.act(write(w1, 'c.txt', 'c\n'));
    await afterChange(h, () => h.undo.undo(a4.id));
    await afterChange(h, () => h.undo.redo(a4.id)); // the rewind order changes
    await afterChange(h, () => h.undo.keep(a2.id));
    await afterChange(h, () => h.undo.rewind(a4.id));
    // The effects alone (what undo marks on a call it took back), then a whole action saved again with a new output.
    const fsOf = (a: Action) => a.effects.filter((e): e is FsEffect => e.channel === 'fs');
    await afterChange(h, () => h.store.saveEffects({ id: a1.id, effects: [...a1.effects, { ...fsOf(a1)[0]!, added: ['a.txt', 'also.txt'] }] }));
    shown = await afterChange(h, () => h.store.saveAction({ ...h.store.getAction(a1.id)!, output: { ...a1.output, stdout: 'printed later\n' } }));
    expect(shown).toContain('printed later');
    // Figures drawn, then released by keep; a reply's usage, and the link to it.
    await afterChange(h, () => new FigureStore(h.db).add(a1.id, [{ n: 1, mime: 'image/png', bytes: 10, sha256: 'a'.repeat(64), width: 2, height: 3, released: false }]));
    await afterChange(h, () => new FigureStore(h.db).markReleased(a1.id));
    const reply = h.store.addMessage(h.task.id, 'assistant', 'ran it');
    await afterChange(h, () => h.db.prepare('UPDATE actions SET message_id = ? WHERE id = ?').run(reply.id, a1.id));
    shown = await afterChange(h, () => h.store.setMessageUsage(reply.id, { promptTokens: 12, completionTokens: 3, calls: 1, costUsd: 0.001 }));
    expect(shown).toContain('"promptTokens":12');
    shown = await afterChange(h, () => h.store.setMessageUsage(reply.id, { promptTokens: 40, completionTokens: 3, calls: 1, costUsd: 0.001 }));
    expect(shown).toContain('"promptTokens":40');
    // The person edits a file; the next action's checkpoint records it (the folder's changes), and it blocks an undo.
    shown = await afterChange(h, async () => {
      writeFileSync(join(w0, 'a.txt'), 'the person\n');
      await h.act(write(w0, 'd.txt', 'd\n'));
    });
    expect(shown).toContain('"kind":"external"');
    // Another task's action in the same folder, then undone: its state is read for this task's blockers.
    const other = h.newTask('other');
    const theirs = await h.act(write(w0, 'a.txt', 'the other task\n'), { task: other });
    await afterChange(h, () => h.undo.undo(theirs.id).catch(() => undefined));
    await afterChange(h, () => h.act(() => unlinkSync(join(w1, 'b.txt')), { fails: true }));
  });

  it('after plain SQL on its own connection, a message deleted, an action deleted, and a write rolled back', async () => {
    const h = await harness();
    const a1 = await h.act(write(h.workspace, 'a.txt', 'one\n'));
    const a2 = await h.act(write(h.workspace, 'a.txt', 'two\n'));
    const reply = h.store.addMessage(h.task.id, 'assistant', 'ran it');
    h.db.prepare('UPDATE actions SET message_id = ? WHERE id = ?').run(reply.id, a1.id);
    h.store.setMessageUsage(reply.id, { promptTokens: 5, completionTokens: 1, calls: 1, costUsd: null });

    // a2's change of a.txt gone from the folder's history: it no longer stands in the way of a1's undo.
    await afterChange(h, () => h.db.prepare('DELETE FROM fs_changes WHERE action_id = ?').run(a2.id));
    await afterChange(h, () => h.db.prepare(`UPDATE actions SET status = 'undone' WHERE id = ?`).run(a2.id));
    await afterChange(h, () => h.db.prepare('DELETE FROM effects WHERE action_id = ?').run(a1.id));
    await afterChange(h, () => h.db.prepare('UPDATE fs_changes SET paths_json = ? WHERE action_id = ?').run('["elsewhere.txt"]', a1.id));
    const shown = await afterChange(h, () => h.db.prepare('DELETE FROM messages WHERE id = ?').run(reply.id));
    expect(shown).not.toContain('"usage"');
    await afterChange(h, () => h.db.prepare('DELETE FROM actions WHERE id = ?').run(a2.id));
    // A read inside a transaction sees its writes, which a rollback then takes back: the keep must not hold them.
    await afterChange(h, () => {
      try {
        h.db.transaction(() => {
          h.db.prepare(`UPDATE actions SET status = 'kept' WHERE id = ?`).run(a1.id);
          h.db.prepare('DELETE FROM fs_changes WHERE action_id = ?').run(a1.id);
          expect(h.views.timeline(h.task.id).entries.some((e) => e.kind === 'action' && e.action.status === 'kept')).toBe(true);
          throw new Error('roll back');
        })();
      } catch {
        // rolled back
      }
    });
    expect(h.views.timeline(h.task.id).entries.some((e) => e.kind === 'action' && e.action.status === 'kept')).toBe(false);
  });

  it('when its first read is inside a transaction that is rolled back (the keep is not made there)', async () => {
    const h = await harness();
    const a1 = await h.act(write(h.workspace, 'a.txt', 'one\n'));
    try {
      h.db.transaction(() => {
        h.views.timeline(h.task.id);
        throw new Error('roll back');
      })();
    } catch {
      // rolled back
    }
    await afterChange(h, () => h.db.prepare(`UPDATE actions SET status = 'undone' WHERE id = ?`).run(a1.id));
    await afterChange(h, () => h.act(write(h.workspace, 'b.txt', 'b\n')));
  });

  it('after another connection to the same file changes an action behind the store’s back', async () => {
    const h = await harness();
    const a1 = await h.act(write(h.workspace, 'a.txt', 'one\n'));
    const a2 = await h.act(write(h.workspace, 'b.txt', 'b\n'));
    const a3 = await h.act(write(h.workspace, 'c.txt', 'c\n'));
    const other = new Database(join(h.dataDir, 'posthoc.sqlite3'));
    try {
      const statusOf = (a: Action) => h.views.timeline(h.task.id).entries.find((e) => e.kind === 'action' && e.action.id === a.id);
      expect(statusOf(a2)).toMatchObject({ action: { status: 'done' } });
      await afterChange(h, () => other.prepare(`UPDATE actions SET status = 'undone', undone_at = ? WHERE id = ?`).run(new Date().toISOString(), a2.id));
      expect(statusOf(a2)).toMatchObject({ action: { status: 'undone' }, undo: { possible: false }, redo: { possible: true } });
      // Its effects, the folder's changes, and an action the other process appends.
      await afterChange(h, () => other.prepare('DELETE FROM effects WHERE action_id = ?').run(a3.id));
      await afterChange(h, () => other.prepare(`DELETE FROM fs_changes WHERE action_id = ?`).run(a1.id));
      await afterChange(h, () =>
        other
          .prepare(
            `INSERT INTO actions (id, task_id, seq, kind, language, source, status, output_json, confinement_json, started_at, finished_at, undone_at, owner_pid, owner_start, message_id)
             SELECT 'from-the-cli', task_id, 9, kind, language, source, 'done', output_json, confinement_json, ?, ?, NULL, NULL, NULL, NULL FROM actions WHERE id = ?`,
          )
          .run(new Date().toISOString(), new Date().toISOString(), a1.id),
      );
      expect(h.views.timeline(h.task.id).entries.some((e) => e.kind === 'action' && e.action.id === 'from-the-cli')).toBe(true);
      // A second UndoViews over a second connection (the CLI's, in a process of its own) writes through its own store.
      const cli = await h.reopen();
      try {
        await afterChange(h, () => cli.undo.undo(a3.id));
        expect(statusOf(a3)).toMatchObject({ action: { status: 'undone' } });
      } finally {
        await cli.close();
      }
    } finally {
      other.close();
    }
  });

  it('re-reads nothing when nothing changed, only what changed when its own connection wrote, and keeps at most KEPT_TASKS tasks', async () => {
    const h = await harness();
    for (let i = 0; i < 4; i++) await h.act(write(h.workspace, `f${i}.txt`, `${i}\n`));
    h.views.timeline(h.task.id);
    const readsActions = counting(h, /^SELECT \* FROM actions WHERE task_id = \?/);
    const readsChanges = counting(h, /^SELECT \* FROM fs_changes WHERE folder = \?/);
    /** What one timeline read of `task` read from the rows: the task's actions, the folder's changes from which id. */
    const oneRead = (task: Task) => {
      const [actions, changes] = [readsActions(), readsChanges()];
      h.views.timeline(task.id);
      return { actions: readsActions() - actions, changes: readsChanges() - changes };
    };
    expect(oneRead(h.task)).toEqual({ actions: 0, changes: 0 });
    await h.act(write(h.workspace, 'g.txt', 'g\n'));
    expect(oneRead(h.task)).toEqual({ actions: 0, changes: 1 }); // the new action alone, by id; the folder's new change
    expect(oneRead(h.task)).toEqual({ actions: 0, changes: 0 });

    // The least recently read task is dropped past KEPT_TASKS: read again from its rows, the others still kept.
    const tasks = Array.from({ length: KEPT_TASKS }, (_, i) => h.newTask(`t${i}`));
    for (const t of tasks) expect(oneRead(t).actions).toBe(1);
    expect(oneRead(tasks.at(-1)!).actions).toBe(0);
    expect(oneRead(h.task).actions).toBe(1);
    await afterChange(h, () => h.act(write(h.workspace, 'h.txt', 'h\n')));
  });

  it('re-reads only what another connection wrote, and everything when the marks it had not seen were pruned', async () => {
    const h = await harness();
    const acts: Action[] = [];
    for (let i = 0; i < 4; i++) acts.push(await h.act(write(h.workspace, `f${i}.txt`, `${i}\n`)));
    h.views.timeline(h.task.id);
    const readsTask = counting(h, /^SELECT \* FROM actions WHERE task_id = \?/);
    const readsMarked = counting(h, /^SELECT \* FROM actions WHERE id IN \(SELECT action_id FROM read_marks/);
    const readsChanges = counting(h, /^SELECT \* FROM fs_changes WHERE folder = \?/);
    const oneRead = () => {
      const before = [readsTask(), readsMarked(), readsChanges()];
      h.views.timeline(h.task.id);
      return { task: readsTask() - before[0]!, marked: readsMarked() - before[1]!, changes: readsChanges() - before[2]! };
    };
    const other = new Database(join(h.dataDir, 'posthoc.sqlite3'));
    try {
      // An action's status and a folder's change written by another process: that action and that folder alone.
      await afterChange(h, () => other.prepare(`UPDATE actions SET status = 'undone', undone_at = ? WHERE id = ?`).run(new Date().toISOString(), acts[1]!.id));
      expect(oneRead()).toEqual({ task: 0, marked: 0, changes: 0 });
      other.prepare('UPDATE fs_changes SET paths_json = ? WHERE action_id = ?').run('["elsewhere.txt"]', acts[2]!.id);
      other.prepare('UPDATE effects SET data_json = data_json WHERE action_id = ?').run(acts[3]!.id);
      expect(oneRead()).toEqual({ task: 0, marked: 1, changes: 1 });
      const same = both(h);
      expect(same.kept).toBe(same.fresh);
      // A write to another task's action marks only that action: nothing of this task is read again.
      const theirs = h.newTask('theirs');
      await h.act(write(h.workspace, 'theirs.txt', 't\n'), { task: theirs });
      h.views.timeline(h.task.id);
      other.prepare(`UPDATE actions SET status = 'kept' WHERE task_id = ?`).run(theirs.id);
      expect(oneRead()).toEqual({ task: 0, marked: 1, changes: 0 }); // read by id, found in no kept task

      // More marks than are kept since this keep last looked (the CLI ran a long while): it cannot tell what
      // changed, so it reads the task again whole, and says what a fresh read says.
      other.prepare(`UPDATE actions SET status = 'undone', undone_at = ? WHERE id = ?`).run(new Date().toISOString(), acts[0]!.id);
      const burst = other.prepare('INSERT INTO read_marks (action_id) VALUES (NULL)');
      other.transaction(() => {
        for (let i = 0; i < 21_000; i++) burst.run();
      })();
      expect(oneRead()).toMatchObject({ task: 1, changes: 1 });
      const after = both(h);
      expect(after.kept).toBe(after.fresh);
      expect(after.kept).toContain(acts[0]!.id);
      expect((other.prepare('SELECT count(*) FROM read_marks').pluck().get() as number)).toBeLessThanOrEqual(21_000);
    } finally {
      other.close();
    }
  });
});
