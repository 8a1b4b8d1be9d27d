// Property: random actions, each followed while it still runs by random edits of the person, with claim
// logs as the sandbox's claim library would write them (every path an operation changed; a rename names
// only its two names), then random outside edits, undos, redos and rewinds. Whatever the engine allows,
// no undo, redo or rewind ever changes a path away from what the person last put there (or removed)
// unless an action wrote that path since: the person's edits made during an action are never reverted.
//
// Runs: POSTHOC_PROPERTY_RUNS (CI: 100; `npm run test:nightly` sets more).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LibraryClaims, PathClaim } from '../../main/sandbox/claims';
import type { Action } from '../../shared/domain';
import { stampOf } from '../support/claims';
import { startUndoHarness, type UndoHarness } from '../support/undo-harness';
import { index, LARGE, op } from './fs-arbitraries';
import { applyOp, changed, readDisk, sameNode, under, type Node, type Op, type State } from './fs-model';

const RUNS = Math.max(1, Math.floor(Number(process.env.POSTHOC_PROPERTY_RUNS ?? 200) / 2));
const SEED = process.env.POSTHOC_PROPERTY_SEED ? Number(process.env.POSTHOC_PROPERTY_SEED) : undefined;

type Step =
  | { step: 'action'; ops: Op[]; meanwhile: Op[] }
  | { step: 'outside'; ops: Op[] }
  | { step: 'undo' | 'redo' | 'rewind'; pick: number };

// A chmod keeps a file's inode, size and mtime, the stamp the claim log compares: the person's chmod of a
// file the action wrote is taken for the action's (docs/ARCHITECTURE.md, "Attribution", what it cannot see).
const personDuring = op.filter((o) => o.op !== 'chmod');

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      step: fc.constant('action' as const),
      ops: fc.array(op, { minLength: 1, maxLength: 4 }),
      meanwhile: fc.array(personDuring, { minLength: 0, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ step: fc.constant('outside' as const), ops: fc.array(op, { minLength: 1, maxLength: 2 }) }) },
  { weight: 3, arbitrary: fc.record({ step: fc.constant('undo' as const), pick: index }) },
  { weight: 2, arbitrary: fc.record({ step: fc.constant('redo' as const), pick: index }) },
  { weight: 2, arbitrary: fc.record({ step: fc.constant('rewind' as const), pick: index }) },
);
/** Undos, redos and rewinds that went through, over all runs: the property must not hold by refusing everything. */
let wentThrough = 0;

const program = fc.record({ initial: fc.array(op, { maxLength: 4 }), steps: fc.array(step, { minLength: 2, maxLength: 10 }) });

/** What the claim library reports for one operation: the paths it changed (a rename: its two names only). */
function claimedBy(o: Op, before: State, after: State): Array<{ path: string; dir: boolean }> {
  const paths = changed(before, after);
  const tops = o.op === 'rename' ? paths.filter((p) => !paths.some((q) => under(p, q))) : paths;
  return tops.map((path) => ({ path, dir: (after.get(path) ?? before.get(path))?.type === 'dir' }));
}

async function act(
  h: UndoHarness,
  s: Extract<Step, { step: 'action' }>,
  person: (ops: Op[], start: State, prior: ReadonlyMap<string, Node | null>) => string[],
  agentWrote: (paths: string[]) => void,
  personal: ReadonlyMap<string, Node | null>,
): Promise<Action> {
  const ws = h.workspace;
  let start: State = new Map();
  let left: State = new Map();
  let prior = new Map<string, Node | null>();
  const claimed = new Map<string, boolean>();
  return h.act(
    () => {
      start = readDisk(ws);
      prior = new Map(personal);
      for (const o of s.ops) {
        const was = readDisk(ws);
        applyOp(ws, readDisk(ws), o, 'agent', 0);
        const now = readDisk(ws);
        for (const c of claimedBy(o, was, now)) claimed.set(c.path, c.dir);
        agentWrote(changed(was, now));
      }
    },
    {
      lease: true,
      claims: (): LibraryClaims => {
        const paths = new Map<string, PathClaim>([...claimed].map(([p, dir]) => [p, { final: stampOf(ws, p), dir }]));
        left = readDisk(ws);
        return { complete: true, folders: [{ workspace: 'workspace', paths }] };
      },
      meanwhile: () => {
        const edited = person(s.meanwhile, start, prior);
        // Edits that leave a path as the action left it (created, then moved away again) differ in nothing
        // from what undo and redo may write there: the path is the action's.
        const end = readDisk(ws);
        agentWrote(edited.filter((p) => sameNode(left.get(p), end.get(p)) && !sameNode(start.get(p), end.get(p))));
      },
    },
  );
}

