// What the web host keeps across its restarts for one data folder: its token and its last port, in
// DATA/web-host.json (mode 0600: the token opens the app). An open tab's address stays valid when the host
// comes back, so the tab reconnects by itself and a reload works. `posthoc web --new-token` rotates it:
// every address handed out before stops working.
import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

export const WEB_HOST_FILE = 'web-host.json';

const WebHostState = z.object({
  token: z.string().regex(/^[A-Za-z0-9_-]{32,}$/),
  port: z.number().int().min(1).max(65535).nullable(),
});
export type WebHostState = z.infer<typeof WebHostState>;

export function newWebToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The host's token and last port for this data folder; a new token when there is none, it is unreadable, or `rotate`. */
export function loadWebHostState(dataDir: string, options: { rotate?: boolean } = {}): WebHostState {
  const path = join(dataDir, WEB_HOST_FILE);
  const saved = options.rotate ? null : read(path);
  if (saved) {
    // Kept private even when something loosened its mode.
    if ((lstatSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    return saved;
  }
  const state: WebHostState = { token: newWebToken(), port: read(path)?.port ?? null };
  save(dataDir, state);
  return state;
}

/** Remembers the port the host listened on, so the next start offers the same address. */
export function saveWebHostState(dataDir: string, state: WebHostState): void {
  save(dataDir, state);
}

function read(path: string): WebHostState | null {
  try {
    if (!lstatSync(path).isFile()) return null;
    const parsed = WebHostState.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function save(dataDir: string, state: WebHostState): void {
  const path = join(dataDir, WEB_HOST_FILE);
  const temp = `${path}.${process.pid}.tmp`;
  // Written private from its first byte, then put in place whole (a link at the name is replaced, never followed).
  rmSync(temp, { force: true });
  writeFileSync(temp, `${JSON.stringify(state)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}
