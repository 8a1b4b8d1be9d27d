// The forms a red team sent secrets out in (issue 23): HTML entities, percent and backslash escapes
// character by character, dotted and spaced, hex with separators, base32, UTF-16 and UTF-32 — each caught
// in text, in bytes and in a stream cut at any point; ordinary text left alone; and the documented limits
// (pieces apart, letters between characters) shown as they are.
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../main/gateway/redaction';
import { base32Of } from '../../main/gateway/secret-forms';
import { RedactingStream } from '../../main/gateway/stream-redaction';

const secret = 'sk-live-Q7w8E9r0/T1y2+U3';
const r = new Redactor([secret]);
const chars = [...secret];
const cp = (c: string) => c.codePointAt(0)!;
const hexOf = (s: string, sep: string) => [...Buffer.from(s)].map((b) => b.toString(16).padStart(2, '0')).join(sep);

const caught: Array<[string, string]> = [
  ['hex HTML entities', chars.map((c) => `&#x${cp(c).toString(16)};`).join('')],
  ['decimal HTML entities', chars.map((c) => `&#${cp(c)};`).join('')],
  ['entities with leading zeros, upper-case X, some without ";"', chars.map((c, i) => (i % 2 ? `&#X00${cp(c).toString(16).toUpperCase()}` : `&#0${cp(c)};`)).join('')],
  ['entities mixed with plain characters', chars.map((c, i) => (i % 3 === 0 ? `&#${cp(c)};` : c)).join('')],
  ['every character percent-encoded', chars.map((c) => `%${cp(c).toString(16).toUpperCase()}`).join('')],
  ['backslash-x escapes', chars.map((c) => `\\x${cp(c).toString(16)}`).join('')],
  ['backslash-u escapes', chars.map((c) => `\\u${cp(c).toString(16).padStart(4, '0')}`).join('')],
  ['dotted', chars.join('.')],
  ['spaced', chars.join(' ')],
  ['split over lines', `${secret.slice(0, 9)}\n${secret.slice(9, 17)}\r\n${secret.slice(17)}`],
  ['zero-width characters between', chars.join('\u200b')],
  ['escaped line breaks in JSON', `${secret.slice(0, 10)}\\n${secret.slice(10)}`],
  ['spaced hex', hexOf(secret, ' ')],
  ['colon hex', hexOf(secret, ':')],
  ['0x-prefixed hex list', [...Buffer.from(secret)].map((b) => `0x${b.toString(16).padStart(2, '0')}`).join(', ')],
  ['upper-case hex in pairs', hexOf(secret, '').toUpperCase().replace(/(.{4})/g, '$1 ').trim()],
  ['hex of a mixed-case echo', hexOf([...secret].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join(''), ' ')],
  ['base32', base32Of(Buffer.from(secret))],
  ['base32 lower-case', base32Of(Buffer.from(secret)).toLowerCase()],
  ['base32 of the upper-cased secret, padded', base32Of(Buffer.from(secret.toUpperCase())) + '='.repeat((8 - (base32Of(Buffer.from(secret)).length % 8)) % 8)],
];

describe('escaped, spaced and encoded forms', () => {
  for (const [what, form] of caught) {
    it(`catches ${what} in text and in bytes`, () => {
      expect(r.text(`before ${form} after`)).toBe(`before ${REDACTED} after`);
      expect(r.finds(`x${form}y`)).toBe(true);
      expect(r.buffer(Buffer.from(`{"echo":"${form}"}`)).toString()).toBe(`{"echo":"${REDACTED}"}`);
    });
  }

  it('catches base32 at every alignment inside a longer value', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', 'abcd', 'abcde', 'abcdef']) {
      const encoded = base32Of(Buffer.from(`${prefix}${secret}!`));
      const out = r.text(`v=${encoded}`);
      expect(out, prefix).toContain(REDACTED);
      expect(out.length, prefix).toBeLessThan(`v=${encoded}`.length);
    }
  });

  it('catches the escaped forms of a secret beyond ASCII', () => {
    const wide = 'pässwörd-€-ключ';
    const w = new Redactor([wide]);
    for (const form of [encodeURIComponent(wide), [...wide].map((c) => `&#${cp(c)};`).join(''), JSON.stringify(wide).replace(/[^\x20-\x7e]/g, (c) => `\\u${cp(c).toString(16).padStart(4, '0')}`).slice(1, -1), wide.toUpperCase()]) {
      expect(w.text(`<${form}>`), form).toBe(`<${REDACTED}>`);
    }
  });
});

