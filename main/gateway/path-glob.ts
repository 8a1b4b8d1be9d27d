// Call patterns: a method list and a path glob. In a glob, '**' is any number of segments, '*' any
// characters within one segment, and ':name' one whole segment, captured under that name.
import { describePattern, readCallPattern } from '../../shared/connections/rule-lines';
import type { CallPattern } from '../../shared/domain/connections';

export type GlobMatch = { params: Record<string, string> };

export function methodMatches(pattern: string, method: string): boolean {
  const m = method.toUpperCase();
  return pattern
    .split(',')
    .map((p) => p.trim().toUpperCase())
    .some((p) => p === '*' || p === m);
}

/** Matches a path (no query string) against a glob; returns the captured ':name' segments. */
export function matchPath(glob: string, path: string): GlobMatch | null {
  const want = split(glob);
  const have = split(path);
  const params: Record<string, string> = {};
  const walk = (i: number, j: number): boolean => {
    if (i === want.length) return j === have.length;
    const seg = want[i]!;
    if (seg === '**') {
      for (let k = j; k <= have.length; k++) if (walk(i + 1, k)) return true;
      return false;
    }
    if (j >= have.length) return false;
    const value = have[j]!;
    if (seg.startsWith(':') && seg.length > 1) {
      params[seg.slice(1)] = decode(value);
      return walk(i + 1, j + 1);
    }
    return segmentMatches(seg, value) && walk(i + 1, j + 1);
  };
  return walk(0, 0) ? { params } : null;
}

export function callMatches(pattern: CallPattern, method: string, path: string): GlobMatch | null {
  return methodMatches(pattern.method, method) ? matchPath(pattern.path, path) : null;
}

export { describePattern };

/** Parses 'METHOD PATH-GLOB' as the CLI and the app write it (shared/connections/rule-lines.ts). */
export function parsePattern(text: string): CallPattern {
  const pattern = readCallPattern(text);
  if (!pattern.ok) throw new Error(pattern.error);
  return pattern.value;
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function segmentMatches(glob: string, value: string): boolean {
  if (!glob.includes('*')) return glob === value || glob === decode(value);
  const parts = glob.split('*');
  let at = 0;
  for (const [i, part] of parts.entries()) {
    if (i === 0) {
      if (!value.startsWith(part)) return false;
      at = part.length;
      continue;
    }
    if (i === parts.length - 1) return value.length - part.length >= at && value.endsWith(part);
    const found = value.indexOf(part, at);
    if (found < 0) return false;
    at = found + part.length;
  }
  return true;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
