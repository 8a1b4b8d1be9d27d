// The packaged renderer is served from app://posthoc/ rather than file://: a file: page shares its origin
// with every file on the disk, so trusting "any file: URL" trusted whatever a link or a download could
// open. The handler serves only files under out/renderer, with the CSP on every answer.
import type { Protocol } from 'electron';
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { APP_HOST, APP_SCHEME, CONTENT_SECURITY_POLICY } from './security';
import { rendererContentType } from '../ipc/renderer-files';

export { APP_ENTRY_URL, APP_HOST, APP_ORIGIN, APP_SCHEME } from './security';

/**
 * The file under `root` that an app:// URL names, or undefined: another scheme or host, a `..` segment,
 * an absolute or drive path, a backslash or NUL (encoded or not) all name nothing. Lexical only; servedFile
 * also resolves links.
 */
export function appPathOf(root: string, raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (path === '' || path === '/') path = '/index.html';
  if (!path.startsWith('/') || path.startsWith('//')) return undefined;
  const rel = path.slice(1);
  if (rel.includes('\0') || rel.includes('\\') || isAbsolute(rel) || /^[a-zA-Z]:/.test(rel)) return undefined;
  if (rel.split('/').some((segment) => segment === '..' || segment === '.' || segment === '')) return undefined;
  const file = join(root, rel);
  const inside = relative(root, file);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return undefined;
  return file;
}

/** appPathOf, then the real path (links resolved) must still be a regular file inside the real root. */
export async function servedFile(root: string, raw: string): Promise<string | undefined> {
  const file = appPathOf(root, raw);
  if (!file) return undefined;
  try {
    const [realRoot, realFile] = await Promise.all([realpath(root), realpath(file)]);
    if (!realFile.startsWith(realRoot + sep)) return undefined;
    return (await stat(realFile)).isFile() ? realFile : undefined;
  } catch {
    return undefined;
  }
}

/** The answer to one app:// request: the file with its type and the CSP, or a plain 404. */
export async function answerAppRequest(root: string, raw: string): Promise<Response> {
  const file = await servedFile(root, raw);
  if (!file) return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } });
  return new Response(await readFile(file), {
    status: 200,
    headers: {
      'content-type': rendererContentType(file),
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
    },
  });
}

/** Before the app is ready: app:// is a standard, secure scheme (origin, fetch, storage like https). */
export function registerAppScheme(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

/** After ready: every app:// request answered from `root` only. */
export function serveAppScheme(protocol: Pick<Protocol, 'handle'>, root: string): void {
  protocol.handle(APP_SCHEME, (request) => answerAppRequest(root, request.url));
}
