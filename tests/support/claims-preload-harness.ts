// Runs real programs on this machine with the claim library preloaded (main/sandbox/image/
// claims-preload.c) and compares what the parsed log claims with what the programs really changed.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { FolderClaims, PathClaim } from '../../main/sandbox/claims';
import { parseClaimsLog } from '../../main/sandbox/claims-log';

export const SOURCE = join(__dirname, '..', '..', 'main', 'sandbox', 'image', 'claims-preload.c');
/** The system's Python, not a version manager's shim (which would run a dozen processes around it). */
export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** Compiles the library exactly as the image build does; the compiler must have nothing to say. */
export function compileLibrary(dir: string): string {
  const out = join(dir, 'posthoc-claims.so');
  const result = spawnSync('cc', ['-shared', '-fPIC', '-O2', '-Wall', '-Wextra', '-o', out, SOURCE, '-ldl'], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return out;
}

export type Runner = {
  /** 'root' runs as this process's user; 'person' runs as uid 1000 with the folders given to it. */
  who: 'root' | 'person';
  library: string;
  home: string;
};

export type RunResult = { status: number | null; stdout: string; stderr: string; log: Buffer | null };

const PERSON = 1000;

/** A folder the runner's programs may write: owned by uid 1000 for the person. */
export function ownFolder(runner: Runner, dir: string): string {
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  if (runner.who === 'person' && process.getuid?.() === 0) chownSync(dir, PERSON, PERSON);
  return realpathSync(dir);
}

/**
 * Runs `bash -c script` in `cwd` with the library preloaded. The log is created first (as the sandbox's
 * runner does) unless `withLog` is false; `log` is its content afterwards, null when it was not made.
 */
export function runClaimed(
  runner: Runner,
  cwd: string,
  script: string,
  options: { withLog?: boolean; logPath?: string; preload?: boolean } = {},
): RunResult {
  const logPath = options.logPath ?? join(runner.home, 'claims.log');
  if (options.withLog !== false) {
    writeFileSync(logPath, '');
    chmodSync(logPath, 0o666);
  } else if (existsSync(logPath)) {
    throw new Error(`${logPath} should not exist`);
  }
  const asPerson = runner.who === 'person' && process.getuid?.() === 0;
  const env: NodeJS.ProcessEnv = {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: runner.home,
    LANG: 'C.UTF-8',
    GIT_CONFIG_NOSYSTEM: '1',
    POSTHOC_CLAIMS_LOG: logPath,
    ...(options.preload === false ? {} : { LD_PRELOAD: runner.library }),
  };
  const result = spawnSync('bash', ['-c', script], {
    cwd,
    env,
    encoding: 'utf8',
    ...(asPerson ? { uid: PERSON, gid: PERSON } : {}),
    maxBuffer: 64 * 1024 * 1024,
  });
  const log = existsSync(logPath) ? readFileSync(logPath) : null;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, log };
}

export type Entry = { kind: 'file' | 'dir' | 'link'; ino: number; size: number; mtimeNs: string };

/** Every path under `root` with its identity, as the host's checkpoint would see it. */
export function snapshot(root: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const st = lstatSync(path, { bigint: true });
      const kind = st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : 'file';
      const relative = prefix + name;
      entries.set(relative, { kind, ino: Number(st.ino), size: Number(st.size), mtimeNs: st.mtimeNs.toString() });
      if (kind === 'dir') walk(path, `${relative}/`);
    }
  };
  walk(root, '');
  return entries;
}

/** The claims the log makes about one folder. */
export function claimsFor(log: Buffer | null, folder: string): Map<string, PathClaim> {
  expect(log).not.toBeNull();
  const parsed = parseClaimsLog(log!, [{ mountPath: folder, workspace: 'w' }], false);
  expect(parsed.complete).toBe(true);
  return (parsed.folders[0] as FolderClaims).paths;
}

function changed(before: Entry | undefined, after: Entry | undefined): boolean {
  if (!before || !after) return before !== after;
  if (before.kind !== after.kind) return true;
  // A folder's own stamp moves with every name made in it; what matters is that it exists.
  if (after.kind === 'dir') return before.ino !== after.ino;
  return before.ino !== after.ino || before.size !== after.size || before.mtimeNs !== after.mtimeNs;
}

/**
 * What the claims get wrong about a run, as readable strings (empty when they are right):
 * - every path that changed is claimed, and its claimed final state is the real one;
 * - no claim is wrong about a path's final state ('absent' where something is, a stale stamp);
 * - a claimed final state is unknown (null) only for paths listed in `unknownAllowed`.
 */
export function claimProblems(
  before: Map<string, Entry>,
  after: Map<string, Entry>,
  claims: Map<string, PathClaim>,
  unknownAllowed: string[] = [],
): string[] {
  const problems: string[] = [];
  const paths = new Set([...before.keys(), ...after.keys()]);
  for (const path of paths) {
    if (changed(before.get(path), after.get(path)) && !claims.has(path)) problems.push(`unclaimed change: ${path}`);
  }
  for (const [path, claim] of claims) {
    const now = after.get(path);
    if (claim.final === null) {
      if (!unknownAllowed.includes(path)) problems.push(`final unknown: ${path}`);
    } else if (claim.final === 'absent') {
      if (now) problems.push(`claimed absent but present: ${path}`);
    } else if (!now) {
      problems.push(`claimed present but absent: ${path}`);
    } else if (now.kind !== 'dir') {
      const { ino, size, mtimeNs } = claim.final;
      if (ino !== now.ino || size !== now.size || mtimeNs !== now.mtimeNs) {
        problems.push(`stale stamp: ${path} claimed ${ino}/${size}/${mtimeNs}, is ${now.ino}/${now.size}/${now.mtimeNs}`);
      }
    }
    if (now && claim.final !== 'absent' && claim.dir !== (now.kind === 'dir')) problems.push(`wrong dir flag: ${path}`);
  }
  return problems;
}

/** Runs `script` in `folder` and asserts the claims match what it changed; returns the run and claims. */
export function expectTrueClaims(
  runner: Runner,
  folder: string,
  script: string,
  unknownAllowed: string[] = [],
): { run: RunResult; claims: Map<string, PathClaim> } {
  const before = snapshot(folder);
  const run = runClaimed(runner, folder, script);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const claims = claimsFor(run.log, folder);
  expect(claimProblems(before, snapshot(folder), claims, unknownAllowed)).toEqual([]);
  return { run, claims };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Runs `script` under bash's `time`: wall and CPU (user + system) seconds of the script's processes.
 * CPU time is what the library adds to; wall time on a shared machine mostly measures the neighbours.
 */
export function timed(runner: Runner, dir: string, script: string, preload: boolean): { wall: number; cpu: number; run: RunResult } {
  const run = runClaimed(runner, dir, `TIMEFORMAT='@@ %R %U %S'; time (
${script}
)`, { preload });
  const match = /@@ ([\d.]+) ([\d.]+) ([\d.]+)/.exec(run.stderr);
  expect(run.status).toBe(0);
  expect(match).not.toBeNull();
  return { wall: Number(match![1]), cpu: Number(match![2]) + Number(match![3]), run };
}
