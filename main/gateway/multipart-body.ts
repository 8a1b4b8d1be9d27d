// A multipart/form-data body as name/value pairs for the rules. The values come from Node's own parser
// (the fetch standard's, through Response.formData); a second, plain look at the same bytes then refuses
// what services read differently: parts that parser skipped or named otherwise, text around the parts, an
// extended or repeated name, a part's own Content-Transfer-Encoding or charset. A file part's content is
// a value of its name too: some servers (Python's cgi) read it so.
import type { Decoded } from './body-decode';

export type FormPairs = Array<[string, string]>;

const fail = (why: string): { ok: false; why: string } => ({ ok: false, why });
const PLAIN_TRANSFER = new Set(['7bit', '8bit', 'binary']);
const UTF8_LABELS = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii']);

export async function readMultipart(body: Buffer, contentType: string, boundary: string): Promise<Decoded<FormPairs>> {
  let entries: Array<[string, string | Blob]>;
  try {
    const form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
    entries = [...form.entries()] as Array<[string, string | Blob]>;
  } catch {
    return fail('it is not valid multipart/form-data (every part needs a Content-Disposition: form-data with a name, each line ends in CRLF, and the last boundary closes it)');
  }
  const parts = partHeads(body, boundary);
  if (typeof parts === 'string') return fail(parts);
  if (parts.length !== entries.length) return fail(`it holds ${parts.length} parts but ${entries.length} read as form fields; send plain form-data parts`);
  const pairs: FormPairs = [];
  for (const [i, [name, value]] of entries.entries()) {
    const problem = headProblem(parts[i]!, name);
    if (problem) return fail(`its part ${i + 1} ${problem}; send plain form-data parts (name="…", no transfer encoding, UTF-8)`);
    pairs.push([name, typeof value === 'string' ? value : await value.text()]);
  }
  return { ok: true, value: pairs };
}

/** The header block of each part, or why the body around the parts is not plain. */
function partHeads(body: Buffer, boundary: string): string[] | string {
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  // The first delimiter may start the body (no CRLF before it).
  const first = body.indexOf(delimiter.subarray(2));
  if (first !== 0 && body.subarray(0, first).toString('latin1').trim() !== '') return 'has text before its first boundary, which some services read as a part';
  const heads: string[] = [];
  let at = first + delimiter.length - 2;
  for (;;) {
    if (body[at] === 0x2d && body[at + 1] === 0x2d) {
      const epilogue = body.subarray(at + 2).toString('latin1');
      return epilogue.trim() === '' ? heads : 'has text after its closing boundary, which some services read as more parts';
    }
    const end = body.indexOf('\r\n\r\n', at);
    const next = end < 0 ? -1 : body.indexOf(delimiter, end + 2);
    if (next < 0) return 'has a part that is not closed by a boundary';
    heads.push(body.subarray(at + 2, end).toString('utf8'));
    at = next + delimiter.length;
  }
}

/** Why a part's header block may be read differently than Node's parser read it (as `name`), or null. */
function headProblem(head: string, name: string): string | null {
  const fields = head.split('\r\n').map((line) => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const;
  });
  const dispositions = fields.filter(([key]) => key === 'content-disposition');
  if (dispositions.length !== 1) return `has ${dispositions.length} Content-Disposition headers`;
  const disposition = dispositions[0]![1];
  const names = [...disposition.matchAll(/(?:^|;)\s*(name\*?)\s*=/gi)].map((m) => m[1]!.toLowerCase());
  if (names.length !== 1 || names[0] !== 'name') return `gives its name ${names.length === 1 ? 'in the extended form (name*=)' : `${names.length} times`}`;
  if (/[\\%]/.test(disposition)) return 'has a backslash or percent escape in its Content-Disposition';
  const raw = /(?:^|;)\s*name\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(disposition);
  if ((raw?.[1] ?? raw?.[2]) !== name) return 'has a name other parsers read differently';
  for (const [key, value] of fields) {
    if (key === 'content-transfer-encoding' && !PLAIN_TRANSFER.has(value.toLowerCase())) return `has Content-Transfer-Encoding: ${value}`;
    const charset = key === 'content-type' ? /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(value)?.[1] : undefined;
    if (charset !== undefined && !UTF8_LABELS.has(charset.toLowerCase())) return `declares charset=${charset}`;
  }
  return null;
}
