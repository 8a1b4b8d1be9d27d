// Line diff (Myers' O(ND) algorithm) and unified hunks, for the diff view and `posthoc diff`. Pure: no
// imports, so the renderer and the CLI share it.

export type DiffLine = { kind: 'same' | 'removed' | 'added'; text: string; oldLine: number | null; newLine: number | null };
export type Hunk = { oldStart: number; oldCount: number; newStart: number; newCount: number; lines: DiffLine[] };

/** Past this many edits the middle is shown as removed then added (keeps memory at O(limit²)). */
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
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: DiffLine[] = [];
  for (let i = 0; i < start; i++) out.push({ kind: 'same', text: a[i]!, oldLine: i + 1, newLine: i + 1 });
  const middle = myers(a.slice(start, endA), b.slice(start, endB));
  let oi = start;
  let ni = start;
  for (const kind of middle) {
    if (kind === 'same') out.push({ kind, text: a[oi]!, oldLine: ++oi, newLine: ++ni });
    else if (kind === 'removed') out.push({ kind, text: a[oi]!, oldLine: ++oi, newLine: null });
    else out.push({ kind, text: b[ni]!, oldLine: null, newLine: ++ni });
  }
  for (let i = endA, j = endB; i < a.length; i++, j++) out.push({ kind: 'same', text: a[i]!, oldLine: i + 1, newLine: j + 1 });
  return out;
}

/** The edit script between two line arrays, as a sequence of kinds. */
function myers(a: string[], b: string[]): Array<DiffLine['kind']> {
  const n = a.length;
  const m = b.length;
  if (n === 0) return Array<DiffLine['kind']>(m).fill('added');
  if (m === 0) return Array<DiffLine['kind']>(n).fill('removed');
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    v = next;
  }
  if (found < 0) return [...Array<DiffLine['kind']>(n).fill('removed'), ...Array<DiffLine['kind']>(m).fill('added')];
  trace.push(v);
  const script: Array<DiffLine['kind']> = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && prev[offset + k - 1]! < prev[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = prev[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      script.push('same');
      x--;
      y--;
    }
    script.push(x === prevX ? 'added' : 'removed');
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    script.push('same');
    x--;
    y--;
  }
  return script.reverse();
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
