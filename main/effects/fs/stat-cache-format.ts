// The stat cache's bytes on disk (stat-cache.ts): one buffer per record, read with one readFileSync and
// decoded in one loop — no JSON, no object per field. A record holds folders' states, folders removed
// and the large-blob table; the cache file is one record (every folder), and each journal frame is one
// (the folders that changed).
//
// Layout, little-endian, sections in this order (the float section first, so it is 8-aligned):
//   header    u32 × 12: magic, version, folders, entries, removed, large blobs + 1 (0: the record leaves
//             the table as it is), string bytes, string units, CRC-32 of the rest of the record, 0,
//             listed entries, listed subfolders
//   stats     f64 × 5 per entry: size, mtimeMs, ctimeMs, ino, mode
//   sizes     f64 per large blob
//   dirstats  f64 × 5 per listed subfolder: its stat fields as its folder's listing saw them
//   oids      20 bytes each: every folder's tree, then every entry's id, then every large blob's id
//   counts    u32 per folder: how many entries it has
//   order     u32 per listed entry: for each listed folder, in listing order, the index of the entry
//   units     u32 per string, in string order: its length in UTF-16 units
//   listed    u8 per folder: 1 when its last listing is saved (order, dirstats)
//   flags     u8 per entry: kind (bits 0–2), trusted (bit 3), stored name escaped (bit 4)
//   strings   UTF-8, one after the other: per folder its path then its entries' names; then removed paths
// A folder's last listing is saved when it was clean (every entry cached and vouched for): its names,
// kinds and files' stat fields are then its entries' own, so only the order and the subfolders' stat fields
// are stored, and a walk in a fresh process compares a folder listed exactly as before in one step, as the
// process that saved it would (folder-scanner.ts, sameListing).
// A journal frame is u32 length, u32 CRC-32 of the record, the record. The record's own CRC-32 (header
// word 8, over every byte but its own) turns a damaged cache into an unreadable one, never into ids that
// vouch for the wrong content; it costs ~20 ms at a million entries.
import { crc32 } from 'node:zlib';
import { KIND_DIR, KIND_FILE, KIND_LINK } from './stat-lister';
import { storedName, type Kind } from './tree-model';
import type { CachedChild, DirState } from './stat-cache';

export const MAGIC = 0x43534850; // "PHSC"
export const VERSION = 2;
const HEADER_WORDS = 12;
const CRC_WORD = 8;
const HEADER_BYTES = HEADER_WORDS * 4;
const STATS = 5;
const KINDS: Kind[] = ['file', 'exec', 'link', 'dir', 'uncovered'];
const TRUSTED = 8;
const ESCAPED = 16;

export type CacheRecord = {
  dirs: Array<[string, DirState]>;
  removed: string[];
  /** The whole large-blob table (id → size), or null when the record does not set it. */
  large: Array<[string, number]> | null;
};

/** Not a record this version wrote, or cut short: the caller treats what it holds as unknown. */
export class CacheFormatError extends Error {}

