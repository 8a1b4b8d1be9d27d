// npm run bench:checkpoint — what checkpoints and undo cost, against native git on a copy of the same
// folder, measured in the same run (medians over several rounds; the machines are shared and noisy).
//
// For folders of 10,000 files (~40 MB) and 100,000 files it measures: the first checkpoint, a checkpoint
// with no change, a checkpoint after 3 changed files, undo of the latest action (3 files), and a
// checkpoint with no change from a fresh process (stat cache read from disk, as each CLI command does).
// Native git: `git add -A && git commit -q` (and `git checkout -q HEAD~1 -- .` for undo) on the copy.
//
// Usage: npm run bench:checkpoint [-- --sizes 10000,100000] [-- --rounds 7]
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startUndoHarness, type UndoHarness } from '../tests/support/undo-harness';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const SIZES = arg('sizes', '10000,100000').split(',').map(Number);
const ROUNDS = Number(arg('rounds', '7'));
const FIRST_ROUNDS = 3;

type Row = { what: string; ours: number; native: number };

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Deterministic text files of 2-6 KB (~4 KB average) in folders of 50, 20 folders per group. */
function generate(root: string, files: number): number {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = ['alpha', 'beta', 'gamma', 'delta', 'posthoc', 'undo', 'file', 'data', 'value', 'line'];
  let bytes = 0;
  for (let i = 0; i < files; i++) {
    const dir = join(root, `d${Math.floor(i / 1000)}`, `s${Math.floor(i / 50) % 20}`);
    if (i % 50 === 0) mkdirSync(dir, { recursive: true });
    const size = 2000 + Math.floor(rnd() * 4000);
    let text = '';
    while (text.length < size) text += words[Math.floor(rnd() * 10)] + (rnd() < 0.1 ? '\n' : ' ');
    writeFileSync(join(dir, `f${i}.txt`), text);
    bytes += text.length;
  }
  return bytes;
}

function change3(root: string, round: number): void {
  for (let i = 0; i < 3; i++) appendFileSync(join(root, 'd0', 's0', `f${i}.txt`), `change ${round}.${i}\n`);
}

function timeSync(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

function nativeGit(gitdir: string, worktree: string) {
  const env = { ...process.env, GIT_DIR: gitdir, GIT_WORK_TREE: worktree, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
  const git = (...a: string[]) => execFileSync('git', a, { env, cwd: worktree, stdio: 'pipe' });
  return {
    init: () => {
      rmSync(gitdir, { recursive: true, force: true });
      git('init', '-q');
    },
    commit: (allowEmpty = false) => {
      git('add', '-A');
      git('commit', '-q', '-m', 'c', ...(allowEmpty ? ['--allow-empty'] : []));
    },
    undoLatest: () => git('checkout', '-q', 'HEAD~1', '--', '.'),
  };
}

async function observe(h: UndoHarness): Promise<void> {
  await h.fs.withFolders([h.workspace], ([store]) => h.fs.observe(store!, h.task.id, 'bench'));
}

async function benchSize(files: number): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), `posthoc-bench-${files}-`));
  try {
    const ours = join(root, 'ours');
    const copy = join(root, 'native');
    const bytes = generate(ours, files);
    generate(copy, files);
    process.stderr.write(`${files} files, ${(bytes / 1e6).toFixed(1)} MB generated\n`);
    const git = nativeGit(join(root, 'native.git'), copy);
    const rows: Row[] = [];
    const measure = async (what: string, rounds: number, oursFn: (r: number) => Promise<number>, nativeFn: (r: number) => number) => {
      const a: number[] = [];
      const b: number[] = [];
      for (let r = 0; r < rounds; r++) {
        a.push(await oursFn(r));
        b.push(nativeFn(r));
      }
      rows.push({ what, ours: median(a), native: median(b) });
      process.stderr.write(`  ${what}: ${median(a).toFixed(1)} ms vs ${median(b).toFixed(1)} ms\n`);
    };

    let harness: UndoHarness | null = null;
    await measure(
      'first checkpoint',
      FIRST_ROUNDS,
      async () => {
        await harness?.close();
        harness = await startUndoHarness({ workspaces: [ours], dataDir: mkdtempSync(join(root, 'data-')) });
        return time(() => observe(harness!));
      },
      () => {
        git.init();
        return timeSync(() => git.commit());
      },
    );
    const h = harness!;
    await measure('checkpoint, no change', ROUNDS, () => time(() => observe(h)), () => timeSync(() => git.commit(true)));
    await measure(
      'checkpoint after 3 changed files',
      ROUNDS,
      async (r) => {
        change3(ours, r);
        return time(() => observe(h));
      },
      (r) => {
        change3(copy, r);
        return timeSync(() => git.commit());
      },
    );
    await measure(
      'undo of the latest action (3 files)',
      ROUNDS,
      async (r) => {
        const action = await h.act(() => change3(ours, 100 + r));
        return time(async () => {
          const result = await h.undo.undo(action.id);
          if (result.outcome !== 'undone') throw new Error(`bench undo refused: ${result.message}`);
        });
      },
      (r) => {
        change3(copy, 100 + r);
        git.commit();
        return timeSync(() => git.undoLatest());
      },
    );
    await h.fs.close();
    await measure(
      'checkpoint, no change, fresh process',
      Math.min(ROUNDS, 5),
      async () => {
        const fresh = await h.reopen();
        const t = await time(() => observe(fresh));
        await fresh.fs.close();
        fresh.db.close();
        return t;
      },
      () => timeSync(() => git.commit(true)),
    );
    await h.close();
    return rows;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const label = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));
const results = new Map<number, Row[]>();
for (const files of SIZES) results.set(files, await benchSize(files));

process.stdout.write(`\nCheckpoints and undo vs native git (median ms; node ${process.version}, git ${execFileSync('git', ['--version']).toString().trim().split(' ')[2]})\n`);
process.stdout.write(`| files | measurement | Posthoc | native git | ratio |\n|---:|---|---:|---:|---:|\n`);
for (const [files, rows] of results) {
  for (const r of rows) process.stdout.write(`| ${label(files)} | ${r.what} | ${r.ours.toFixed(1)} | ${r.native.toFixed(1)} | ${(r.ours / r.native).toFixed(2)}x |\n`);
}
const incremental = (files: number) => {
  const r = results.get(files)?.find((x) => x.what === 'checkpoint after 3 changed files');
  return r ? (r.ours / r.native).toFixed(2) : 'n/a';
};
if (results.has(100_000)) process.stdout.write(`incremental/native-git ratio at 100k files: ${incremental(100_000)}\n`);
process.stdout.write(`incremental/native-git ratio at 10k files: ${incremental(10_000)}\n`);
