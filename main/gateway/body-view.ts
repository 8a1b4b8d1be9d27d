// A request or response body as a value rules and inverse templates can read: parsed JSON, or a form
// (application/x-www-form-urlencoded, or multipart/form-data's fields) as an object. Never a regex over raw text.
// JSON.parse and a form's object keep only the last value of a repeated key, while the service may read
// the first (or all): rules must see every one. So a parsed body also carries, out of sight of JSON and
// of inverse templates, a view with every duplicate (built only when a rule reads it) — and, for forms,
// every key under each name a service may read it as (channel[]=, channel[0]=, a[b]=, a.b=, PHP's a_b).
import { parse as parseJsonTree, type AnyNode } from '@humanwhocodes/momoa';

/** The duplicate-aware view of a parsed body, read by rules (valuesAt). */
const RULE_VIEW = Symbol('posthoc.ruleView');
/** Every value a repeated key had, in order; walked like an array by valuesAt. */
class EveryValue {
  constructor(readonly values: unknown[]) {}
}

/** A body as the gateway reads it when no rule depends on it (answers, inverse templates): null when unread. */
export function parseBody(body: Buffer, contentType: string | undefined): unknown {
  if (body.length === 0) return null;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  if (type === 'application/x-www-form-urlencoded') return parseForm(text);
  if (type === 'application/json' || type.endsWith('+json') || type === 'text/json' || type === '' || type === 'text/plain') {
    try {
      return parseJson(text);
    } catch {
      return null;
    }
  }
  return null;
}

/** JSON text as JSON.parse reads it, carrying the duplicate-aware view for rules; throws a SyntaxError. */
export function parseJson(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  if (value !== null && typeof value === 'object') {
    let view: unknown;
    // The full tree is parsed again only when a rule asks, so bodies no rule reads cost nothing more.
    Object.defineProperty(value, RULE_VIEW, { enumerable: false, get: () => (view ??= jsonRuleView(text, value)) });
  }
  return value;
}

/**
 * A query string or form body as an object: the last value of a repeated key (what most servers and
 * Object.fromEntries read), with every value kept for the rules. A service that also splits pairs at ';'
 * (older Rack, Python before 3.9.2) reads more pairs: their values count for the rules too.
 */
export function parseForm(text: string): Record<string, string> {
  const pairs = [...new URLSearchParams(text)];
  const more = text.includes(';') ? [...new URLSearchParams(text.replace(/;/g, '&'))] : [];
  return formFromPairs(pairs, more);
}

/** Name/value pairs (a form, or multipart's fields) as an object; `more` are pairs only the rules see. */
export function formFromPairs(pairs: Array<[string, string]>, more: Array<[string, string]> = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of pairs) define(out, key, value);
  Object.defineProperty(out, RULE_VIEW, { enumerable: false, value: formRuleView([...pairs, ...more]) });
  return out;
}

/** A node of a form's rule view: the values given at this path, and the paths below it. */
type KeyNode = { values: unknown[]; below: Map<string, KeyNode> };

function formRuleView(pairs: Array<[string, string]>): unknown {
  const root: KeyNode = { values: [], below: new Map() };
  for (const [key, value] of pairs) {
    for (const path of keyPaths(key)) {
      let node = root;
      for (const segment of path) {
        let child = node.below.get(segment);
        if (!child) node.below.set(segment, (child = { values: [], below: new Map() }));
        node = child;
      }
      node.values.push(value);
    }
  }
  return nodeValue(root);
}

function nodeValue(node: KeyNode): unknown {
  if (node.below.size === 0) return node.values.length === 1 ? node.values[0] : new EveryValue(node.values);
  const object: Record<string, unknown> = {};
  for (const [key, child] of node.below) define(object, key, nodeValue(child));
  return node.values.length === 0 ? object : new EveryValue([...node.values, object]);
}

/**
 * Every path a service may read a form key as: as it is; split at dots (qs with allowDots); nested by
 * brackets (PHP, Rails, qs: 'to[0][email]' is to.email, 'channel[]' is channel — an index or an empty
 * bracket is a position, walked through like an array); and PHP's name for it (leading spaces dropped,
 * spaces and dots made '_', an unclosed '[' made '_').
 */
export function keyPaths(key: string): string[][] {
  const paths = new Map<string, string[]>();
  const add = (path: string[]) => paths.set(path.join('\u0000'), path);
  add([key]);
  add(key.split('.'));
  const nested = /^([^[]*)((?:\[[^\]]*\])+)/.exec(key);
  const php = (base: string) => base.replace(/^ +/, '').replace(/[ .]/g, '_');
  if (nested) {
    const inner = [...nested[2]!.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!).filter((s) => s !== '' && !/^\d+$/.test(s));
    const base = nested[1]!;
    for (const head of new Set([base, php(base)])) add(head === '' ? inner : [head, ...inner]);
  } else {
    add([php(key.includes('[') ? key.replace('[', '_') : key)]);
  }
  return [...paths.values()].filter((path) => path.length > 0);
}

