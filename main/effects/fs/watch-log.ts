// What the kernel saw during an action, as the sandbox's watcher reports it (main/sandbox/image/posthoc-watch.c):
// one payload per collection, parsed here and merged (the collection at the action's end, the one after the
// host's checkpoint, and those of the task's MCP servers' containers). kernel-attribution.ts matches it to
// the changes a checkpoint found.
//
//   W1\tinside=N\toutside=M\tflags=F\tat=NS\n           (NS: when it was collected, ns since the epoch)
//   I\tMASK\tFSID\tTYPE:HANDLE\tNAME\tTYPE:HANDLE\n     (one per entry a process of the container changed)
//   O\tKEY\n                                          (a key of what a process outside the container changed)
// The log comes from inside the sandbox's container (the watcher is PID 1's, which no action can reach, but
// the bytes still cross a boundary): a line that does not parse is dropped, and a payload without its
// header makes the whole log incomplete, the side that never reverts an edit in silence.

/** fanotify event bits (linux/fanotify.h) the watcher reports. */
export const FAN = {
  MODIFY: 0x2,
  ATTRIB: 0x4,
  CLOSE_WRITE: 0x8,
  MOVED_FROM: 0x40,
  MOVED_TO: 0x80,
  CREATE: 0x100,
  DELETE: 0x200,
  ONDIR: 0x40000000,
} as const;
/** Changes of a name in a folder: the entry itself came, went or moved. */
export const DIRENT = FAN.CREATE | FAN.DELETE | FAN.MOVED_FROM | FAN.MOVED_TO;

/** A file handle as "TYPE:HEX": the key both the watcher's records and the host's name_to_handle_at give. */
export type HandleKey = string;

export type KernelRecord = {
  mask: number;
  /** The folder holding the entry, or null when the event named only the object. */
  dir: HandleKey | null;
  /** The entry's name in that folder (UTF-8; a name that is not is kept as its bytes read as latin1). */
  name: string | null;
  /** The object itself (file or folder), when the kernel reported it. */
  object: HandleKey | null;
};

export type KernelLog = {
  /** False when events may be missing: the kernel's queue overflowed, the watcher's table was cut, or it was lost. */
  complete: boolean;
  /** False when the set of what processes outside changed was cut: any path may have been touched outside. */
  outsideComplete: boolean;
  /** What processes of the container changed. */
  inside: KernelRecord[];
  /** Keys (16 hex digits) of entries and objects that processes outside the container changed. */
  outside: Set<string>;
  /** Why it is incomplete, in words, when it is. */
  why?: string;
  /**
   * When the action's account was collected (after every process of it had ended), in ns since the epoch: a
   * path that changed after it was changed by someone else (its ctime says so), in the gap before the host's
   * checkpoint after the action, while the container was frozen.
   */
  endedAtNs?: bigint;
};

export const EMPTY_KERNEL_LOG: KernelLog = { complete: true, outsideComplete: true, inside: [], outside: new Set() };

const HEX16 = /^[0-9a-f]{16}$/;
const HANDLE = /^(-?\d{1,10}):((?:[0-9a-f]{2}){1,128})$/;

/** Parses one collection. */
export function parseWatchLog(payload: Buffer): KernelLog {
  const text = payload.toString('latin1');
  const lines = text.split('\n');
  const header = /^W1\tinside=\d+\toutside=\d+\tflags=([a-z,-]+)(?:\tat=(\d{1,20}))?$/.exec(lines[0] ?? '');
  if (!header) return { ...lost('the kernel watcher sent a log Posthoc cannot read'), inside: [], outside: new Set() };
  const flags = new Set(header[1]!.split(','));
  const log: KernelLog = {
    complete: !flags.has('overflow') && !flags.has('cut'),
    outsideComplete: !flags.has('outside-cut'),
    inside: [],
    outside: new Set(),
    ...(header[2] ? { endedAtNs: BigInt(header[2]) } : {}),
  };
  if (flags.has('overflow')) log.why = "the kernel's queue of events overflowed";
  else if (flags.has('cut')) log.why = 'the action changed more entries than the watcher keeps';
  // Lines end with "\n": what follows the last one is an unfinished line.
  for (const line of lines.slice(1, -1)) {
    if (line.startsWith('O\t')) {
      const key = line.slice(2);
      if (HEX16.test(key)) log.outside.add(key);
      continue;
    }
    const record = parseRecord(line);
    if (record) log.inside.push(record);
  }
  return log;
}

/** Merges collections of one action (its own container's, then each MCP server container's). */
export function mergeWatchLogs(logs: readonly KernelLog[]): KernelLog {
  const merged: KernelLog = { complete: true, outsideComplete: true, inside: [], outside: new Set() };
  for (const log of logs) {
    merged.complete &&= log.complete;
    merged.outsideComplete &&= log.outsideComplete;
    merged.why ??= log.why;
    for (const r of log.inside) merged.inside.push(r);
    for (const k of log.outside) merged.outside.add(k);
  }
  return merged;
}

/**
 * One action's account: its own container's collections and those of the task's MCP server containers. A
 * server's container is another PID namespace, so the action's watcher saw the server's writes as made
 * outside: they are the action's (the server wrote them in a call the action made), so their keys leave the
 * outside set. `lost` (a collection that never came) makes it incomplete.
 */
