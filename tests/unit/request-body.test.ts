// Reading a request body as the service will, for the person's body rules: codings undone within a cap,
// text decoded by byte-order mark, charset or RFC 4627's zero bytes, multipart read by Node's parser and
// refused where services read it differently, form keys read under every name a service gives them.
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bodyText, decompress } from '../../main/gateway/body-decode';
import { parseForm, valueAt } from '../../main/gateway/body-view';
import { bodyBreach, parseBodyRule } from '../../main/gateway/call-rules';
import { readRequestBody } from '../../main/gateway/request-body';

const MIB = 1024 * 1024;
const rule = parseBodyRule('POST /chat.postMessage channel=C1');
const B = 'posthoc-unit-boundary-0123456789abcdef';
const MULTIPART = { 'content-type': `multipart/form-data; boundary=${B}` };

async function read(body: string | Buffer, headers: Record<string, string>, strict = true) {
  return readRequestBody(Buffer.isBuffer(body) ? body : Buffer.from(body), headers, strict, MIB);
}
async function breach(body: string | Buffer, headers: Record<string, string>, search = ''): Promise<string | null> {
  const reading = await read(body, headers);
  if (!reading.ok) throw new Error(reading.why);
  return bodyBreach(rule, reading.value, search);
}
async function why(body: string | Buffer, headers: Record<string, string>): Promise<string> {
  const reading = await read(body, headers);
  if (reading.ok) throw new Error('read, but should be refused');
  return reading.why;
}
const part = (head: string, value: string) => `--${B}\r\n${head}\r\n\r\n${value}\r\n`;
const named = (name: string, value: string) => part(`Content-Disposition: form-data; name="${name}"`, value);
const end = `--${B}--\r\n`;

describe('Content-Encoding', () => {
  it('undoes gzip, deflate (zlib or raw), br and a chain of them, last coding first', () => {
    const json = Buffer.from('{"channel":"C1"}');
    for (const [coding, bytes] of [['gzip', gzipSync(json)], ['x-gzip', gzipSync(json)], ['deflate', deflateSync(json)], ['br', brotliCompressSync(json)]] as const) {
      expect(decompress(bytes, coding, MIB)).toEqual({ ok: true, value: json });
    }
    expect(decompress(brotliCompressSync(gzipSync(json)), 'gzip, br', MIB)).toEqual({ ok: true, value: json });
    expect(decompress(json, 'identity', MIB)).toEqual({ ok: true, value: json });
  });

  it('stops a zip bomb at the cap and says why', () => {
    const bomb = gzipSync(Buffer.alloc(16 * MIB));
    expect(bomb.length).toBeLessThan(MIB / 4);
    expect(decompress(bomb, 'gzip', MIB)).toEqual({ ok: false, why: expect.stringMatching(/decompressed \(gzip\) it is over 1 MiB.*send a smaller body/) });
  });

  it('refuses an unknown, corrupt or many-times coding', () => {
    expect(decompress(Buffer.from('x'), 'zstd', MIB)).toMatchObject({ ok: false, why: expect.stringMatching(/"zstd" is not one the gateway decodes; send it uncompressed, or as gzip, deflate or br/) });
    expect(decompress(Buffer.from('not gzip'), 'gzip', MIB)).toMatchObject({ ok: false, why: expect.stringMatching(/not valid gzip data/) });
    expect(decompress(Buffer.from('x'), 'gzip, gzip, gzip, gzip', MIB)).toMatchObject({ ok: false, why: expect.stringMatching(/encoded 4 times over/) });
  });
});

