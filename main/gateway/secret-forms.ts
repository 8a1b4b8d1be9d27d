// The forms a secret takes on the wire, as regular expressions the Redactor scans for (a pass for each
// secret's character and hex forms, one for every literal form of every secret). Each form is written
// twice — over text, and over bytes read as latin1 (one character a byte, UTF-8 spelled out) — with the
// longest text it can match, which a stream redacted in windows must carry across a border.
//
// Caught (matching ignores case throughout):
// - the secret character by character, each character as itself in any case or escaped: %XX (its UTF-8
//   bytes; '+' for a space), \xXX, \uXXXX, \u{X}, &#xX; / &#D; (leading zeros, ';' optional), &amp; &lt;
//   &gt; &quot; &apos;, JSON's \" \\ \/ — mixed freely — and up to two separators between characters
//   (spaces, tabs, line breaks, an escaped \n, . - _ : , ; | / ·, zero-width and soft-hyphen characters):
//   raw, URL-encoded, JSON-escaped, HTML-entity, dotted and spaced forms are all this one pattern;
// - hex of its UTF-8 bytes in any case mix, bytes apart or run together (73 6b, 73:6b, 0x73,0x6b, \x73);
// - base64 / base64url and base32 (RFC 4648) of it, its upper- or lower-cased self, padded or not, at any
//   alignment inside a longer encoded value;
// - the secret reversed;
// - its UTF-16 (LE/BE) and UTF-32 (LE/BE) bytes, replaced by the marker in the same encoding (wideForms).
// Not caught, and why: docs/CONNECTIONS.md, "What redaction cannot promise" (pieces apart, letters or
// runs of separators between characters, other encodings or encodings nested in one another, hashes and
// ciphers, a part of the secret alone).

/**
 * A regular expression over text, the same over latin1 bytes, and the longest text it matches; a literal
 * form keeps its plain strings too, for literalTrie.
 */
export type Form = { text: string; bytes: string; max: number; plain?: { text: string; bytes: string } };

const escape = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
const latin = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/** A literal string. */
export const literal = (s: string): Form => ({ text: escape(s), bytes: escape(latin(s)), max: s.length, plain: { text: s, bytes: latin(s) } });
/** An ASCII-only expression, the same over text and bytes. */
const ascii = (source: string, max: number): Form => ({ text: source, bytes: source, max });
const anyOf = (forms: Form[]): Form => {
  const unique = [...new Map(forms.map((f) => [f.text.toLowerCase(), f])).values()];
  if (unique.length === 1) return unique[0]!;
  return { text: `(?:${unique.map((f) => f.text).join('|')})`, bytes: `(?:${unique.map((f) => f.bytes).join('|')})`, max: Math.max(...unique.map((f) => f.max)) };
};
const sequence = (forms: Form[], between?: Form): Form => {
  const gap = between ? { text: between.text, bytes: between.bytes } : { text: '', bytes: '' };
  return {
    text: forms.map((f) => f.text).join(gap.text),
    bytes: forms.map((f) => f.bytes).join(gap.bytes),
    max: forms.reduce((sum, f) => sum + f.max, 0) + (between ? between.max * Math.max(0, forms.length - 1) : 0),
  };
};

/**
 * Literal strings as one expression shaped like a trie (ab|ac → a(?:b|c)), for matching that ignores case:
 * the engine then tries one branch per character instead of every string at every position, which keeps
 * a scan over a few hundred encoded forms about as fast as one over a handful. A string that is a prefix
 * of another is matched whole where the longer one is not there (the longer branch is tried first).
 */
export function literalTrie(strings: string[]): string {
  type Node = { end: boolean; next: Map<string, Node> };
  const root: Node = { end: false, next: new Map() };
  for (const s of strings) {
    let node = root;
    for (const c of s.toLowerCase()) {
      let child = node.next.get(c);
      if (!child) node.next.set(c, (child = { end: false, next: new Map() }));
      node = child;
    }
    node.end = true;
  }
  const emit = (node: Node): string => {
    const branches = [...node.next].map(([c, child]) => escape(c) + emit(child));
    if (branches.length === 0) return '';
    const body = branches.length === 1 ? branches[0]! : `(?:${branches.join('|')})`;
    return node.end ? `(?:${body})?` : body;
  };
  return emit(root);
}

/** Characters that show as nothing or as a dot, allowed between two characters of a secret like spaces. */
const INVISIBLE = '\u00b7\u00a0\u00ad\u200b\u200c\u200d\u2060\ufeff';
/** What may stand between two characters of a secret: up to two separators or escaped line breaks. */
const GAP: Form = {
  text: `(?:[ \\t\\r\\n.\\-_:,;|/${INVISIBLE}]|\\\\[nrt]){0,2}`,
  bytes: `(?:[ \\t\\r\\n.\\-_:,;|/]|\\\\[nrt]|${[...INVISIBLE].map((c) => escape(latin(c))).join('|')}){0,2}`,
  max: 4,
};
const NAMED: Record<string, string[]> = { '&': ['&amp;'], '<': ['&lt;'], '>': ['&gt;'], '"': ['&quot;', '\\"'], "'": ['&apos;'], '\\': ['\\\\'], '/': ['\\/'], ' ': ['+'] };

