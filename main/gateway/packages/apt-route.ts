// $POSTHOC_GATEWAY/apt/debian — Debian's archive for the sandbox's apt, through the one door. Served:
//   dists/SUITE/InRelease            fetched from the mirror and verified with gpgv against the person's keyring
//                                    (apt-index.ts); passed on as it came
//   dists/SUITE/PATH                 only a file the verified InRelease lists (by-hash names too), checked
//                                    against its SHA-256 and size, cached by content
//   pool/…                           only a file a verified Packages index lists, checked against its SHA-256
// and nothing else: no other suite, no other path, GET and HEAD only, redirects only within the mirror's origin.
// Every file served or refused is a PackagesEffect on the running action (manager "apt"). The sandbox's
// apt-get (image/posthoc-apt: packages are unpacked into the task's own environment, never into the image or
// a granted folder) trusts this route, which is where the signature is checked.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { GatewayReply, GatewayRoute, RouteContext } from '../gateway';
import { AptIndexRefused, indexText, parsePackages, parseRelease, safePath, verifiedText, type PoolFile, type Release } from './apt-index';
import type { PackageCache } from './package-cache';
import { refusal, upstreamRoot, type PackagePolicy } from './package-policy';
import { refusedReply, serveFile } from './serve-file';
import { fetchUpstream, readIndexText, UpstreamRefused } from './upstream';

/** Where and what the route fetches (settings: the mirror, the keyring; the suite is the image's release). */
export type AptSource = {
  /** The archive's root, e.g. http://deb.debian.org/debian */
  mirrorUrl: string;
  /** The one suite served: the sandbox image's release. */
  suite: string;
  components: readonly string[];
  /** Debian's name of the machine's architecture (amd64, arm64). */
  arch: string;
  /** The keyring gpgv checks InRelease against. */
  keyring: string;
};

/** The sandbox image's Debian release (main/sandbox/sandbox-image.ts builds bookworm). */
export const DEFAULT_APT_SUITE = 'bookworm';
export const DEFAULT_APT_MIRROR = 'http://deb.debian.org/debian';
export const DEFAULT_APT_KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg';
export const APT_ENV = { mirrorUrl: 'POSTHOC_APT_MIRROR_URL', keyring: 'POSTHOC_APT_KEYRING' } as const;

/** The largest index the route decompresses and parses (Debian main's Packages is about 45 MiB). */
const MAX_INDEX_TEXT = 256 * 1024 * 1024;

export function debianArch(nodeArch: string = process.arch): string {
  return ({ x64: 'amd64', arm64: 'arm64', arm: 'armhf', ia32: 'i386', ppc64: 'ppc64el', s390x: 's390x' } as Record<string, string>)[nodeArch] ?? nodeArch;
}

export function aptRoute(cache: PackageCache, policy: () => PackagePolicy, source: () => AptSource): GatewayRoute {
  const pools = new Map<string, Map<string, PoolFile>>();
  return async (ctx: RouteContext, req) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return { ...refusedReply(405, `The apt route only answers GET and HEAD; ${req.method} ${req.path} is refused.`, { statusLine: true }), headers: { allow: 'GET, HEAD' } };
    }
    const s = source();
    const p = policy();
    const path = decodePath(req.path);
    if (path === null || !path.startsWith('debian/') || !safePath(path.slice('debian/'.length))) {
      return refusedReply(404, `The apt route serves Debian's archive at /apt/debian (dists/${s.suite}/… and pool/…); ${req.path} is not in it.`, { statusLine: true });
    }
    const rest = path.slice('debian/'.length);
    const distsPrefix = `dists/${s.suite}/`;
    if (rest.startsWith('dists/') && !rest.startsWith(distsPrefix)) {
      return refusedReply(404, `The apt route serves only ${s.suite}, the sandbox's own Debian release; ${rest.split('/')[1]} is not served.`, { statusLine: true });
    }
    if (rest === `${distsPrefix}InRelease`) return inRelease(ctx, cache, p, s, req.method === 'HEAD');
    if (rest.startsWith(distsPrefix)) return listedIndex(ctx, cache, p, s, rest.slice(distsPrefix.length), req.method === 'HEAD');
    if (rest.startsWith('pool/')) return poolFile(ctx, cache, p, s, pools, rest, req.method === 'HEAD');
    return refusedReply(404, `The apt route serves dists/${s.suite}/… and pool/…; ${rest} is neither.`, { statusLine: true });
  };
}

