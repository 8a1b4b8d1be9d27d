// Redaction in windows: a secret cut by any chunk border, at any offset around a window's border, is
// still redacted, and bytes without a secret come out unchanged (UTF-8 split mid-character included).
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { BodyTap } from '../../main/gateway/body-summary';
import { Redactor, REDACTED } from '../../main/gateway/redaction';
import { completeUtf8, RedactingStream } from '../../main/gateway/stream-redaction';

const SECRET = 'sk-live-9f8e7d6c5b4a3210';

async function through(redactor: Redactor, input: Buffer, chunkSize: number, window: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let i = 0; i < input.length; i += chunkSize) chunks.push(input.subarray(i, i + chunkSize));
  return buffer(Readable.from(chunks).pipe(new RedactingStream(redactor, window)));
}

describe('RedactingStream', () => {
  it('redacts a secret (raw, upper-cased, base64) wherever chunk and window borders cut it', async () => {
    const redactor = new Redactor([SECRET]);
    const window = 64;
    for (const form of [SECRET, SECRET.toUpperCase(), Buffer.from(SECRET).toString('base64')]) {
      for (let offset = 0; offset < 3 * window; offset += 7) {
        const input = Buffer.from(`${'é'.repeat(offset)}${form}${'x'.repeat(200)}${form}.`, 'utf8');
        for (const chunkSize of [1, 5, 13, 64, 1000]) {
          const out = (await through(redactor, input, chunkSize, window)).toString('utf8');
          expect(out).toBe(redactor.text(input.toString('utf8')));
          expect(out.split(REDACTED)).toHaveLength(3);
          expect(out.toLowerCase()).not.toContain(SECRET.toLowerCase());
        }
      }
    }
  });

  it('passes bytes with no secret through unchanged, binary and UTF-8 cut mid-character alike', async () => {
    const redactor = new Redactor([SECRET]);
    const bytes = Buffer.concat([Buffer.from('ünïcödé—'.repeat(300), 'utf8'), Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 37) % 256))]);
    for (const chunkSize of [1, 3, 100, 4096]) {
      expect((await through(redactor, bytes, chunkSize, 256)).equals(bytes)).toBe(true);
    }
    expect((await through(new Redactor(), bytes, 100, 256)).equals(bytes)).toBe(true);
  });

  it('finds the end of the last whole UTF-8 character', () => {
    const euro = Buffer.from('a€', 'utf8'); // 61 e2 82 ac
    expect(completeUtf8(euro)).toBe(4);
    expect(completeUtf8(euro.subarray(0, 3))).toBe(1);
    expect(completeUtf8(euro.subarray(0, 2))).toBe(1);
    expect(completeUtf8(Buffer.from([0xff, 0xfe]))).toBe(2);
  });
});

describe('BodyTap', () => {
  it('keeps a large body\'s head and tail only, and summarizes them redacted', () => {
    const redactor = new Redactor([SECRET]);
    const tap = new BodyTap();
    tap.see(Buffer.from(`{"start":"${SECRET}",`));
    const filler = Buffer.alloc(64 * 1024, 'a');
    for (let i = 0; i < 100; i++) tap.see(filler);
    tap.see(Buffer.from(`"end":"${SECRET}"}`));
    const summary = tap.summary('application/json', redactor)!;
    expect(tap.total).toBe(100 * filler.length + 2 * SECRET.length + 21);
    expect(summary).toContain(`{"start":"${REDACTED}"`);
    expect(summary).toContain(`(${tap.total} bytes)`);
    expect(summary.endsWith(`"end":"${REDACTED}"}`)).toBe(true);
    expect(summary).not.toContain(SECRET);
    expect(summary.length).toBeLessThan(700);
  });
});
