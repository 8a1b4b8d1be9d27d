// npm run bench:checkpoint — what checkpoints and undo cost, against native git on a copy of the same
// folder, measured in the same run (medians over several rounds; the machines are shared and noisy).
//
// For folders of 10,000 files (~40 MB) and 100,000 files it measures: the first checkpoint, a checkpoint
// with no change, a checkpoint after 3 changed files, undo of the latest action (3 files), and a
// checkpoint with no change in a fresh process.
// Native git on the copy (`gc.auto 0`, so no background `git gc --auto` runs into the next round):
// `git add -A && git commit -q` for the first checkpoint and after changes, `git status --porcelain` for
// no change (a checkpoint with no change finds that nothing changed; git's way of finding that is status),
// `git checkout -q HEAD~1 -- .` for undo. Posthoc's and git's rounds alternate.
//
// The fresh-process row spawns `node` on checkpoint-fresh.ts (bundled first with esbuild, as the CLI is
// bundled): it opens the data folder and the store, reads the stat cache from disk, checkpoints, saves and
// exits, timed whole from outside (spawn to exit), against `git status --porcelain` spawned the same way.
//
// Usage: npm run bench:checkpoint [-- --sizes 10000,100000] [-- --rounds 7]
// BENCH_MILLION=1 adds a folder of a million files (smaller files: 200–600 bytes; 1 first round, 3 others).
// --only-fresh measures only the fresh-process row (the first checkpoint and git's first commit untimed),
// on one folder both read (nothing changes it, so sharing it is fair: the same page and inode caches).
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startUndoHarness, type UndoHarness } from '../tests/support/undo-harness';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const SIZES = arg('sizes', '10000,100000').split(',').map(Number);
if (process.env.BENCH_MILLION === '1' && !SIZES.includes(1_000_000)) SIZES.push(1_000_000);
const ROUNDS = Number(arg('rounds', '7'));
const FIRST_ROUNDS = 3;
const MILLION = 1_000_000;
const ONLY_FRESH = args.includes('--only-fresh');

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FRESH = join(ROOT, 'out', 'bench', 'checkpoint-fresh.mjs');
/** Bundles the fresh-process script as the CLI is bundled (no TypeScript compiled at each start). */
function bundleFresh(): void {
  execFileSync(
    join(ROOT, 'node_modules', '.bin', 'esbuild'),
    [join(ROOT, 'bench', 'checkpoint-fresh.ts'), '--bundle', '--platform=node', '--format=esm', '--target=node22', '--packages=external', `--outfile=${FRESH}`, '--log-level=warning'],
    { stdio: 'inherit' },
  );
}

/** CPU time (user + system) of this process's finished children, from /proc (Linux; 10 ms ticks), or NaN. */
function childrenCpuMs(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10; // cutime, cstime (fields 16 and 17), USER_HZ 100
  } catch {
    return Number.NaN;
  }
}

