// The forms a secret takes when a service echoes it transformed: case changes, hex, base64url (padded or
// not), reversed — each must come back redacted, inside longer text and in bytes, and text with no
// secret must come back untouched.
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../main/gateway/redaction';

const secret = 'sk-live/Abc+123=xyz:98765?';
const r = new Redactor([secret]);
const b64 = (s: string) => Buffer.from(s).toString('base64');
const b64url = (s: string) => Buffer.from(s).toString('base64url');

describe('redaction of transformed echoes', () => {
  const cases: Array<[string, string]> = [
    ['upper-case', secret.toUpperCase()],
    ['lower-case', secret.toLowerCase()],
    ['mixed case', [...secret].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('')],
    ['hex', Buffer.from(secret).toString('hex')],
    ['upper-case hex', Buffer.from(secret).toString('hex').toUpperCase()],
    ['hex of the upper-cased secret', Buffer.from(secret.toUpperCase()).toString('hex')],
    ['base64url unpadded', b64url(secret)],
    ['base64url padded', b64url(secret) + '='.repeat(b64(secret).length - b64url(secret).length)],
    ['base64 of the upper-cased secret', b64(secret.toUpperCase())],
    ['reversed', [...secret].reverse().join('')],
    ['reversed and upper-cased', [...secret].reverse().join('').toUpperCase()],
    ['URL-encoded upper-case', encodeURIComponent(secret).toUpperCase()],
    ['JSON-escaped', JSON.stringify(secret).slice(1, -1)],
  ];

  for (const [what, form] of cases) {
    it(`catches the ${what} form in text and in bytes`, () => {
      expect(r.text(`before ${form} after`)).toBe(`before ${REDACTED} after`);
      expect(r.finds(`x${form}y`)).toBe(true);
      expect(r.buffer(Buffer.from(`{"echo":"${form}"}`)).toString()).toBe(`{"echo":"${REDACTED}"}`);
    });
  }

  it('catches base64url at every alignment inside a longer value', () => {
    for (const prefix of ['', 'a', 'ab', 'abc']) {
      const encoded = b64url(`${prefix}${secret}`);
      const out = r.text(`v=${encoded}`);
      expect(out).toContain(REDACTED);
      const left = Buffer.from(out.slice(2).replace(REDACTED, ''), 'base64url').toString('latin1');
      expect(left).not.toContain(secret.slice(4, 16));
    }
  });

  it('catches hex in binary bytes that are not UTF-8', () => {
    const body = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.from(Buffer.from(secret).toString('hex').toUpperCase())]);
    const out = r.buffer(body);
    expect(out.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xfe, 0x00]));
    expect(out.subarray(3).toString('latin1')).toBe(REDACTED);
  });

  it('leaves text without the secret alone, case and all', () => {
    const text = 'Nothing Here: SK-LIVE is a prefix, 98765 a number, ABC+123 a fragment.';
    expect(r.text(text)).toBe(text);
    expect(r.buffer(Buffer.from(text)).toString()).toBe(text);
    expect(r.finds(text)).toBe(false);
  });

  it('redacts several secrets, and learns a new one at once', () => {
    const two = new Redactor([secret]);
    const other = 'ghp_0123456789abcdefABCDEF';
    expect(two.text(other)).toBe(other);
    two.add(other);
    expect(two.text(`${other.toUpperCase()} and ${[...secret].reverse().join('')}`)).toBe(`${REDACTED} and ${REDACTED}`);
  });

  it('keeps regular-expression characters in a secret literal', () => {
    const odd = new Redactor(['a.b*c(d)[e]|f^g$h\\i']);
    expect(odd.text('aXbbbc(d)[e]|f^g$h\\i')).toBe('aXbbbc(d)[e]|f^g$h\\i');
    expect(odd.text('>a.b*c(d)[e]|f^g$h\\i<')).toBe(`>${REDACTED}<`);
  });
});
