// Property: random file operations (create, modify, delete, rename, chmod, symlink, mkdir, rmdir; text,
// binary and large contents; odd names) split over actions, with random outside edits between them, then
// random undo, redo, rewind and keep, and undo and rewind that keep the person's edits as copies. After
// every step the folder equals what the reference model predicts (contents, modes, links), the engine
// allows and refuses exactly what the model does, and no edit made outside Posthoc is ever overwritten
// (an edit kept as a copy is found, unchanged, in its copy).
//
// Runs: POSTHOC_PROPERTY_RUNS (CI: 200; `npm run test:nightly` sets more).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startUndoHarness } from '../support/undo-harness';
import { index, LARGE, op } from './fs-arbitraries';
import { applyOp, describeState, readDisk, sameNode, type Op } from './fs-model';
import { UndoModel } from './undo-model';

const RUNS = Number(process.env.POSTHOC_PROPERTY_RUNS ?? 200);
const SEED = process.env.POSTHOC_PROPERTY_SEED ? Number(process.env.POSTHOC_PROPERTY_SEED) : undefined;

type Step =
  | { step: 'action'; ops: Op[]; fails: boolean }
  | { step: 'outside'; ops: Op[] }
  | { step: 'undo' | 'redo' | 'rewind' | 'keep'; pick: number; copies?: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ step: fc.constant('action' as const), ops: fc.array(op, { minLength: 1, maxLength: 4 }), fails: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ step: fc.constant('outside' as const), ops: fc.array(op, { minLength: 1, maxLength: 2 }) }) },
  { weight: 3, arbitrary: fc.record({ step: fc.constant('undo' as const), pick: index }) },
  { weight: 2, arbitrary: fc.record({ step: fc.constant('undo' as const), pick: index, copies: fc.constant(true) }) },
  { weight: 1, arbitrary: fc.record({ step: fc.constant('rewind' as const), pick: index, copies: fc.constant(true) }) },
  { weight: 2, arbitrary: fc.record({ step: fc.constant('redo' as const), pick: index }) },
  { weight: 2, arbitrary: fc.record({ step: fc.constant('rewind' as const), pick: index }) },
  { weight: 1, arbitrary: fc.record({ step: fc.constant('keep' as const), pick: index }) },
);
const program = fc.record({ initial: fc.array(op, { maxLength: 4 }), steps: fc.array(step, { minLength: 2, maxLength: 12 }) });

