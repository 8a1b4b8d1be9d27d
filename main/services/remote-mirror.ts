// Files of a task on a remote engine (issue 30, docs/ARCHITECTURE.md "Remote engines"): the person's folder stays
// the truth. `mirrorUp` sends the folder's files to its mirror volume, only those whose git blob id the volume
// lacks at that path, and removes there what the folder no longer has. `bringBack` takes what an action changed in
// the volume (its manifest against the one sent before the action) and writes it into the person's folder through
// the same beneath-handle writes undo uses (effects/fs/restore.ts: no link followed, nothing outside the folder),
// the contents stored first as git blobs in the folder's shadow repository, where the checkpoint after the action
// finds them. What comes back is then an ordinary change of the folder, checkpointed, attributed and undone as a
// local action's.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { EMPTY_TREE, type ShadowRepo } from '../effects/fs/git-objects';
import { applyOps, type RestoreOp } from '../effects/fs/restore';
import type { Manifest, MirrorFile, MirrorKind, MirrorVolume } from '../sandbox/engines/mirror-volume';

const blobId = (content: Buffer) => createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');

/** The folder's files and links (not following any), as the volume's manifest lists them; Posthoc's own .git-like shadow is elsewhere. */
export function folderManifest(folder: string): { manifest: Manifest; read(path: string): MirrorFile } {
  const manifest: Manifest = new Map();
  const walk = (rel: string) => {
    const dir = rel ? join(folder, rel) : folder;
    for (const name of readdirSync(dir).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(folder, path));
      if (st.isSymbolicLink()) manifest.set(path, { kind: 'link', oid: blobId(Buffer.from(readlinkSync(join(folder, path), 'utf8'), 'utf8')) });
      else if (st.isDirectory()) walk(path);
      else if (st.isFile()) manifest.set(path, { kind: st.mode & 0o100 ? 'exec' : 'file', oid: blobId(readFileSync(join(folder, path))) });
    }
  };
  walk('');
  return {
    manifest,
    read(path) {
      const entry = manifest.get(path)!;
      const full = join(folder, path);
      return { path, kind: entry.kind, content: entry.kind === 'link' ? Buffer.from(readlinkSync(full, 'utf8'), 'utf8') : readFileSync(full) };
    },
  };
}

export type MirrorUp = { sent: string[]; removed: string[]; bytes: number; manifest: Manifest };

/** Makes the volume hold the folder: sends what differs (by blob id and kind), removes what the folder lacks. */
export async function mirrorUp(folder: string, volume: MirrorVolume, known?: Manifest): Promise<MirrorUp> {
  const local = folderManifest(folder);
  const there = known ?? (await volume.manifest());
  const sent = [...local.manifest].filter(([path, e]) => {
    const t = there.get(path);
    return !t || t.oid !== e.oid || t.kind !== e.kind;
  });
  const removed = [...there.keys()].filter((path) => !local.manifest.has(path));
  await volume.remove(removed);
  const files = sent.map(([path]) => local.read(path));
  await volume.put(files);
  return { sent: files.map((f) => f.path), removed, bytes: files.reduce((n, f) => n + f.content.length, 0), manifest: local.manifest };
}

export type BroughtBack = { written: string[]; removed: string[]; skipped: string[]; refused: string; manifest: Manifest };

const ENTRY_KIND: Record<MirrorKind, 'file' | 'exec' | 'link'> = { file: 'file', exec: 'exec', link: 'link' };

/**
 * Brings an action's changes back: what differs between the manifest sent before the action and the volume now.
 * `repo`: the folder's shadow repository (the contents go there as blobs first, then restore.ts writes them).
 */
export async function bringBack(folder: string, volume: MirrorVolume, before: Manifest, repo: ShadowRepo, tag: string): Promise<BroughtBack> {
  const after = await volume.manifest();
  const changed = [...after].filter(([path, e]) => {
    const b = before.get(path);
    return !b || b.oid !== e.oid || b.kind !== e.kind;
  });
  const gone = [...before.keys()].filter((path) => !after.has(path));
  const { files, refused } = await volume.read(changed.map(([path]) => path));
  const ops: RestoreOp[] = [];
  // The folders a file goes in (restore.ts makes a folder only when asked, and leaves one that is there).
  const folders = new Set<string>();
  for (const f of files) {
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  for (const dir of folders) ops.push({ path: dir, to: { kind: 'dir', oid: EMPTY_TREE } });
  for (const f of files) {
    const oid = repo.writeBlob(f.content);
    ops.push({ path: f.path, to: { kind: ENTRY_KIND[f.kind], oid } });
  }
  for (const path of gone) ops.push({ path, to: null });
  const outcome = await applyOps(folder, repo, ops, tag);
  // What the volume holds now, for the next action's "before" (a file refused here is left out, so it is asked again).
  const manifest: Manifest = new Map(after);
  for (const [path] of changed) if (!files.some((f) => f.path === path)) manifest.delete(path);
  return { written: outcome.written.filter((p) => !folders.has(p)), removed: outcome.removed, skipped: outcome.skipped, refused, manifest };
}
