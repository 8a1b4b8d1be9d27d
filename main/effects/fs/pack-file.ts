// Git packfiles, written and read here for the shadow repository (git-objects.ts). A first checkpoint
// writes its objects into packs instead of one loose file each: one file (and its index) per ~32 MiB of
// compressed objects instead of an existence check, a temporary file and a rename per object. The format is
// git's (pack version 2, index version 2: `git verify-pack`, `git fsck` and `git cat-file` read them);
// objects are stored whole (no deltas), each deflated as a loose object would be, without its header.
//
// A pack becomes visible only whole: it is written under a temporary name in objects/pack/, its index
// after it, and the two are renamed pack first, index last (as git does; git ignores a pack without an
// index). A process killed half-way leaves a temporary file (removed by garbage collection) and the
// packs finished before it, whose objects nothing names yet.
//
// Reading: the index is kept in memory as one Buffer (28 bytes an object) and searched by its fan-out
// table; an object is read by its offset. Objects stored as deltas (a pack made by `git gc` run on the
// shadow repository by hand) are not read here: the caller falls back to isomorphic-git for them.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync, inflateSync } from 'node:zlib';
import { DamagedObject } from './blob-stream';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';
const TYPE_CODES: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };
const TYPE_NAMES: Array<ObjectType | null> = [null, 'commit', 'tree', 'blob', 'tag', null, null, null];
/** A pack is closed once this many compressed bytes are in it. */
export const PACK_BYTES = 32 * 1024 * 1024;
const IDX_MAGIC = Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]);

/** Per object collected: its id (20 bytes), its entry's offset and CRC-32 (4 bytes each). */
const ENTRY = 28;

/** Collects objects and writes them out as packs of about PACK_BYTES each, in memory until then. */
export class PackWriter {
  private body: Buffer = Buffer.alloc(0); // the pack being collected, its header left blank until it is written
  private bytes = 12;
  private entries: Buffer = Buffer.alloc(0);
  private count = 0;
  private readonly dir: string;

  /** `written(name)`: a pack (pack-SHA) is now in place, index and all. */
  constructor(
    objectsDir: string,
    private readonly written: (name: string) => void,
  ) {
    this.dir = join(objectsDir, 'pack');
  }

  add(oid: string, type: ObjectType, content: Buffer): void {
    this.addDeflated(oid, type, content.length, deflateSync(content, { level: 1 }));
  }

  /** An object whose content (`size` bytes) was deflated elsewhere (a reader thread: file-readers.ts). */
  addDeflated(oid: string, type: ObjectType, size: number, data: Buffer): void {
    const header = entryHeader(TYPE_CODES[type], size);
    const offset = this.bytes;
    // Copied in: a deflated buffer is often a slice of a larger one, which it would keep alive.
    this.body = room(this.body, offset + header.length + data.length, PACK_BYTES + (1 << 20));
    header.copy(this.body, offset);
    data.copy(this.body, offset + header.length);
    this.bytes += header.length + data.length;
    this.entries = room(this.entries, (this.count + 1) * ENTRY, 64 * 1024 * ENTRY);
    const at = this.count++ * ENTRY;
    this.entries.write(oid, at, 20, 'hex');
    this.entries.writeUInt32BE(offset, at + 20);
    this.entries.writeUInt32BE(crc32(this.body.subarray(offset, this.bytes)) >>> 0, at + 24);
    if (this.bytes >= PACK_BYTES) this.flush();
  }

  /** Forgets what is collected and not written yet; returns the ids. */
  drop(): string[] {
    const ids: string[] = [];
    for (let i = 0; i < this.count; i++) ids.push(this.entries.toString('hex', i * ENTRY, i * ENTRY + 20));
    this.reset();
    return ids;
  }