export function encodeRecord(record: CacheRecord): Buffer {
  let entries = 0;
  const strings: string[] = [];
  for (const [rel, state] of record.dirs) {
    entries += state.children.length;
    strings.push(rel);
    for (const c of state.children) strings.push(c.name);
  }
  for (const rel of record.removed) strings.push(rel);
  const listings = record.dirs.map(([, state]) => savedListing(state));
  let listedEntries = 0;
  let listedDirs = 0;
  for (const l of listings) {
    if (!l) continue;
    listedEntries += l.order.length;
    listedDirs += l.dirStats.length / STATS;
  }
  const large = record.large ?? [];
  const text = Buffer.from(strings.join(''), 'utf8');
  const oidCount = record.dirs.length + entries + large.length;
  const statsAt = HEADER_BYTES;
  const sizesAt = statsAt + entries * STATS * 8;
  const dirStatsAt = sizesAt + large.length * 8;
  const oidsAt = dirStatsAt + listedDirs * STATS * 8;
  const countsAt = oidsAt + oidCount * 20;
  const orderAt = countsAt + record.dirs.length * 4;
  const unitsAt = orderAt + listedEntries * 4;
  const listedAt = unitsAt + strings.length * 4;
  const flagsAt = listedAt + record.dirs.length;
  const textAt = flagsAt + entries;
  const buf = Buffer.alloc(textAt + text.length);
  const header = new Uint32Array(buf.buffer, buf.byteOffset, HEADER_WORDS);
  header.set([MAGIC, VERSION, record.dirs.length, entries, record.removed.length, record.large ? large.length + 1 : 0, text.length, 0, 0, 0, listedEntries, listedDirs]);
  const stats = new Float64Array(buf.buffer, buf.byteOffset + statsAt, entries * STATS);
  const sizes = new Float64Array(buf.buffer, buf.byteOffset + sizesAt, large.length);
  const dirStats = new Float64Array(buf.buffer, buf.byteOffset + dirStatsAt, listedDirs * STATS);
  const counts = new Uint32Array(buf.buffer, buf.byteOffset + countsAt, record.dirs.length);
  const order = new Uint32Array(buf.buffer, buf.byteOffset + orderAt, listedEntries);
  const units = new Uint32Array(buf.buffer, buf.byteOffset + unitsAt, strings.length);
  let orderAtNow = 0;
  let dirStatsNow = 0;
  for (let d = 0; d < listings.length; d++) {
    const l = listings[d];
    if (!l) continue;
    buf[listedAt + d] = 1;
    order.set(l.order, orderAtNow);
    orderAtNow += l.order.length;
    dirStats.set(l.dirStats, dirStatsNow);
    dirStatsNow += l.dirStats.length;
  }
  let units16 = 0;
  for (let i = 0; i < strings.length; i++) {
    units[i] = strings[i]!.length;
    units16 += strings[i]!.length;
  }
  header[7] = units16;
  let oid = oidsAt;
  const putOid = (hex: string) => {
    if (hex.length !== 40 || buf.write(hex, oid, 20, 'hex') !== 20) throw new Error(`not an object id: ${hex}`);
    oid += 20;
  };
  let e = 0;
  for (let d = 0; d < record.dirs.length; d++) {
    const state = record.dirs[d]![1];
    counts[d] = state.children.length;
    putOid(state.tree);
  }
  for (const [, state] of record.dirs) {
    for (const c of state.children) {
      const o = e * STATS;
      stats[o] = c.size;
      stats[o + 1] = c.mtimeMs;
      stats[o + 2] = c.ctimeMs;
      stats[o + 3] = c.ino;
      stats[o + 4] = c.mode;
      buf[flagsAt + e] = KINDS.indexOf(c.kind) | (c.trusted ? TRUSTED : 0) | (storedName(c.name) !== c.name ? ESCAPED : 0);
      putOid(c.oid);
      e++;
    }
  }
  for (let i = 0; i < large.length; i++) {
    sizes[i] = large[i]![1];
    putOid(large[i]![0]);
  }
  text.copy(buf, textAt);
  header[CRC_WORD] = checksum(buf);
  return buf;
}

/** The kind a listing gives an entry of this kind (an uncovered entry never belongs to a saved listing). */
function listedKind(kind: Kind): number {
  return kind === 'dir' ? KIND_DIR : kind === 'link' ? KIND_LINK : KIND_FILE;
}

/**
 * What is saved of a folder's last listing: for each listed entry its index among the entries, and the
 * subfolders' stat fields; null when the listing was not clean, or is not exactly what its entries give
 * back (then the next walk compares the folder entry by entry, as it would without a listing).
 */
