// Where Posthoc keeps its data. Every front end resolves it the same way, so the app, the CLI and the
// web host see the same tasks: --data-dir, then POSTHOC_HOME, then Electron's userData folder for "Posthoc".
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

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