  /** Writes what is collected as one pack with its index (nothing when empty). */
  flush(): void {
    if (this.count === 0) return;
    const body = this.body.subarray(0, this.bytes);
    body.write('PACK', 0, 'latin1');
    body.writeUInt32BE(2, 4);
    body.writeUInt32BE(this.count, 8);
    const checksum = createHash('sha1').update(body).digest();
    const index = buildIndex(this.entries.subarray(0, this.count * ENTRY), checksum);
    const name = `pack-${checksum.toString('hex')}`;
    const tag = randomBytes(6).toString('hex');
    const tempPack = join(this.dir, `tmp_pack_${tag}`);
    const tempIdx = join(this.dir, `tmp_idx_${tag}`);
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      writeAll(tempPack, [body, checksum]);
      writeAll(tempIdx, [index]);
      fs.renameSync(tempPack, join(this.dir, `${name}.pack`));
      fs.renameSync(tempIdx, join(this.dir, `${name}.idx`));
    } catch (error) {
      // A full disk must not stay full of a half-written pack: the next start needs the room.
      fs.rmSync(tempPack, { force: true });
      fs.rmSync(tempIdx, { force: true });
      throw error;
    } finally {
      this.reset();
    }
    this.written(name);
  }

  private reset(): void {
    this.bytes = 12;
    this.count = 0;
    this.entries = Buffer.alloc(0);
    this.body = Buffer.alloc(0);
  }
}

/** `buffer`, or a larger copy of it when it holds fewer than `need` bytes (at least `first` at first, then doubling). */
function room(buffer: Buffer, need: number, first: number): Buffer {
  if (need <= buffer.length) return buffer;
  const grown = Buffer.allocUnsafe(Math.max(need, buffer.length === 0 ? first : buffer.length * 2));
  buffer.copy(grown);
  return grown;
}

