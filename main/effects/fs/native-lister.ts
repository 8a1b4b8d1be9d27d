// The C folder lister (native/lister.c), when it was built: the same listings as listFolders() in
// stat-lister.ts, made on libuv's threads with one fstatat() per entry. On a folder of 100,000 files it
// lists in about 60% of the JavaScript lister's time; checkpoints fall back to the JavaScript lister where
// the addon is missing (Windows, or an install without a C compiler), and say which one they use.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ListJob, Listing } from './stat-lister';

type Addon = { list(root: string, rels: string[], recursive: boolean[]): Promise<Listing[]> };

export type NativeLister = { list(root: string, jobs: ListJob[]): Promise<Listing[]> };

const ADDON = join('main', 'effects', 'fs', 'native', 'build', 'Release', 'posthoc_lister.node');

let loaded: { lister: NativeLister | null; reason: string } | undefined;

/** The package's root: the nearest folder upwards with a package.json (in a packaged app, the asar's unpacked twin). */
function packageRoot(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir.replace(/app\.asar$/, 'app.asar.unpacked');
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

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
  if (process.env.POSTHOC_NATIVE_LISTER === '0') return { lister: null, reason: 'JavaScript lister (POSTHOC_NATIVE_LISTER=0)' };
  const root = packageRoot();
  const file = root ? join(root, ADDON) : null;
  if (!file || !existsSync(file)) return { lister: null, reason: 'JavaScript lister (the native lister is not built: npm run build:native)' };
  try {
    const addon = createRequire(import.meta.url)(file) as Addon;
    return {
      lister: { list: (rootDir, jobs) => addon.list(rootDir, jobs.map((j) => j.rel), jobs.map((j) => j.recursive)) },
      reason: 'native lister',
    };
  } catch (error) {
    return { lister: null, reason: `JavaScript lister (the native lister did not load: ${error instanceof Error ? error.message : String(error)})` };
  }
}
