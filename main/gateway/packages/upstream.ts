// The package routes' only way to the upstream index: GETs, following a redirect only to an origin the
// route allows (the index's own, and PyPI's files host for PyPI), never anywhere else.

export class UpstreamRefused extends Error {}

const MAX_REDIRECTS = 5;
const TIMEOUT_MS = 120_000;

export async function fetchUpstream(url: string, allowedOrigins: readonly string[], options: { accept?: string; signal: AbortSignal }): Promise<Response> {
  let current = new URL(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (!allowedOrigins.includes(current.origin)) {
      throw new UpstreamRefused(`${current.origin} is not the package index's own origin (${allowedOrigins.join(', ')}); the gateway does not fetch from it.`);
    }
    const response = await fetch(current, {
      method: 'GET',
      redirect: 'manual',
      headers: { accept: options.accept ?? '*/*', 'user-agent': 'posthoc-gateway' },
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(TIMEOUT_MS)]),
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
