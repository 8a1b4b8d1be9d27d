// Every path that came from outside (an action's effects, the model, a stored record) is checked here
// before the host touches it: it must be relative, stay inside the granted folder and name no "." or "..".
// Where the beneath addon is built (beneath.ts), the host then opens it component by component without
// following links; resolveInside() below, which checks folders with lstat and returns a path to open by
// name, is only for the fallback where it is not (and for callers that merely compare paths).
import { lstatSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { isAbsolute, join, normalize, sep } from 'node:path';

export class PathOutsideWorkspace extends Error {}

export function isPathInside(root: string, candidate: string): boolean {
  const r = normalize(root).replace(/[\\/]+$/, '');
  const c = normalize(candidate);
  return c === r || c.startsWith(r + sep);
}

/** The path's components; throws unless it is "a/b/c" with no empty, "." or ".." component. */
export function checkRelative(relative: string): string[] {
  if (relative === '' || relative.includes('\0') || isAbsolute(relative)) {
    throw new PathOutsideWorkspace(`Refusing path ${JSON.stringify(relative)}: it must be relative to the folder.`);
  }
  const parts = relative.split('/');
  if (parts.some((p) => p === '..' || p === '.' || p === '')) {
    throw new PathOutsideWorkspace(`Refusing path ${JSON.stringify(relative)}: it leaves the folder.`);
  }
  return parts;
}

export async function resolveInside(root: string, relative: string): Promise<string> {
  const parts = checkRelative(relative);
  let current = root;
  for (const part of parts.slice(0, -1)) {
    current = join(current, part);
    const st = await lstat(current).catch(() => undefined);
    if (st?.isSymbolicLink()) throw linkOnTheWay(relative, part);
  }
  return inside(root, relative, parts);
}

/** resolveInside() without awaiting, for the synchronous fallback in beneath.ts. */
export function resolveInsideSync(root: string, relative: string): string {
  const parts = checkRelative(relative);
  let current = root;
  for (const part of parts.slice(0, -1)) {
    current = join(current, part);
    if (lstatSync(current, { throwIfNoEntry: false })?.isSymbolicLink()) throw linkOnTheWay(relative, part);
  }
  return inside(root, relative, parts);
}

function inside(root: string, relative: string, parts: string[]): string {
  const target = join(root, ...parts);
  if (!isPathInside(root, target)) throw new PathOutsideWorkspace(`Refusing path ${JSON.stringify(relative)}.`);
  return target;
}

function linkOnTheWay(relative: string, part: string): PathOutsideWorkspace {
  return new PathOutsideWorkspace(`Refusing path ${JSON.stringify(relative)}: ${part} is a symbolic link.`);
}
