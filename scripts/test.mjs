#!/usr/bin/env node
// `npm test`: checks the system services the tiers need (Docker and the sandbox image, the OS keychain,
// Chromium), names whatever is missing with the one command that provides it, then builds and runs every
// tier. No tier is ever skipped silently. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);

// Without a D-Bus session there is no Secret Service: run the tests inside a private one, with a
// throwaway unlocked keyring, so the keychain tier is real and never touches the person's own keyring.
if (!process.env.DBUS_SESSION_BUS_ADDRESS && !process.env.POSTHOC_TEST_NO_DBUS_REEXEC && has('dbus-run-session') && has('gnome-keyring-daemon')) {
  // The daemon keeps its keyring in a fresh folder, so an old keyring with another password cannot stay locked.
  const inner = `echo posthoc-test | XDG_DATA_HOME="$(mktemp -d)" gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec node scripts/test.mjs ${args.map(quote).join(' ')}`;
  const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', inner], { stdio: 'inherit', env: { ...process.env, POSTHOC_TEST_NO_DBUS_REEXEC: '1' } });
  process.exit(r.status ?? 1);
}

const missing = [];
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  missing.push(['Node 22.12 or later (this is ' + process.version + ')', 'bash scripts/setup-test-env.sh node && export PATH=/opt/node24/node_modules/.bin:$PATH']);
}

const Docker = require('dockerode');
const docker = new Docker();
const pkg = require('../package.json');
const image = `posthoc-sandbox:${pkg.version}`;
try {
  await docker.ping();
  try {
    await docker.getImage(image).inspect();
  } catch {
    missing.push([`the sandbox image ${image}`, 'npm run build && npx posthoc sandbox build']);
  }
} catch (error) {
  missing.push([`a Docker daemon (${error.code ?? error.message})`, 'sudo bash scripts/setup-test-env.sh apt docker']);
}

// Probed through Posthoc's keychain helper, as Posthoc uses it: keytar in this process would take the
// test runner down with it on a locked keyring (a segfault, no message).
{
  const probe = spawnSync(process.execPath, ['main/vault/keytar-child.mjs'], {
    input: `${JSON.stringify({ id: 1, op: 'findCredentials', args: ['dev.posthoc.test-probe'] })}\n`,
    encoding: 'utf8',
    timeout: 30_000,
  });
  let answer = null;
  try {
    answer = JSON.parse(probe.stdout.split('\n')[0]);
  } catch {}
  if (!answer?.ok) {
    const why = probe.signal === 'SIGSEGV' ? 'keytar crashed: the login keyring is locked' : String(answer?.error ?? probe.signal ?? probe.error?.message ?? 'no answer').split('\n')[0];
    missing.push([
      `an OS keychain (${why})`,
      "sudo bash scripts/setup-test-env.sh apt   (then npm test starts gnome-keyring in a private D-Bus session itself; unset DBUS_SESSION_BUS_ADDRESS if yours is locked)",
    ]);
  }
}

// PostgreSQL: the databases tiers run against a real server, with the test role that can create databases.
try {
  const pg = require('pg');
  const url = new URL(process.env.POSTHOC_TEST_PG_URL ?? 'postgres://posthoc_test@127.0.0.1:5432/posthoc_test');
  url.password = encodeURIComponent(process.env.POSTHOC_TEST_PG_PASSWORD ?? 'posthoc-test-pw');
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000 });
  await client.connect();
  await client.end();
} catch (error) {
  missing.push([`a PostgreSQL server with the test role (${String(error.message ?? error).split('\n')[0]})`, 'sudo bash scripts/setup-test-env.sh postgres']);
}