describe('text by byte-order mark, charset and zero bytes', () => {
  const text = '{"channel":"C1"}';
  const utf32 = (s: string, little: boolean) => {
    const out = Buffer.alloc(4 * s.length);
    [...s].forEach((c, i) => (little ? out.writeUInt32LE(c.codePointAt(0)!, 4 * i) : out.writeUInt32BE(c.codePointAt(0)!, 4 * i)));
    return out;
  };
  const swap = (b: Buffer) => Buffer.from(b).swap16();

  it('reads UTF-8, UTF-16 and UTF-32 behind their marks', () => {
    const cases: Array<[number[], Buffer]> = [
      [[0xef, 0xbb, 0xbf], Buffer.from(text)],
      [[0xff, 0xfe], Buffer.from(text, 'utf16le')],
      [[0xfe, 0xff], swap(Buffer.from(text, 'utf16le'))],
      [[0xff, 0xfe, 0, 0], utf32(text, true)],
      [[0, 0, 0xfe, 0xff], utf32(text, false)],
    ];
    for (const [mark, bytes] of cases) expect(bodyText(Buffer.concat([Buffer.from(mark), bytes]), undefined, false)).toEqual({ ok: true, value: text });
  });

  it('reads JSON in UTF-16 or UTF-32 without a mark by its zero bytes, and by a declared charset', () => {
    expect(bodyText(swap(Buffer.from(text, 'utf16le')), undefined, true)).toEqual({ ok: true, value: text });
    expect(bodyText(utf32(text, true), undefined, true)).toEqual({ ok: true, value: text });
    expect(bodyText(utf32(text, false), 'utf-32', true)).toEqual({ ok: true, value: text });
    expect(bodyText(Buffer.from(text, 'utf16le'), 'UTF-16LE', false)).toEqual({ ok: true, value: text });
  });

  it('refuses what two readers would read differently', () => {
    expect(bodyText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), 'utf-8', true)).toMatchObject({ ok: false, why: expect.stringMatching(/UTF-16LE byte-order mark but declares charset=utf-8/) });
    expect(bodyText(Buffer.from('channel=C1', 'utf16le'), 'utf-16', false)).toMatchObject({ ok: false, why: expect.stringMatching(/without a byte-order mark, so its byte order is unknown/) });
    expect(bodyText(Buffer.from([0x63, 0xff, 0x31]), undefined, false)).toMatchObject({ ok: false, why: expect.stringMatching(/not valid UTF-8 text/) });
    expect(bodyText(Buffer.from('caf\xe9', 'latin1'), 'iso-8859-1', false)).toMatchObject({ ok: false, why: expect.stringMatching(/"iso-8859-1" is not one the gateway reads .* beyond ASCII; send it in UTF-8/) });
    expect(bodyText(Buffer.from('+AEM-1'), 'utf-7', false)).toMatchObject({ ok: false, why: expect.stringMatching(/"utf-7"/) });
    // ASCII is the same text in Latin-1 as in UTF-8.
    expect(bodyText(Buffer.from(text), 'ISO-8859-1', true)).toEqual({ ok: true, value: text });
  });
});

