// Call patterns: a method list and a path glob. In a glob, '**' is any number of segments, '*' any
// characters within one segment, and ':name' one whole segment, captured under that name; nothing else is
// special ('?', '{', '[', '@', '!' are literal, as in '/reactions/:emoji/@me'). picomatch does the
// matching; this file adds the ':name' captures and compares paths segment by segment decoded, so that
// '/chat%2EpostMessage' cannot slip past a rule for '/chat.postMessage'. Empty segments are ignored.
import picomatch from 'picomatch';
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

/**
 * Matches a path (no query string) against a glob; returns the captured ':name' segments. `caseless` for the
 * rules that add a check (body rules, holds, send windows): a service that routes '/CHAT.POSTMESSAGE' as
 * '/chat.postMessage' must not slip past one. Rules that grant (allow) stay exact, so a case variant is refused.
 */
export function matchPath(glob: string, path: string, caseless = false): GlobMatch | null {
  const { regex, names } = compile(glob, caseless);
  const raw = segments(path);
  const match = regex.exec(framed(raw.map((seg) => comparable(seg))));
  if (!match) return null;
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    // A capture is one whole segment: which one is told by the '/' before it (segments hold none).
    const start = match.indices![i + 1]![0];
    const index = match.input.slice(0, start).split('/').length - 2;
    params[name] = decode(raw[index]!);
  });
  return { params };
}

export function callMatches(pattern: CallPattern, method: string, path: string, caseless = false): GlobMatch | null {
  return methodMatches(pattern.method, method) ? matchPath(pattern.path, path, caseless) : null;
}

export { describePattern };

/** Parses 'METHOD PATH-GLOB' as the CLI and the app write it (shared/connections/rule-lines.ts). */
export function parsePattern(text: string): CallPattern {
  const pattern = readCallPattern(text);
  if (!pattern.ok) throw new Error(pattern.error);
  return pattern.value;
}

type Compiled = { regex: RegExp; names: string[] };

const compiled = new Map<string, Compiled>();
const MAX_COMPILED = 1000;
/** Everything picomatch would read as more than a literal character, except '*'. */
const SPECIAL = /[?[\](){}!+@|^$,"']/g;
/** Stands for a ':name' segment while picomatch compiles the rest: an '@' no literal text leaves unescaped. */
const placeholder = (i: number): string => `@@${i}@@`;

function compile(glob: string, caseless: boolean): Compiled {
  const key = `${caseless ? 'i' : 's'}${glob}`;
  const known = compiled.get(key);
  if (known) return known;
  const names: string[] = [];
  const parts = segments(glob).map((seg) => {
    if (seg === '**') return seg;
    if (seg.startsWith(':') && seg.length > 1) {
      names.push(seg.slice(1));
      return placeholder(names.length - 1);
    }
    // Literal text is compared as the path is: decoded.
    if (!seg.includes('*')) return escape(comparable(seg));
    return seg
      .split('*')
      .map((text) => escape(comparable(text, false)))
      .join('*');
  });
  // dot: '*' and '**' match names that start with '.', like any other.
  let source = picomatch.makeRe(framed(parts), { dot: true, windows: false }).source;
  names.forEach((_, i) => {
    source = source.replace(placeholder(i), '([^/]+)');
  });
  const result = { regex: new RegExp(source, caseless ? 'di' : 'd'), names };
  if (compiled.size >= MAX_COMPILED) compiled.clear();
  compiled.set(key, result);
  return result;
}

/**
 * Between two fixed segments, so that every '**' stands between two others, where picomatch lets it match
 * no segment at all ('/repos/**' matches '/repos', '/**' matches '/'), as at the ends it does not always.
 */
function framed(parts: string[]): string {
  return ['root', ...parts, 'end'].join('/');
}

function escape(text: string): string {
  return text.replace(SPECIAL, '\\$&');
}

function segments(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

/**
 * Text as it is compared: decoded, then with '%', '/' and '\\' spelt as escapes again (so that a segment
 * stays one segment, and picomatch never reads a backslash); a whole segment '.' or '..' is spelt '%2E'
 * too, as picomatch never lets a star match those and our globs do.
 */
function comparable(text: string, whole = true): string {
  const decoded = decode(text);
  const spelt = decoded.replace(/[%/\\]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return whole && (decoded === '.' || decoded === '..') ? spelt.replaceAll('.', '%2E') : spelt;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
