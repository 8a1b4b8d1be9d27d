// One first checkpoint of an existing folder, in a process of its own, with its peak memory; then native
// git's `git add -A && git commit` of the same folder, with its own (through /usr/bin/time).
//
// Usage: npx tsx bench/checkpoint-first.ts FOLDER [--git]
// Prints one JSON line: { files, ms, maxRssMB, git?: { ms, maxRssMB } }. The folder is only read; the shadow
// repository and git's are made in a temporary folder and removed. bench/checkpoint.ts makes the folders
// this is meant for (BENCH_MILLION=1: a million files); run it on a copy made the same way to measure
// memory, which the interleaved benchmark (one process for every row) cannot.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointStore } from '../main/effects/fs/checkpoint-store';

const folder = process.argv[2];
if (!folder) throw new Error('usage: tsx bench/checkpoint-first.ts FOLDER [--git]');
const scratch = mkdtempSync(join(tmpdir(), 'posthoc-first-'));
try {
  const t = performance.now();
  const store = await CheckpointStore.open(folder, join(scratch, 'checkpoints'));
  const first = await store.snapshot('first', { budgetBytes: Number.MAX_SAFE_INTEGER });
  await store.pin('first', first.commit);
  store.saveCache();
  const ms = performance.now() - t;
  const out: Record<string, unknown> = { files: first.hashed, ms: Math.round(ms), maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024) };
  if (process.argv.includes('--git')) out.git = nativeGit(folder, join(scratch, 'native.git'));
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

function nativeGit(worktree: string, gitdir: string): { ms: number; maxRssMB: number | null } {
  const env = { ...process.env, GIT_DIR: gitdir, GIT_WORK_TREE: worktree, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
  execFileSync('git', ['init', '-q'], { env });
  execFileSync('git', ['config', 'gc.auto', '0'], { env });
  const timer = existsSync('/usr/bin/time') ? ['/usr/bin/time', '-f', '%M'] : [];
  const t = performance.now();
  // Peak of the two commands: each is its own process, so the larger of the two is git's peak.
  const peaks = [['add', '-A'], ['commit', '-q', '-m', 'c']].map((args) => {
    const [cmd, ...pre] = timer.length > 0 ? timer : ['git'];
    const r = spawnSync(cmd!, [...pre, ...(timer.length > 0 ? ['git'] : []), ...args], { env, cwd: worktree, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
    const kb = Number(r.stderr.trim().split('\n').pop());
    return Number.isFinite(kb) ? kb : null;
  });
  const ms = performance.now() - t;
  const known = peaks.filter((p): p is number => p !== null);
  return { ms: Math.round(ms), maxRssMB: known.length > 0 ? Math.round(Math.max(...known) / 1024) : null };
}
