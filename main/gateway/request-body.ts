// A request body read as the service will read it, for the person's body rules and for inverse
// templates: decompressed, decoded by its byte-order mark or charset, and parsed by its declared type —
// JSON (application/json, text/json, anything +json), a form, or multipart/form-data.
//
// When a rule looks at the body (`strict`), a body the gateway cannot read is not sent: an unknown type
// or coding, a charset other than UTF-8/16/32, broken JSON or multipart. So is a body with no type, or
// text/plain: services read those differently (Slack ignores them, GitHub and many frameworks read
// JSON whatever the type, PHP-style servers a form), and naming the type costs the sender one header.
// A body that is JSON but declared a form is refused for the same reason (GitHub reads it as JSON).
// Without a rule, what cannot be read is simply not read (null): the call goes as it came.
import { MIMEType } from 'node:util';
import { bodyText, decompress, type Decoded } from './body-decode';
import { formFromPairs, parseBody, parseForm, parseJson } from './body-view';
import { readMultipart } from './multipart-body';

export type RequestHeaders = { 'content-type'?: string; 'content-encoding'?: string | string[] };

const fail = (why: string): { ok: false; why: string } => ({ ok: false, why });
const SEND_INSTEAD = 'Content-Type: application/json, application/x-www-form-urlencoded or multipart/form-data';

/** The body's value (null for none), or why it cannot be read when a rule needs it. */
export async function readRequestBody(body: Buffer, headers: RequestHeaders, strict: boolean, cap: number): Promise<Decoded<unknown>> {
  if (body.length === 0) return { ok: true, value: null };
  const read = await readStrictly(body, headers, cap);
  if (read.ok || strict) return read;
  // No rule needs it: read it as answers are read (an untyped body as JSON), for inverse templates.
  return { ok: true, value: parseBody(body, headers['content-type']) };
}

async function readStrictly(body: Buffer, headers: RequestHeaders, cap: number): Promise<Decoded<unknown>> {
  const type = mediaType(headers['content-type']);
  if (!type.ok) return type;
  const encoding = headers['content-encoding'];
  const bytes = decompress(body, Array.isArray(encoding) ? encoding.join(', ') : encoding, cap);
  if (!bytes.ok) return bytes;
  const { essence, charset, boundary, raw } = type.value;
  if (essence === 'multipart/form-data') {
    if (charset !== undefined && !/^(utf-?8|us-ascii)$/i.test(charset)) return fail(`it declares charset=${charset} for multipart/form-data; send it without a charset (parts in UTF-8)`);
    const pairs = await readMultipart(bytes.value, raw, boundary ?? '');
    return pairs.ok ? { ok: true, value: formFromPairs(pairs.value) } : pairs;
  }
  const isJson = essence === 'application/json' || essence === 'text/json' || essence.endsWith('+json');
  if (!isJson && essence !== 'application/x-www-form-urlencoded') {
    return fail(essence === '' ? `it has no Content-Type; send it with ${SEND_INSTEAD}` : `its Content-Type is ${essence}, which the gateway does not read; send it with ${SEND_INSTEAD}`);
  }
  const text = bodyText(bytes.value, charset, isJson);
  if (!text.ok) return text;
  return isJson ? readJson(text.value, essence) : readForm(text.value);
}

function readJson(text: string, essence: string): Decoded<unknown> {
  try {
    return { ok: true, value: parseJson(text) };
  } catch (error) {
    return fail(`it is declared ${essence} but is not valid JSON (${(error as Error).message}); send valid JSON`);
  }
}

function readForm(text: string): Decoded<unknown> {
  if (looksLikeJson(text)) return fail('it is declared a form (application/x-www-form-urlencoded) but is JSON, which services such as GitHub read as JSON; send it with Content-Type: application/json');
  return { ok: true, value: parseForm(text) };
}

function looksLikeJson(text: string): boolean {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object';
  } catch {
    return false;
  }
}

type MediaType = { essence: string; charset?: string; boundary?: string; raw: string };

/** The declared type; a parameter given twice is refused, since parsers keep either the first or the last. */
function mediaType(header: string | undefined): Decoded<MediaType> {
  const raw = header?.trim() ?? '';
  if (raw === '') return { ok: true, value: { essence: '', raw } };
  let mime: MIMEType;
  try {
    mime = new MIMEType(raw);
  } catch {
    return fail(`its Content-Type "${raw}" cannot be parsed; send it with ${SEND_INSTEAD}`);
  }
  const names = [...raw.matchAll(/;\s*([^=;\s]+)\s*=/g)].map((m) => m[1]!.toLowerCase());
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) return fail(`its Content-Type gives "${twice}" more than once; give each parameter once`);
  return { ok: true, value: { essence: mime.essence, charset: mime.params.get('charset') ?? undefined, boundary: mime.params.get('boundary') ?? undefined, raw } };
}
