// $POSTHOC_GATEWAY/npm/NAME — the registry's packument for NAME (abbreviated), every version's
// dist.tarball pointing back at $POSTHOC_GATEWAY/npm/NAME/-/FILE.tgz; and that tarball, looked up in
// the packument the gateway itself fetched, verified against dist.integrity (sha512) or dist.shasum,
// cached on the host. GET and HEAD only; audit, search and the rest of the registry's API are refused.
import type { GatewayReply, GatewayRoute, RouteContext } from '../gateway';
import type { ExpectedHash, PackageCache } from './package-cache';
import { refusal, upstreamRoot, type PackagePolicy } from './package-policy';
import { refusedReply, serveFile } from './serve-file';
import { fetchUpstream, readIndexText, UpstreamRefused } from './upstream';

type Dist = { tarball?: string; integrity?: string; shasum?: string };
type Packument = { name?: string; versions?: Record<string, { dist?: Dist } & Record<string, unknown>> } & Record<string, unknown>;

const NAME = /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/i;
const TARBALL = /^[A-Za-z0-9][A-Za-z0-9._+~-]*\.tgz$/;
const ACCEPT = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8';
/** Where the sandbox reaches the gateway (POSTHOC_GATEWAY), when the request's Host is not a loopback one. */
const SANDBOX_ORIGIN = 'http://127.0.0.1:8080';

export function npmRoute(cache: PackageCache, policy: () => PackagePolicy): GatewayRoute {
  return async (ctx: RouteContext, req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return {
        ...refusedReply(405, `The npm route only answers GET and HEAD; ${req.method} ${req.path} is refused (npm audit and publish do not pass).`),
        headers: { allow: 'GET, HEAD' },
      };
    }
    const p = policy();
    const raw = req.path.slice(1);
    const dash = raw.indexOf('/-/');
    const namePart = dash >= 0 ? raw.slice(0, dash) : raw;
    const name = decode(namePart);
    if (!name || name.length > 214 || !NAME.test(name) || name.includes('..') || name.startsWith('-/')) {
      return refusedReply(404, `The npm route serves packuments (/npm/NAME) and their tarballs; ${req.path} is not one. Use npm install NAME (the registry is set).`);
    }
    const why = refusal(p, 'npm', name);
    if (dash < 0) {
      if (why) {
        ctx.recordEffect({ channel: 'packages', manager: 'npm', name, version: '', source: p.npmRegistryUrl, refused: why });
        return refusedReply(403, why);
      }
      const got = await packumentOf(ctx, cache, p, name);
      if ('reply' in got) return got.reply;
      const doc = got.doc;
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(rewrite(doc, name, gatewayOrigin(req.headers.host))) };
    }
    const file = decode(raw.slice(dash + 3));
    if (!file || !TARBALL.test(file) || file.includes('..')) return refusedReply(400, `Not a tarball name: ${raw.slice(dash + 3)}.`);
    if (why) {
      ctx.recordEffect({ channel: 'packages', manager: 'npm', name, version: '', source: p.npmRegistryUrl, file, refused: why });
      return refusedReply(403, why);
    }
    const got = await packumentOf(ctx, cache, p, name);
    if ('reply' in got) return got.reply;
    const doc = got.doc;
    const found = Object.entries(doc.versions ?? {}).find(([, v]) => v.dist?.tarball && basename(v.dist.tarball) === file);
    if (!found) return refusedReply(404, `${file} is not a tarball of ${name} in the registry's packument.`);
    const [version, meta] = found;
    const expected = expectedHash(meta.dist!);
    if (!expected) return refusedReply(403, `The registry gives no integrity (sha512) or shasum for ${name}@${version}, so the gateway cannot verify it and does not fetch it.`);
    const root = upstreamRoot(p.npmRegistryUrl);
    return serveFile(
      ctx,
      cache,
      { manager: 'npm', name, version, file, url: new URL(meta.dist!.tarball!, `${root}/`).toString(), expected, origins: [new URL(root).origin], contentType: 'application/octet-stream' },
      req.method === 'HEAD',
    );
  };
}

