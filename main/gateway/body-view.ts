// A request or response body as a value rules and inverse templates can read: parsed JSON, or a form
// (application/x-www-form-urlencoded) as an object. Never a regex over raw text.
// JSON.parse and a form's object keep only the last value of a repeated key, while the service may read
// the first (or all): rules must see every one. So a parsed body also carries, out of sight of JSON and
// of inverse templates, a view with every duplicate (built only when a rule reads it).
import { parse as parseJsonTree, type AnyNode } from '@humanwhocodes/momoa';

/** The duplicate-aware view of a parsed body, read by rules (valuesAt). */
const RULE_VIEW = Symbol('posthoc.ruleView');
/** Every value a repeated key had, in order; walked like an array by valuesAt. */
class EveryValue {
  constructor(readonly values: unknown[]) {}
}

export function parseBody(body: Buffer, contentType: string | undefined): unknown {
  if (body.length === 0) return null;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const text = body.toString('utf8');
  if (type === 'application/x-www-form-urlencoded') return parseForm(text);
  if (type === 'application/json' || type.endsWith('+json') || type === '' || type === 'text/plain') {
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      return null;
    }
    if (value !== null && typeof value === 'object') {
      let view: unknown;
      // The full tree is parsed again only when a rule asks, so bodies no rule reads cost nothing more.
      Object.defineProperty(value, RULE_VIEW, { enumerable: false, get: () => (view ??= jsonRuleView(text, value)) });
    }
    return value;
  }
  return null;
}

/**
 * A query string or form body as an object: the last value of a repeated key (what most servers and
 * Object.fromEntries read), with every value kept for the rules.
 */
export function parseForm(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const all = new Map<string, string[]>();
  for (const [key, value] of new URLSearchParams(text)) {
    all.set(key, [...(all.get(key) ?? []), value]);
    define(out, key, value);
  }
  const view: Record<string, unknown> = {};
  for (const [key, values] of all) define(view, key, values.length > 1 ? new EveryValue(values) : values[0]);
  Object.defineProperty(out, RULE_VIEW, { enumerable: false, value: view });
  return out;
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
 * recipient's address, and so is every value of a repeated key. The segment '@recipients' decodes a base64url MIME message (Gmail's "raw") into
 * the addresses of its To, Cc and Bcc headers.
 */
export function valuesAt(value: unknown, field: string): unknown[] {
  let current: unknown[] = [ruleView(value)];
  for (const segment of field.split('.').filter(Boolean)) {
    const next: unknown[] = [];
    for (const v of current.flatMap(spread)) {
      if (segment === '@recipients') {
        if (typeof v === 'string') next.push(...mimeRecipients(v));
      } else if (v !== null && typeof v === 'object' && Object.hasOwn(v, segment)) {
        next.push((v as Record<string, unknown>)[segment]);
      }
    }
    current = next;
  }
  return current.flatMap(spread).filter((c) => c !== undefined && c !== null);
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
