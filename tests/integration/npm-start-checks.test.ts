// `npm start` on a machine that is not ready: the real scripts/start.mjs, run as a process. An old Node is
// named first, before anything else runs; a missing Electron binary whose download fails is one line with
// the download's own reason and what to do — no stack trace, no blame on ELECTRON_SKIP_BINARY_DOWNLOAD. The
// download is a stand-in Electron package (its install.js fails as @electron/get does offline), so nothing
// leaves the machine.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { downloadReason, electronBinary, nodeProblem } from '../../scripts/start-checks.mjs';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterAll(() => dirs.cleanup());

/** A copy of the start script beside a stand-in node_modules/electron whose install.js does `install`. */
function project(install: string): string {
  const root = dirs.make('posthoc-start-');
  mkdirSync(join(root, 'scripts'));
  for (const file of ['start.mjs', 'start-checks.mjs']) copyFileSync(resolve('scripts', file), join(root, 'scripts', file));
  const electron = join(root, 'node_modules', 'electron');
  mkdirSync(electron, { recursive: true });
  writeFileSync(join(electron, 'package.json'), JSON.stringify({ name: 'electron', version: '45.4.1', main: 'index.js' }));
  // Like the real package: requiring it downloads the binary on the side, printing to the terminal.
  writeFileSync(join(electron, 'index.js'), "console.log('Downloading Electron binary...'); throw new Error('required');\n");
  writeFileSync(join(electron, 'install.js'), install);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'p', type: 'module' }));
  return root;
}

const OFFLINE = [
  "console.error('TypeError: fetch failed\\n    at node:internal/deps/undici/undici:13510:13\\n    at async downloadArtifact (/x/node_modules/@electron/get/dist/cjs/index.js:150:3) {\\n  [cause]: Error: getaddrinfo ENOTFOUND github.com');",
  'process.exit(1);',
].join('\n');

function start(root: string, env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [join(root, 'scripts', 'start.mjs')], { cwd: root, encoding: 'utf8', env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', ...env }, timeout: 60_000 });
}

describe('npm start, before the app', () => {
  it('a missing Electron binary that cannot be fetched is one line with the reason and what to do', () => {
    const root = project(OFFLINE);
    const run = start(root);
    expect(run.status).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^npm start: Electron's binary is missing and could not be downloaded \(fetch failed\); /);
    expect(lines[0]).toContain('node node_modules/electron/install.js');
    expect(lines[0]).toContain('npx posthoc web');
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.stderr + run.stdout).not.toContain('ELECTRON_SKIP_BINARY_DOWNLOAD');
    expect(run.stdout).not.toContain('Downloading Electron binary'); // require('electron') is never called
  });

  it('fetches the binary when it is missing, even when npm install was told to skip it, then goes on', () => {
    // install.js writes the binary as the real one does, but only if ELECTRON_SKIP_BINARY_DOWNLOAD is not in its way.
    const root = project(
      [
        "const fs = require('fs'); const path = require('path');",
        "if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) process.exit(0);",
        "fs.mkdirSync(path.join(__dirname, 'dist'), { recursive: true });",
        "fs.writeFileSync(path.join(__dirname, 'dist', 'electron'), '');",
        "fs.writeFileSync(path.join(__dirname, 'path.txt'), 'electron');",
      ].join('\n'),
    );
    const electron = join(root, 'node_modules', 'electron');
    expect(electronBinary(electron)).toBeNull();
    // With the binary in place the script goes on to the build, which this stand-in project cannot do: PATH
    // without npx makes that step fail at once, after the checks passed.
    const run = start(root, { PATH: '/nonexistent' });
    expect(run.stdout).toContain("npm start: fetching Electron's binary");
    expect(electronBinary(electron)).toBe(join(electron, 'dist', 'electron'));
    expect(run.stderr).not.toContain('npm start:');
    expect(run.status).toBe(1); // the build step's failure, not a check's
  });

  it('an old Node is named first, in one line, before Electron is looked at', () => {
    const root = project(OFFLINE);
    // This Node, reporting the version of Debian 12's (20.x): what the script reads is process.versions.node.
    const run = spawnSync(process.execPath, ['--import', 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.19.2"})', join(root, 'scripts', 'start.mjs')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toEqual([
      'npm start: Posthoc needs Node 22.12.0 or later and this is Node 20.19.2; install Node 24 (nodejs.org, or: sudo npm install -g node@24), then run npm install and npm start again.',
    ]);
    expect(run.stdout).toBe(''); // nothing fetched, nothing built
  });

  it('knows which Node versions are too old, and reads a download\'s reason without its stack', () => {
    expect(nodeProblem('20.19.0')).toMatch(/needs Node 22\.12\.0 or later and this is Node 20\.19\.0/);
    expect(nodeProblem('v22.11.9')).not.toBeNull();
    expect(nodeProblem('22.12.0')).toBeNull();
    expect(nodeProblem('24.1.0')).toBeNull();
    expect(nodeProblem('23.0.0')).toBeNull();
    expect(downloadReason('Downloading Electron binary...\nRequestError: getaddrinfo EAI_AGAIN github.com\n    at ClientRequest.<anonymous> (x.js:1:1)')).toBe('getaddrinfo EAI_AGAIN github.com');
    expect(downloadReason('')).toBe('no reason given');
  });
});
