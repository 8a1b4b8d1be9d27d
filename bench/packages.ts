// npx tsx bench/packages.ts — what a node_modules of ~20,000 files in a granted folder costs an action.
//
// Whole actions through the real services (scripted model → sandbox → checkpoints before and after →
// attribution → effect), each in a task of its own on one granted folder, measured in the same run:
//   baseline    an action that writes one file, in a folder of a few files
//   install     an action that writes node_modules/ the way npm lays it out: 1,000 packages of 20 files
//               (package.json, index.js, lib/*.js, README.md, LICENSE; 200 B–6 KiB each, ~2 KiB typical)
//   after       an action that writes one file, in the folder that now holds node_modules/
//   undo        undo of the install action (removes the 20,000 files)
// The install action prints how long its own writing took inside the sandbox, so what is left of its
// time is Posthoc's: the checkpoint after (scan, hashing, git objects), attribution, recording.
// Each round runs once per way of recording what the action changed: the kernel's account (fanotify, the
// default) and the claim library (POSTHOC_ATTRIBUTION=library), interleaved, so their cost compares in one run.
// Usage: npx tsx bench/packages.ts [--packages 1000] [--rounds 3] [--attribution kernel,library]   (BENCH_IMAGE)
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../main/services/app-services';
import { FALLBACK_SANDBOX_UID } from '../main/sandbox/container-policy';
import { SANDBOX_IMAGE } from '../main/sandbox/sandbox-image';
import { startFakeOpenAi } from '../tests/support/fake-openai-server';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const PACKAGES = Number(arg('packages', '1000'));
const ROUNDS = Number(arg('rounds', '3'));

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const secs = (x: number) => `${(x / 1000).toFixed(2)} s`;

const writeOne = "```python\nopen('one.txt', 'a').write('x')\n```";
const install = `\`\`\`python
import os, time
t = time.perf_counter()
files = 0
for p in range(${PACKAGES}):
    root = 'node_modules/pkg-%04d' % p
    os.makedirs(root + '/lib', exist_ok=True)
    body = ('// code of package %d\\n' % p) * (10 + p % 60)
    with open(root + '/package.json', 'w') as f: f.write('{"name": "pkg-%04d", "version": "1.0.%d", "main": "index.js"}\\n' % (p, p))
    with open(root + '/index.js', 'w') as f: f.write("module.exports = require('./lib/m0');\\n")
    with open(root + '/README.md', 'w') as f: f.write('# pkg-%04d\\n' % p + body[:1500])
    with open(root + '/LICENSE', 'w') as f: f.write('MIT License\\n' * 20)
    files += 4
    for m in range(16):
        with open(root + '/lib/m%d.js' % m, 'w') as f: f.write(body[: 200 + (p * 7 + m * 131) % 6000])
        files += 1
print('files', files, 'write_ms', round((time.perf_counter() - t) * 1000))
\`\`\``;

type Mode = 'kernel' | 'library';
type Rows = Record<'baseline' | 'install' | 'installWrite' | 'after' | 'undo', number[]>;

/** One set of services per way of recording what an action changed (POSTHOC_ATTRIBUTION). */
async function bench(mode: Mode) {
  const replies = Array.from({ length: ROUNDS + 1 }, () => [writeOne, 'Done.', install, 'Done.', writeOne, 'Done.']).flat();
  const llm = await startFakeOpenAi(replies);
  const data = mkdtempSync(join(tmpdir(), 'posthoc-bench-data-'));
  const services = createServices({
    dataDir: data,
    image: process.env.BENCH_IMAGE ?? SANDBOX_IMAGE,
    env: { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_STREAM: '0', POSTHOC_ATTRIBUTION: mode },
  });
  const rows: Rows = { baseline: [], install: [], installWrite: [], after: [], undo: [] };
  const round = async (n: number) => {
    const ws = mkdtempSync(join(tmpdir(), 'posthoc-bench-ws-'));
    if (process.getuid?.() === 0) chownSync(ws, FALLBACK_SANDBOX_UID, FALLBACK_SANDBOX_UID);
    // One task per action (the scripted model replies with the action, then 'Done.'); the action's own
    // recorded time runs from before its checkpoint before to after its checkpoint after.
    const act = async () => {
      const task = await services.tasks.wait((await services.tasks.start({ prompt: 'bench', workspaces: [ws] })).id);
      const [action] = services.tasks.get(task.id).actions;
      if (!action || action.status !== 'done') throw new Error(`action did not finish: ${JSON.stringify(action?.output ?? task.error)}`);
      return { action, ms: Date.parse(action.finishedAt!) - Date.parse(action.startedAt) };
    };
    const baseline = await act();
    const inst = await act();
    const fs = inst.action.effects.find((e) => e.channel === 'fs');
    if (fs && fs.channel === 'fs' && (fs.whileRunning || fs.unattributed)) console.log(`${mode}: the install was not all the action's`, JSON.stringify(fs.whileRunning ?? fs.unattributed).slice(0, 200));
    const write = Number(/write_ms (\d+)/.exec(inst.action.output?.stdout ?? '')?.[1] ?? NaN);
    const after = await act();
    const t = performance.now();
    const undone = await services.tasks.undo(inst.action.id);
    const undoMs = performance.now() - t;
    if (undone.outcome !== 'undone') console.log('undo:', JSON.stringify(undone).slice(0, 300));
    if (n > 0) {
      // round 0 warms the image, the daemon and the checkpoint store's code paths
      rows.baseline.push(baseline.ms);
      rows.install.push(inst.ms);
      rows.installWrite.push(write);
      rows.after.push(after.ms);
      rows.undo.push(undoMs);
    }
    await services.executor.stopAll();
    rmSync(ws, { recursive: true, force: true });
  };
  const close = async () => {
    await services.close();
    await llm.close();
    rmSync(data, { recursive: true, force: true });
  };
  return { mode, rows, round, close };
}

async function main(): Promise<void> {
  const modes = (arg('attribution', 'kernel,library').split(',') as Mode[]).filter((m) => m === 'kernel' || m === 'library');
  const benches = await Promise.all(modes.map((m) => bench(m)));
  try {
    // Interleaved: each round runs every mode once, so the machine's load falls on all of them alike.
    for (let n = 0; n <= ROUNDS; n++) for (const b of benches) await b.round(n);
    const files = PACKAGES * 20;
    console.log(`rounds: ${ROUNDS}, node_modules: ${PACKAGES} packages, ${files} files; medians per way of recording what an action changed`);
    const line = (label: string, value: (r: Rows) => number) => console.log(`${label.padEnd(52)}${benches.map((b) => secs(value(b.rows)).padStart(12)).join('')}`);
    console.log(`${''.padEnd(52)}${benches.map((b) => b.mode.padStart(12)).join('')}`);
    line('baseline action (1 file, small folder)', (r) => median(r.baseline));
    line(`install action (${files} files)`, (r) => median(r.install));
    line('  of which writing them inside the sandbox', (r) => median(r.installWrite));
    line("  Posthoc's part (checkpoints, attribution)", (r) => median(r.install) - median(r.installWrite));
    line('next action (1 file, folder with node_modules)', (r) => median(r.after));
    line('undo of the install action', (r) => median(r.undo));
  } finally {
    for (const b of benches) await b.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