// MySQL/MariaDB: the same, with the test user that may create databases named posthoc_test*; mysqldump compares them.
try {
  const mysql = require('mysql2/promise');
  const url = new URL(process.env.POSTHOC_TEST_MYSQL_URL ?? 'mysql://posthoc_test@127.0.0.1:3306/posthoc_test');
  const conn = await mysql.createConnection({ host: url.hostname, port: Number(url.port || 3306), user: decodeURIComponent(url.username), password: process.env.POSTHOC_TEST_MYSQL_PASSWORD ?? 'posthoc-test-pw', connectTimeout: 5000 });
  await conn.end();
  if (spawnSync('mysqldump', ['--version'], { stdio: 'ignore' }).error) throw new Error('mysqldump is not installed');
} catch (error) {
  missing.push([`a MariaDB (or MySQL) server with the test user, and mysqldump (${String(error.message ?? error).split('\n')[0]})`, 'sudo bash scripts/setup-test-env.sh mysql']);
}

const chromium = process.env.POSTHOC_CHROMIUM ?? '/usr/bin/chromium';
// The native addons: checkpoints and SQLite capture run without them, but the tests and benchmarks are meant to cover them.
for (const [what, file] of [['the native folder lister (main/effects/fs/native)', 'fs/native/build/Release/posthoc_lister.node'], ['the beneath-the-folder calls (main/effects/fs/native)', 'fs/native/build/Release/posthoc_beneath.node'], ['the SQLite page differ (main/effects/db/native)', 'db/native/build/Release/posthoc_pagediff.node']]) {
  if (process.platform !== 'win32' && !existsSync(new URL(`../main/effects/${file}`, import.meta.url))) missing.push([what, 'npm run build:native   (needs g++, make, python3)']);
}
if (spawnSync('Xvfb', ['-help'], { stdio: 'ignore' }).error) missing.push(['Xvfb (a display for the keyring\'s unlock prompt in tests/integration/vault-locked-prompt.test.ts)', 'sudo apt-get install -y xvfb   (or sudo bash scripts/setup-test-env.sh apt)']);
if (!existsSync(chromium)) missing.push([`Chromium at ${chromium}`, 'sudo apt-get install -y chromium   (or set POSTHOC_CHROMIUM)']);
// The apt tests' stand-in Debian archive (tests/support/apt-repo.ts) is made with dpkg-dev and signed with gpg.
for (const [tool, pkg] of [['dpkg-scanpackages', 'dpkg-dev'], ['gpg', 'gnupg']]) {
  if (process.platform === 'linux' && spawnSync(tool, ['--version'], { stdio: 'ignore' }).error) missing.push([`${tool} (the apt tests' stand-in Debian archive)`, `sudo apt-get install -y ${pkg}   (or sudo bash scripts/setup-test-env.sh apt)`]);
}
// The lint reads the sandbox's Python (the init, apt, figures, tools) with pyflakes (scripts/lint-python.mjs).
if (spawnSync('pyflakes3', ['--version'], { stdio: 'ignore' }).error) missing.push(['pyflakes3 (the lint of the sandbox image\'s Python)', 'sudo apt-get install -y pyflakes3   (or sudo bash scripts/setup-test-env.sh apt)']);

if (missing.length > 0) {
  process.stderr.write('npm test needs these and will not skip their tiers:\n');
  for (const [what, fix] of missing) process.stderr.write(`  - missing ${what}\n      provide it with: ${fix}\n`);
  process.stderr.write('Only the unit tier runs without them: npm run test:unit\n');
  process.exit(1);
}

// The machine-checked rules first: the types of every runtime's project, and the lint (layers, imports, hooks).
run('npm', ['run', 'typecheck', '--silent']);
run('npm', ['run', 'lint', '--silent']);
run('npm', ['run', 'build', '--silent']);
const report = 'test-output/vitest-report.json';
rmSync(report, { force: true });
const tests = spawnSync('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args], { stdio: 'inherit' });
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  // The plain closing line any CI reader understands.
  process.stdout.write(`\n${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped\n`);
}
process.exit(tests.status ?? 1);

function run(cmd, argv) {
  const r = spawnSync(cmd, argv, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function quote(s) {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
