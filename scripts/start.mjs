#!/usr/bin/env node
// `npm start`: build, then open the desktop app. The only command that needs Electron's binary.
// better-sqlite3 and keytar are Node-API modules, so the same builds load in Node (CLI, tests) and in
// Electron; no rebuild for Electron's ABI is needed.
import { spawnSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let electronPath;
try {
  electronPath = require('electron'); // the package's main export is the binary's path
  if (typeof electronPath !== 'string') throw new Error('no path');
  spawnSync(electronPath, ['--version'], { stdio: 'ignore' }).error && (electronPath = undefined);
} catch {
  electronPath = undefined;
}
if (!electronPath) {
  process.stderr.write(
    "Electron's binary is not installed (it was skipped, for example with ELECTRON_SKIP_BINARY_DOWNLOAD=1).\n" +
      'Fetch it with: node node_modules/electron/install.js   — then run npm start again.\n' +
      'Without Electron, use the browser front end: npx posthoc web   or the CLI: npx posthoc --help\n',
  );
  process.exit(2);
}
const build = spawnSync('npx', ['electron-vite', 'build'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const app = spawn(electronPath, ['.'], { stdio: 'inherit' });
app.on('close', (code) => process.exit(code ?? 0));
