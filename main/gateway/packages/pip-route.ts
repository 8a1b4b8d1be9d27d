// $POSTHOC_GATEWAY/pip/simple/NAME/ — a PEP 503 (HTML) or PEP 691 (JSON) index page built from the
// upstream's page for NAME, every file link pointing back at $POSTHOC_GATEWAY/pip/files/NAME/FILE; and
// /pip/files/NAME/FILE — that file, looked up in the index page the gateway itself fetched (never a URL
// the sandbox names), verified against its sha256, cached on the host. GET and HEAD only.
import type { GatewayReply, GatewayRoute, RouteContext } from '../gateway';
import type { PackageCache } from './package-cache';
import { normalizePipName, refusal, upstreamRoot, type PackagePolicy } from './package-policy';
import { printable, refusedReply, serveFile } from './serve-file';
import { fetchUpstream, pipFileOrigins, readIndexText, UpstreamRefused } from './upstream';

export type PipFile = { filename: string; url: string; sha256: string | null; requiresPython: string | null; yanked: string | boolean };
type PipIndex = { name: string; files: PipFile[] };
/** Why the gateway has no index page to give, and the status that says so. */
type NoIndex = { status: number; why: string };

const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,198}[A-Za-z0-9])?$/;
const FILENAME = /^[A-Za-z0-9][A-Za-z0-9._+!~-]{0,254}$/;
const JSON_TYPE = 'application/vnd.pypi.simple.v1+json';

export function pipRoute(cache: PackageCache, policy: () => PackagePolicy): GatewayRoute {
  return async (ctx: RouteContext, req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return { ...refusedReply(405, `The package index route only answers GET and HEAD; ${req.method} is refused.`), headers: { allow: 'GET, HEAD' } };
    }
    const parts = req.path.split('/').slice(1);
    const p = policy();
    if (parts[0] === 'simple' && parts.length <= 3 && (parts[2] ?? '') === '') {
      const raw = decode(parts[1] ?? '');
      if (!raw) return refusedReply(404, 'The gateway does not list every package; ask for one: pip install NAME.');
      if (!raw || !NAME.test(raw)) return refusedReply(400, `Not a package name: ${JSON.stringify(raw)}.`);
      const name = normalizePipName(raw);
      const why = refusal(p, 'pip', name);
      const userAgent = String(req.headers['user-agent'] ?? '');
      if (why) {
        ctx.recordEffect({ channel: 'packages', manager: 'pip', name, version: '', source: p.pipIndexUrl, refused: why });
        return pageRefusal(userAgent, { status: 403, why });
      }
      const index = await indexOf(ctx, cache, p, name);
      if ('status' in index) return pageRefusal(userAgent, index);
      return render(index, String(req.headers.accept ?? ''));
    }
    if (parts[0] === 'files' && parts.length === 3) {
      const rawName = decode(parts[1]!);
      const filename = decode(parts[2]!);
      if (!rawName || !NAME.test(rawName) || !filename || !FILENAME.test(filename) || filename.includes('..')) {
        return refusedReply(400, 'Not a package file path: /pip/files/NAME/FILE.');
      }
      const name = normalizePipName(rawName);
      const why = refusal(p, 'pip', name);
      if (why) {
        ctx.recordEffect({ channel: 'packages', manager: 'pip', name, version: versionOf(name, filename), source: p.pipIndexUrl, file: filename, refused: why });
        return refusedReply(403, why, { statusLine: true });
      }
      const index = await indexOf(ctx, cache, p, name);
      if ('status' in index) return refusedReply(index.status, index.why, { statusLine: true });
      const file = index.files.find((f) => f.filename === filename);
      if (!file) return refusedReply(404, `${filename} is not on the index page of ${name}.`, { statusLine: true });
      if (!file.sha256) return refusedReply(403, `The index gives no sha256 for ${filename}, so the gateway cannot verify it and does not fetch it.`, { statusLine: true });
      return serveFile(
        ctx,
        cache,
        {
          manager: 'pip',
          name,
          version: versionOf(name, filename),
          file: filename,
          url: file.url,
          expected: { algorithm: 'sha256', hex: file.sha256 },
          origins: pipFileOrigins(upstreamRoot(p.pipIndexUrl)),
          contentType: 'application/octet-stream',
        },
        req.method === 'HEAD',
      );
    }
    return refusedReply(404, `The pip route serves /pip/simple/NAME/ and its files; ${req.path} is not one. Use pip install NAME (PIP_INDEX_URL is set).`);
  };
}

