// npm run bench:cli — how soon the CLI answers (issue 28): `posthoc --help` and `posthoc tasks` against
// `node -e 0`, the floor of any Node command, each a fresh process timed whole from outside (start, module
// loading, the answer, the exit). Rounds are interleaved (node, help, tasks, node, help, tasks, …) and each
// ratio is taken round by round, so a machine whose speed drifts during the run still compares like with
// like; the machines are shared and noisy: quote medians and ratios, not single times.
//
// `tasks` reads a fresh temporary data folder (POSTHOC_HOME) holding a few finished tasks. Peak RSS comes
// from separate rounds under /usr/bin/time (its own process would blur the timed rounds), when it exists.
//
// Usage: npm run bench:cli [-- --rounds 31] [-- --bin path/to/bin/posthoc.js]
//   --bin measures another build (a checkout of an earlier commit, built there) against the same floor.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../main/store/database';
import { TaskStore } from '../main/store/task-store';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const ROUNDS = Number(arg('rounds', '31'));
const WARMUP = 2;
const RSS_ROUNDS = 5;
const BIN = resolve(arg('bin', 'bin/posthoc.js'));
const TASKS = 5;

if (!existsSync(join(dirname(BIN), '..', 'out', 'main', 'cli.js'))) {
  process.stderr.write(`The CLI at ${BIN} is not built: run "npm run build" in its folder first.\n`);
  process.exit(2);
}

type Command = { name: string; argv: string[] };

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** A data folder with a few finished tasks, as the app leaves it. */
function dataFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'posthoc-bench-cli-'));
  const db = openDatabase(dir);
  const store = new TaskStore(db);
  for (let i = 1; i <= TASKS; i++) store.updateTask(store.createTask({ title: `bench task ${i}`, workspaces: [], model: 'm' }).id, { status: 'done', answer: 'ok' });
  db.close();
  return dir;
}

const data = dataFolder();
const env = { ...process.env, POSTHOC_HOME: data };

/** One fresh process, timed whole (ms); its exit must be 0 and `tasks` must list the folder's tasks. */
function timed(command: Command): number {
  const start = performance.now();
  const run = spawnSync(process.execPath, command.argv, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - start;
  if (run.status !== 0) throw new Error(`${command.name} exited ${run.status}: ${run.stderr}`);
  if (command.name === 'posthoc tasks' && run.stdout.trim().split('\n').length !== TASKS) throw new Error(`posthoc tasks listed:\n${run.stdout}`);
  return ms;
}

/** The largest resident set of one run, in MiB, from GNU time's "Maximum resident set size" (KiB). */
function peakRss(command: Command): number | null {
  const run = spawnSync('/usr/bin/time', ['-v', process.execPath, ...command.argv], { env, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const kib = /Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr ?? '')?.[1];
  return kib ? Number(kib) / 1024 : null;
}

const load = () => execFileSync('uptime', { encoding: 'utf8' }).trim().replace(/.*load average: /, '');

const commands: Command[] = [
  { name: 'node -e 0', argv: ['-e', '0'] },
  { name: 'posthoc --help', argv: [BIN, '--help'] },
  { name: 'posthoc tasks', argv: [BIN, 'tasks'] },
];

try {
  const loadBefore = load();
  for (let r = 0; r < WARMUP; r++) for (const c of commands) timed(c);
  const times = commands.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) commands.forEach((c, i) => times[i]!.push(timed(c)));
  const rss = existsSync('/usr/bin/time')
    ? commands.map((c) => {
        const peaks = Array.from({ length: RSS_ROUNDS }, () => peakRss(c)).filter((p): p is number => p !== null);
        return peaks.length ? median(peaks) : null;
      })
    : commands.map(() => null);
  const loadAfter = load();

  const floor = times[0]!;
  process.stdout.write(`\nCLI start: fresh processes, ${ROUNDS} interleaved rounds after ${WARMUP} warm-up (node ${process.version}, ${BIN})\n`);
  process.stdout.write(`load average before: ${loadBefore}; after: ${loadAfter}\n`);
  process.stdout.write('| command | median ms | min–max ms | ratio to node -e 0 (median of pairs) | peak RSS MiB (median) |\n|---|---:|---:|---:|---:|\n');
  commands.forEach((c, i) => {
    const t = times[i]!;
    const ratio = i === 0 ? '1.00x' : `${median(t.map((ms, r) => ms / floor[r]!)).toFixed(2)}x`;
    const peak = rss[i] === null || rss[i] === undefined ? 'n/a' : rss[i]!.toFixed(1);
    process.stdout.write(`| \`${c.name}\` | ${median(t).toFixed(1)} | ${Math.min(...t).toFixed(1)}–${Math.max(...t).toFixed(1)} | ${ratio} | ${peak} |\n`);
  });
} finally {
  rmSync(data, { recursive: true, force: true });
}
