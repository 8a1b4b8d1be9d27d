// The package routes' only way to the upstream index: GETs, following a redirect only to an origin the
// route allows (the index's own, and PyPI's files host for PyPI), never anywhere else.

export class UpstreamRefused extends Error {}

const MAX_REDIRECTS = 5;
/** An index page or packument must arrive within this; a package file (read to the end) within FILE_TIMEOUT_MS. */
export const INDEX_TIMEOUT_MS = 120_000;
export const FILE_TIMEOUT_MS = 30 * 60_000;
/** The largest index page or packument the gateway reads (they are parsed in memory). */
export const MAX_INDEX_BYTES = 64 * 1024 * 1024;

export async function fetchUpstream(
  url: string,
  allowedOrigins: readonly string[],
  options: { accept?: string; signal: AbortSignal; timeoutMs?: number },
): Promise<Response> {
  let current = new URL(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (!allowedOrigins.includes(current.origin)) {
      throw new UpstreamRefused(`${current.origin} is not the package index's own origin (${allowedOrigins.join(', ')}); the gateway does not fetch from it.`);
    }
    const response = await fetch(current, {
      method: 'GET',
      redirect: 'manual',
      headers: { accept: options.accept ?? '*/*', 'user-agent': 'posthoc-gateway' },
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs ?? INDEX_TIMEOUT_MS)]),
    });
    if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
      await response.body?.cancel().catch(() => undefined);
      current = new URL(response.headers.get('location')!, current);
      continue;
    }
    return response;
  }
  throw new UpstreamRefused(`more than ${MAX_REDIRECTS} redirects from ${url}`);
}

/** The origins files may come from: the index's, and files.pythonhosted.org when the index is PyPI's. */
export function pipFileOrigins(indexRoot: string): string[] {
  const index = new URL(indexRoot);
  return index.hostname === 'pypi.org' ? [index.origin, 'https://files.pythonhosted.org'] : [index.origin];
}

/** The body as text, refused (UpstreamRefused) past MAX_INDEX_BYTES without reading the rest. */
export async function readIndexText(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > MAX_INDEX_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw new UpstreamRefused(`the index answered ${declared} bytes, more than the ${MAX_INDEX_BYTES / 1024 / 1024} MiB the gateway reads.`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  for (;;) {
    const next = reader ? await reader.read() : { done: true as const, value: undefined };
    if (next.done) break;
    size += next.value.length;
    if (size > MAX_INDEX_BYTES) {
      await reader?.cancel().catch(() => undefined);
      throw new UpstreamRefused(`the index's answer is over the ${MAX_INDEX_BYTES / 1024 / 1024} MiB the gateway reads.`);
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
