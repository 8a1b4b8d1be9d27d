// The permission bits of private files, which git's tree modes cannot hold. A checkpoint keeps only a
// file's executable bit (100644 or 100755), so a file an undo brings back used to come back 0644: an
// agent that deleted (or rewrote through a new file) a key kept 0600 left it readable by everyone after
// its undo. This record keeps, per folder, the bits of every file content seen at a path with group or
// others denied what the default mode gives them (0600, 0640, 0700, 0750…), and a restore gives that
// content at that path those bits again.
//
// Keyed by path and content (blob id): "this content at this path was last seen with these bits". A file
// seen at a path with default-or-wider bits removes its key, so the last sighting wins. Only the nine
// permission bits are kept: never set-user-ID, set-group-ID or sticky.
//
// On disk next to the shadow repository, one JSON file written whole (temporary file, rename). Every
// change and look-up reads it again, so two processes on the same folder (the app and the CLI, which take
// the folder's lock for checkpoints and restores) never lose each other's records. Files are only touched
// when a scan met a private file, or a file whose key the record holds.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

export const PRIVATE_MODES_FILE = 'posthoc-private-modes.json';
const FORMAT = 1;

/** One file a scan read: its path, its blob, and its stat mode. */
export type ModeSighting = { path: string; oid: string; mode: number; executable: boolean };

/** The bits a checkpoint implies for a file brought back: 0644, or 0755 when executable. */
export const defaultPerms = (executable: boolean): number => (executable ? 0o755 : 0o644);

/** Group or others lack a read (or, for a program, run) bit that the default mode gives them. */
export function isPrivate(perms: number, executable: boolean): boolean {
  return (defaultPerms(executable) & 0o055 & ~perms) !== 0;
}

export class PrivateModes {
  constructor(readonly file: string) {}

  /** Whether the record exists yet (a folder checkpointed before it did has files it never saw). */
  exists(): boolean {
    return existsSync(this.file);
  }

  /** Records what a scan saw; writes only when a key is added, changed or removed. */
  note(sightings: readonly ModeSighting[]): void {
    if (sightings.length === 0) return;
    const seen = sightings.map((s) => ({ key: keyOf(s.path, s.oid), perms: s.mode & 0o777, priv: isPrivate(s.mode & 0o777, s.executable) }));
    // Nothing private seen and nothing recorded: nothing to add or remove.
    if (!seen.some((s) => s.priv) && !this.exists()) return;
    const map = this.read();
    let changed = false;
    for (const { key, perms, priv } of seen) {
      if (priv) {
        if (map.get(key) !== perms) {
          map.set(key, perms);
          changed = true;
        }
      } else if (map.delete(key)) {
        changed = true;
      }
    }
    if (changed) this.write(map);
  }

  /** Makes the record exist (empty) so a later start knows every file was seen since. */
  ensure(): void {
    if (!this.exists()) this.write(new Map());
  }

  /** The bits recorded for a content at a path, or null (the default applies); the file is read once, at the first look-up. */
  reader(): (path: string, oid: string) => number | null {
    let map: Map<string, number> | null = null;
    return (path, oid) => (map ??= this.read()).get(keyOf(path, oid)) ?? null;
  }

  /** Drops the keys of contents no checkpoint holds any more (garbage collection). */
  retain(keep: ReadonlySet<string>): number {
    if (!this.exists()) return 0;
    const map = this.read();
    let dropped = 0;
    for (const key of [...map.keys()]) {
      if (keep.has(key.slice(0, key.indexOf(' ')))) continue;
      map.delete(key);
      dropped++;
    }
    if (dropped > 0) this.write(map);
    return dropped;
  }

  private read(): Map<string, number> {
    let raw: string;
    try {
      raw = readFileSync(this.file, 'utf8');
    } catch {
      return new Map();
    }
    try {
      const data = JSON.parse(raw) as { v: unknown; files: unknown };
      if (data.v !== FORMAT || !Array.isArray(data.files)) return new Map();
      const map = new Map<string, number>();
      for (const row of data.files as unknown[]) {
        // Anything but [path, blob id, 0..0o777] is skipped: a restore never takes bits it cannot trust.
        if (!Array.isArray(row) || row.length !== 3) continue;
        const [path, oid, perms] = row as [unknown, unknown, unknown];
        if (typeof path !== 'string' || typeof oid !== 'string' || !/^[0-9a-f]{40}$/.test(oid)) continue;
        if (!Number.isInteger(perms) || (perms as number) < 0 || (perms as number) > 0o777) continue;
        map.set(keyOf(path, oid), perms as number);
      }
      return map;
    } catch {
      // Damaged: restores fall back to the default bits, as before this record existed.
      return new Map();
    }
  }

  private write(map: Map<string, number>): void {
    const files = [...map].map(([key, perms]) => {
      const space = key.indexOf(' ');
      return [key.slice(space + 1), key.slice(0, space), perms];
    });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ v: FORMAT, files }), { mode: 0o600 });
    renameSync(temp, this.file);
  }
}

/** Blob id first: it has no space, so the path (which may) is everything after the first one. */
const keyOf = (path: string, oid: string): string => `${oid} ${path}`;
