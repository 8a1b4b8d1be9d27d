// The rows of the diff view, from the shared line diff: unified (one column) or side by side (removed
// lines beside the added lines that replaced them). Pure; no React.
import { diffLines, toHunks, type DiffLine } from '../../../shared/diff/line-diff';

export type UnifiedRow = { kind: 'hunk'; text: string } | { kind: DiffLine['kind']; oldLine: number | null; newLine: number | null; text: string };
export type Cell = { line: number; text: string; kind: 'same' | 'removed' | 'added' } | null;
export type SideRow = { kind: 'hunk'; text: string } | { kind: 'pair'; left: Cell; right: Cell };

export function unifiedRows(before: string, after: string): UnifiedRow[] {
  const rows: UnifiedRow[] = [];
  for (const h of toHunks(diffLines(before, after))) {
    rows.push({ kind: 'hunk', text: `@@ -${h.oldStart},${h.oldCount} +${h.newStart},${h.newCount} @@` });
    for (const l of h.lines) rows.push({ kind: l.kind, oldLine: l.oldLine, newLine: l.newLine, text: l.text });
  }
  return rows;
}

export function sideBySideRows(before: string, after: string): SideRow[] {
  const rows: SideRow[] = [];
  for (const h of toHunks(diffLines(before, after))) {
    rows.push({ kind: 'hunk', text: `@@ -${h.oldStart},${h.oldCount} +${h.newStart},${h.newCount} @@` });
    let i = 0;
    while (i < h.lines.length) {
      const l = h.lines[i]!;
      if (l.kind === 'same') {
        rows.push({ kind: 'pair', left: { line: l.oldLine!, text: l.text, kind: 'same' }, right: { line: l.newLine!, text: l.text, kind: 'same' } });
        i++;
        continue;
      }
      const removed: DiffLine[] = [];
      const added: DiffLine[] = [];
      while (i < h.lines.length && h.lines[i]!.kind === 'removed') removed.push(h.lines[i++]!);
      while (i < h.lines.length && h.lines[i]!.kind === 'added') added.push(h.lines[i++]!);
      for (let k = 0; k < Math.max(removed.length, added.length); k++) {
        const r = removed[k];
        const a = added[k];
        rows.push({
          kind: 'pair',
          left: r ? { line: r.oldLine!, text: r.text, kind: 'removed' } : null,
          right: a ? { line: a.newLine!, text: a.text, kind: 'added' } : null,
        });
      }
    }
  }
  return rows;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
