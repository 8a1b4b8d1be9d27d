// The C folder lister (native/lister.c), when it was built: the same listings as listFolders() in
// stat-lister.ts, made on libuv's threads with one fstatat() per entry. On a folder of 100,000 files it
// lists in about 60% of the JavaScript lister's time; checkpoints fall back to the JavaScript lister where
// the addon is missing (Windows, or an install without a C compiler), and say which one they use.
import { join } from 'node:path';
import { loadAddon } from '../native-addon';
import type { ListJob, Listing } from './stat-lister';

type Addon = { list(root: string, rels: string[], recursive: boolean[]): Promise<Listing[]> };

export type NativeLister = { list(root: string, jobs: ListJob[]): Promise<Listing[]> };

const ADDON = join('main', 'effects', 'fs', 'native', 'build', 'Release', 'posthoc_lister.node');

let loaded: { lister: NativeLister | null; reason: string } | undefined;

/** The native lister, or null (with the reason) when it is not built or switched off (POSTHOC_NATIVE_LISTER=0). */
export function nativeLister(): NativeLister | null {
  loaded ??= load();
  return loaded.lister;
}

/** Which lister checkpoints use, for status output and the benchmark. */
export function listerDescription(): string {
  loaded ??= load();
  return loaded.reason;
}

function load(): { lister: NativeLister | null; reason: string } {
  const found = loadAddon<Addon>(ADDON, 'native lister', 'POSTHOC_NATIVE_LISTER');
  if (found.addon === null) return { lister: null, reason: `JavaScript lister (${found.reason})` };
  const addon = found.addon;
  return { lister: { list: (rootDir, jobs) => addon.list(rootDir, jobs.map((j) => j.rel), jobs.map((j) => j.recursive)) }, reason: 'native lister' };
}