function savedListing(state: DirState): { order: number[]; dirStats: number[] } | null {
  const listed = state.listed;
  if (!listed || !listed.clean || listed.order.length !== state.children.length) return null;
  const index = new Map<CachedChild, number>();
  for (let i = 0; i < state.children.length; i++) index.set(state.children[i]!, i);
  const order: number[] = [];
  const dirStats: number[] = [];
  const names: string[] = [];
  for (let i = 0; i < listed.order.length; i++) {
    const c = listed.order[i];
    const at = c ? index.get(c) : undefined;
    if (c == null || at === undefined || c.kind === 'uncovered' || listed.kinds[i] !== listedKind(c.kind)) return null;
    const o = i * STATS;
    if (c.kind === 'dir') {
      for (let k = 0; k < STATS; k++) dirStats.push(listed.stats[o + k]!);
    } else if (
      listed.stats[o] !== c.size ||
      listed.stats[o + 1] !== c.mtimeMs ||
      listed.stats[o + 2] !== c.ctimeMs ||
      listed.stats[o + 3] !== c.ino ||
      listed.stats[o + 4] !== c.mode
    ) {
      return null;
    }
    order.push(at);
    names.push(c.name);
  }
  return names.join('\0') === listed.names ? { order, dirStats } : null;
}

/** CRC-32 of a record's bytes but its checksum word. */
function checksum(buf: Buffer): number {
  return crc32(buf.subarray((CRC_WORD + 1) * 4), crc32(buf.subarray(0, CRC_WORD * 4)));
}

