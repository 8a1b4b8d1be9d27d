// The package's root: the nearest folder upwards with a package.json — the repository when run from
// source (vitest, tsx) or from out/, and in a packaged app the asar's unpacked twin, where files that
// are read at run time (native addons, the sandbox's claim library source) are kept.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir.replace(/app\.asar$/, 'app.asar.unpacked');
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}
