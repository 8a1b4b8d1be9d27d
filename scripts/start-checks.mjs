// What `npm start` checks before it builds and opens the app, each problem said in one line with what to
// do: the Node version first (everything else needs 22.12 or later), then Electron's binary, which npm
// install may have skipped or failed to fetch. Nothing here throws a stack trace at the person.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const NODE_MINIMUM = [22, 12, 0];

/** A one-line problem when this Node is older than Posthoc needs, else null. */
export function nodeProblem(version = process.versions.node) {
  const have = version.replace(/^v/, '').split('.').map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < NODE_MINIMUM.length; i++) {
    if ((have[i] ?? 0) > NODE_MINIMUM[i]) return null;
    if ((have[i] ?? 0) < NODE_MINIMUM[i]) {
      return (
        `npm start: Posthoc needs Node ${NODE_MINIMUM.join('.')} or later and this is Node ${version.replace(/^v/, '')}; ` +
        'install Node 24 (nodejs.org, or: sudo npm install -g node@24), then run npm install and npm start again.'
      );
    }
  }
  return null;
}

/** Electron's package folder (node_modules/electron) as seen from `fromDir`, or null when it is not installed. */
export function electronPackageDir(fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', 'electron');
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

/** The binary's path when it is there (what require('electron') returns, without its download on the side). */
export function electronBinary(packageDir) {
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = join(packageDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}

/** The error's own words from a failed download's output: its first line that is not a stack frame. */
export function downloadReason(output) {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^at\s/.test(l) && !/^Downloading Electron/i.test(l));
  const error = lines.find((l) => /error|failed|ENOTFOUND|ECONN|EAI_AGAIN|timed? ?out|denied/i.test(l)) ?? lines[0];
  return error === undefined ? 'no reason given' : error.replace(/^(TypeError|Error|RequestError|HTTPError):\s*/, '').slice(0, 200);
}

/**
 * Electron's binary, fetched when it is missing (npm install skipped it, or could not reach the download):
 * `{ binary }`, or `{ problem }`, one line saying what failed and what to do.
 */
export function ensureElectron(fromDir, { log = (line) => process.stdout.write(`${line}\n`) } = {}) {
  const packageDir = electronPackageDir(fromDir);
  if (packageDir === null) return { problem: 'npm start: Electron is not installed; run npm install first, then npm start again.' };
  const present = electronBinary(packageDir);
  if (present !== null) return { binary: present };
  log("npm start: fetching Electron's binary (about 100 MB, once)…");
  const env = { ...process.env };
  delete env.ELECTRON_SKIP_BINARY_DOWNLOAD; // asked to start the app: the binary is needed now
  const fetched = spawnSync(process.execPath, [join(packageDir, 'install.js')], { cwd: packageDir, env, encoding: 'utf8', timeout: 15 * 60_000 });
  const binary = electronBinary(packageDir);
  if (fetched.status === 0 && binary !== null) return { binary };
  const reason = fetched.error ? fetched.error.message : downloadReason(`${fetched.stderr ?? ''}\n${fetched.stdout ?? ''}`);
  return {
    problem:
      `npm start: Electron's binary is missing and could not be downloaded (${reason}); ` +
      'fetch it where github.com is reachable with: node node_modules/electron/install.js (or set ELECTRON_MIRROR), ' +
      'or use Posthoc without it: npx posthoc web (in your browser) or npx posthoc --help (the CLI).',
  };
}
