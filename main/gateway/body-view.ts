// A request or response body as a value rules and inverse templates can read: parsed JSON, or a form
// (application/x-www-form-urlencoded) as an object. Never a regex over raw text.

export function parseBody(body: Buffer, contentType: string | undefined): unknown {
  if (body.length === 0) return null;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const text = body.toString('utf8');
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  if (type === 'application/json' || type.endsWith('+json') || type === '' || type === 'text/plain') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * The values at a dotted path. Arrays are walked through (every element), so 'to.email' reads each
 * recipient's address. The segment '@recipients' decodes a base64url MIME message (Gmail's "raw") into
 * the addresses of its To, Cc and Bcc headers.
 */
export function valuesAt(value: unknown, field: string): unknown[] {
  let current: unknown[] = [value];
  for (const segment of field.split('.').filter(Boolean)) {
    const next: unknown[] = [];
    for (const v of current.flatMap((c) => (Array.isArray(c) ? c : [c]))) {
      if (segment === '@recipients') {
        if (typeof v === 'string') next.push(...mimeRecipients(v));
      } else if (v !== null && typeof v === 'object' && segment in v) {
        next.push((v as Record<string, unknown>)[segment]);
      }
    }
    current = next;
  }
  return current.flatMap((c) => (Array.isArray(c) ? c : [c])).filter((c) => c !== undefined && c !== null);
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
