// npm run bench:timeline — what reading a task's undo timeline costs (issue 27), against reading the same
// rows plainly, measured in the same run (medians over interleaved rounds; the machines are shared and noisy).
//
// For a task of 300 and one of 1,000 recorded one-file actions (each writes a new file; every 25th rewrites
// the file of the one before, so it depends on it; the last 3 are undone), built in a real better-sqlite3
// store with real checkpoints (tests/support/undo-harness.ts; no Docker), each round times, in turn:
//   (a) the timeline: UndoViews.timeline, what `task:timeline` answers (read again with nothing changed: kept);
//   (b) the action list: TaskStore.listActions, what `posthoc actions --task` reads;
//   (c) a plain SELECT of the same rows: the task's action rows and their effect rows, not parsed;
//   (d) a plain SELECT of every row the timeline reads: (c), the actions' figures and replies, the folder's
//       changes, the task's undo operations and restore journal, not parsed.
// With --old (the default for sizes up to 300), the read path before issue 27 too (tests/support/
// timeline-reference.ts), fewer rounds: it is quadratic; its answer must mean the same (each row's rewind list
// derived from the order the new answer gives once).
// Since the third pass the views keep the parsed actions and each folder's changes across reads
// (main/store/kept-reads.ts), so a read with nothing changed is a keep's hit; the rounds above time that. Then,
// in interleaved rounds, each a change then both reads (which first alternates):
//   (e) after a change by the app's own connection — in turn an action appended (h.act: checkpoints, effects,
//       the folder's change), the newest action undone, then redone (the saga: statuses, the folder's changes,
//       the operation's record) — the timeline, then the plain SELECT (c) of the same rows, in alternating order;
//   (f) after a write by another connection to the same file (a second better-sqlite3 connection sets the
//       newest action's finished_at, as the `posthoc` CLI's writes to an action do; since the read marks,
//       main/store/kept-reads.ts, only what it touched is read again), the timeline and the plain SELECT (c);
//   (g) cold, a first read: a new connection to the same file (the app or the CLI just started: nothing kept,
//       no statement prepared), its first timeline of the task, and the plain SELECT (c) on it.
// Every timeline read after a change is checked against a fresh one read inside a transaction (no keep).
// Then it counts the store's reads per output event: the renderer's freshener (renderer/src/state/
// undo-truth.ts) over a bridge whose task:timeline calls the real UndoViews, fed 40 output events of a
// running action; every read the store runs (a statement's all, get or iterate) is counted.
//
// Usage: npm run bench:timeline [-- --sizes 300,1000] [-- --rounds 7] [-- --old 300] [-- --clock cpu]
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { calls, type PosthocApi } from '../shared/contract';
import type { Action } from '../shared/domain';
import { UndoOperations } from '../main/store/undo-operations';
import { timelineActions, useTimelineStore } from '../renderer/src/state/timeline-store';
import { keepTimelinesFresh } from '../renderer/src/state/undo-truth';
import { expandRewinds, referenceTimeline } from '../tests/support/timeline-reference';
import { startUndoHarness, type UndoHarness } from '../tests/support/undo-harness';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const SIZES = arg('sizes', '300,1000').split(',').map(Number);
const ROUNDS = Number(arg('rounds', '7'));
const OLD_UP_TO = Number(arg('old', '300'));
const OLD_ROUNDS = 3;
/** The plain read the timeline is held against: the task's action rows and their effect rows, not parsed. */
const PLAIN_ACTIONS = 'SELECT * FROM actions WHERE task_id = ? ORDER BY seq';
const PLAIN_EFFECTS = 'SELECT e.* FROM effects e JOIN actions a ON a.id = e.action_id WHERE a.task_id = ? ORDER BY e.action_id, e.seq';
/**
 * wall: elapsed time (the default); cpu: this process's CPU time (user + system) over the call, which a
 * machine shared with other sessions' test runs disturbs less (a call taken off the CPU does not count).
 */
const CLOCK = arg('clock', 'wall');
const OUTPUT_EVENTS = 40;
/** Untimed runs of each read before the timed rounds. */
const WARM_UP = 10;

type Row = {
  size: number; timeline: number; list: number; plain: number; plainAll: number; old: number | null; answer: number;
  timelineBytes: number; oldShapeBytes: number; readsPerOutputEvent: number;
  afterChange: number; plainAfterChange: number; afterOther: number; plainAfterOther: number; cold: number; plainCold: number;
};

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function timeSync(fn: () => void): number {
  if (CLOCK === 'cpu') {
    const before = process.cpuUsage();
    fn();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  }
  const t = performance.now();
  fn();
  return performance.now() - t;
}