type Verified = { raw: string; release: Release };

/** The suite's InRelease, verified (cached while the policy's index age allows, like pip's and npm's pages). */
async function verifiedRelease(ctx: RouteContext, cache: PackageCache, p: PackagePolicy, s: AptSource): Promise<Verified | { reply: GatewayReply }> {
  const root = upstreamRoot(s.mirrorUrl);
  const url = `${root}/dists/${s.suite}/InRelease`;
  const cached = await cache.readIndex<{ raw: string; signed: string }>('apt', `${url}\0${s.keyring}`);
  if (cached && Date.now() - cached.fetchedAt < p.indexMaxAgeMs) return { raw: cached.value.raw, release: parseRelease(cached.value.signed) };
  let raw: string;
  try {
    const response = await fetchUpstream(url, [new URL(root).origin], { signal: ctx.signal });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new AptIndexRefused(`the mirror answered HTTP ${response.status} for dists/${s.suite}/InRelease`);
    }
    raw = await readIndexText(response);
  } catch (error) {
    if (cached) return { raw: cached.value.raw, release: parseRelease(cached.value.signed) };
    const why = error instanceof UpstreamRefused || error instanceof AptIndexRefused ? error.message : `the Debian mirror ${root} did not answer (${(error as Error).message})`;
    return { reply: refuse(ctx, 502, `InRelease of ${s.suite}`, root, why) };
  }
  let signed: string;
  try {
    signed = await verifiedText(Buffer.from(raw, 'utf8'), s.keyring);
  } catch (error) {
    return { reply: refuse(ctx, 502, `InRelease of ${s.suite}`, url, `${(error as Error).message}; nothing of the archive is served until it is. Tell the person: the mirror (${root}) or the keyring (${s.keyring}) is not the right one, or the mirror was tampered with.`) };
  }
  const release = parseRelease(signed);
  if (release.codename !== s.suite && release.suite !== s.suite) {
    return { reply: refuse(ctx, 502, `InRelease of ${s.suite}`, url, `the signed InRelease is for ${release.codename ?? release.suite ?? 'another suite'}, not ${s.suite}`) };
  }
  await cache.writeIndex('apt', `${url}\0${s.keyring}`, { raw, signed });
  return { raw, release };
}

async function inRelease(ctx: RouteContext, cache: PackageCache, p: PackagePolicy, s: AptSource, head: boolean): Promise<GatewayReply> {
  if (p.fetching === 'off') return refuse(ctx, 403, `InRelease of ${s.suite}`, s.mirrorUrl, refusal(p, 'apt', "Debian's archive")!);
  const got = await verifiedRelease(ctx, cache, p, s);
  if ('reply' in got) return got.reply;
  return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: head ? '' : got.raw };
}

/** An index file the verified InRelease lists: by its path, or by its hash (Acquire-By-Hash). */
async function listedIndex(ctx: RouteContext, cache: PackageCache, p: PackagePolicy, s: AptSource, rel: string, head: boolean): Promise<GatewayReply> {
  if (p.fetching === 'off') return refuse(ctx, 403, rel, s.mirrorUrl, refusal(p, 'apt', "Debian's archive")!);
  const got = await verifiedRelease(ctx, cache, p, s);
  if ('reply' in got) return got.reply;
  const entry = listed(got.release, rel);
  if (!entry) return refuse(ctx, 404, rel, s.mirrorUrl, `dists/${s.suite}/${rel} is not listed in the signed InRelease, so the gateway does not fetch it`);
  const root = upstreamRoot(s.mirrorUrl);
  // By hash when the archive offers it: the path's file may change under a mirror update, its hash never.
  const upstream = got.release.acquireByHash ? `${dirOf(entry.path)}by-hash/SHA256/${entry.sha256}` : entry.path;
  return serveFile(
    ctx,
    cache,
    {
      manager: 'apt',
      name: entry.path,
      version: s.suite,
      file: entry.path.split('/').pop()!,
      url: `${root}/dists/${s.suite}/${upstream}`,
      expected: { algorithm: 'sha256', hex: entry.sha256 },
      origins: [new URL(root).origin],
      contentType: 'application/octet-stream',
    },
    head,
  );
}

