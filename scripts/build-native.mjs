#!/usr/bin/env node
// Builds the native folder lister (main/effects/fs/native) with node-gyp; run by `npm install` (postinstall)
// and by `npm run build:native`. Checkpoints work without it (they fall back to the JavaScript lister,
// about 1.5x slower on large folders), so a failed build warns and does not fail the install; `npm test`
// insists on it. Needs a C compiler, make and python3 (Debian: apt install g++ make python3).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'main', 'effects', 'fs', 'native');
const strict = process.argv.includes('--strict');

if (process.platform === 'win32') {
  console.log('posthoc: the native folder lister is not built on Windows; checkpoints use the JavaScript lister.');
  process.exit(0);
}

let gyp;
try {
  gyp = createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js');
} catch {
  gyp = null;
}
const command = gyp ? [process.execPath, [gyp, 'rebuild']] : ['node-gyp', ['rebuild']];
const result = spawnSync(command[0], command[1], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
const built = join(dir, 'build', 'Release', 'posthoc_lister.node');
if (result.status === 0 && existsSync(built)) {
  console.log('posthoc: native folder lister built');
  process.exit(0);
}
const why = result.error ? result.error.message : `${result.stderr ?? ''}`.split('\n').filter((l) => /error|not found|ERR!/i.test(l)).slice(0, 8).join('\n');
console.warn(`posthoc: the native folder lister could not be built; checkpoints will use the slower JavaScript lister.\n${why}\nInstall a C compiler, make and python3 (Debian: sudo apt install g++ make python3), then run: npm run build:native`);
process.exit(strict ? 1 : 0);
