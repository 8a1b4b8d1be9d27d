// A private D-Bus session with a gnome-keyring whose login keyring is LOCKED (or no Secret Service at all),
// started and ended by the test, in throwaway folders: the person's and the other tests' keyrings are
// never touched.
//
// How a locked keyring is made: the daemon is started unlocked with a password (which creates the login
// keyring), an entry is stored, the daemon is stopped and started again without --unlock. Only the
// processes started here are ended, by their ids.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export type PrivateKeyring = {
  /** What a process needs in its environment to use this session (and only it). */
  env: { DBUS_SESSION_BUS_ADDRESS: string; HOME: string; XDG_DATA_HOME: string; XDG_RUNTIME_DIR: string };
  stop(): Promise<void>;
};

const PASSWORD = 'posthoc-locked-test';

/**
 * A session whose Secret Service has `entries` (service → account → value) in a login keyring that is locked.
 * With `display` (an X display, tests/support/virtual-display.ts) the session is a desktop's: asked for a
 * locked item, the keyring shows its unlock prompt there and waits for the person, as on a desktop.
 */
export async function startLockedKeyring(
  entries: Array<{ service: string; account: string; value: string }>,
  options: { display?: string } = {},
): Promise<PrivateKeyring & { unlock(): Promise<void> }> {
  const session = await startSession({ serviceFiles: true, display: options.display });
  try {
    const unlocked = await startKeyringDaemon(session.env, true);
    for (const e of entries) storeWithKeytar(session.env, e.service, e.account, e.value);
    await stopProcess(unlocked);
    const daemons = [await startKeyringDaemon(session.env, false)];
    return {
      env: session.env,
      // What the locked message tells a person to do: stop the daemon, start it again with --unlock
      // (--foreground here, so this test owns the process).
      unlock: async () => {
        for (const d of daemons.splice(0)) await stopProcess(d);
        daemons.push(await startKeyringDaemon(session.env, true));
      },
      stop: async () => {
        for (const d of daemons) await stopProcess(d);
        await session.stop();
      },
    };
  } catch (error) {
    await session.stop();
    throw error;
  }
}

/** A session whose Secret Service is unlocked (an empty login keyring). */
export async function startUnlockedKeyring(): Promise<PrivateKeyring> {
  const session = await startSession({ serviceFiles: true });
  try {
    const daemon = await startKeyringDaemon(session.env, true);
    return { env: session.env, stop: async () => { await stopProcess(daemon); await session.stop(); } };
  } catch (error) {
    await session.stop();
    throw error;
  }
}

/** A session with no Secret Service at all (no service files, no daemon). */
export function startSessionWithoutKeyring(): Promise<PrivateKeyring> {
  return startSession({ serviceFiles: false });
}

async function startSession(options: { serviceFiles: boolean; display?: string }): Promise<PrivateKeyring> {
  const root = mkdtempSync(join(tmpdir(), 'posthoc-keyring-'));
  const env = {
    HOME: join(root, 'home'),
    XDG_DATA_HOME: join(root, 'data'),
    XDG_RUNTIME_DIR: join(root, 'run'),
    DBUS_SESSION_BUS_ADDRESS: '',
    // The bus starts the keyring's prompter (gcr-prompter) with its own environment: its display is this.
    ...(options.display ? { DISPLAY: options.display } : {}),
  };
  for (const dir of [env.HOME, env.XDG_DATA_HOME, env.XDG_RUNTIME_DIR]) spawnSync('mkdir', ['-m', '700', '-p', dir]);
  // Without the standard service folders nothing can be activated: the bus has no Secret Service.
  const config = join(root, 'session.conf');
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir=${root}</listen>${options.serviceFiles ? '<standard_session_servicedirs/>' : ''}
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>`,
  );
  const bus = spawn('dbus-daemon', [`--config-file=${config}`, '--nofork', '--print-address=1'], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const address = await firstLine(bus, 'dbus-daemon');
  env.DBUS_SESSION_BUS_ADDRESS = address;
  return {
    env,
    stop: async () => {
      await stopProcess(bus);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function startKeyringDaemon(env: PrivateKeyring['env'], unlock: boolean): Promise<ChildProcess> {
  const daemon = spawn('gnome-keyring-daemon', ['--foreground', '--components=secrets', ...(unlock ? ['--unlock'] : [])], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: [unlock ? 'pipe' : 'ignore', 'ignore', 'ignore'],
  });
  if (unlock) daemon.stdin!.end(PASSWORD);
  // In the foreground it prints nothing: it is ready once it owns the Secret Service's name.
  try {
    await waitForSecretService(env, daemon);
  } catch (error) {
    daemon.kill('SIGTERM');
    throw error;
  }
  return daemon;
}

/** Polls (bounded) until org.freedesktop.secrets has an owner on the bus. */
async function waitForSecretService(env: PrivateKeyring['env'], daemon: ChildProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (daemon.exitCode !== null) throw new Error(`gnome-keyring-daemon exited (${daemon.exitCode}) before it was ready (sudo apt-get install gnome-keyring)`);
    const r = spawnSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'], {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    });
    if (r.stdout?.includes('boolean true')) return;
    await new Promise((r2) => setTimeout(r2, 50));
  }
  throw new Error('gnome-keyring-daemon did not take org.freedesktop.secrets on the private bus');
}

function storeWithKeytar(env: PrivateKeyring['env'], service: string, account: string, value: string): void {
  const script = `require('keytar').setPassword(${JSON.stringify(service)}, ${JSON.stringify(account)}, ${JSON.stringify(value)}).then(() => process.exit(0), (e) => { console.error(e.message); process.exit(1); })`;
  const r = spawnSync(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', cwd: process.cwd() });
  if (r.status !== 0) throw new Error(`could not store a test entry in the unlocked keyring: ${r.stderr || r.signal}`);
}

function firstLine(child: ChildProcess, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(line.trim()));
    child.once('error', (error) => reject(new Error(`${name} could not start: ${error.message} (sudo apt-get install dbus gnome-keyring)`)));
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before it was ready`)));
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
