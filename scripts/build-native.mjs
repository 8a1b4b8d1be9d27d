#!/usr/bin/env node
// Builds Posthoc's native addons with node-gyp; run by `npm install` (postinstall) and by `npm run
// build:native`. Both have a JavaScript fallback, so a failed build warns and does not fail the install;
// `npm test` insists on them. Needs a C compiler, make and python3 (Debian: apt install g++ make python3).
//   main/effects/fs/native  the folder lister: checkpoints fall back to a JavaScript lister, ~1.5x slower;
//                           and beneath.c: without it checkpoints and restores touch the folder by path,
//                           safe only because the sandbox is frozen meanwhile
//   main/effects/db/native  the SQLite page differ: SQLite actions fall back to per-row capture triggers,
//                           which cost several times the statement itself
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const strict = process.argv.includes('--strict');

const ADDONS = [
  {
    dir: join('main', 'effects', 'fs', 'native'),
    files: ['posthoc_lister.node', 'posthoc_beneath.node'],
    name: 'native folder lister and beneath-the-folder calls',
    without: 'checkpoints will use the slower JavaScript lister, and checkpoints and restores will open paths by name',
  },
  { dir: join('main', 'effects', 'db', 'native'), files: ['posthoc_pagediff.node'], name: 'SQLite page differ', without: 'SQLite actions will be captured with slower per-row triggers' },
];

if (process.platform === 'win32') {
  console.log('posthoc: native addons are not built on Windows; checkpoints and SQLite capture use their JavaScript fallbacks.');
  process.exit(0);
}

let gyp;
try {
  gyp = createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js');
} catch {
  gyp = null;
}
const command = gyp ? [process.execPath, [gyp, 'rebuild']] : ['node-gyp', ['rebuild']];
let failed = 0;
for (const addon of ADDONS) {
  const dir = join(root, addon.dir);
  const result = spawnSync(command[0], command[1], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.status === 0 && addon.files.every((file) => existsSync(join(dir, 'build', 'Release', file)))) {
    console.log(`posthoc: ${addon.name} built`);
    continue;
  }
  failed++;
  const why = result.error ? result.error.message : `${result.stderr ?? ''}`.split('\n').filter((l) => /error|not found|ERR!/i.test(l)).slice(0, 8).join('\n');
  console.warn(`posthoc: the ${addon.name} could not be built; ${addon.without}.\n${why}\nInstall a C compiler, make and python3 (Debian: sudo apt install g++ make python3), then run: npm run build:native`);
}
process.exit(strict && failed > 0 ? 1 : 0);
