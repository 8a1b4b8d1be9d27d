// The line diff behind the diff view and `posthoc diff` (shared/diff/line-diff.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffLines, splitLines, toHunks, unifiedDiff } from '../../shared/diff/line-diff';

describe('diffLines', () => {
  it('marks removed, added and unchanged lines with their line numbers', () => {
    expect(diffLines('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual([
      { kind: 'same', text: 'a', oldLine: 1, newLine: 1 },
      { kind: 'removed', text: 'b', oldLine: 2, newLine: null },
      { kind: 'added', text: 'B', oldLine: null, newLine: 2 },
      { kind: 'same', text: 'c', oldLine: 3, newLine: 3 },
      { kind: 'added', text: 'd', oldLine: null, newLine: 4 },
    ]);
  });

  it('handles empty sides', () => {
    expect(diffLines('', 'x\n').map((l) => l.kind)).toEqual(['added']);
    expect(diffLines('x\ny\n', '').map((l) => l.kind)).toEqual(['removed', 'removed']);
    expect(diffLines('', '')).toEqual([]);
  });

  it('rebuilds both texts from the diff, for any pair of texts (property)', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', '', 'long line'), { maxLength: 30 }).map((l) => l.join('\n'));
    fc.assert(
      fc.property(text, text, (a, b) => {
        const d = diffLines(a, b);
        expect(d.filter((l) => l.kind !== 'added').map((l) => l.text)).toEqual(splitLines(a));
        expect(d.filter((l) => l.kind !== 'removed').map((l) => l.text)).toEqual(splitLines(b));
      }),
      { numRuns: 300 },
    );
  });
});

describe('hunks', () => {
  it('keeps three lines of context and merges nearby changes', () => {
    const a = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    const b = a.replace('line 2\n', 'line two\n').replace('line 6\n', 'line six\n').replace('line 18', 'line eighteen');
    const hunks = toHunks(diffLines(a, b));
    expect(hunks.map((h) => [h.oldStart, h.oldCount, h.newStart, h.newCount])).toEqual([
      [1, 9, 1, 9],
      [15, 6, 15, 6],
    ]);
  });

  it('writes a unified diff', () => {
    expect(unifiedDiff('a\nb\n', 'a\nc\n', 'a/f', 'b/f')).toBe('--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c');
  });
});
