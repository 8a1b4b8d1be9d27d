// The stat cache's bytes as version 2 wrote them (commit 496db06, stat-cache-format.ts): entries in git
// order, and a folder's clean listing saved as an order over them plus its subfolders' stat fields. Used to
// check that the current code reads an old cache as the same state (never as a wrong "no change").
import { crc32 } from 'node:zlib';
import type { CachedChild } from '../../main/effects/fs/stat-cache';
import { storedName } from '../../main/effects/fs/tree-model';

type V2Dir = { tree: string; children: readonly CachedChild[]; listed?: { order: number[]; dirStats: number[] } };
const KINDS = ['file', 'exec', 'link', 'dir', 'uncovered'];
const HEADER_WORDS = 12;
const STATS = 5;

export function encodeV2(dirs: Array<[string, V2Dir]>, large: Array<[string, number]> = []): Buffer {
  let entries = 0;
  const strings: string[] = [];
  for (const [rel, state] of dirs) {
    entries += state.children.length;
    strings.push(rel);
    for (const c of state.children) strings.push(c.name);
  }
  let listedEntries = 0;
  let listedDirs = 0;
  for (const [, s] of dirs) {
    if (!s.listed) continue;
    listedEntries += s.listed.order.length;
    listedDirs += s.listed.dirStats.length / STATS;
  }
  const text = Buffer.from(strings.join(''), 'utf8');
  const oidCount = dirs.length + entries + large.length;
  const statsAt = HEADER_WORDS * 4;
  const sizesAt = statsAt + entries * STATS * 8;
  const dirStatsAt = sizesAt + large.length * 8;
  const oidsAt = dirStatsAt + listedDirs * STATS * 8;
  const countsAt = oidsAt + oidCount * 20;
  const orderAt = countsAt + dirs.length * 4;
  const unitsAt = orderAt + listedEntries * 4;
  const listedAt = unitsAt + strings.length * 4;
  const flagsAt = listedAt + dirs.length;
  const textAt = flagsAt + entries;
  const buf = Buffer.alloc(textAt + text.length);
  const header = new Uint32Array(buf.buffer, buf.byteOffset, HEADER_WORDS);
  header.set([0x43534850, 2, dirs.length, entries, 0, large.length + 1, text.length, 0, 0, 0, listedEntries, listedDirs]);
  const stats = new Float64Array(buf.buffer, buf.byteOffset + statsAt, entries * STATS);
  const sizes = new Float64Array(buf.buffer, buf.byteOffset + sizesAt, large.length);
  const dirStats = new Float64Array(buf.buffer, buf.byteOffset + dirStatsAt, listedDirs * STATS);
  const counts = new Uint32Array(buf.buffer, buf.byteOffset + countsAt, dirs.length);
  const order = new Uint32Array(buf.buffer, buf.byteOffset + orderAt, listedEntries);
  const units = new Uint32Array(buf.buffer, buf.byteOffset + unitsAt, strings.length);
  let o1 = 0;
  let d1 = 0;
  for (let d = 0; d < dirs.length; d++) {
    const l = dirs[d]![1].listed;
    if (!l) continue;
    buf[listedAt + d] = 1;
    order.set(l.order, o1);
    o1 += l.order.length;
    dirStats.set(l.dirStats, d1);
    d1 += l.dirStats.length;
  }
  let units16 = 0;
  for (let i = 0; i < strings.length; i++) {
    units[i] = strings[i]!.length;
    units16 += strings[i]!.length;
  }
  header[7] = units16;
  let at = oidsAt;
  const putOid = (hex: string) => {
    buf.write(hex, at, 20, 'hex');
    at += 20;
  };
  for (let d = 0; d < dirs.length; d++) {
    counts[d] = dirs[d]![1].children.length;
    putOid(dirs[d]![1].tree);
  }
  let e = 0;
  for (const [, state] of dirs) {
    for (const c of state.children) {
      stats.set([c.size, c.mtimeMs, c.ctimeMs, c.ino, c.mode], e * STATS);
      buf[flagsAt + e] = KINDS.indexOf(c.kind) | (c.trusted ? 8 : 0) | (storedName(c.name) !== c.name ? 16 : 0);
      putOid(c.oid);
      e++;
    }
  }
  for (let i = 0; i < large.length; i++) {
    sizes[i] = large[i]![1];
    putOid(large[i]![0]);
  }
  text.copy(buf, textAt);
  header[8] = crc32(buf.subarray(9 * 4), crc32(buf.subarray(0, 8 * 4)));
  return buf;
}

/**
 * A folder's state as version 2 held it, from the entries in listing order (the current form): entries in
 * git order, and the listing as an order over them when every file is vouched for.
 */
export function asV2(tree: string, listed: readonly CachedChild[]): V2Dir {
  const sorted = [...listed].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const children = sorted.map((c) => (c.kind === 'dir' ? { ...c, size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0, mode: 0 } : c));
  const clean = listed.every((c) => c.kind === 'dir' || (c.trusted && c.kind !== 'uncovered'));
  if (!clean) return { tree, children };
  const dirStats: number[] = [];
  for (const c of listed) if (c.kind === 'dir') dirStats.push(c.size, c.mtimeMs, c.ctimeMs, c.ino, c.mode);
  return { tree, children, listed: { order: listed.map((c) => sorted.indexOf(c)), dirStats } };
}