/**
 * pip shows nothing of an index page it could not get: a 4xx or 5xx is logged at debug level only, and the
 * person reads "from versions: none". It does warn about a page of another Content-Type, quoting the header.
 * So pip (by its User-Agent) gets a page the gateway cannot give as 200 text/plain with the reason in the
 * Content-Type, which it prints and skips; other clients get the status, the reason phrase and the JSON error.
 * A package the index does not have stays a 404 for everyone (pip's own words say it).
 */
function pageRefusal(userAgent: string, no: NoIndex): GatewayReply {
  if (no.status === 404 || !/^pip\//.test(userAgent)) return refusedReply(no.status, no.why, { statusLine: true });
  const refused = refusedReply(no.status, no.why);
  return {
    status: 200,
    headers: { ...refused.headers, 'content-type': `text/plain (Posthoc's gateway, HTTP ${no.status}: ${printable(no.why).replace(/\.$/, '')})` },
    body: `${no.why}\n`,
  };
}

/** The upstream's page for NAME, parsed, from the cache while fresh (or when the upstream is down). */
async function indexOf(ctx: RouteContext, cache: PackageCache, p: PackagePolicy, name: string): Promise<PipIndex | NoIndex> {
  const root = upstreamRoot(p.pipIndexUrl);
  const key = `${root}/${name}/`;
  const cached = await cache.readIndex<PipIndex>('pip', key);
  if (cached && Date.now() - cached.fetchedAt < p.indexMaxAgeMs) return cached.value;
  // Every failure but "no such package" is on the card, in the words the code is given.
  const fail = (status: number, why: string): NoIndex => {
    ctx.recordEffect({ channel: 'packages', manager: 'pip', name, version: '', source: p.pipIndexUrl, refused: why });
    return { status, why };
  };
  const later = 'Try again later, or ask the person to check the package index in Settings ("Packages").';
  let response: Response;
  try {
    response = await fetchUpstream(key, [new URL(root).origin], { accept: `${JSON_TYPE}, text/html;q=0.1`, signal: ctx.signal });
  } catch (error) {
    if (cached) return cached.value;
    if (error instanceof UpstreamRefused) return fail(403, error.message);
    return fail(502, `The package index cannot be reached, so pip gets no page for ${name}: ${(error as Error).message}. ${later}`);
  }
  if (response.status === 404) {
    await response.body?.cancel().catch(() => undefined);
    return { status: 404, why: `${root} has no package ${name}.` };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    if (cached) return cached.value;
    return fail(502, `The package index ${root} answered HTTP ${response.status} for ${name}. ${later}`);
  }
  let text: string;
  try {
    text = await readIndexText(response);
  } catch (error) {
    return fail(502, `The package index ${root} answered for ${name}, but ${(error as Error).message}`);
  }
  const pageUrl = response.url || key;
  const files = (response.headers.get('content-type') ?? '').includes('json') ? parseJson(text, pageUrl) : parseHtml(text, pageUrl);
  const index: PipIndex = { name, files: files.filter((f) => FILENAME.test(f.filename)) };
  await cache.writeIndex('pip', key, index);
  return index;
}

export function parseJson(text: string, pageUrl: string): PipFile[] {
  const page = JSON.parse(text) as { files?: Array<{ filename: string; url: string; hashes?: Record<string, string>; 'requires-python'?: string | null; yanked?: string | boolean }> };
  return (page.files ?? []).map((f) => ({
    filename: f.filename,
    url: new URL(f.url, pageUrl).toString(),
    sha256: normalHash(f.hashes?.sha256),
    requiresPython: f['requires-python'] ?? null,
    yanked: f.yanked ?? false,
  }));
}

/** PEP 503: one anchor per file; its text is the file name, the URL's #sha256= fragment its hash. */
export function parseHtml(text: string, pageUrl: string): PipFile[] {
  const out: PipFile[] = [];
  for (const m of text.matchAll(/<a\s([^>]*)>([^<]*)<\/a>/gi)) {
    const attrs = new Map<string, string>();
    for (const a of m[1]!.matchAll(/([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) attrs.set(a[1]!.toLowerCase(), unescapeHtml(a[2] ?? a[3] ?? ''));
    const href = attrs.get('href');
    if (!href) continue;
    const url = new URL(href, pageUrl);
    const hash = /(?:^|&)sha256=([0-9a-fA-F]{64})(?:&|$)/.exec(url.hash.slice(1));
    url.hash = '';
    const filename = unescapeHtml(m[2]!.trim()) || decodeURIComponent(url.pathname.split('/').pop() ?? '');
    const yanked = attrs.has('data-yanked') ? attrs.get('data-yanked') || true : false;
    out.push({ filename, url: url.toString(), sha256: normalHash(hash?.[1]), requiresPython: attrs.get('data-requires-python') ?? null, yanked });
  }
  return out;
}

function render(index: PipIndex, accept: string): GatewayReply {
  const href = (f: PipFile) => `/pip/files/${encodeURIComponent(index.name)}/${encodeURIComponent(f.filename)}${f.sha256 ? `#sha256=${f.sha256}` : ''}`;
  if (accept.includes(JSON_TYPE)) {
    const body = {
      meta: { 'api-version': '1.0' },
      name: index.name,
      files: index.files.map((f) => ({
        filename: f.filename,
        url: href(f).split('#')[0],
        hashes: f.sha256 ? { sha256: f.sha256 } : {},
        ...(f.requiresPython ? { 'requires-python': f.requiresPython } : {}),
        ...(f.yanked ? { yanked: f.yanked } : {}),
      })),
    };
    return { status: 200, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(body) };
  }
  const links = index.files.map((f) => {
    const rp = f.requiresPython ? ` data-requires-python="${escapeHtml(f.requiresPython)}"` : '';
    const y = f.yanked ? ` data-yanked="${escapeHtml(typeof f.yanked === 'string' ? f.yanked : '')}"` : '';
    return `<a href="${escapeHtml(href(f))}"${rp}${y}>${escapeHtml(f.filename)}</a><br/>`;
  });
  const html = `<!DOCTYPE html>\n<html><head><meta name="pypi:repository-version" content="1.0"><title>Links for ${escapeHtml(index.name)}</title></head><body>\n<h1>Links for ${escapeHtml(index.name)}</h1>\n${links.join('\n')}\n</body></html>\n`;
  return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: html };
}

/** The version in a wheel's or an sdist's file name ('' when it cannot be told). */
export function versionOf(name: string, filename: string): string {
  if (filename.endsWith('.whl')) return filename.split('-')[1] ?? '';
  const stem = filename.replace(/\.(tar\.gz|tar\.bz2|tgz|zip|egg)$/, '');
  const dash = stem.lastIndexOf('-');
  if (dash <= 0 || normalizePipName(stem.slice(0, dash)) !== name) return dash > 0 ? stem.slice(dash + 1) : '';
  return stem.slice(dash + 1);
}

function decode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

function normalHash(h: string | undefined | null): string | null {
  return h && /^[0-9a-fA-F]{64}$/.test(h) ? h.toLowerCase() : null;
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function unescapeHtml(s: string): string {
  return s
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
