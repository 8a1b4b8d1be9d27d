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

  it('past the edit limit (2000) shows every old line removed then every new line added, still rebuilding both texts', () => {
    // Every other line changed: 1500 common lines, but 3000 edits — more than the diff is allowed to search.
    const a = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n');
    const b = Array.from({ length: 3000 }, (_, i) => (i % 2 ? `changed ${i}` : `line ${i}`)).join('\n');
    const d = diffLines(a, b);
    expect(d.map((l) => l.kind)).toEqual([...Array<string>(3000).fill('removed'), ...Array<string>(3000).fill('added')]);
    expect(d.at(-1)).toEqual({ kind: 'added', text: 'changed 2999', oldLine: null, newLine: 3000 });
    expect(d.filter((l) => l.kind !== 'added').map((l) => l.text)).toEqual(splitLines(a));
    expect(d.filter((l) => l.kind !== 'removed').map((l) => l.text)).toEqual(splitLines(b));
    // Under the limit the common lines are found.
    const few = b.split('\n').slice(0, 100).join('\n');
    expect(diffLines(a.split('\n').slice(0, 100).join('\n'), few).filter((l) => l.kind === 'same')).toHaveLength(50);
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