function writeAll(path: string, parts: Buffer[]): void {
  const fd = fs.openSync(path, 'wx', 0o444);
  try {
    for (const p of parts) {
      let done = 0;
      while (done < p.length) done += fs.writeSync(fd, p, done, p.length - done);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** A pack entry's header: type and size, 4 bits then 7 bits a byte, lowest first. */
function entryHeader(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (type << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

/** Index version 2: fan-out, sorted ids, CRC-32s, offsets (all under 2 GiB), pack checksum, own checksum. */
function buildIndex(entries: Buffer, packChecksum: Buffer): Buffer {
  const n = entries.length / ENTRY;
  const order = Array.from({ length: n }, (_, i) => i * ENTRY).sort((a, b) => entries.compare(entries, b, b + 20, a, a + 20));
  const out = Buffer.alloc(8 + 256 * 4 + n * 28 + 40);
  IDX_MAGIC.copy(out, 0);
  const ids = 8 + 1024;
  const crcs = ids + n * 20;
  const offsets = crcs + n * 4;
  const fanout = new Array<number>(256).fill(0);
  order.forEach((at, i) => {
    fanout[entries[at]!]!++;
    entries.copy(out, ids + i * 20, at, at + 20);
    entries.copy(out, crcs + i * 4, at + 24, at + 28);
    entries.copy(out, offsets + i * 4, at + 20, at + 24);
  });
  let total = 0;
  for (let i = 0; i < 256; i++) out.writeUInt32BE((total += fanout[i]!), 8 + i * 4);
  packChecksum.copy(out, offsets + n * 4);
  createHash('sha1').update(out.subarray(0, offsets + n * 4 + 20)).digest().copy(out, offsets + n * 4 + 20);
  return out;
}

/** Where an object is: its pack file and the offset of its entry. */
export type PackedAt = { pack: string; offset: number };
/** A packed object's type and size, and where its deflated content starts. */
export type PackedEntry = { type: ObjectType; size: number; dataStart: number; packSize: number };

/** The packs of an objects folder, their indexes read once each. */
export class PackSet {
  private readonly indexes = new Map<string, Buffer>();
  private dirStamp = -1;

  constructor(private readonly objectsDir: string) {}

  /** Takes a pack this process just wrote (no need to list the folder again). */
  added(name: string): void {
    this.load(name);
  }

  get count(): number {
    return this.indexes.size;
  }

  /** Where `oid` is packed; `lookAgain` (default): on a miss, list the pack folder again if it changed. */
  find(oid: string, lookAgain = true): PackedAt | null {
    const found = this.lookup(oid);
    if (found || !lookAgain || !this.refresh()) return found;
    return this.lookup(oid);
  }

  /** The pack file of a pack this set names. */
  packPath(name: string): string {
    return join(this.objectsDir, 'pack', `${name}.pack`);
  }

  private lookup(oid: string): PackedAt | null {
    if (this.indexes.size === 0) return null;
    const want = Buffer.from(oid, 'hex');
    for (const [name, idx] of this.indexes) {
      const offset = findInIndex(idx, want);
      if (offset !== null) return { pack: name, offset };
    }
    return null;
  }

  /** Lists objects/pack again when it changed (another process wrote a pack); true when it did. */
  private refresh(): boolean {
    const dir = join(this.objectsDir, 'pack');
    let stamp: number;
    try {
      stamp = fs.statSync(dir).mtimeMs;
    } catch {
      return false;
    }
    if (stamp === this.dirStamp) return false;
    this.dirStamp = stamp;
    let changed = false;
    for (const file of fs.readdirSync(dir)) {
      const name = /^(pack-[0-9a-f]{40})\.idx$/.exec(file)?.[1];
      if (name && !this.indexes.has(name) && fs.existsSync(join(dir, `${name}.pack`))) changed = this.load(name) || changed;
    }
    return changed;
  }

  private load(name: string): boolean {
    let idx: Buffer;
    try {
      idx = fs.readFileSync(join(this.objectsDir, 'pack', `${name}.idx`));
    } catch {
      return false;
    }
    if (idx.length < 8 + 1024 + 40 || !idx.subarray(0, 8).equals(IDX_MAGIC)) return false; // version 1 or damaged: isomorphic-git's
    this.indexes.set(name, idx);
    return true;
  }
}

function findInIndex(idx: Buffer, want: Buffer): number | null {
  const first = want[0]!;
  let lo = first === 0 ? 0 : idx.readUInt32BE(8 + (first - 1) * 4);
  let hi = idx.readUInt32BE(8 + first * 4);
  const n = idx.readUInt32BE(8 + 255 * 4);
  const ids = 8 + 1024;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = idx.compare(want, 0, 20, ids + mid * 20, ids + mid * 20 + 20);
    if (c === 0) {
      const off = idx.readUInt32BE(ids + n * 24 + mid * 4);
      if (off < 0x80000000) return off;
      const large = ids + n * 28 + (off & 0x7fffffff) * 8;
      return idx.readUInt32BE(large) * 2 ** 32 + idx.readUInt32BE(large + 4);
    }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return null;
}

/** An entry's type and size, read from its header; null when it is stored as a delta. */
export function readEntryHeader(fd: number, offset: number): PackedEntry | null {
  const head = Buffer.alloc(16);
  const got = fs.readSync(fd, head, 0, 16, offset);
  let byte = head[0]!;
  const type = TYPE_NAMES[(byte >> 4) & 7];
  let size = byte & 0x0f;
  let shift = 16;
  let i = 1;
  while (byte & 0x80) {
    if (i >= got) throw new Error(`A pack entry's header at ${offset} is cut short.`);
    byte = head[i++]!;
    size += (byte & 0x7f) * shift;
    shift *= 128;
  }
  if (!type) return null;
  return { type, size, dataStart: offset + i, packSize: fs.fstatSync(fd).size };
}

/** A non-delta packed object whole, or null when it is a delta; DamagedObject when it cannot be inflated to its size. */
export function readPacked(path: string, offset: number, oid: string): { type: ObjectType; content: Buffer } | null {
  const fd = fs.openSync(path, 'r');
  try {
    const entry = readEntryHeader(fd, offset);
    if (!entry) return null;
    // Deflate never grows data by more than its bound; the pack's 20-byte checksum follows the last entry.
    const bound = entry.size + (entry.size >> 12) + (entry.size >> 14) + (entry.size >> 25) + 64;
    const length = Math.min(bound, entry.packSize - 20 - entry.dataStart);
    const raw = Buffer.alloc(Math.max(0, length));
    fs.readSync(fd, raw, 0, raw.length, entry.dataStart);
    let content: Buffer;
    try {
      content = inflateSync(raw);
    } catch (error) {
      throw new DamagedObject(oid, error instanceof Error ? error.message : String(error));
    }
    if (content.length !== entry.size) throw new DamagedObject(oid, `it holds ${content.length} bytes, not the ${entry.size} its pack entry says`);
    return { type: entry.type, content };
  } finally {
    fs.closeSync(fd);
  }
}
