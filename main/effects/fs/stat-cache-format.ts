// The stat cache's bytes on disk (stat-cache.ts): one buffer per record, read with one readFileSync and
// decoded without an object per entry: each folder's state (DirState) is views of the record's sections
// and one string of its names. A record holds folders' states, folders removed and the large-blob table;
// the cache file is one record (every folder), and each journal frame is one (the folders that changed).
//
// Layout of version 3, little-endian, sections in this order (the float section first, so it is 8-aligned):
//   header    u32 × 10: magic, version, folders, entries, removed, large blobs + 1 (0: the record leaves
//             the table as it is), string bytes, CRC-32 of the rest of the record, 0, 0
//   stats     f64 × 5 per entry: size, mtimeMs, ctimeMs, ino, mode (a subfolder's: as its folder's listing saw it)
//   sizes     f64 per large blob
//   oids      20 bytes each: every folder's tree, then every entry's id, then every large blob's id
//   counts    u32 per folder: how many entries it has
//   lengths   u32 per string: its length in UTF-8 bytes
//   flags     u8 per entry: kind (bits 0–2), trusted (bit 3)
//   strings   UTF-8: per folder its path, then its entries' names joined by NUL; then removed paths
// Entries are in the order the walk last listed them, so a folder listed exactly as before compares in one
// step (folder-scanner.ts, sameListing). A folder's views share the record's buffer: a whole cache of a
// million files is one ~75 MB buffer and a string per folder, not a million objects.
// A journal frame is u32 length, u32 CRC-32 of the record, the record. The record's own CRC-32 (header
// word 7, over every byte but its own) turns a damaged cache into an unreadable one, never into ids that
// vouch for the wrong content.
//
// Version 2 (entries in git order, a clean listing saved as an order over them) is still read, and turned
// into version 3's form; the next save that writes the whole writes version 3.
import { closeSync, openSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { DirState, TRUSTED, type CachedChild } from './stat-cache';
import { storedName } from './tree-model';

export const MAGIC = 0x43534850; // "PHSC"
export const VERSION = 3;
const HEADER_WORDS = 10;
const CRC_WORD = 7;
const HEADER_BYTES = HEADER_WORDS * 4;
const STATS = 5;
const KINDS = ['file', 'exec', 'link', 'dir', 'uncovered'] as const;
/** Version 2's flag: the stored name is escaped. */
const ESCAPED = 16;

export type CacheRecord = {
  dirs: Array<[string, DirState]>;
  removed: string[];
  /** The whole large-blob table (id → size), or null when the record does not set it. */
  large: Array<[string, number]> | null;
};

/** Not a record this version can read, or cut short: the caller treats what it holds as unknown. */
export class CacheFormatError extends Error {}

type RecordInput = { dirs: Array<[string, DirState | { tree: string; children: readonly CachedChild[] }]>; removed: string[]; large: Array<[string, number]> | null };

/**
 * Emits a record's bytes in order, section by section (no buffer of the whole), and returns its CRC-32
 * (of every byte but the checksum word, which is emitted as 0).
 */
function emitRecord(record: RecordInput, emit: (bytes: Uint8Array) => void): number {
  const dirs = record.dirs.map(([rel, like]) => [rel, DirState.from(like)] as const);
  let entries = 0;
  for (const [, state] of dirs) entries += state.count;
  const large = record.large ?? [];
  const lengths = new Uint32Array(2 * dirs.length + record.removed.length);
  let textBytes = 0;
  let k = 0;
  for (const [rel, state] of dirs) {
    textBytes += lengths[k++] = Buffer.byteLength(rel, 'utf8');
    textBytes += lengths[k++] = Buffer.byteLength(state.names, 'utf8');
  }
  for (const rel of record.removed) textBytes += lengths[k++] = Buffer.byteLength(rel, 'utf8');
  const header = new Uint32Array([MAGIC, VERSION, dirs.length, entries, record.removed.length, record.large ? large.length + 1 : 0, textBytes, 0, 0, 0]);
  const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const head = bytes(header);
  let crc = crc32(head.subarray((CRC_WORD + 1) * 4), crc32(head.subarray(0, CRC_WORD * 4)));
  const put = (b: Uint8Array) => {
    if (b.length === 0) return;
    crc = crc32(b, crc);
    emit(b);
  };
  emit(head);
  for (const [, state] of dirs) put(bytes(state.stats));
  put(bytes(Float64Array.from(large, ([, size]) => size)));
  const trees = Buffer.alloc(dirs.length * 20);
  for (let d = 0; d < dirs.length; d++) {
    const tree = dirs[d]![1].tree;
    if (tree.length !== 40 || trees.write(tree, d * 20, 20, 'hex') !== 20) throw new Error(`not an object id: ${tree}`);
  }
  put(trees);
  for (const [, state] of dirs) put(state.oids);
  const largeIds = Buffer.alloc(large.length * 20);
  for (let i = 0; i < large.length; i++) {
    const hex = large[i]![0];
    if (hex.length !== 40 || largeIds.write(hex, i * 20, 20, 'hex') !== 20) throw new Error(`not an object id: ${hex}`);
  }
  put(largeIds);
  put(bytes(Uint32Array.from(dirs, ([, state]) => state.count)));
  put(bytes(lengths));
  for (const [, state] of dirs) put(state.flags);
  for (const [rel, state] of dirs) {
    put(Buffer.from(rel, 'utf8'));
    put(Buffer.from(state.names, 'utf8'));
  }
  for (const rel of record.removed) put(Buffer.from(rel, 'utf8'));
  return crc;
}

export function encodeRecord(record: RecordInput): Buffer {
  const parts: Uint8Array[] = [];
  const crc = emitRecord(record, (b) => parts.push(b));
  const buf = Buffer.concat(parts);
  buf.writeUInt32LE(crc, CRC_WORD * 4);
  return buf;
}

/**
 * Writes a record to a file through a small buffer, never holding the whole (at a million files the whole
 * is ~75 MB, which a first checkpoint would add to its peak); returns its length.
 */
export function writeRecordFile(path: string, record: RecordInput): number {
  const fd = openSync(path, 'w');
  try {
    const stage = Buffer.allocUnsafeSlow(1 << 20);
    let used = 0;
    let length = 0;
    const flush = () => {
      let at = 0;
      while (at < used) at += writeSync(fd, stage, at, used - at);
      used = 0;
    };
    const crc = emitRecord(record, (b) => {
      length += b.length;
      if (b.length > stage.length) {
        flush();
        let at = 0;
        while (at < b.length) at += writeSync(fd, b, at, b.length - at);
        return;
      }
      if (used + b.length > stage.length) flush();
      stage.set(b, used);
      used += b.length;
    });
    flush();
    const word = Buffer.alloc(4);
    word.writeUInt32LE(crc, 0);
    writeSync(fd, word, 0, 4, CRC_WORD * 4);
    return length;
  } finally {
    closeSync(fd);
  }
}

/** CRC-32 of a record's bytes but its checksum word. */
function checksum(buf: Buffer, word: number): number {
  return crc32(buf.subarray((word + 1) * 4), crc32(buf.subarray(0, word * 4)));
}

/** Decodes one record; throws CacheFormatError for anything that is not one, whole. */
export function decodeRecord(input: Buffer): CacheRecord {
  if (input.length < 12 * 4) {
    if (input.length < HEADER_BYTES) throw new CacheFormatError('short header');
  }
  // Typed arrays need aligned offsets; a buffer from a pool or a journal frame may not be.
  const buf = input.byteOffset % 8 === 0 ? input : Buffer.from(input);
  const magic = buf.readUInt32LE(0);
  const version = buf.readUInt32LE(4);
  if (magic !== MAGIC) throw new CacheFormatError('not a stat cache');
  if (version === 2) {
    if (buf.length < 12 * 4) throw new CacheFormatError('short header');
    if (buf.readUInt32LE(8 * 4) !== checksum(buf, 8)) throw new CacheFormatError('damaged');
    return decodeV2(buf);
  }
  if (version !== VERSION) throw new CacheFormatError('not a stat cache of this version');
  const header = new Uint32Array(buf.buffer, buf.byteOffset, HEADER_WORDS);
  if (header[CRC_WORD] !== checksum(buf, CRC_WORD)) throw new CacheFormatError('damaged');
  const dirCount = header[2]!;
  const entries = header[3]!;
  const removedCount = header[4]!;
  const largeWord = header[5]!;
  const textBytes = header[6]!;
  const largeCount = largeWord === 0 ? 0 : largeWord - 1;
  const stringCount = 2 * dirCount + removedCount;
  const statsAt = HEADER_BYTES;
  const sizesAt = statsAt + entries * STATS * 8;
  const oidsAt = sizesAt + largeCount * 8;
  const countsAt = oidsAt + (dirCount + entries + largeCount) * 20;
  const lengthsAt = countsAt + dirCount * 4;
  const flagsAt = lengthsAt + stringCount * 4;
  const textAt = flagsAt + entries;
  if (textAt + textBytes !== buf.length) throw new CacheFormatError('length does not match the header');
  const stats = new Float64Array(buf.buffer, buf.byteOffset + statsAt, entries * STATS);
  const sizes = new Float64Array(buf.buffer, buf.byteOffset + sizesAt, largeCount);
  const counts = new Uint32Array(buf.buffer, buf.byteOffset + countsAt, dirCount);
  const lengths = new Uint32Array(buf.buffer, buf.byteOffset + lengthsAt, stringCount);
  let at = textAt;
  let s = 0;
  const next = (): string => {
    const n = lengths[s++]!;
    if (at + n > buf.length) throw new CacheFormatError('strings cut short');
    const out = buf.toString('utf8', at, at + n);
    at += n;
    return out;
  };
  const dirs: Array<[string, DirState]> = new Array(dirCount);
  let e = 0;
  for (let d = 0; d < dirCount; d++) {
    const rel = next();
    const names = next();
    const n = counts[d]!;
    if (e + n > entries) throw new CacheFormatError('entries do not match the header');
    if ((n === 0 ? 0 : countNul(names) + 1) !== n) throw new CacheFormatError('names do not match the entries');
    const flags = buf.subarray(flagsAt + e, flagsAt + e + n);
    for (let i = 0; i < n; i++) if ((flags[i]! & 7) >= KINDS.length || flags[i]! > (TRUSTED | 7)) throw new CacheFormatError('unknown kind');
    const tree = buf.toString('hex', oidsAt + d * 20, oidsAt + d * 20 + 20);
    const oids = buf.subarray(oidsAt + (dirCount + e) * 20, oidsAt + (dirCount + e + n) * 20);
    dirs[d] = [rel, new DirState(tree, names, oids, stats.subarray(e * STATS, (e + n) * STATS), new Uint8Array(flags.buffer, flags.byteOffset, n))];
    e += n;
  }
  if (e !== entries) throw new CacheFormatError('entries do not match the header');
  const removed: string[] = new Array(removedCount);
  for (let r = 0; r < removedCount; r++) removed[r] = next();
  if (at !== buf.length) throw new CacheFormatError('strings do not match the header');
  let large: Array<[string, number]> | null = null;
  if (largeWord !== 0) {
    large = new Array(largeCount);
    for (let i = 0; i < largeCount; i++) {
      const o = oidsAt + (dirCount + entries + i) * 20;
      large[i] = [buf.toString('hex', o, o + 20), sizes[i]!];
    }
  }
  return { dirs, removed, large };
}

function countNul(s: string): number {
  let n = 0;
  for (let at = s.indexOf('\0'); at >= 0; at = s.indexOf('\0', at + 1)) n++;
  return n;
}

/** Decodes a record of version 2 (entries in git order, a clean listing as an order over them). */
function decodeV2(buf: Buffer): CacheRecord {
  const HEADER_WORDS = 12;
  const HEADER_BYTES = HEADER_WORDS * 4;
  const header = new Uint32Array(buf.buffer, buf.byteOffset, HEADER_WORDS);
  const [magic, version, dirCount, entries, removedCount, largeWord, textBytes, textUnits, , , listedEntries, listedDirs] = header as unknown as number[];
  if (magic !== MAGIC || version !== 2) throw new CacheFormatError('not a stat cache of this version');
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
    const tree = hex.slice(d * 40, d * 40 + 40);
    let state = DirState.of(tree, children);
    if (buf[listedAt + d] === 1) {
      if (orderNow + n > listedEntries!) throw new CacheFormatError('listings do not match the header');
      const listedOrder: CachedChild[] = new Array(n);
      const listedStats = new Float64Array(n * STATS);
      for (let i = 0; i < n; i++) {
        const c = children[order[orderNow++]!];
        if (c === undefined) throw new CacheFormatError('a listing names no entry');
        listedOrder[i] = c;
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
      // A clean listing: its order, with the subfolders' stat fields as listed, is the entries' order now.
      state = DirState.of(
        tree,
        listedOrder.map((c, i) => (c.kind === 'dir' ? { ...c, size: listedStats[i * STATS]!, mtimeMs: listedStats[i * STATS + 1]!, ctimeMs: listedStats[i * STATS + 2]!, ino: listedStats[i * STATS + 3]!, mode: listedStats[i * STATS + 4]! } : c)),
      );
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
