// What a stdio MCP server keeps between tasks: one folder per server in Posthoc's data folder
// (DATA/mcp-state/NAME/UID, UID the action user it runs as), mounted read-write at MCP_STATE_MOUNT in that
// server's containers only and made its HOME. Its data lives there (the memory server's graph, through
// MEMORY_FILE_PATH where the definition does not set it), and so does npm's cache, ~/.npm: npx installs the
// server's package once, and a later task starts it from there. Never inside a granted folder, never mounted
// in the task's sandbox, so an action's code reaches it only through the server's tools.
//
// The folder is written by the server, so the host treats what is inside as hostile: it is sized and
// cleared without following a link (lstat, links counted as themselves and removed as links), and each level
// Posthoc makes (mcp-state, NAME, UID) is checked to be a real folder before it is mounted: a link planted
// there is refused, never followed. One folder per action user, because when Posthoc runs as root the
// server runs as the granted folder's owner, and a folder written by one user is not another's to write (nor
// to read); as any other user, there is one.
import { randomBytes } from 'node:crypto';
import { lchown, lstat, mkdir, readdir, rename, rm, unlink } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { McpServerName } from '../../shared/domain/mcp';

/** Where a server's own state folder appears in its container (its HOME). */
export const MCP_STATE_MOUNT = '/posthoc-state';

/**
 * Settings that point a well-known server's data at its state folder, by the inverse data's id (the
 * definition's `api`): set only when the definition does not set them itself. The memory server keeps its
 * graph next to its own code otherwise (in npx's cache), read from MEMORY_FILE_PATH
 * (@modelcontextprotocol/server-memory, dist/index.js: ensureMemoryFilePath).
 */
const STATE_ENV: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  memory: { MEMORY_FILE_PATH: `${MCP_STATE_MOUNT}/memory.jsonl` },
};

/** The container's settings for a server's state: its HOME, and its data's location where it has one. */
export function stateEnv(api: string | null, own: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = { HOME: MCP_STATE_MOUNT };
  for (const [key, value] of Object.entries((api && STATE_ENV[api]) || {})) if (!(key in own)) env[key] = value;
  return env;
}

/** The prefix of a state folder set aside to be removed (not a server name: those start with a letter). */
const CLEARED = '.cleared-';

/** A server's name as a folder name: a valid server name only, so no name can leave DATA/mcp-state. */
export function stateName(name: string): string {
  const parsed = McpServerName.safeParse(name);
  if (!parsed.success || parsed.data !== name || name.includes('/') || name === '.' || name === '..') {
    throw new Error(`"${name}" is not an MCP server name (a letter, then letters, digits, - and _), so Posthoc keeps no data for it.`);
  }
  return name;
}

export class McpStateFolders {
  /** base: DATA/mcp-state. */
  constructor(readonly base: string) {}

  /** DATA/mcp-state/NAME, whatever stands there (checked by whoever reads it). */
  folder(name: string): string {
    return join(this.base, stateName(name));
  }

  /**
   * The server's state folder for the action user ("UID:GID"), made if need be, owned by that user, mode
   * 0700. A link or a file standing at any level is refused in words, never followed.
   */
  async forUser(name: string, user: string): Promise<string> {
    const [uid, gid] = user.split(':').map(Number) as [number, number];
    const dir = this.folder(name);
    await realFolder(this.base, `the MCP servers' data folder (${this.base})`);
    await realFolder(dir, `the data folder of the MCP server ${name} (${dir})`);
    const mine = join(dir, String(uid));
    const st = await realFolder(mine, `the data folder of the MCP server ${name} (${mine})`);
    // Only the folder itself is given to the user (lchown: a link is never followed); what is inside is the server's.
    if (process.getuid?.() === 0 && (st.uid !== uid || st.gid !== gid)) await lchown(mine, uid, gid);
    else if (process.getuid?.() !== 0 && st.uid !== process.getuid?.()) {
      throw new Error(`The data folder of the MCP server ${name} (${mine}) belongs to uid ${st.uid}, not to you: remove it (posthoc mcp clear ${name}, or by hand) and the server starts with none.`);
    }
    return mine;
  }

  /** Bytes the server's state takes on disk (every entry below DATA/mcp-state/NAME, links not followed). */
  async size(name: string): Promise<number> {
    const dir = this.folder(name);
    const st = await lstat(dir).catch(() => null);
    if (!st) return 0;
    if (!st.isDirectory()) return allocated(st);
    return sizeBelow(dir);
  }

  /**
   * Removes the server's state: renamed aside first (a server started from now on makes a new one), then
   * removed without following a link. A link standing at DATA/mcp-state/NAME is removed itself, its target
   * untouched. Answers the bytes freed.
   */
  async clear(name: string): Promise<number> {
    const dir = this.folder(name);
    const st = await lstat(dir).catch(() => null);
    if (!st) return 0;
    if (!st.isDirectory()) {
      await unlink(dir);
      return allocated(st);
    }
    const bytes = await sizeBelow(dir);
    const aside = join(this.base, `${CLEARED}${name}-${randomBytes(6).toString('hex')}`);
    await rename(dir, aside);
    await rm(aside, { recursive: true, force: true });
    // What a clear cut short left aside (Posthoc stopped between the rename and the removal).
    for (const left of await readdir(this.base).catch(() => [] as string[])) {
      if (left.startsWith(`${CLEARED}${name}-`)) await rm(join(this.base, left), { recursive: true, force: true });
    }
    return bytes;
  }
}

/** Makes the folder (0700) or checks that what stands there is one; a link or a file is refused. */
async function realFolder(path: string, what: string): Promise<Stats> {
  let st = await lstat(path).catch(() => null);
  if (!st) {
    await mkdir(path, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    st = await lstat(path);
  }
  if (st.isSymbolicLink()) throw new Error(`${what[0]!.toUpperCase()}${what.slice(1)} is a link, which Posthoc does not follow: remove the link, and Posthoc makes the folder anew.`);
  if (!st.isDirectory()) throw new Error(`${what[0]!.toUpperCase()}${what.slice(1)} is not a folder: move it away, and Posthoc makes the folder anew.`);
  return st;
}

/** Bytes on disk of an entry (a sparse file counts what it holds, not what it claims). */
const allocated = (st: Stats): number => (typeof st.blocks === 'number' ? st.blocks * 512 : st.size);

/** Every entry below `dir`, by lstat, descending only into real folders. */
async function sizeBelow(dir: string): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const at = pending.pop()!;
    const entries = await readdir(at, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(at, entry.name);
      const st = await lstat(path).catch(() => null);
      if (!st) continue;
      total += allocated(st);
      if (st.isDirectory()) pending.push(path);
    }
  }
  return total;
}