async function build(size: number): Promise<UndoHarness> {
  const h = await startUndoHarness();
  const started = performance.now();
  const actions: Action[] = [];
  for (let i = 0; i < size; i++) {
    const file = i % 25 === 24 ? `f${i - 1}.txt` : `f${i}.txt`;
    actions.push(await h.act(() => writeFileSync(join(h.workspace, file), `action ${i}\n`)));
  }
  for (const a of actions.slice(-3).reverse()) {
    const result = await h.undo.undo(a.id);
    if (result.outcome !== 'undone') throw new Error(`bench undo refused: ${JSON.stringify(result)}`);
  }
  await h.undo.settle();
  process.stderr.write(`${size} actions recorded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return h;
}

/** Counts every read the harness's database runs (a statement's all, get or iterate: the keep prepares its statements once). */
function countReads(h: UndoHarness): { reads: () => number } {
  type Runs = Record<'all' | 'get' | 'iterate', (...args: unknown[]) => unknown>;
  const proto = Object.getPrototypeOf(h.db.prepare('SELECT 1')) as Runs;
  let reads = 0;
  for (const name of ['all', 'get', 'iterate'] as const) {
    const run = proto[name];
    proto[name] = function (this: { database: unknown }, ...args: unknown[]) {
      if (this.database === h.db) reads += 1;
      return run.apply(this, args);
    };
  }
  return { reads: () => reads };
}

/** The renderer's freshener over a bridge to the real views, fed output events of a running action: store reads per event. */
async function readsPerOutputEvent(h: UndoHarness, counter: { reads: () => number }): Promise<number> {
  const listeners = new Map<string, Array<(payload: unknown) => void>>();
  const api = {
    taskTimeline: async ({ taskId }: { taskId: string }) => ({ ok: true as const, value: h.views.timeline(taskId) }),
    on: (name: string, fn: (payload: unknown) => void) => {
      listeners.set(name, [...(listeners.get(name) ?? []), fn]);
      return () => listeners.set(name, (listeners.get(name) ?? []).filter((f) => f !== fn));
    },
  } as unknown as PosthocApi;
  Object.assign(globalThis, { window: { posthoc: api } });
  const emit = (action: Action) => listeners.get('action:updated')?.forEach((fn) => fn(structuredClone(action)));
  const off = keepTimelinesFresh(api);
  await timelineActions.loadTimeline(h.task.id);
  // A new action starts, as ActionRunner saves it: one reload, expected and not counted.
  const action = h.store.saveAction({
    id: 'bench-running',
    taskId: h.task.id,
    seq: h.store.nextActionSeq(h.task.id),
    kind: 'code',
    language: 'python',
    source: 'for i in range(40): print(i)',
    status: 'running',
    output: { stdout: '', stderr: '', exitCode: null, timedOut: false, truncated: false },
    effects: [],
    messageId: null,
    confinement: { level: 'reversible', reason: 'running' },
    startedAt: new Date().toISOString(),
    finishedAt: null,
    undoneAt: null,
  });
  emit(action);
  const shown = () => useTimelineStore.getState().byTask[h.task.id]?.timeline?.entries.some((e) => e.kind === 'action' && e.action.id === action.id);
  while (!shown()) await new Promise((resolve) => setTimeout(resolve, 20));
  const before = counter.reads();
  let stdout = '';
  for (let i = 0; i < OUTPUT_EVENTS; i++) {
    stdout += `${i}\n`;
    emit({ ...action, output: { ...action.output, stdout } });
    await new Promise((resolve) => setTimeout(resolve, 100)); // longer than the freshener's 80 ms settle: each event on its own
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  off();
  return (counter.reads() - before) / OUTPUT_EVENTS;
}

async function benchSize(size: number): Promise<Row> {
  const h = await build(size);
  try {
    const operations = new UndoOperations(h.db);
    const parts = { db: h.db, store: h.store, fs: h.fs, undo: h.undo, operations, isRunning: () => false };
    const plainActions = h.db.prepare(PLAIN_ACTIONS);
    const plainEffects = h.db.prepare(PLAIN_EFFECTS);
    const byTask = [
      plainActions,
      plainEffects,
      h.db.prepare('SELECT f.* FROM action_figures f JOIN actions a ON a.id = f.action_id WHERE a.task_id = ? ORDER BY f.action_id, f.n'),
      h.db.prepare('SELECT m.id, m.usage_json FROM messages m WHERE m.id IN (SELECT message_id FROM actions WHERE task_id = ?)'),
      h.db.prepare('SELECT * FROM undo_operations WHERE task_id = ? ORDER BY id'),
      h.db.prepare('SELECT * FROM undo_journal WHERE task_id = ? ORDER BY id'),
    ];
    const folderChanges = h.db.prepare('SELECT * FROM fs_changes WHERE folder = ? ORDER BY id');
    const readAll = () => {
      for (const statement of byTask) statement.all(h.task.id);
      folderChanges.all(h.workspace);
    };
    const timeline = h.views.timeline(h.task.id);
    const timelineBytes = JSON.stringify(timeline).length;
    // The answer as it was before issue 27 (each row listing its rewind), derived from this one: its size.
    const oldShapeBytes = JSON.stringify(expandRewinds(timeline)).length;
    const doOld = size <= OLD_UP_TO;
    // The old answer listed each row's rewind; the new one gives the order once: compared with the lists derived from it.
    if (doOld && JSON.stringify(referenceTimeline(parts, h.task.id)) !== JSON.stringify(expandRewinds(timeline))) throw new Error('the timeline differs from the old read path');
    const a: number[] = [];
    const b: number[] = [];
    const c: number[] = [];
    const all: number[] = [];
    const d: number[] = [];
    const e: number[] = [];
    // Each read is run a few times untimed first, so the JIT has compiled it as in a running app (the first
    // rounds otherwise time the timeline's code before it is optimized, and its rows after a change later do not).
    for (let r = 0; r < WARM_UP; r++) {
      h.views.timeline(h.task.id);
      h.store.listActions(h.task.id);
      readAll();
      JSON.stringify(calls['task:timeline'].output.parse(timeline));
    }
    for (let r = 0; r < ROUNDS; r++) {
      a.push(timeSync(() => h.views.timeline(h.task.id)));
      b.push(timeSync(() => h.store.listActions(h.task.id)));
      c.push(
        timeSync(() => {
          plainActions.all(h.task.id);
          plainEffects.all(h.task.id);
        }),
      );
      all.push(timeSync(readAll));
      // What task:timeline adds on its way out: the contract parses the answer (dispatch), then it is sent as JSON.
      e.push(timeSync(() => JSON.stringify(calls['task:timeline'].output.parse(timeline))));
      if (doOld && r < OLD_ROUNDS) d.push(timeSync(() => referenceTimeline(parts, h.task.id)));
    }
    // After each change: the app's own writes (an action appended, the newest undone, then redone), then another connection's.
    const other = new Database(join(h.dataDir, 'posthoc.sqlite3'));
    // A real change of the newest action's row, as the CLI's writes to an action are.
    const touch = other.prepare('UPDATE actions SET finished_at = ? WHERE id = ?');
    const readPlain = () => {
      plainActions.all(h.task.id);
      plainEffects.all(h.task.id);
    };
    const fresh = () => JSON.stringify(h.db.transaction(() => h.views.timeline(h.task.id))());
    const bothAfter = (r: number, into: { kept: number[]; plain: number[] }) => {
      let read: ReturnType<typeof h.views.timeline> | undefined;
      const timed = () => into.kept.push(timeSync(() => (read = h.views.timeline(h.task.id))));
      if (r % 2 === 0) timed();
      into.plain.push(timeSync(readPlain));
      if (r % 2 === 1) timed();
      if (JSON.stringify(read) !== fresh()) throw new Error('the kept timeline differs from a fresh read');
    };
    const own = { kept: [] as number[], plain: [] as number[] };
    const others = { kept: [] as number[], plain: [] as number[] };
    const cold = { kept: [] as number[], plain: [] as number[] };
    let newest: Action | undefined;
    for (let r = 0; r < ROUNDS * 3; r++) {
      const step = r % 3;
      if (step === 0) newest = await h.act(() => writeFileSync(join(h.workspace, `added-${r}.txt`), `round ${r}\n`));
      else if (step === 1) await h.undo.undo(newest!.id);
      else await h.undo.redo(newest!.id);
      await h.undo.settle();
      bothAfter(r, own);
      if (step === 2) {
        touch.run(new Date().toISOString(), newest!.id);
        bothAfter(r, others);
      }
    }
    other.close();
    // First reads: a new connection each round (untimed: opening it), then its first timeline and a plain SELECT.
    for (let r = 0; r < ROUNDS; r++) {
      const second = await h.reopen();
      try {
        const plain = [second.db.prepare(PLAIN_ACTIONS), second.db.prepare(PLAIN_EFFECTS)] as const;
        const readPlainThere = () => {
          plain[0].all(h.task.id);
          plain[1].all(h.task.id);
        };
        if (r % 2 === 0) cold.kept.push(timeSync(() => second.views.timeline(h.task.id)));
        cold.plain.push(timeSync(readPlainThere));
        if (r % 2 === 1) cold.kept.push(timeSync(() => second.views.timeline(h.task.id)));
      } finally {
        await second.close();
      }
    }
    const row: Row = {
      size,
      timeline: median(a),
      list: median(b),
      plain: median(c),
      plainAll: median(all),
      old: doOld ? median(d) : null,
      answer: median(e),
      timelineBytes,
      oldShapeBytes,
      readsPerOutputEvent: await readsPerOutputEvent(h, countReads(h)),
      afterChange: median(own.kept),
      plainAfterChange: median(own.plain),
      afterOther: median(others.kept),
      plainAfterOther: median(others.plain),
      cold: median(cold.kept),
      plainCold: median(cold.plain),
    };
    process.stderr.write(
      `  timeline ${row.timeline.toFixed(1)} ms, list ${row.list.toFixed(1)} ms, plain ${row.plain.toFixed(1)} ms (every row ${row.plainAll.toFixed(1)} ms)${row.old !== null ? `, old ${row.old.toFixed(0)} ms` : ''}; ${row.readsPerOutputEvent} reads per output event; after a change ${row.afterChange.toFixed(1)} ms (plain ${row.plainAfterChange.toFixed(1)} ms), after another connection wrote ${row.afterOther.toFixed(1)} ms (plain ${row.plainAfterOther.toFixed(1)} ms), first read ${row.cold.toFixed(1)} ms (plain ${row.plainCold.toFixed(1)} ms)\n`,
    );
    return row;
  } finally {
    await h.close();
  }
}

const loadBefore = execFileSync('uptime').toString().trim();
const rows: Row[] = [];
for (const size of SIZES) rows.push(await benchSize(size));

const load = execFileSync('uptime').toString().trim();
process.stdout.write(`\nTimeline read path (median ms of ${CLOCK === 'cpu' ? 'CPU time' : 'elapsed time'} over ${ROUNDS} interleaved rounds; old path ${OLD_ROUNDS}; node ${process.version})\n`);
process.stdout.write(
  '| actions | timeline (nothing changed since the last read) | action list | plain SELECT (action and effect rows) | timeline / plain | list / plain | plain SELECT (every row the timeline reads) | timeline / that | old timeline | old / new | answer: contract parse + JSON | timeline JSON | the same in the old shape | store reads per output event |\n',
);
process.stdout.write('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n');
for (const r of rows) {
  process.stdout.write(
    `| ${r.size} | ${r.timeline.toFixed(1)} | ${r.list.toFixed(1)} | ${r.plain.toFixed(1)} | ${(r.timeline / r.plain).toFixed(2)}x | ${(r.list / r.plain).toFixed(2)}x | ${r.plainAll.toFixed(1)} | ${(r.timeline / r.plainAll).toFixed(2)}x | ${r.old !== null ? r.old.toFixed(0) : 'n/a'} | ${r.old !== null ? `${(r.old / r.timeline).toFixed(0)}x` : 'n/a'} | ${r.answer.toFixed(1)} | ${(r.timelineBytes / 1024).toFixed(0)} KiB | ${(r.oldShapeBytes / 1024).toFixed(0)} KiB | ${r.readsPerOutputEvent} |\n`,
  );
}
process.stdout.write(
  `\nAfter each change (median ms over ${ROUNDS * 3} changes by the app's connection: append, undo, redo; over ${ROUNDS} writes by another connection; first read: ${ROUNDS} new connections)\n`,
);
process.stdout.write(
  '| actions | timeline after a change | plain SELECT after it | ratio | timeline after another connection wrote | plain SELECT after it | ratio | first read (new connection) | plain SELECT there | ratio |\n',
);
process.stdout.write('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n');
for (const r of rows) {
  process.stdout.write(
    `| ${r.size} | ${r.afterChange.toFixed(1)} | ${r.plainAfterChange.toFixed(1)} | ${(r.afterChange / r.plainAfterChange).toFixed(2)}x | ${r.afterOther.toFixed(1)} | ${r.plainAfterOther.toFixed(1)} | ${(r.afterOther / r.plainAfterOther).toFixed(2)}x | ${r.cold.toFixed(1)} | ${r.plainCold.toFixed(1)} | ${(r.cold / r.plainCold).toFixed(2)}x |\n`,
  );
}
process.stdout.write(`load before: ${loadBefore}\nload after: ${load}\n`);
