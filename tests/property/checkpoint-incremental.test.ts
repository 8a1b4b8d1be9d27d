// Property: a checkpoint that reuses what the last ones learned — the stat cache, each folder's last
// listing (a folder listed exactly as before is not looked into file by file), the cache's journal read
// back by a new process, the native lister's parallel bins — records exactly the tree, and names exactly
// the files not covered by undo, that a checkpoint from scratch does (a new shadow repository, the
// JavaScript lister, no cache). Large contents are never covered here (budget 0), so both agree on them.
//
// Files are trusted to the cache at once here (racy window 0), so the test waits past the file system's
// timestamp granularity before each checkpoint: a change is then always visible in the stat fields.
//
// Runs: half of POSTHOC_PROPERTY_RUNS (CI: 100).
import fc from 'fast-check';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../main/effects/fs/checkpoint-store';
import { tempDirs } from '../support/temp-dir';
import { LARGE, op } from './fs-arbitraries';
import { applyOp, readDisk, type Op } from './fs-model';

const RUNS = Math.ceil(Number(process.env.POSTHOC_PROPERTY_RUNS ?? 200) / 2);
const SEED = process.env.POSTHOC_PROPERTY_SEED ? Number(process.env.POSTHOC_PROPERTY_SEED) : undefined;
const BUDGET = 0;
const TICK_MS = 15;

type Batch = { ops: Op[]; reopen: boolean };
const batch: fc.Arbitrary<Batch> = fc.record({ ops: fc.array(op, { minLength: 1, maxLength: 5 }), reopen: fc.boolean() });

const tick = () => new Promise((resolve) => setTimeout(resolve, TICK_MS));

describe('incremental checkpoints', () => {
  it(`record the same tree as a checkpoint from scratch (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 6 }), async (batches) => {
        const dirs = tempDirs();
        try {
          const ws = dirs.make('posthoc-prop-ws-');
          const data = dirs.make('posthoc-prop-data-');
          const open = () => CheckpointStore.open(ws, join(data, 'incremental'), { racyWindowMs: 0, parallelMinFiles: 1, largeFileBytes: LARGE });
          let store = await open();
          const state = readDisk(ws);
          let clock = 0;
          for (const [i, b] of batches.entries()) {
            for (const o of b.ops) applyOp(ws, state, o, 'agent', ++clock);
            await tick();
            if (b.reopen) {
              store.saveCache();
              store = await open();
            }
            const incremental = await store.snapshot(`batch ${i}`, { budgetBytes: BUDGET });
            const scratch = await CheckpointStore.open(ws, join(data, `scratch-${i}`), { racyWindowMs: 0, javascriptLister: true, largeFileBytes: LARGE });
            const fresh = await scratch.snapshot(`scratch ${i}`, { budgetBytes: BUDGET });
            expect(incremental.tree, `after batch ${i}: ${JSON.stringify(b.ops)}`).toBe(fresh.tree);
            const names = (cp: typeof fresh) => cp.notCovered.map((n) => `${n.reason} ${n.path}`).sort();
            expect(names(incremental), `not covered after batch ${i}`).toEqual(names(fresh));
          }
        } finally {
          dirs.cleanup();
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 600_000);
});
