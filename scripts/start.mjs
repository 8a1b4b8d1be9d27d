#!/usr/bin/env node
// `npm start`: check Node and Electron's binary (scripts/start-checks.mjs: each problem in one line with what
// to do), build, then open the desktop app. The only command that needs Electron's binary.
// better-sqlite3 and keytar are Node-API modules, so the same builds load in Node (CLI, tests) and in
// Electron; no rebuild for Electron's ABI is needed.
import { spawnSync, spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureElectron, nodeProblem } from './start-checks.mjs';

const old = nodeProblem();
if (old !== null) {
  process.stderr.write(`${old}\n`);
  process.exit(1);
}
const electron = ensureElectron(dirname(dirname(fileURLToPath(import.meta.url))));
if ('problem' in electron) {
  process.stderr.write(`${electron.problem}\n`);
  process.exit(2);
}
const build = spawnSync('npx', ['electron-vite', 'build'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const app = spawn(electron.binary, ['.'], { stdio: 'inherit' });
app.on('close', (code) => process.exit(code ?? 0));
