// One package file to the sandbox: from the host cache when it holds a file with the index's hash,
// else fetched from the upstream, verified against that hash, cached, then served. Every file served
// or refused is a PackagesEffect on the running action.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { PackagesEffect } from '../../../shared/domain';
import type { GatewayReply, RouteContext } from '../gateway';
import { HashMismatch, type ExpectedHash, type PackageCache } from './package-cache';
import type { PackageManager } from './package-policy';
import { fetchUpstream, UpstreamRefused } from './upstream';

/** The largest package file the gateway fetches (it is written to the cache, never held in memory). */
export const MAX_PACKAGE_FILE = 2 * 1024 * 1024 * 1024;

export type PackageFile = {
  manager: PackageManager;
  name: string;
  version: string;
  file: string;
  url: string;
  expected: ExpectedHash;
  /** Where a redirect of the file's URL may lead. */
  origins: readonly string[];
  contentType: string;
};

export async function serveFile(ctx: RouteContext, cache: PackageCache, f: PackageFile, head: boolean): Promise<GatewayReply> {
  const base = { channel: 'packages' as const, manager: f.manager, name: f.name, version: f.version, file: f.file };
  const refuse = (status: number, why: string, source = f.url): GatewayReply => {
    const effect: PackagesEffect = { ...base, source, refused: why };
    ctx.recordEffect(effect);
    // npm prints the JSON body's `error` after the status line: the reason there would be said twice.
    return refusedReply(status, `${f.manager} ${f.file}: ${why}`, { statusLine: f.manager !== 'npm' });
  };
  let hit = await cache.lookup(f.expected);
  // HEAD fetches nothing (the answer's length is the empty body's: the gateway sets it).
  if (head) return { status: 200, headers: { 'content-type': f.contentType }, body: '' };
  let source = 'cache';
  if (!hit) {
    source = f.url;
    let response: Response;
    try {
      response = await fetchUpstream(f.url, f.origins, { signal: ctx.signal, kind: 'file' });
    } catch (error) {
      if (error instanceof UpstreamRefused) return refuse(403, error.message);
      return refuse(502, `nothing was downloaded: ${(error as Error).message}. Try again later, or ask the person to check the package index in Settings ("Packages").`);
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => undefined);
      return refuse(response.status === 404 ? 404 : 502, `the package index answered HTTP ${response.status}.`);
    }
    try {
      hit = await cache.store(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), f.expected, MAX_PACKAGE_FILE);
    } catch (error) {
      if (error instanceof HashMismatch) {
        return refuse(502, `refused: the downloaded file does not match the index's hash (${error.message}); it was not cached or served. The index or a proxy on the way may have been tampered with; tell the person.`);
      }
      return refuse(502, `the download failed (${(error as Error).message}).`);
    }
  }
  ctx.recordEffect({ ...base, source, sha256: hit.sha256, bytes: hit.bytes, refused: null });
  return { status: 200, headers: { 'content-type': f.contentType, 'content-length': String(hit.bytes) }, body: cache.open(hit.sha256) };
}

/**
 * A refusal in the shape package managers print: npm prints the JSON body's `error`; pip and apt print the
 * status line's reason phrase, which `statusLine` sets to the message (printable ASCII, cut at 1,000 characters).
 */
export function refusedReply(status: number, message: string, options: { statusLine?: boolean } = {}): GatewayReply {
  return {
    status,
    ...(options.statusLine ? { reason: printable(message) } : {}),
    headers: { 'x-posthoc-refused': encodeURIComponent(message).slice(0, 2000) },
    body: { error: message },
  };
}

/** The message as a status line or header may carry it: printable ASCII, common typography spelt in ASCII. */
export function printable(message: string, max = 1000): string {
  const ascii = message
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\u2026/g, '...')
    .replace(/\s+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '?');
  return ascii.length > max ? `${ascii.slice(0, max - 3)}...` : ascii;
}