/** Runs one program against the engine and the model; returns how many edits were kept as copies. */
async function check(input: { initial: Op[]; steps: Step[] }): Promise<number> {
  // Listing in worker threads on every checkpoint (real folders only use them past 8000 files).
  const h = await startUndoHarness({ checkpoints: { largeFileBytes: LARGE, parallelMinFiles: 1 } });
  const ws = h.workspace;
  let clock = 0;
  const model = new UndoModel(() => ++clock);
  const ids: string[] = [];
  const log: string[] = [];
  let copiesMade = 0;
  const outside = (o: Op) => applyOp(ws, model.state, o, 'person', ++clock);
  const expectFolder = (after: string) => {
    const disk = readDisk(ws);
    if (describeState(disk) !== describeState(model.state)) {
      throw new Error(`after ${after}, the folder differs from the model.\n disk:  ${describeState(disk)}\n model: ${describeState(model.state)}\n steps: ${log.join(' | ')}`);
    }
  };
  try {
    for (const o of input.initial) outside(o);
    for (const s of input.steps) {
      if (s.step === 'outside') {
        for (const o of s.ops) outside(o);
        log.push(`outside ${s.ops.map((o) => o.op).join(',')}`);
        continue;
      }
      if (s.step === 'action') {
        const before = model.startAction();
        const action = await h.act(() => {
          for (const o of s.ops) applyOp(ws, model.state, o, 'agent', ++clock);
        }, { fails: s.fails });
        ids.push(action.id);
        model.finishAction(before, s.fails, ++clock);
        log.push(`action#${ids.length} ${s.ops.map((o) => o.op).join(',')}`);
        expectFolder(log.at(-1)!);
        continue;
      }
      if (ids.length === 0) continue;
      const i = s.pick % ids.length;
      const id = ids[i]!;
      const status = model.actions[i]!.status;
      log.push(`${s.step} #${i + 1} (${status})`);
      if (s.step === 'keep') {
        if (status === 'done' || status === 'failed') {
          await h.undo.keep(id);
          model.actions[i]!.status = 'kept';
        } else await expect(h.undo.keep(id)).rejects.toThrow();
        continue;
      }
      const valid = s.step === 'redo' ? status === 'undone' : status === 'done' || status === 'failed';
      const keptInRange = s.step === 'rewind' && model.rewindSet(i).some((j) => model.actions[j]!.status === 'kept');
      if (!valid || keptInRange) {
        await expect(h.undo[s.step](id)).rejects.toThrow();
        continue;
      }
      if (s.copies) log[log.length - 1] += ' keeping copies';
      // Edits made outside Posthoc after the change being reverted: no undo, redo or rewind may change them.
      model.checkpoint();
      const list = s.step === 'rewind' ? model.rewindSet(i) : [i];
      const since = s.step === 'redo' ? model.actions[i]!.undoneAt : Math.min(...list.map((j) => model.actions[j]!.appliedAt));
      const personal = [...model.state].filter(([, n]) => n.by === 'person' && n.at > since);
      const removed = [...model.removedOutside].filter(([p, at]) => at > since && !model.state.has(p)).map(([p]) => p);
      const expected = model.revert(s.step, i, ++clock, s.copies === true);
      const result = s.step === 'redo' ? await h.undo.redo(id) : await h.undo[s.step](id, { keepCopies: s.copies === true });
      const allowed = result.outcome !== 'conflict';
      if (allowed !== expected.ok) {
        throw new Error(
          `${s.step} of action #${i + 1}: engine ${allowed ? 'allowed it' : `refused (${result.outcome === 'conflict' ? result.message : ''})`}, model ${expected.ok ? 'allows it' : `refuses (${expected.why})`}\n steps: ${log.join(' | ')}`,
        );
      }
      log[log.length - 1] += allowed ? ' ok' : ' refused';
      const disk = readDisk(ws);
      const copyOf = new Map(expected.ok ? expected.copies.map((c) => [c.path, c.copy]) : []);
      copiesMade += copyOf.size;
      const engineCopies = result.outcome === 'undone' || result.outcome === 'rewound' ? (result.copies ?? []) : [];
      expect(engineCopies.map((c) => [c.path, c.copy]).sort(), `copies (steps: ${log.join(' | ')})`).toEqual([...copyOf].sort());
      for (const [p, n] of personal) {
        // An edit kept as a copy is in its copy, unchanged.
        if (copyOf.has(p)) {
          if (!sameNode(disk.get(copyOf.get(p)!), n)) throw new Error(`${s.step} lost ${JSON.stringify(p)}, an edit it was to keep as ${copyOf.get(p)}\n steps: ${log.join(' | ')}`);
          continue;
        }
        if (!sameNode(disk.get(p), n)) throw new Error(`${s.step} changed ${JSON.stringify(p)}, an edit made outside Posthoc\n steps: ${log.join(' | ')}`);
      }
      for (const p of removed) {
        if (disk.has(p)) throw new Error(`${s.step} brought back ${JSON.stringify(p)}, which was removed outside Posthoc\n steps: ${log.join(' | ')}`);
      }
      expectFolder(log.at(-1)!);
      const statuses = h.store.listActions(h.task.id).map((a) => a.status);
      expect(statuses).toEqual(model.actions.map((a) => a.status));
    }
    // A checkpoint now finds no change Posthoc did not see being made: what it recorded after each
    // restore is what the folder holds.
    model.checkpoint();
    await h.act(() => undefined);
    const external = h.fs.history.changes(ws).filter((c) => c.kind === 'external').length;
    expect(external, `outside edits recorded (steps: ${log.join(' | ')})`).toBe(model.externals);
    return copiesMade;
  } finally {
    await h.close();
  }
}

describe('the undo engine against a reference model', () => {
  it(`keeps the folder equal to the model and never overwrites an outside edit (${RUNS} runs)`, async () => {
    await fc.assert(fc.asyncProperty(program, async (p) => void (await check(p))), { numRuns: RUNS, seed: SEED, endOnFailure: false });
  });

  it('keeps edits as copies: next to the file, and out of a folder the rewind removes', async () => {
    const text = (t: string) => ({ kind: 'text' as const, text: t });
    const made = await check({
      initial: [{ op: 'write', dir: 0, name: 'b.txt', content: text('orig') }],
      steps: [
        { step: 'action', ops: [{ op: 'modify', file: 0, content: text('agent') }], fails: false },
        { step: 'outside', ops: [{ op: 'modify', file: 0, content: text('mine') }] },
        { step: 'undo', pick: 0 },
        { step: 'undo', pick: 0, copies: true },
        { step: 'redo', pick: 0 },
        { step: 'action', ops: [{ op: 'mkdir', dir: 0, name: 'D' }, { op: 'write', dir: 1, name: 'x.py', content: text('print(1)') }], fails: false },
        { step: 'outside', ops: [{ op: 'modify', file: 0, content: text('print(2)') }] },
        { step: 'rewind', pick: 0, copies: true },
      ],
    });
    expect(made).toBe(2);
  });

  it('handles a few hand-picked sequences', async () => {
    // A folder replaced by a file of the same name, then both undone in turn.
    await check({
      initial: [{ op: 'mkdir', dir: 0, name: 'D' }, { op: 'write', dir: 1, name: 'a', content: { kind: 'text', text: 'x' } }],
      steps: [
        { step: 'action', ops: [{ op: 'delete', entry: 0 }, { op: 'write', dir: 0, name: 'D', content: { kind: 'text', text: 'file now' } }], fails: false },
        { step: 'outside', ops: [{ op: 'write', dir: 0, name: 'b.txt', content: { kind: 'text', text: 'mine' } }] },
        { step: 'undo', pick: 0 },
        { step: 'redo', pick: 0 },
        { step: 'rewind', pick: 0 },
      ],
    });
  });
});