/** Decodes one record; throws CacheFormatError for anything that is not one, whole. */
export function decodeRecord(input: Buffer): CacheRecord {
  if (input.length < HEADER_BYTES) throw new CacheFormatError('short header');
  // Typed arrays need aligned offsets; a buffer from a pool or a journal frame may not be.
  const buf = input.byteOffset % 8 === 0 ? input : Buffer.from(input);
  const header = new Uint32Array(buf.buffer, buf.byteOffset, HEADER_WORDS);
  const [magic, version, dirCount, entries, removedCount, largeWord, textBytes, textUnits, , , listedEntries, listedDirs] = header as unknown as number[];
  if (magic !== MAGIC || version !== VERSION) throw new CacheFormatError('not a stat cache of this version');
  if (header[CRC_WORD] !== checksum(buf)) throw new CacheFormatError('damaged');
  const largeCount = largeWord! === 0 ? 0 : largeWord! - 1;
  const stringCount = dirCount! + entries! + removedCount!;
  const statsAt = HEADER_BYTES;
  const sizesAt = statsAt + entries! * STATS * 8;
  const dirStatsAt = sizesAt + largeCount * 8;
  const oidsAt = dirStatsAt + listedDirs! * STATS * 8;
  const countsAt = oidsAt + (dirCount! + entries! + largeCount) * 20;
  const orderAt = countsAt + dirCount! * 4;
  const unitsAt = orderAt + listedEntries! * 4;
  const listedAt = unitsAt + stringCount * 4;
  const flagsAt = listedAt + dirCount!;
  const textAt = flagsAt + entries!;
  if (textAt + textBytes! !== buf.length) throw new CacheFormatError('length does not match the header');
  const stats = new Float64Array(buf.buffer, buf.byteOffset + statsAt, entries! * STATS);
  const sizes = new Float64Array(buf.buffer, buf.byteOffset + sizesAt, largeCount);
  const dirStats = new Float64Array(buf.buffer, buf.byteOffset + dirStatsAt, listedDirs! * STATS);
  const counts = new Uint32Array(buf.buffer, buf.byteOffset + countsAt, dirCount!);
  const order = new Uint32Array(buf.buffer, buf.byteOffset + orderAt, listedEntries!);
  const units = new Uint32Array(buf.buffer, buf.byteOffset + unitsAt, stringCount);
  let orderNow = 0;
  let dirStatsNow = 0;
  // Every string and id is a slice of these two (no string per field decoded from bytes one by one).
  const text = buf.toString('utf8', textAt, textAt + textBytes!);
  const hex = buf.toString('hex', oidsAt, countsAt);
  if (text.length !== textUnits) throw new CacheFormatError('strings do not match the header');
  let at = 0;
  let s = 0;
  const next = (): string => {
    const n = units[s++]!;
    if (at + n > text.length) throw new CacheFormatError('strings cut short');
    const out = text.slice(at, at + n);
    at += n;
    return out;
  };
  const dirs: Array<[string, DirState]> = new Array(dirCount!);
  let e = 0;
  for (let d = 0; d < dirCount!; d++) {
    const rel = next();
    const n = counts[d]!;
    if (e + n > entries!) throw new CacheFormatError('entries do not match the header');
    const children: CachedChild[] = new Array(n);
    for (let i = 0; i < n; i++, e++) {
      const name = next();
      const flags = buf[flagsAt + e]!;
      const kind = KINDS[flags & 7];
      if (kind === undefined) throw new CacheFormatError('unknown kind');
      const o = e * STATS;
      const h = (dirCount! + e) * 40;
      const stored = flags & ESCAPED ? storedName(name) : name;
      children[i] = {
        name,
        kind,
        oid: hex.slice(h, h + 40),
        size: stats[o]!,
        mtimeMs: stats[o + 1]!,
        ctimeMs: stats[o + 2]!,
        ino: stats[o + 3]!,
        mode: stats[o + 4]!,
        trusted: (flags & TRUSTED) !== 0,
        key: kind === 'dir' ? `${stored}/` : stored,
      };
    }
    const state: DirState = { tree: hex.slice(d * 40, d * 40 + 40), children };
    if (buf[listedAt + d] === 1) {
      if (orderNow + n > listedEntries!) throw new CacheFormatError('listings do not match the header');
      const listedOrder: CachedChild[] = new Array(n);
      const names: string[] = new Array(n);
      const kinds = new Uint8Array(n);
      const listedStats = new Float64Array(n * STATS);
      for (let i = 0; i < n; i++) {
        const c = children[order[orderNow++]!];
        if (c === undefined) throw new CacheFormatError('a listing names no entry');
        listedOrder[i] = c;
        names[i] = c.name;
        kinds[i] = listedKind(c.kind);
        const o = i * STATS;
        if (c.kind === 'dir') {
          if (dirStatsNow + STATS > dirStats.length) throw new CacheFormatError('listings do not match the header');
          listedStats.set(dirStats.subarray(dirStatsNow, dirStatsNow + STATS), o);
          dirStatsNow += STATS;
        } else {
          listedStats[o] = c.size;
          listedStats[o + 1] = c.mtimeMs;
          listedStats[o + 2] = c.ctimeMs;
          listedStats[o + 3] = c.ino;
          listedStats[o + 4] = c.mode;
        }
      }
      state.listed = { names: names.join('\0'), order: listedOrder, kinds, stats: listedStats, clean: true };
    }
    dirs[d] = [rel, state];
  }
  if (e !== entries || orderNow !== listedEntries || dirStatsNow !== dirStats.length) throw new CacheFormatError('entries do not match the header');
  const removed: string[] = new Array(removedCount!);
  for (let r = 0; r < removedCount!; r++) removed[r] = next();
  let large: Array<[string, number]> | null = null;
  if (largeWord !== 0) {
    large = new Array(largeCount);
    for (let i = 0; i < largeCount; i++) {
      const h = (dirCount! + entries! + i) * 40;
      large[i] = [hex.slice(h, h + 40), sizes[i]!];
    }
  }
  return { dirs, removed, large };
}

/** A journal frame: length, checksum, record. */
export function frame(record: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32LE(record.length, 0);
  head.writeUInt32LE(crc32(record), 4);
  return Buffer.concat([head, record]);
}

/**
 * The journal's frames in order; throws CacheFormatError at a torn or damaged one (a crash while
 * appending), after yielding every whole frame before it.
 */
export function* frames(journal: Buffer): Generator<Buffer, void, void> {
  let at = 0;
  while (at + 8 <= journal.length) {
    const length = journal.readUInt32LE(at);
    const sum = journal.readUInt32LE(at + 4);
    if (at + 8 + length > journal.length) throw new CacheFormatError('torn frame');
    const record = journal.subarray(at + 8, at + 8 + length);
    if (crc32(record) !== sum) throw new CacheFormatError('damaged frame');
    yield record;
    at += 8 + length;
  }
  if (at !== journal.length) throw new CacheFormatError('torn frame');
}