describe('multipart/form-data', () => {
  it('reads every field, a file part\'s content too, with the query alongside', async () => {
    expect(await breach(named('channel', 'C1') + named('text', 'hi') + end, MULTIPART)).toBeNull();
    expect(await breach(named('channel', 'C1') + named('channel', 'C2') + end, MULTIPART)).toMatch(/it was "C2"/);
    const file = part('Content-Disposition: form-data; name="channel"; filename="c.txt"\r\nContent-Type: text/plain', 'C2');
    expect(await breach(named('channel', 'C1') + file + end, MULTIPART)).toMatch(/it was "C2"/);
  });

  it.each([
    ['a transfer encoding', part('Content-Disposition: form-data; name="channel"\r\nContent-Transfer-Encoding: base64', 'QzI='), /Content-Transfer-Encoding: base64/],
    ['an extended name', part("Content-Disposition: form-data; name*=utf-8''channel", 'C2'), /extended form \(name\*=\)/],
    ['two names', part('Content-Disposition: form-data; name="x"; name="channel"', 'C2'), /gives its name 2 times/],
    ['two dispositions', part('Content-Disposition: form-data; name="x"\r\nContent-Disposition: form-data; name="channel"', 'C2'), /2 Content-Disposition headers/],
    ['an escaped name', part('Content-Disposition: form-data; name="chan%6Eel"', 'C2'), /backslash or percent escape/],
    ['a part charset', part('Content-Disposition: form-data; name="channel"\r\nContent-Type: text/plain; charset=utf-16', 'C2'), /declares charset=utf-16/],
  ])('refuses a part with %s', async (_what, bad, reason) => {
    expect(await why(named('text', 'hi') + bad + end, MULTIPART)).toMatch(reason);
  });

  it('refuses text around the parts, a broken body, and a boundary given twice', async () => {
    expect(await why(`channel=C2\r\n${named('channel', 'C1')}${end}`, MULTIPART)).toMatch(/text before its first boundary/);
    expect(await why(`${named('channel', 'C1')}${end}${named('channel', 'C2')}`, MULTIPART)).toMatch(/text after its closing boundary/);
    expect(await why(`${named('channel', 'C1')}`.replace(/\r\n/g, '\n') + end, MULTIPART)).toMatch(/not valid multipart\/form-data/);
    expect(await why(named('channel', 'C1') + end, { 'content-type': `multipart/form-data; boundary=${B}; boundary=other` })).toMatch(/gives "boundary" more than once/);
  });
});

describe('forms and JSON read under every name a service may give a key', () => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  it('nests bracketed keys, splits dotted ones, and reads PHP\'s names', () => {
    const nested = parseBodyRule('POST /send to.email@=example.com');
    expect(bodyBreach(nested, parseForm('to[0][email]=a@example.com&to[1][email]=b@evil.org'))).toMatch(/b@evil.org/);
    expect(bodyBreach(nested, parseForm('to.email=b@evil.org&to[email]=a@example.com'))).toMatch(/b@evil.org/);
    expect(bodyBreach(nested, parseForm('to[0][email]=a@example.com'))).toBeNull();
    const underscored = parseBodyRule('POST /x thread_ts=1.0');
    expect(bodyBreach(underscored, parseForm('thread_ts=1.0&thread.ts=2.0'))).toMatch(/it was "2.0"/);
    expect(bodyBreach(underscored, parseForm('thread_ts=1.0&thread%20ts=2.0&%20thread_ts=3.0&thread[ts=4.0'))).toMatch(/"2.0", "3.0", "4.0"/);
  });

  it('counts pairs split at ";" as older servers read them, and keys in any case', async () => {
    expect(await breach('channel=C1;channel=C2', form)).toMatch(/it was "C1;channel=C2", "C2"/);
    expect(await breach('text=a;channel=C2', form, '?channel=C1')).toMatch(/it was "C2"/);
    expect(await breach('{"channel":"C1","Channel":"C2"}', { 'content-type': 'application/json' })).toMatch(/it was "C2"/);
    expect(await breach('CHANNEL=C2&channel=C1', form)).toMatch(/it was "C2"/);
  });

  it('leaves what inverse templates read as it was', async () => {
    const reading = await read('channel=C1&channel[]=C2&a.b=1', form);
    expect(reading.ok && JSON.stringify(reading.value)).toBe('{"channel":"C1","channel[]":"C2","a.b":"1"}');
    expect(reading.ok && valueAt(reading.value, 'channel')).toBe('C1');
  });
});

describe('without a rule', () => {
  it('reads an untyped JSON body for inverse templates, and gives null for one it cannot read', async () => {
    const untyped = await read('{"channel":"C1"}', {}, false);
    expect(untyped.ok && valueAt(untyped.value, 'channel')).toBe('C1');
    expect(await read(Buffer.from('x'), { 'content-encoding': 'zstd' }, false)).toEqual({ ok: true, value: null });
    expect(await read('', {}, true)).toEqual({ ok: true, value: null });
  });
});