describe('UTF-16 and UTF-32 bytes', () => {
  const utf32 = (s: string, little: boolean) => {
    const out = Buffer.alloc(4 * s.length);
    [...s].forEach((c, i) => (little ? out.writeUInt32LE(cp(c), 4 * i) : out.writeUInt32BE(cp(c), 4 * i)));
    return out;
  };
  const encodings: Array<[string, (s: string) => Buffer, (b: Buffer) => string]> = [
    ['UTF-16LE', (s) => Buffer.from(s, 'utf16le'), (b) => b.toString('utf16le')],
    ['UTF-16BE', (s) => Buffer.from(s, 'utf16le').swap16(), (b) => Buffer.from(b).swap16().toString('utf16le')],
    ['UTF-32LE', (s) => utf32(s, true), (b) => String.fromCodePoint(...Array.from({ length: b.length / 4 }, (_, i) => b.readUInt32LE(4 * i)))],
    ['UTF-32BE', (s) => utf32(s, false), (b) => String.fromCodePoint(...Array.from({ length: b.length / 4 }, (_, i) => b.readUInt32BE(4 * i)))],
  ];
  for (const [name, encode, decode] of encodings) {
    it(`replaces the ${name} bytes of the secret (any case) by the marker in ${name}, with a mark before it or not`, () => {
      for (const [mark, body] of [[true, `{"token":"${secret}"}`], [false, `token=${secret.toUpperCase()}`]] as const) {
        const bytes = Buffer.concat([mark ? encode('\ufeff') : Buffer.alloc(0), encode(body)]);
        const out = r.buffer(bytes);
        expect(decode(out).replace(/^\ufeff/, '')).toBe(body.replace(/sk-live.*U3/i, REDACTED));
      }
    });
  }

  it('catches UTF-16 held in a text (bytes decoded as Latin-1 or UTF-8)', () => {
    expect(r.finds(Buffer.from(secret, 'utf16le').toString('latin1'))).toBe(true);
    expect(r.text(`a${Buffer.from(secret, 'utf16le').toString('latin1')}b`)).toBe(`a${Buffer.from(REDACTED, 'utf16le').toString('latin1')}b`);
  });
});

describe('what is left alone', () => {
  it('keeps ordinary text, markup, escapes and hex that hold no secret', () => {
    const texts = [
      'The sk-live key was rotated on 2026-01-01; see &#x41;&#66; and %41%42 for details.',
      '<p>Q7w8 &amp; E9r0 &lt;T1y2&gt;</p> \\u0041\\x42',
      `dump: ${hexOf('sk-live-Q7w8E9r0/T1y2+U4', ' ')}`,
      `other: ${base32Of(Buffer.from('sk-live-Q7w8E9r0/T1y2+U4'))}`,
      's k - l i v e   Q 7 w 8',
    ];
    for (const text of texts) {
      expect(r.text(text)).toBe(text);
      expect(r.buffer(Buffer.from(text)).toString()).toBe(text);
    }
  });

  it('documented limits: pieces apart, letters between characters, more than two separators in a row', () => {
    const limits = [
      `{"a":"${secret.slice(0, 12)}","b":"${secret.slice(12)}"}`,
      chars.join('x'),
      chars.join(' . '),
    ];
    for (const text of limits) expect(r.finds(text), text).toBe(false);
  });
});

describe('streamed', () => {
  it('carries the longest form across window borders: entities and spaced hex cut anywhere are redacted', async () => {
    const forms = [caught[2]![1], caught[14]![1]];
    expect(r.longest).toBeGreaterThanOrEqual(Math.max(...forms.map((f) => f.length)));
    for (const form of forms) {
      for (let offset = 0; offset < 300; offset += 37) {
        const input = Buffer.from(`${'y'.repeat(offset)}${form}${'z'.repeat(50)}`);
        for (const chunk of [7, 64, 1000]) {
          const pieces = Array.from({ length: Math.ceil(input.length / chunk) }, (_, i) => input.subarray(i * chunk, (i + 1) * chunk));
          const out = (await buffer(Readable.from(pieces).pipe(new RedactingStream(r, 128)))).toString();
          expect(out).toBe(`${'y'.repeat(offset)}${REDACTED}${'z'.repeat(50)}`);
        }
      }
    }
  });
});
