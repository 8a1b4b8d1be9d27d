// The person's rule lines for a service's calls, read once for the CLI, the app's Connections page and the
// gateway: call patterns ("POST /chat.postMessage", "GET,HEAD /files/**") and body rules
// ("POST /chat.postMessage channel=C1,C2", "POST /send to@=example.com"), and the same lines written back.
// Pure; a leaf like the rest of shared/.
import type { BodyRule, CallPattern } from '../domain/connections';

export type RuleRead<T> = { ok: true; value: T } | { ok: false; error: string };

const METHODS = /^(\*|[A-Za-z]+(,[A-Za-z]+)*)$/;
const CONDITION = /^([^=\s]+?)(@?)=(.+)$/;

/** 'METHOD PATH-GLOB', several methods joined by "," or * for any. */
export function readCallPattern(text: string): RuleRead<CallPattern> {
  const [method, path, ...rest] = text.trim().split(/\s+/);
  if (!method || !path || rest.length > 0 || !path.startsWith('/')) {
    return { ok: false, error: `"${text.trim()}" is not a call pattern: write "METHOD /path/glob", for example "POST /chat.postMessage" or "GET /**".` };
  }
  if (!METHODS.test(method)) return { ok: false, error: `"${method}" is not a method: use GET, POST, … or * (several joined by ",").` };
  return { ok: true, value: { method: method.toUpperCase(), path } };
}

/** 'METHOD PATH FIELD=V1,V2' (the value must be one of these) or 'METHOD PATH FIELD@=DOMAIN1,DOMAIN2' (e-mail domains). */
export function readBodyRule(text: string): RuleRead<BodyRule> {
  const [method, path, condition, ...rest] = text.trim().split(/\s+/);
  const m = condition ? CONDITION.exec(condition) : null;
  const pattern = readCallPattern(`${method ?? ''} ${path ?? ''}`);
  if (!m || rest.length > 0 || !pattern.ok) {
    return {
      ok: false,
      error: `"${text.trim()}" is not a body rule: write "METHOD /path FIELD=V1,V2" (the value must be one of these) or "METHOD /path FIELD@=example.com" (e-mail addresses in these domains only).`,
    };
  }
  const list = m[3]!.split(',').map((v) => v.trim()).filter(Boolean);
  return { ok: true, value: m[2] === '@' ? { ...pattern.value, field: m[1]!, domains: list } : { ...pattern.value, field: m[1]!, oneOf: list } };
}

/** One rule per line; blank lines and lines starting with # are skipped. The first bad line's error, prefixed with `label`. */
export function readRuleLines<T>(text: string, read: (line: string) => RuleRead<T>, label: string): RuleRead<T[]> {
  const out: T[] = [];
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line.length === 0 || line.startsWith('#')) continue;
    const one = read(line);
    if (!one.ok) return { ok: false, error: `${label}: ${one.error}` };
    out.push(one.value);
  }
  return { ok: true, value: out };
}

export function describePattern(p: CallPattern): string {
  return `${p.method.toUpperCase()} ${p.path}`;
}

export function describeBodyRule(rule: BodyRule): string {
  return `${describePattern(rule)} ${rule.field}${rule.domains ? `@=${rule.domains.join(',')}` : `=${(rule.oneOf ?? []).join(',')}`}`;
}