async function packumentOf(ctx: RouteContext, cache: PackageCache, p: PackagePolicy, name: string): Promise<{ doc: Packument } | { reply: GatewayReply }> {
  const root = upstreamRoot(p.npmRegistryUrl);
  const url = `${root}/${name.startsWith('@') ? name.replace('/', '%2f') : encodeURIComponent(name)}`;
  const cached = await cache.readIndex<Packument>('npm', url);
  if (cached && Date.now() - cached.fetchedAt < p.indexMaxAgeMs) return { doc: cached.value };
  // Every failure but "no such package" is on the card; npm prints the JSON body's `error` after the status.
  const fail = (status: number, why: string): { reply: GatewayReply } => {
    ctx.recordEffect({ channel: 'packages', manager: 'npm', name, version: '', source: p.npmRegistryUrl, refused: why });
    return { reply: refusedReply(status, why) };
  };
  const later = 'Try again later, or ask the person to check the npm registry in Settings ("Packages").';
  let response: Response;
  try {
    response = await fetchUpstream(url, [new URL(root).origin], { accept: ACCEPT, signal: ctx.signal });
  } catch (error) {
    if (cached) return { doc: cached.value };
    if (error instanceof UpstreamRefused) return fail(403, error.message);
    return fail(502, `The npm registry cannot be reached, so npm gets no metadata for ${name}: ${(error as Error).message}. ${later}`);
  }
  if (response.status === 404) {
    await response.body?.cancel().catch(() => undefined);
    return { reply: refusedReply(404, `${root} has no package ${name}.`) };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    if (cached) return { doc: cached.value };
    return fail(502, `The npm registry ${root} answered HTTP ${response.status} for ${name}. ${later}`);
  }
  let doc: Packument;
  try {
    doc = JSON.parse(await readIndexText(response)) as Packument;
  } catch (error) {
    return fail(502, `The npm registry's answer for ${name} is unusable: ${(error as Error).message}`);
  }
  await cache.writeIndex('npm', url, doc);
  return { doc };
}

/** A copy whose tarball URLs point at the gateway; versions whose tarball has no usable name are left out. */
function rewrite(doc: Packument, name: string, origin: string): Packument {
  const versions: NonNullable<Packument['versions']> = {};
  for (const [v, meta] of Object.entries(doc.versions ?? {})) {
    const file = meta.dist?.tarball ? basename(meta.dist.tarball) : '';
    if (!TARBALL.test(file)) continue;
    versions[v] = { ...meta, dist: { ...meta.dist, tarball: `${origin}/npm/${name}/-/${file}` } };
  }
  return { ...doc, versions };
}

function expectedHash(dist: Dist): ExpectedHash | null {
  for (const part of (dist.integrity ?? '').split(/\s+/)) {
    const m = /^sha512-([A-Za-z0-9+/=]+)$/.exec(part);
    if (m) {
      const hex = Buffer.from(m[1]!, 'base64').toString('hex');
      if (hex.length === 128) return { algorithm: 'sha512', hex };
    }
  }
  if (dist.shasum && /^[0-9a-f]{40}$/i.test(dist.shasum)) return { algorithm: 'sha1', hex: dist.shasum.toLowerCase() };
  return null;
}

/** The origin tarball URLs name: the Host the sandbox used when it is a loopback one, else POSTHOC_GATEWAY's. */
function gatewayOrigin(host: string | undefined): string {
  return host && /^(127\.0\.0\.1|localhost)(:\d{1,5})?$/.test(host) ? `http://${host}` : SANDBOX_ORIGIN;
}

function basename(url: string): string {
  try {
    return decodeURIComponent(new URL(url, 'http://x/').pathname.split('/').pop() ?? '');
  } catch {
    return '';
  }
}

function decode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}