/** The JSON text as a tree where a key an object repeats holds every one of its values. */
function jsonRuleView(text: string, parsed: unknown): unknown {
  try {
    return fromNode(parseJsonTree(text, { mode: 'json', ranges: false }).body);
  } catch {
    // JSON.parse took it, so this cannot happen; should it, rules read what JSON.parse saw.
    return parsed;
  }
}

function fromNode(node: AnyNode): unknown {
  switch (node.type) {
    case 'Object': {
      const all = new Map<string, unknown[]>();
      for (const member of node.members) {
        const name = member.name.type === 'String' ? member.name.value : member.name.name;
        all.set(name, [...(all.get(name) ?? []), fromNode(member.value)]);
      }
      const out: Record<string, unknown> = {};
      for (const [key, values] of all) define(out, key, values.length > 1 ? new EveryValue(values) : values[0]);
      return out;
    }
    case 'Array':
      return node.elements.map((e) => fromNode(e.value));
    case 'String':
    case 'Number':
    case 'Boolean':
      return node.value;
    case 'Null':
      return null;
    default:
      // JSON mode admits no other node (NaN, Infinity, identifiers are JSON5).
      return undefined;
  }
}

/** An own property even for "__proto__", as JSON.parse makes it. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function ruleView(value: unknown): unknown {
  return value !== null && typeof value === 'object' && RULE_VIEW in value ? (value as { [RULE_VIEW]: unknown })[RULE_VIEW] : value;
}

function spread(value: unknown): unknown[] {
  if (value instanceof EveryValue) return value.values.flatMap((v) => (Array.isArray(v) ? v : [v]));
  return Array.isArray(value) ? value : [value];
}

/**
 * The values at a dotted path. Arrays are walked through (every element), so 'to.email' reads each
 * recipient's address, and so is every value of a repeated key; a key matches in any case. The segment
 * '@recipients' decodes a base64url MIME message (Gmail's "raw") into the addresses of its To, Cc and Bcc headers.
 */
export function valuesAt(value: unknown, field: string): unknown[] {
  let current: unknown[] = [ruleView(value)];
  for (const segment of field.split('.').filter(Boolean)) {
    const next: unknown[] = [];
    for (const v of current.flatMap(spread)) {
      if (segment === '@recipients') {
        if (typeof v === 'string') next.push(...mimeRecipients(v));
      } else if (v !== null && typeof v === 'object') {
        for (const key of keysNamed(v, segment)) next.push((v as Record<string, unknown>)[key]);
      }
    }
    current = next;
  }
  return current.flatMap(spread).filter((c) => c !== undefined && c !== null);
}

/**
 * The own keys of `value` a service may read as `name`: the same name in any case too, as Go's
 * encoding/json matches a JSON key to a field.
 */
function keysNamed(value: object, name: string): string[] {
  const folded = name.toLowerCase();
  return Object.keys(value).filter((key) => key === name || key.toLowerCase() === folded);
}

/** One value at a dotted path (no array walking): what inverse templates read. */
export function valueAt(value: unknown, path: string): unknown {
  let current = value;
  for (const segment of path.split('.').filter(Boolean)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** The e-mail addresses of a To/Cc/Bcc list: 'Ann <ann@x.org>, bob@y.org' → ['ann@x.org', 'bob@y.org']. */
export function addressesOf(list: string): string[] {
  const out: string[] = [];
  for (const part of splitAddressList(list)) {
    const angle = /<([^<>]+)>/.exec(part);
    const address = (angle ? angle[1]! : part).trim().replace(/^mailto:/i, '');
    if (address.includes('@')) out.push(address.toLowerCase());
  }
  return out;
}

export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

function mimeRecipients(raw: string): string[] {
  const text = Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  const head = text.split(/\r?\n\r?\n/)[0] ?? '';
  // Unfold continued header lines, then read the recipient headers.
  const lines = head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/);
  const out: string[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name === 'to' || name === 'cc' || name === 'bcc') out.push(...addressesOf(line.slice(colon + 1)));
  }
  return out;
}

function splitAddressList(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (const ch of list) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '<') depth++;
    else if (!quoted && ch === '>') depth = Math.max(0, depth - 1);
    if (ch === ',' && !quoted && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  if (current.trim()) parts.push(current);
  return parts;
}