async function check(input: { initial: Op[]; steps: Step[] }): Promise<void> {
  const h = await startUndoHarness({ checkpoints: { largeFileBytes: LARGE } });
  const ws = h.workspace;
  // What the person last put at each path (null: removed it), until an action writes that path again.
  const personal = new Map<string, Node | null>();
  const log: string[] = [];
  // The person's edits, as a checkpoint sees them: an edit that leaves a path as it was at `start` (made
  // and undone again, or the same content) is no change, and the path keeps whose it was (`prior`).
  const person = (ops: Op[], start: State, prior: ReadonlyMap<string, Node | null>): string[] => {
    const edited = new Set<string>();
    for (const o of ops) {
      const was = readDisk(ws);
      applyOp(ws, readDisk(ws), o, 'person', 0);
      const now = readDisk(ws);
      for (const p of changed(was, now)) {
        personal.set(p, now.get(p) ?? null);
        edited.add(p);
      }
    }
    const end = readDisk(ws);
    for (const p of edited) {
      if (!sameNode(start.get(p), end.get(p))) continue;
      if (prior.has(p)) personal.set(p, prior.get(p)!);
      else personal.delete(p);
    }
    return [...edited];
  };
  const agentWrote = (paths: string[]) => {
    for (const p of paths) personal.delete(p);
  };
  const ids: string[] = [];
  try {
    person(input.initial, readDisk(ws), new Map());
    for (const s of input.steps) {
      if (s.step === 'outside') {
        person(s.ops, readDisk(ws), new Map(personal));
        log.push(`outside ${s.ops.map((o) => o.op).join(',')}`);
        continue;
      }
      if (s.step === 'action') {
        ids.push((await act(h, s, person, agentWrote, personal)).id);
        log.push(`action#${ids.length} ${s.ops.map((o) => o.op).join(',')} meanwhile ${s.meanwhile.map((o) => o.op).join(',')}`);
        continue;
      }
      if (ids.length === 0) continue;
      const i = s.pick % ids.length;
      const action = h.store.getAction(ids[i]!)!;
      const allowed = s.step === 'redo' ? action.status === 'undone' : action.status === 'done';
      log.push(`${s.step} #${i + 1} (${action.status})`);
      if (!allowed) continue;
      const was = readDisk(ws);
      const result = await h.undo[s.step](action.id);
      if (result.outcome !== 'conflict') wentThrough++;
      const now = readDisk(ws);
      for (const p of changed(was, now)) {
        if (!personal.has(p)) continue;
        const mine = personal.get(p) ?? undefined;
        if (sameNode(was.get(p), mine)) {
          throw new Error(`${s.step} #${i + 1} (${result.outcome}) changed ${p}, which holds the person's edit.\n steps: ${log.join(' | ')}`);
        }
      }
      // What the undo wrote is the actions' doing: it is no longer the person's edit to protect there.
      for (const p of changed(was, now)) personal.delete(p);
    }
  } finally {
    await h.close();
  }
}

describe('attribution against random actions and edits made while they run', () => {
  it(`never reverts an edit the person made, during an action or outside one (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(program, async (input) => {
        await check(input);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    expect(wentThrough).toBeGreaterThan(RUNS / 10);
  });
});
