// Path completion for the web host's folder field (`folder:complete`): the folders under the typed prefix's
// folder whose names start with what follows its last separator. Directories only (a link counts when it
// leads to one), names only (no file is opened), hidden ones only when the typed name starts with a dot,
// never Posthoc's own data folder or anything inside it, and bounded: at most MAX_SCANNED entries are
// looked at and MAX_ENTRIES offered, however large the folder.
import { opendir, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { ServiceError } from './service-error';

export const MAX_ENTRIES = 50;
export const MAX_SCANNED = 5000;

export type FolderCompletion = {
  /** The folder whose children are offered, as typed (with ~ expanded). */
  folder: string;
  /** Full paths of the offered folders, sorted by name, at most MAX_ENTRIES. */
  entries: string[];
  /** True when the folder had more than could be looked at or offered: type more of the name. */
  truncated: boolean;
};

export async function completeFolder(prefix: string, protectedPaths: readonly string[], home = homedir()): Promise<FolderCompletion> {
  const expanded = prefix === '~' ? home + sep : prefix.startsWith('~/') || prefix.startsWith(`~${sep}`) ? join(home, prefix.slice(2)) + (/[\\/]$/.test(prefix) ? sep : '') : prefix;
  if (!isAbsolute(expanded)) {
    throw new ServiceError('invalid-input', 'Type a full path, starting with / (or ~ for your home folder).');
  }
  const cut = Math.max(expanded.lastIndexOf('/'), sep === '\\' ? expanded.lastIndexOf('\\') : -1);
  const folder = expanded.slice(0, cut + 1);
  const partial = expanded.slice(cut + 1);
  // A lone "." still being typed asks for hidden folders; "." or ".." as a folder on the way is refused.
  if (partial === '..' || folder.split(/[\\/]/).some((part) => part === '..' || part === '.')) {
    throw new ServiceError('invalid-input', 'Type the path without "." or ".." in it: completion follows folders as they are named.');
  }
  const showHidden = partial.startsWith('.');
  const guarded = await Promise.all(protectedPaths.map(async (p) => [resolve(p), await realpath(p).catch(() => resolve(p))]));
  const isGuarded = (p: string) => guarded.flat().some((g) => p === g || p.startsWith(g.endsWith(sep) ? g : g + sep));

  const names: string[] = [];
  let truncated = false;
  let scanned = 0;
  const dir = await opendir(folder).catch(() => null);
  if (dir === null) return { folder, entries: [], truncated: false };
  try {
    for await (const entry of dir) {
      if (++scanned > MAX_SCANNED) {
        truncated = true;
        break;
      }
      if (!entry.name.startsWith(partial)) continue;
      if (entry.name.startsWith('.') && !showHidden) continue;
      if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
      names.push(entry.name);
    }
  } finally {
    await dir.close().catch(() => undefined);
  }

  names.sort((a, b) => a.localeCompare(b));
  const entries: string[] = [];
  for (const name of names) {
    if (entries.length >= MAX_ENTRIES) {
      truncated = true;
      break;
    }
    const full = join(folder, name);
    // A link is offered only when it leads to a folder (a loop or a dangling link fails here and is left out).
    const isDir = await stat(full).then((s) => s.isDirectory(), () => false);
    if (!isDir) continue;
    const real = await realpath(full).catch(() => full);
    if (isGuarded(resolve(full)) || isGuarded(real)) continue;
    entries.push(full);
  }
  return { folder, entries, truncated };
}