/** The secret one character at a time, each as itself (any case) or escaped, separators allowed between. */
export function characterForm(secret: string): Form {
  return sequence([...secret].map(characterVariants), GAP);
}

/** Alternatives as one group (grouped by what they start with, so the engine tries few per character). */
const group = (parts: string[]): string => {
  const unique = [...new Set(parts)];
  return unique.length === 1 ? unique[0]! : `(?:${unique.join('|')})`;
};

function characterVariants(c: string): Form {
  const variants = [...new Set([c, c.toUpperCase(), c.toLowerCase()])];
  const bytes = (v: string) => [...Buffer.from(v, 'utf8')].map((b) => hex(b, 2));
  const units = (v: string) => [...Array(v.length).keys()].map((i) => hex(v.charCodeAt(i), 4));
  const points = variants.filter((v) => [...v].length === 1).map((v) => v.codePointAt(0)!);
  const backslash = [`x${group(variants.map((v) => bytes(v).join('\\\\x')))}`, `u${group(variants.map((v) => units(v).join('\\\\u')))}`];
  const escapes = [`%${group(variants.map((v) => bytes(v).join('%')))}`];
  if (points.length > 0) {
    backslash.push(`u\\{0{0,4}${group(points.map((p) => p.toString(16)))}\\}`);
    escapes.push(`&#${group([`x0{0,4}${group(points.map((p) => p.toString(16)))}`, `0{0,4}${group(points.map(String))}`])};?`);
  }
  escapes.push(`\\\\${group(backslash)}`);
  // The longest: \xXX per byte, \uXXXX per UTF-16 unit, or an entity or \u{…} with four leading zeros.
  const max = Math.max(...variants.map((v) => Math.max(4 * Buffer.byteLength(v), 6 * v.length)), 14);
  return anyOf([...(NAMED[c] ?? []).map(literal), ...variants.map(literal), ascii(escapes.join('|'), max)]);
}

/** Hex of the secret's UTF-8 bytes, each character in any case, bytes run together or apart (73 6b, 0x73,0x6b). */
export function hexForm(secret: string): Form {
  const prefix = (b: number) => ascii(`(?:0x|\\\\x)?${hex(b, 2)}`, 4);
  const apart = ascii('[ \\t\\r\\n:,;.\\-]{0,3}', 3);
  const chars = [...secret].map((c, i) =>
    anyOf(
      [...new Set([c, c.toUpperCase(), c.toLowerCase()])].map((v) => {
        const bytes = [...Buffer.from(v, 'utf8')];
        // The first byte is written plainly first, so the engine can pass over text that starts no form at once.
        const first = i === 0 ? anyOf([ascii(hex(bytes[0]!, 2), 2), ascii(`0x${hex(bytes[0]!, 2)}`, 4), ascii(`\\\\x${hex(bytes[0]!, 2)}`, 4)]) : prefix(bytes[0]!);
        return sequence([first, ...bytes.slice(1).map(prefix)], apart);
      }),
    ),
  );
  return sequence(chars, apart);
}

/**
 * The characters of an encoding (6 bits a character for base64, 5 for base32) that only these bytes
 * decide, at each alignment they may have inside a longer value: what no neighbouring byte can change.
 */
export function encodedCores(bytes: Buffer, encode: (b: Buffer) => string, bitsPerChar: number): string[] {
  const out: string[] = [];
  const groupBytes = bitsPerChar === 6 ? 3 : 5;
  for (let shift = 0; shift < groupBytes; shift++) {
    const encoded = encode(Buffer.concat([Buffer.alloc(shift), bytes]));
    out.push(encoded.slice(Math.ceil((8 * shift) / bitsPerChar), Math.floor((8 * (shift + bytes.length)) / bitsPerChar)));
  }
  return out;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding (Node has none). */
function base32(bytes: Buffer, alphabet: string): string {
  let out = '';
  let value = 0;
  let bits = 0;
  for (const b of bytes) {
    value = ((value << 8) | b) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + alphabet[(value << (5 - bits)) & 31] : out;
}

export const base32Of = (bytes: Buffer): string => base32(bytes, BASE32);

/** The secret's bytes in a wide encoding (as a latin1 string, one character a byte), with the marker in that encoding. */
export type WideForm = Form & { encoded: string; marker: string };

/** UTF-16 and UTF-32, each byte order: matched like any form (a character a byte), replaced by the marker in kind. */
export function wideForms(secret: string, marker: string): WideForm[] {
  const encoders: Array<(s: string) => Buffer> = [
    (s) => Buffer.from(s, 'utf16le'),
    (s) => Buffer.from(s, 'utf16le').swap16(),
    (s) => utf32(s, true),
    (s) => utf32(s, false),
  ];
  return encoders.map((encode) => {
    const encoded = encode(secret).toString('latin1');
    const plain = { text: encoded, bytes: encoded };
    return { text: escape(encoded), bytes: escape(encoded), max: encoded.length, plain, encoded, marker: encode(marker).toString('latin1') };
  });
}

function utf32(s: string, little: boolean): Buffer {
  const points = [...s].map((c) => c.codePointAt(0)!);
  const out = Buffer.alloc(4 * points.length);
  points.forEach((p, i) => (little ? out.writeUInt32LE(p, 4 * i) : out.writeUInt32BE(p, 4 * i)));
  return out;
}
