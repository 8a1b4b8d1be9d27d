// npx tsx bench/attribution.ts — what telling an action's changes from the person's costs.
//
// On a folder of 10,000 text files, one action (3 files changed and 1 added, all claimed) while the
// person edits 2 other files: the checkpoint after the action with its claim log (the split: lookups in
// the tree before, one lstat per claimed path that changed, a second history record) against the same
// checkpoint without claims (every change taken for the action's, as before attribution). Alternating,
// medians over the rounds, one warm-up round. A second pair claims 1,000 files (a build writing many).
//
// Usage: npx tsx bench/attribution.ts [--files 10000] [--rounds 15]
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { attribute, claimsFor } from '../main/effects/fs/attribution';
import type { LibraryClaims } from '../main/sandbox/claims';
import { claimsNow } from '../tests/support/claims';
import { startUndoHarness, type UndoHarness } from '../tests/support/undo-harness';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const FILES = Number(arg('files', '10000'));
const ROUNDS = Number(arg('rounds', '15'));

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const pathOf = (i: number) => join(`d${Math.floor(i / 1000)}`, `s${Math.floor(i / 50) % 20}`, `f${i}.txt`);

function generate(root: string, files: number): void {
  for (let i = 0; i < files; i++) {
    if (i % 50 === 0) mkdirSync(join(root, pathOf(i), '..'), { recursive: true });
    writeFileSync(join(root, pathOf(i)), `file ${i}\n`.repeat(200 + (i % 400)));
  }
}

/** One action: `claimed` files appended to and one added by it, then 2 edits of the person; the time of fs.after. */
async function action(h: UndoHarness, round: number, claimed: number, withClaims: boolean): Promise<number> {
  const id = randomUUID();
  h.store.saveAction({
    id,
    taskId: h.task.id,
    seq: h.store.nextActionSeq(h.task.id),
    kind: 'code',
    language: 'python',
    source: '# bench',
    status: 'running',
    output: { stdout: '', stderr: '', exitCode: null, timedOut: false, truncated: false },
    effects: [],
    messageId: null,
    confinement: { level: 'reversible', reason: 'bench' },
    startedAt: new Date().toISOString(),
    finishedAt: null,
    undoneAt: null,
  });
  const befores = await h.fs.before(id, h.task.workspaces, h.task.id);
  const paths: string[] = [];
  for (let i = 0; i < claimed; i++) {
    const p = pathOf((i * 7) % FILES);
    appendFileSync(join(h.workspace, p), `action ${round}\n`);
    paths.push(p);
  }
  const added = `added-${round}.txt`;
  writeFileSync(join(h.workspace, added), `round ${round}\n`);
  paths.push(added);
  const claims: LibraryClaims | null = withClaims ? claimsNow('workspace', h.workspace, paths) : null;
  for (const i of [FILES - 1, FILES - 2]) appendFileSync(join(h.workspace, pathOf(i)), `person ${round}\n`);
  const t = performance.now();
  const [after] = await h.fs.after(id, befores, claims);
  const ms = performance.now() - t;
  if (claims) {
    // The split alone, on the same diff: tree lookups and one lstat per claimed path that changed.
    const store = befores[0]!.store;
    const changes = store.diff(befores[0]!.checkpoint.tree, after!.after.checkpoint.tree);
    const map = claimsFor(claims, 'workspace', h.workspace);
    const s = performance.now();
    attribute(h.workspace, changes, map, (p) => store.lookup(befores[0]!.checkpoint.tree, p));
    splitOnly.push(performance.now() - s);
  }
  return ms;
}

let splitOnly: number[] = [];

async function pair(h: UndoHarness, claimed: number): Promise<{ split: number; plain: number; alone: number }> {
  splitOnly = [];
  const split: number[] = [];
  const plain: number[] = [];
  for (let r = 0; r <= ROUNDS; r++) {
    // Alternate which goes first; round 0 warms both up and is not counted.
    const order = r % 2 === 0 ? [true, false] : [false, true];
    for (const withClaims of order) {
      const ms = await action(h, r * 2 + (withClaims ? 0 : 1) + claimed * 1000, claimed, withClaims);
      if (r > 0) (withClaims ? split : plain).push(ms);
    }
  }
  return { split: median(split), plain: median(plain), alone: median(splitOnly.slice(1)) };
}

const h = await startUndoHarness();
generate(h.workspace, FILES);
console.log(`checkpoint after an action, folder of ${FILES} files, medians of ${ROUNDS} rounds (node ${process.version})`);
console.log('| claimed paths | with claims (split) | without claims | ratio | the split alone |');
console.log('|---:|---:|---:|---:|---:|');
for (const claimed of [3, 1000]) {
  const { split, plain, alone } = await pair(h, claimed);
  console.log(`| ${claimed + 1} | ${split.toFixed(1)} ms | ${plain.toFixed(1)} ms | ${(split / plain).toFixed(2)}x | ${alone.toFixed(2)} ms |`);
}
await h.close();
