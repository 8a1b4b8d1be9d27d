// `posthoc run` as a live process a test can interrupt (Ctrl-C, kill -9) part-way, and what an
// interrupted run must leave: every action on the record, the folder holding what the record says.
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Action, FsEffect } from '../../shared/domain';
import { POSTHOC_BIN, type CliRun } from './posthoc-cli';

/** Writes one file every 0.2 s for 20 s. */
export const SLOW_WRITER = "```python\nimport time\nfor i in range(100):\n    open(f'f{i:03d}.txt', 'w').write(str(i))\n    time.sleep(0.2)\nprint('finished')\n```";

/** Folder owners to test with: as root, a root-owned folder and one owned by uid 1000 (a person's). */
export const FOLDER_OWNERS =
  process.getuid?.() === 0 ? [{ name: 'root-owned folder', uid: 0 }, { name: 'folder owned by uid 1000', uid: 1000 }] : [{ name: "the person's own folder", uid: -1 }];

export function ownFolder(dir: string, uid: number): string {
  if (uid >= 0) chownSync(dir, uid, uid);
  return dir;
}

export type LiveRun = { child: ChildProcess; done: Promise<CliRun> };

export function startPosthoc(args: string[], env: Record<string, string>): LiveRun {
  const child = spawn(process.execPath, [POSTHOC_BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? -1 : null), stdout, stderr }));
  });
  return { child, done };
}

export const writtenFiles = (dir: string): string[] => readdirSync(dir).filter((n) => /^f\d{3}\.txt$/.test(n)).sort();

export const fsEffectOf = (action: Action): FsEffect | undefined => action.effects.find((e): e is FsEffect => e.channel === 'fs');

/** Files the record says the actions added (and did not undo). */
export function recordedFiles(actions: Action[]): string[] {
  return actions
    .filter((a) => a.status !== 'undone')
    .flatMap((a) => fsEffectOf(a)?.added ?? [])
    .sort();
}

export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(50);
}
