// Line diff and unified hunks, for the diff view and `posthoc diff`. The edit script is jsdiff's (Myers'
// O(ND) algorithm); the hunks stay here because the view needs each line's old and new numbers, which
// jsdiff's hunks do not carry. No node: or DOM imports, so the renderer and the CLI share it.
import { diffArrays } from 'diff';

export type DiffLine = { kind: 'same' | 'removed' | 'added'; text: string; oldLine: number | null; newLine: number | null };
export type Hunk = { oldStart: number; oldCount: number; newStart: number; newCount: number; lines: DiffLine[] };

/** Past this many edits the texts are shown as all removed then all added (jsdiff gives up: bounded work). */
const MAX_EDITS = 2000;

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

export function diffLines(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  // jsdiff gives removals before additions within a change, as the view and `posthoc diff` show them.
  const changes = diffArrays(a, b, { maxEditLength: MAX_EDITS }) ?? [
    { value: a, count: a.length, removed: true, added: false },
    { value: b, count: b.length, removed: false, added: true },
  ];
  const out: DiffLine[] = [];
  let oi = 0;
  let ni = 0;
  for (const change of changes) {
    for (const text of change.value) {
      if (change.removed) out.push({ kind: 'removed', text, oldLine: ++oi, newLine: null });
      else if (change.added) out.push({ kind: 'added', text, oldLine: null, newLine: ++ni });
      else out.push({ kind: 'same', text, oldLine: ++oi, newLine: ++ni });
    }
  }
  return out;
}

/** Groups a diff into hunks with `context` unchanged lines around each change. */
export function toHunks(lines: readonly DiffLine[], context = 3): Hunk[] {
  const hunks: Hunk[] = [];
  let i = 0;
  while (i < lines.length) {
    while (i < lines.length && lines[i]!.kind === 'same') i++;
    if (i >= lines.length) break;
    const from = Math.max(0, i - context);
    let end = i;
    for (;;) {
      while (end < lines.length && lines[end]!.kind !== 'same') end++;
      let gap = end;
      while (gap < lines.length && lines[gap]!.kind === 'same') gap++;
      if (gap < lines.length && gap - end <= 2 * context) end = gap;
      else break;
    }
    const to = Math.min(lines.length, end + context);
    const slice = lines.slice(from, to);
    const firstOld = slice.find((l) => l.oldLine !== null)?.oldLine ?? 0;
    const firstNew = slice.find((l) => l.newLine !== null)?.newLine ?? 0;
    hunks.push({
      oldStart: firstOld,
      oldCount: slice.filter((l) => l.kind !== 'added').length,
      newStart: firstNew,
      newCount: slice.filter((l) => l.kind !== 'removed').length,
      lines: slice,
    });
    i = to;
  }
  return hunks;
}

export function unifiedDiff(before: string, after: string, oldName: string, newName: string): string {
  const out = [`--- ${oldName}`, `+++ ${newName}`];
  for (const h of toHunks(diffLines(before, after))) {
    out.push(`@@ -${h.oldStart},${h.oldCount} +${h.newStart},${h.newCount} @@`);
    for (const l of h.lines) out.push(`${l.kind === 'same' ? ' ' : l.kind === 'removed' ? '-' : '+'}${l.text}`);
  }
  return out.join('\n');
}
