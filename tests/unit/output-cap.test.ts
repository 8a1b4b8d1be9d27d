// The output cap keeps the exact head and tail of a stream and counts the bytes it cut in between.
import { describe, expect, it } from 'vitest';
import { OutputCap } from '../../main/sandbox/output-cap';

/** Deterministic text with no repeating pattern short enough to hide an off-by-one. */
function sample(length: number): string {
  let s = '';
  for (let i = 0; s.length < length; i++) s += `${i.toString(36)},`;
  return s.slice(0, length);
}

function capOf(text: string, chunkSize: number, head?: number, tail?: number): OutputCap {
  const cap = new OutputCap(head, tail);
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += chunkSize) cap.push(bytes.subarray(i, i + chunkSize));
  return cap;
}

describe('OutputCap', () => {
  it('leaves small output untouched', () => {
    const cap = new OutputCap();
    cap.push(Buffer.from('hello '));
    cap.push(Buffer.from('world\n'));
    expect(cap.text()).toBe('hello world\n');
    expect(cap.truncated).toBe(false);
  });

  it('is empty before any push', () => {
    expect(new OutputCap().text()).toBe('');
    expect(new OutputCap().truncated).toBe(false);
  });

  it('keeps output exactly at head + tail whole', () => {
    const text = sample(100);
    const cap = capOf(text, 7, 60, 40);
    expect(cap.text()).toBe(text);
    expect(cap.truncated).toBe(false);
  });

  it('keeps the exact head and tail of huge output and says how many bytes were cut', () => {
    const size = 3 * 1024 * 1024;
    const text = sample(size);
    const cap = capOf(text, 1 << 16);
    const head = text.slice(0, 64 * 1024);
    const tail = text.slice(-64 * 1024);
    const cut = size - 128 * 1024;
    expect(cap.truncated).toBe(true);
    expect(cap.text()).toBe(`${head}\n[… ${cut} bytes cut by Posthoc …]\n${tail}`);
  });

  it('cuts one byte past the limit and says 1', () => {
    const text = sample(101);
    const cap = capOf(text, 101, 60, 40);
    expect(cap.truncated).toBe(true);
    expect(cap.text()).toBe(`${text.slice(0, 60)}\n[… 1 bytes cut by Posthoc …]\n${text.slice(-40)}`);
  });

  it.each([1, 3, 17, 59, 60, 61, 1000])('gives the same text for pushes of %i bytes as for one big push', (chunk) => {
    const text = sample(5000);
    const whole = capOf(text, text.length, 60, 40).text();
    expect(capOf(text, chunk, 60, 40).text()).toBe(whole);
    expect(whole).toBe(`${text.slice(0, 60)}\n[… 4900 bytes cut by Posthoc …]\n${text.slice(-40)}`);
  });

  it('gives the same text for irregular chunk sizes', () => {
    const text = sample(3000);
    const bytes = Buffer.from(text);
    const cap = new OutputCap(100, 200);
    const sizes = [1, 99, 2, 150, 7, 500, 1, 1, 900];
    let at = 0;
    for (let i = 0; at < bytes.length; i++) {
      const n = sizes[i % sizes.length]!;
      cap.push(bytes.subarray(at, at + n));
      at += n;
    }
    expect(cap.text()).toBe(capOf(text, text.length, 100, 200).text());
  });

  it('does not split a multi-byte character that arrives in two pushes', () => {
    const text = 'héllo wörld — ✓ 日本語';
    const cap = capOf(text, 1);
    expect(cap.text()).toBe(text);
  });
});