/** A package file a verified Packages index lists. */
async function poolFile(
  ctx: RouteContext,
  cache: PackageCache,
  p: PackagePolicy,
  s: AptSource,
  pools: Map<string, Map<string, PoolFile>>,
  rel: string,
  head: boolean,
): Promise<GatewayReply> {
  const got = await verifiedRelease(ctx, cache, p, s);
  if ('reply' in got) return got.reply;
  const root = upstreamRoot(s.mirrorUrl);
  let file: PoolFile | undefined;
  for (const component of s.components) {
    const index = await packagesOf(ctx, cache, s, got.release, component, pools);
    if ('reply' in index) return index.reply;
    file = index.files.get(rel);
    if (file) break;
  }
  if (!file) return refuse(ctx, 404, rel, root, `${rel} is not in ${s.suite}'s signed Packages index (${s.components.join(', ')}), so the gateway does not fetch it`);
  const why = refusal(p, 'apt', file.name);
  if (why) return refuse(ctx, 403, rel, root, why, file);
  return serveFile(
    ctx,
    cache,
    {
      manager: 'apt',
      name: file.name,
      version: file.version,
      file: rel.split('/').pop()!,
      url: `${root}/${rel}`,
      expected: { algorithm: 'sha256', hex: file.sha256 },
      origins: [new URL(root).origin],
      contentType: 'application/vnd.debian.binary-package',
    },
    head,
  );
}

/**
 * A component's Packages index (the compressed form the InRelease lists), verified by its hash, parsed once
 * per content and kept (by its SHA-256) while the route lives.
 */
async function packagesOf(
  ctx: RouteContext,
  cache: PackageCache,
  s: AptSource,
  release: Release,
  component: string,
  pools: Map<string, Map<string, PoolFile>>,
): Promise<{ files: Map<string, PoolFile> } | { reply: GatewayReply }> {
  const base = `${component}/binary-${s.arch}/Packages`;
  const entry = ['.xz', '.gz', ''].map((ext) => listed(release, `${base}${ext}`)).find((e) => e !== null);
  if (!entry) return { reply: refuse(ctx, 502, base, s.mirrorUrl, `the signed InRelease lists no ${base} index`) };
  const known = pools.get(entry.sha256);
  if (known) return { files: known };
  const root = upstreamRoot(s.mirrorUrl);
  let hit = await cache.lookup({ algorithm: 'sha256', hex: entry.sha256 });
  if (!hit) {
    const upstream = release.acquireByHash ? `${dirOf(entry.path)}by-hash/SHA256/${entry.sha256}` : entry.path;
    try {
      const response = await fetchUpstream(`${root}/dists/${s.suite}/${upstream}`, [new URL(root).origin], { signal: ctx.signal });
      if (!response.ok || !response.body) {
        await response.body?.cancel().catch(() => undefined);
        throw new AptIndexRefused(`the mirror answered HTTP ${response.status} for ${entry.path}`);
      }
      hit = await cache.store(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), { algorithm: 'sha256', hex: entry.sha256 }, MAX_INDEX_TEXT);
    } catch (error) {
      return { reply: refuse(ctx, 502, entry.path, root, `the Packages index could not be fetched and verified (${(error as Error).message})`) };
    }
  }
  let files: Map<string, PoolFile>;
  try {
    files = parsePackages(await indexText(entry.path, cache.open(hit.sha256), MAX_INDEX_TEXT));
  } catch (error) {
    return { reply: refuse(ctx, 502, entry.path, root, (error as Error).message) };
  }
  pools.clear();
  pools.set(entry.sha256, files);
  return { files };
}

function listed(release: Release, rel: string): { path: string; sha256: string; size: number } | null {
  const direct = release.files.get(rel);
  if (direct) return { path: rel, ...direct };
  const m = /^(.*\/)by-hash\/SHA256\/([0-9a-f]{64})$/.exec(rel);
  if (!m) return null;
  for (const [path, f] of release.files) if (f.sha256 === m[2] && dirOf(path) === m[1]) return { path, ...f };
  return null;
}

function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i + 1);
}

function refuse(ctx: RouteContext, status: number, what: string, source: string, why: string, file?: PoolFile): GatewayReply {
  ctx.recordEffect({ channel: 'packages', manager: 'apt', name: file?.name ?? what, version: file?.version ?? '', source, file: what.split('/').pop(), refused: why });
  // apt prints the status line's reason phrase, not the body: the reason goes there.
  return refusedReply(status, `apt ${what}: ${why}`, { statusLine: true });
}

function decodePath(raw: string): string | null {
  try {
    return decodeURIComponent(raw.replace(/^\/+/, ''));
  } catch {
    return null;
  }
}
