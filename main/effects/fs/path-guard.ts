// Every path that came from outside (an action's effects, the model, a stored record) is resolved here
// before the host touches it: it must stay inside the granted folder, and no folder on the way may be a
// symbolic link, so a restore can never be steered out of the folder through a link an action planted.
import { lstat } from 'node:fs/promises';
import { isAbsolute, join, normalize, sep } from 'node:path';

export class PathOutsideWorkspace extends Error {}

export function isPathInside(root: string, candidate: string): boolean {
  const r = normalize(root).replace(/[\\/]+$/, '');
  const c = normalize(candidate);
  return c === r || c.startsWith(r + sep);
}

export async function resolveInside(root: string, relative: string): Promise<string> {
  if (relative === '' || relative.includes('\0') || isAbsolute(relative)) {
    throw new PathOutsideWorkspace(`Refusing path ${JSON.stringify(relative)}: it must be relative to the folder.`);
  }
  const parts = relative.split('/');
  if (parts.some((p) => p === '..' || p === '.' || p === '')) {
    throw new PathOutsideWorkspace(`Refusing path ${JSON.stringify(relative)}: it leaves the folder.`);
  }
  let current = root;
  for (const part of parts.slice(0, -1)) {
    current = join(current, part);
    const st = await lstat(current).catch(() => undefined);
    if (st?.isSymbolicLink()) {
      throw new PathOutsideWorkspace(`Refusing path ${JSON.stringify(relative)}: ${part} is a symbolic link.`);
    }
  }
  const target = join(root, ...parts);
  if (!isPathInside(root, target)) throw new PathOutsideWorkspace(`Refusing path ${JSON.stringify(relative)}.`);
  return target;
}