export function kernelAccount(logs: readonly Buffer[], servers: readonly Buffer[], lostWhy?: string): KernelLog {
  const parsed = logs.map(parseWatchLog);
  const own = mergeWatchLogs(parsed);
  const theirs = mergeWatchLogs(servers.map(parseWatchLog));
  const account = mergeWatchLogs([own, { ...theirs, outside: new Set<string>() }]);
  // The action's own collection (its first) says when the action ended.
  if (parsed[0]?.endedAtNs !== undefined) account.endedAtNs = parsed[0].endedAtNs;
  for (const r of theirs.inside) {
    if (r.dir !== null && r.name !== null) account.outside.delete(entryKey(r.dir, r.name));
    if (r.object !== null) account.outside.delete(objectKey(r.object));
  }
  if (lostWhy !== undefined) Object.assign(account, lost(lostWhy));
  return account;
}

/** A log that says nothing can be told apart (the watcher is gone). */
export function lost(why: string): Pick<KernelLog, 'complete' | 'outsideComplete' | 'why'> {
  return { complete: false, outsideComplete: false, why };
}

function parseRecord(line: string): KernelRecord | null {
  const f = line.split('\t');
  if (f.length !== 6 || f[0] !== 'I' || !/^[0-9a-f]{1,16}$/.test(f[1]!)) return null;
  const dir = handleField(f[3]!);
  const object = handleField(f[5]!);
  if (dir === undefined || object === undefined) return null;
  const name = f[4] === '-' ? null : decodeName(f[4]!);
  if (name === undefined) return null;
  if (dir !== null && name === null) return null;
  return { mask: Number.parseInt(f[1]!.slice(-8), 16), dir, name, object };
}

function handleField(field: string): HandleKey | null | undefined {
  if (field === '-') return null;
  const m = HANDLE.exec(field);
  return m ? `${Number(m[1])}:${m[2]}` : undefined;
}

/** '%XX' back to its byte, then the bytes read as UTF-8 (latin1 text holds one byte per char); undefined when bad. */
function decodeName(raw: string): string | undefined {
  if (raw === '' || raw.includes('/') || raw.includes('\0')) return undefined;
  let bytes = raw;
  if (raw.includes('%')) {
    bytes = '';
    for (let i = 0; i < raw.length; i++) {
      if (raw[i] !== '%') {
        bytes += raw[i];
        continue;
      }
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
      bytes += String.fromCharCode(Number.parseInt(hex, 16));
      i += 2;
    }
  }
  const buf = Buffer.from(bytes, 'latin1');
  const utf8 = buf.toString('utf8');
  return Buffer.from(utf8, 'utf8').equals(buf) ? utf8 : bytes;
}

// ---- keys: the watcher's FNV-1a 64 over (kind, handle type, handle length, handle bytes[, name]) -------------

/** The key of an entry (a folder's handle and a name in it), as the watcher computes it. */
export function entryKey(dir: HandleKey, name: string): string {
  return new Keys().entry(dir, name);
}

/** Keys of many entries: each folder's part of the hash is computed once. */
export class Keys {
  private readonly folders = new Map<HandleKey, Fnv>();

  entry(dir: HandleKey, name: string): string {
    let base = this.folders.get(dir);
    if (!base) this.folders.set(dir, (base = fnvHandle(1, dir)));
    const h: Fnv = [base[0], base[1], base[2], base[3]];
    fnvBytes(h, Buffer.from(name, 'utf8'));
    return hex(h);
  }
}

/** The key of an object (its handle), as the watcher computes it. */
export function objectKey(object: HandleKey): string {
  return hex(fnvHandle(2, object));
}

/** FNV-1a 64 of some bytes, as 16 hex digits (the watcher's hash; exported for its test vectors). */
export function fnv1a64(bytes: Uint8Array): string {
  const h: Fnv = [0x2325, 0x8422, 0x9ce4, 0xcbf2];
  fnvBytes(h, bytes);
  return [h[3], h[2], h[1], h[0]].map((limb) => limb.toString(16).padStart(4, '0')).join('');
}

/** A 64-bit FNV-1a state as four 16-bit limbs, low first. */
type Fnv = [number, number, number, number];

function fnvHandle(kind: number, key: HandleKey): Fnv {
  const colon = key.indexOf(':');
  const type = Number(key.slice(0, colon));
  const bytes = Buffer.from(key.slice(colon + 1), 'hex');
  const head = Buffer.alloc(9);
  head[0] = kind;
  head.writeInt32LE(type, 1);
  head.writeUInt32LE(bytes.length, 5);
  const h: Fnv = [0x2325, 0x8422, 0x9ce4, 0xcbf2];
  fnvBytes(h, head);
  fnvBytes(h, bytes);
  return h;
}

/** h = (h ^ byte) * 0x100000001b3 mod 2^64, per byte, in 16-bit limbs (prime = 0x01b3 + 0x0100 << 32). */
function fnvBytes(h: Fnv, bytes: Uint8Array): void {
  let [h0, h1, h2, h3] = h;
  for (const byte of bytes) {
    h0 ^= byte;
    const r0 = h0 * 0x1b3;
    let r1 = h1 * 0x1b3;
    let r2 = h2 * 0x1b3 + h0 * 0x100;
    let r3 = h3 * 0x1b3 + h1 * 0x100;
    r1 += r0 >>> 16;
    r2 += r1 >>> 16;
    r3 += r2 >>> 16;
    h0 = r0 & 0xffff;
    h1 = r1 & 0xffff;
    h2 = r2 & 0xffff;
    h3 = r3 & 0xffff;
  }
  h[0] = h0;
  h[1] = h1;
  h[2] = h2;
  h[3] = h3;
}

/** The key as the watcher prints it; 0 is never a key (the watcher makes it 1). */
function hex(h: Fnv): string {
  const out = [h[3], h[2], h[1], h[0]].map((limb) => limb.toString(16).padStart(4, '0')).join('');
  return out === '0000000000000000' ? '0000000000000001' : out;
}
