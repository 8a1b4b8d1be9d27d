// Where Posthoc keeps its data. Every front end resolves it the same way, so the app, the CLI and the
// web host see the same tasks: --data-dir, then POSTHOC_HOME, then Electron's userData folder for "Posthoc".
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const APP_NAME = 'Posthoc';

export function defaultUserDataDir(platform: NodeJS.Platform = process.platform, env = process.env): string {
  switch (platform) {
    case 'darwin':
      return join(homedir(), 'Library', 'Application Support', APP_NAME);
    case 'win32':
      return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_NAME);
    default:
      return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_NAME);
  }
}

export function resolveDataDir(flag?: string, env = process.env): string {
  if (flag) return resolve(flag);
  if (env.POSTHOC_HOME) return resolve(env.POSTHOC_HOME);
  return defaultUserDataDir(process.platform, env);
}

/** The data folder cannot be created, opened or written; the message names it and says what to do. */
export class DataDirUnusable extends Error {
  constructor(
    readonly dir: string,
    message: string,
  ) {
    super(message);
  }
}

const CHOOSE_ANOTHER = 'choose another data folder with --data-dir or POSTHOC_HOME';

/**
 * Why a data folder failed and what to do, from the error's code (Node's errno codes or SQLite's result
 * codes). `blocker` is the file that stands where a folder should be, when there is one.
 */
export function dataDirProblem(dir: string, error: { code?: unknown; message?: unknown }, blocker?: string, uid = process.getuid?.()): string {
  const code = typeof error.code === 'string' ? error.code : '';
  const as = uid === undefined ? '' : ` (Posthoc runs as uid ${uid})`;
  const say = (reason: string, advice: string) => `Posthoc cannot use its data folder ${dir}: ${reason}. ${advice[0]!.toUpperCase()}${advice.slice(1)}.`;
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    return say(`${blocker ?? dir} is a file, not a folder`, CHOOSE_ANOTHER);
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
    return say(`permission denied${as}`, `fix its permissions so that this user may read and write it (chown, chmod u+rwx), or ${CHOOSE_ANOTHER}`);
  }
  if (code === 'EROFS' || code.startsWith('SQLITE_READONLY')) {
    return say('it is read-only', `make it writable (remount its disk read-write, or fix its permissions), or ${CHOOSE_ANOTHER}`);
  }
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL') {
    return say('its disk is full', `free some space on it, or ${CHOOSE_ANOTHER}`);
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return say('its posthoc.sqlite3 is damaged or is not a Posthoc database (it was left as it is)', CHOOSE_ANOTHER);
  }
  const detail = typeof error.message === 'string' && error.message ? error.message : code || 'unknown error';
  return say(detail, `check that it is a folder this user may write${as}, or ${CHOOSE_ANOTHER}`);
}

/** Errors of the file system or of SQLite that mean the data folder itself is unusable. */
export function isDataDirProblem(error: unknown): error is { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(E(NOTDIR|EXIST|ACCES|PERM|ROFS|NOSPC|DQUOT|IO)|SQLITE_(PERM|AUTH|READONLY|FULL|NOTADB|CORRUPT|CANTOPEN|IOERR))/.test(code);
}

/** The nearest path at or above `dir` that exists but is not a folder: what blocks creating it. */
function blockingFile(dir: string): string | undefined {
  for (let p = dir; ; p = dirname(p)) {
    const st = statSync(p, { throwIfNoEntry: false });
    if (st) return st.isDirectory() ? undefined : p;
    if (dirname(p) === p) return undefined;
  }
}

export function dataDirError(dir: string, error: unknown): DataDirUnusable {
  const e = (error ?? {}) as { code?: unknown; message?: unknown };
  return new DataDirUnusable(dir, dataDirProblem(dir, e, e.code === 'ENOTDIR' || e.code === 'EEXIST' ? blockingFile(dir) : undefined));
}

/**
 * Creates the data folder when missing and checks, before SQLite is asked, that it is a folder Posthoc
 * may write: SQLite's own words ("unable to open database file") name neither the folder nor the cause.
 */
export function prepareDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (error) {
    throw dataDirError(dir, error);
  }
}
