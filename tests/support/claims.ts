// Synthetic claim logs for tests: what the sandbox's claim library would report for an action that wrote
// these paths, stamped from the folder as the action left it (so call it right after the action's writes).
import { chownSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FileStamp, LibraryClaims, PathClaim } from '../../main/sandbox/claims';

export function stampOf(folder: string, path: string): FileStamp | 'absent' {
  let st;
  try {
    st = lstatSync(join(folder, path), { bigint: true, throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
  }
  if (!st) return 'absent';
  return { ino: Number(st.ino), size: Number(st.size), mtimeNs: st.mtimeNs.toString() };
}

/** Claims of one folder: each path with what it holds now; `dirs` are claimed as folders. */
export function claimsNow(workspace: string, folder: string, paths: string[], dirs: string[] = []): LibraryClaims {
  const map = new Map<string, PathClaim>();
  for (const p of paths) map.set(p, { final: stampOf(folder, p), dir: false });
  for (const d of dirs) map.set(d, { final: stampOf(folder, d), dir: true });
  return { complete: true, folders: [{ workspace, paths: map }] };
}

/** Who owns the folders of a test: root itself, or the person (uid 1000) as when Posthoc runs as root for them. */
export const OWNERS = [
  { who: 'root with a root-owned folder', uid: null },
  { who: 'a folder owned by uid 1000', uid: 1000 },
] as const;

/** Gives a folder and everything in it to `uid` (when the tests run as root; otherwise it is already the runner's). */
export function own(folder: string, uid: number | null): void {
  if (uid === null || process.getuid?.() !== 0) return;
  chownSync(folder, uid, uid);
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) chownSync(join(entry.parentPath, entry.name), uid, uid);
}

/**
 * Gives only the named entries to `uid` (the files the person just wrote, as they would own them): chowning
 * everything would touch the action's files too, which the kernel reports as the person changing them.
 */
export function ownPaths(folder: string, uid: number | null, paths: readonly string[]): void {
  if (uid === null || process.getuid?.() !== 0) return;
  for (const p of paths) chownSync(join(folder, p), uid, uid);
}