/** Wall time of a process, from before its spawn to its exit, and the CPU time it used (all its threads). */
function timeProcess(command: string, argv: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): { ms: number; cpuMs: number; stdout: string } {
  const cpu = childrenCpuMs();
  const t = performance.now();
  const r = spawnSync(command, argv, { ...options, encoding: 'utf8', maxBuffer: 64 << 20 });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${command} ${argv.join(' ')} exited with ${r.status}: ${r.stderr}`);
  return { ms, cpuMs: childrenCpuMs() - cpu, stdout: r.stdout };
}

type Row = { what: string; ours: number; native: number };

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Deterministic text files of 2-6 KB (~4 KB average; 200-600 bytes at a million) in folders of 50, 20 folders per group. */
function generate(root: string, files: number): number {
  const [least, spread] = files >= MILLION ? [200, 400] : [2000, 4000];
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = ['alpha', 'beta', 'gamma', 'delta', 'posthoc', 'undo', 'file', 'data', 'value', 'line'];
  let bytes = 0;
  for (let i = 0; i < files; i++) {
    const dir = join(root, `d${Math.floor(i / 1000)}`, `s${Math.floor(i / 50) % 20}`);
    if (i % 50 === 0) mkdirSync(dir, { recursive: true });
    const size = least + Math.floor(rnd() * spread);
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
    env,
    init: () => {
      rmSync(gitdir, { recursive: true, force: true });
      git('init', '-q');
      // Else git may start `gc --auto` in the background after a commit, and it runs while the next round is timed.
      git('config', 'gc.auto', '0');
    },
    status: () => git('status', '--porcelain'),
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
    const copy = ONLY_FRESH ? ours : join(root, 'native');
    const bytes = generate(ours, files);
    if (copy !== ours) generate(copy, files);
    process.stderr.write(`${files} files, ${(bytes / 1e6).toFixed(1)} MB generated\n`);
    const git = nativeGit(join(root, 'native.git'), copy);
    const rows: Row[] = [];
    const measure = async (what: string, rounds: number, oursFn: (r: number) => Promise<number>, nativeFn: (r: number) => number) => {
      const a: number[] = [];
      const b: number[] = [];
      // Interleaved, and each goes first every other round (a page cache warmed by one helps the other).
      for (let r = 0; r < rounds; r++) {
        if (r % 2 === 0) {
          a.push(await oursFn(r));
          b.push(nativeFn(r));
        } else {
          b.push(nativeFn(r));
          a.push(await oursFn(r));
        }
      }
      rows.push({ what, ours: median(a), native: median(b) });
      process.stderr.write(`  ${what}: ${median(a).toFixed(1)} ms vs ${median(b).toFixed(1)} ms\n`);
    };

    const million = files >= MILLION;
    const rounds = million ? Math.min(ROUNDS, 3) : ROUNDS;
    let harness: UndoHarness | null = null;
    if (ONLY_FRESH) {
      harness = await startUndoHarness({ workspaces: [ours], dataDir: mkdtempSync(join(root, 'data-')) });
      process.stderr.write(`  first checkpoint (untimed): ${(await time(() => observe(harness!))).toFixed(0)} ms\n`);
      git.init();
      process.stderr.write(`  git add -A && git commit (untimed): ${timeSync(() => git.commit()).toFixed(0)} ms\n`);
      await freshRows(harness, rounds);
      return rows;
    }
    await measure(
      'first checkpoint',
      million ? 1 : FIRST_ROUNDS,
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
    await measure('checkpoint, no change', rounds, () => time(() => observe(h)), () => timeSync(() => git.status()));
    await measure(
      'checkpoint after 3 changed files',
      rounds,
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
      rounds,
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
    await freshRows(h, rounds);
    return rows;

    async function freshRows(h: UndoHarness, rounds: number): Promise<void> {
      await h.close();
      // A process of its own each round (node on the bundled checkpoint-fresh.ts, git status), timed whole.
      // One untimed run each first: files the rounds above touched within the racy window are read once
      // more by the next checkpoint (and refreshed in git's index by the next status), which is not the
      // no-change case measured here.
      const cpu = { ours: [] as number[], native: [] as number[] };
      const fresh = () => {
        const run = timeProcess(process.execPath, [FRESH, h.dataDir, ours], { cwd: ROOT });
        const { hashed } = JSON.parse(run.stdout) as { hashed: number | null };
        return { ms: run.ms, cpuMs: run.cpuMs, hashed };
      };
      const gitStatus = () => timeProcess('git', ['status', '--porcelain'], { env: git.env, cwd: copy });
      await new Promise((resolve) => setTimeout(resolve, 2500));
      fresh();
      gitStatus();
      await measure(
        'checkpoint, no change, fresh process',
        rounds,
        async () => {
          const run = fresh();
          if (run.hashed !== 0) throw new Error(`a no-change checkpoint read ${run.hashed} files again`);
          cpu.ours.push(run.cpuMs);
          return run.ms;
        },
        () => {
          const run = gitStatus();
          cpu.native.push(run.cpuMs);
          return run.ms;
        },
      );
      // CPU time (all threads) is less at the mercy of other work on a shared machine than wall time.
      rows.push({ what: 'fresh process, CPU time (user + system)', ours: median(cpu.ours), native: median(cpu.native) });
      process.stderr.write(`  fresh process, CPU time: ${median(cpu.ours).toFixed(0)} ms vs ${median(cpu.native).toFixed(0)} ms\n`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const label = (n: number) => (n >= MILLION ? `${n / MILLION}M` : n >= 1000 ? `${n / 1000}k` : String(n));
bundleFresh();
const results = new Map<number, Row[]>();
for (const files of SIZES) results.set(files, await benchSize(files));

process.stdout.write(`\nCheckpoints and undo vs native git (median ms; node ${process.version}, git ${execFileSync('git', ['--version']).toString().trim().split(' ')[2]})\n`);
process.stdout.write(`load: ${execFileSync('uptime').toString().trim()}\n`);
process.stdout.write(`| files | measurement | Posthoc | native git | ratio |\n|---:|---|---:|---:|---:|\n`);
for (const [files, rows] of results) {
  for (const r of rows) process.stdout.write(`| ${label(files)} | ${r.what} | ${r.ours.toFixed(1)} | ${r.native.toFixed(1)} | ${(r.ours / r.native).toFixed(2)}x |\n`);
}
const incremental = (files: number) => {
  const r = results.get(files)?.find((x) => x.what === 'checkpoint after 3 changed files');
  return r ? (r.ours / r.native).toFixed(2) : 'n/a';
};
if (results.has(100_000)) process.stdout.write(`incremental/native-git ratio at 100k files: ${incremental(100_000)}\n`);
if (results.has(10_000)) process.stdout.write(`incremental/native-git ratio at 10k files: ${incremental(10_000)}\n`);
