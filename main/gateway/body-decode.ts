// The bytes a client sent, turned into what a service reads: Content-Encoding undone (gzip, deflate, br,
// each step capped so a small body cannot inflate into a large one) and text decoded by its byte-order
// mark or charset (UTF-8, UTF-16, UTF-32). Whatever two services could read differently is refused, with
// why and what to send instead: the rules must judge the body the service will read.
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync, type ZlibOptions } from 'node:zlib';
import { formatBytes } from './byte-size';

export type Decoded<T> = { ok: true; value: T } | { ok: false; why: string };

const fail = (why: string): { ok: false; why: string } => ({ ok: false, why });

type Inflate = (bytes: Buffer, options: ZlibOptions) => Buffer;
/** Each coding and the readings a service may make of it: "deflate" is zlib-wrapped, but some send it raw. */
const INFLATERS: Record<string, Inflate[]> = {
  gzip: [gunzipSync],
  'x-gzip': [gunzipSync],
  deflate: [inflateSync, inflateRawSync],
  br: [brotliDecompressSync],
};
/** More codings than this on one body are no client's doing. */
const MAX_CODINGS = 3;

/** The body with its Content-Encoding undone (codings are undone last first), at most `cap` bytes. */
export function decompress(body: Buffer, contentEncoding: string | undefined, cap: number): Decoded<Buffer> {
  const codings = (contentEncoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  if (codings.length > MAX_CODINGS) return fail(`it is encoded ${codings.length} times over (Content-Encoding: ${contentEncoding}); send it uncompressed or compressed once`);
  let bytes = body;
  for (const coding of codings.reverse()) {
    const inflaters = INFLATERS[coding];
    if (!inflaters) return fail(`its Content-Encoding "${coding}" is not one the gateway decodes; send it uncompressed, or as gzip, deflate or br`);
    const out = inflate(inflaters, bytes, cap);
    if (out === 'too-large') return fail(`decompressed (${coding}) it is over ${formatBytes(cap)}, more than the gateway reads to check a body; send a smaller body`);
    if (out === 'corrupt') return fail(`it is not valid ${coding} data, though its Content-Encoding says so; send it uncompressed`);
    bytes = out;
  }
  return { ok: true, value: bytes };
}

function inflate(inflaters: Inflate[], bytes: Buffer, cap: number): Buffer | 'too-large' | 'corrupt' {
  for (const run of inflaters) {
    try {
      return run(bytes, { maxOutputLength: cap });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return 'too-large';
    }
  }
  return 'corrupt';
}

type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be';
const BOMS: Array<[Encoding, number[]]> = [
  // UTF-32LE first: its mark begins with UTF-16LE's.
  ['utf-32le', [0xff, 0xfe, 0x00, 0x00]],
  ['utf-32be', [0x00, 0x00, 0xfe, 0xff]],
  ['utf-8', [0xef, 0xbb, 0xbf]],
  ['utf-16le', [0xff, 0xfe]],
  ['utf-16be', [0xfe, 0xff]],
];
/** Charset labels and the encoding they name; 'utf-16' and 'utf-32' leave the byte order to a mark. */
const LABELS: Record<string, Encoding | 'utf-16' | 'utf-32'> = {
  'utf-8': 'utf-8', utf8: 'utf-8', 'us-ascii': 'utf-8', ascii: 'utf-8',
  'utf-16': 'utf-16', 'utf-16le': 'utf-16le', 'utf-16be': 'utf-16be',
  'utf-32': 'utf-32', 'utf-32le': 'utf-32le', 'utf-32be': 'utf-32be',
};
/** Charsets that read ASCII as ASCII: a body of ASCII bytes is the same text in each of them and in UTF-8. */
const ASCII_SUPERSETS = new Set(['iso-8859-1', 'latin1', 'iso-8859-15', 'windows-1252', 'cp1252']);

/**
 * The body as text. A byte-order mark decides the encoding (and must agree with a declared charset);
 * else the charset does; else UTF-8 — or, for JSON (`sniff`), the pattern of zero bytes RFC 4627 reads
 * UTF-16 and UTF-32 by, as Python's json.loads does.
 */
export function bodyText(bytes: Buffer, charset: string | undefined, sniff: boolean): Decoded<string> {
  const label = charset?.trim().toLowerCase() || undefined;
  const bom = BOMS.find(([, mark]) => mark.every((b, i) => bytes[i] === b));
  const named = label === undefined ? undefined : LABELS[label];
  if (label !== undefined && named === undefined) {
    if (ASCII_SUPERSETS.has(label) && bytes.every((b) => b < 0x80)) return decodeAs('utf-8', bytes);
    return fail(`its charset "${charset}" is not one the gateway reads (UTF-8, UTF-16 or UTF-32)${ASCII_SUPERSETS.has(label) ? ' beyond ASCII' : ''}; send it in UTF-8`);
  }
  if (bom) {
    const [encoding, mark] = bom;
    if (named !== undefined && !encoding.startsWith(named)) return fail(`it starts with a ${encoding.toUpperCase()} byte-order mark but declares charset=${charset}; send it in one encoding (UTF-8)`);
    return decodeAs(encoding, bytes.subarray(mark.length));
  }
  const sniffed = sniff && (named === undefined || named === 'utf-16' || named === 'utf-32') ? zeroPattern(bytes) : null;
  const encoding = sniffed ?? named ?? 'utf-8';
  if (encoding === 'utf-16' || encoding === 'utf-32') return fail(`it declares charset=${charset} without a byte-order mark, so its byte order is unknown; send it in UTF-8`);
  if (named !== undefined && sniffed !== null && !sniffed.startsWith(named)) return fail(`it declares charset=${charset} but reads as ${sniffed.toUpperCase()}; send it in UTF-8`);
  return decodeAs(encoding, bytes);
}

/** RFC 4627 section 3: JSON text starts with two ASCII characters, so its zero bytes give the encoding away. */
function zeroPattern(b: Buffer): Encoding | null {
  if (b.length < 4) return null;
  const zero = [b[0] === 0, b[1] === 0, b[2] === 0, b[3] === 0].map((z) => (z ? '0' : 'x')).join('');
  const byPattern: Record<string, Encoding> = { '000x': 'utf-32be', '0x0x': 'utf-16be', x000: 'utf-32le', x0x0: 'utf-16le' };
  return byPattern[zero] ?? null;
}

function decodeAs(encoding: Encoding, bytes: Buffer): Decoded<string> {
  try {
    if (encoding === 'utf-32le' || encoding === 'utf-32be') return { ok: true, value: utf32(bytes, encoding === 'utf-32le') };
    return { ok: true, value: new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return fail(`it is not valid ${encoding.toUpperCase()} text; send it in UTF-8`);
  }
}

/** TextDecoder has no UTF-32: four bytes a code point, each a Unicode scalar value. */
function utf32(bytes: Buffer, little: boolean): string {
  if (bytes.length % 4 !== 0) throw new Error('UTF-32 text is whole code points of four bytes');
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += 4) {
    const cp = little ? bytes.readUInt32LE(i) : bytes.readUInt32BE(i);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw new Error('not a Unicode scalar value');
    parts.push(String.fromCodePoint(cp));
  }
  return parts.join('');
}
