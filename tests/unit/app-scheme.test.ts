// The app:// handler that serves the packaged renderer: only files under out/renderer, with the CSP;
// `..`, absolute paths, other hosts and links out of the folder name nothing. Run with the renderer
// folder owned by root and by uid 1000.
import { chownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerAppRequest, appPathOf, APP_SCHEME, registerAppScheme, servedFile, serveAppScheme } from '../../main/app/app-scheme';
import { APP_ENTRY_URL, CONTENT_SECURITY_POLICY } from '../../main/app/security';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

function rendererDir(uid: number | null): { root: string; outside: string } {
  const base = dirs.make('posthoc-app-scheme-');
  const root = join(base, 'renderer');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>Posthoc</title>');
  writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
  const outside = join(base, 'secret.txt');
  writeFileSync(outside, 'not for the renderer');
  symlinkSync(outside, join(root, 'assets', 'link.txt'));
  symlinkSync('/etc', join(root, 'etc'));
  if (uid !== null) for (const p of [base, root, join(root, 'assets'), join(root, 'index.html'), join(root, 'assets', 'app.js')]) chownSync(p, uid, uid);
  return { root, outside };
}

const REFUSED = [
  'app://posthoc/../secret.txt',
  'app://posthoc/%2e%2e/secret.txt',
  'app://posthoc/assets/%2e%2e/%2e%2e/secret.txt',
  'app://posthoc/assets/..%2f..%2fsecret.txt',
  'app://posthoc/..%5csecret.txt',
  'app://posthoc//etc/passwd',
  'app://posthoc/%2fetc%2fpasswd',
  'app://posthoc/C:/Windows/win.ini',
  'app://posthoc/index.html%00.js',
  'app://posthoc/assets/',
  'app://posthoc/%E0%A4%A',
  'app://other/index.html',
  'app://posthoc:1/index.html',
  'file:///etc/passwd',
  'https://posthoc/index.html',
  'not a url',
];

describe.each([
  ['root', null],
  ['uid 1000', 1000],
])('app:// handler (renderer folder owned by %s)', (_owner, uid) => {
  it('serves index.html for the entry URL and for /, with its type and the CSP', async () => {
    const { root } = rendererDir(uid);
    for (const url of [APP_ENTRY_URL, 'app://posthoc/', 'app://posthoc']) {
      const res = await answerAppRequest(root, url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(await res.text()).toContain('<title>Posthoc</title>');
    }
    const js = await answerAppRequest(root, 'app://posthoc/assets/app.js?v=1#x');
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(await js.text()).toBe('console.log(1)');
  });

  it.each(REFUSED)('refuses %j with a 404', async (url) => {
    const { root } = rendererDir(uid);
    expect(appPathOf(root, url) === undefined || (await servedFile(root, url)) === undefined).toBe(true);
    const res = await answerAppRequest(root, url);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('Not found');
  });

  it('refuses `..` and absolute paths before touching the disk', () => {
    const { root } = rendererDir(uid);
    expect(appPathOf(root, 'app://posthoc/..%2fsecret.txt')).toBeUndefined();
    expect(appPathOf(root, 'app://posthoc/assets/%2e%2e%2f%2e%2e%2fsecret.txt')).toBeUndefined();
    // A `..` the URL parser resolves itself stays at the folder's top: it names a file inside, or nothing.
    expect(appPathOf(root, 'app://posthoc/%2e%2e/%2e%2e/secret.txt')).toBe(join(root, 'secret.txt'));
    expect(appPathOf(root, 'app://posthoc//etc/passwd')).toBeUndefined();
    expect(appPathOf(root, 'app://posthoc/%2fetc%2fpasswd')).toBeUndefined();
    expect(appPathOf(root, 'app://posthoc/assets/app.js')).toBe(join(root, 'assets', 'app.js'));
  });

  it('refuses links that lead out of the folder, and folders', async () => {
    const { root } = rendererDir(uid);
    expect(await servedFile(root, 'app://posthoc/assets/link.txt')).toBeUndefined();
    expect(await servedFile(root, 'app://posthoc/etc/passwd')).toBeUndefined();
    expect(await servedFile(root, 'app://posthoc/assets')).toBeUndefined();
    expect((await answerAppRequest(root, 'app://posthoc/nope.js')).status).toBe(404);
  });
});

describe('app:// registration', () => {
  it('registers app as a standard, secure scheme and answers requests from the given folder', async () => {
    const registerSchemesAsPrivileged = vi.fn();
    registerAppScheme({ registerSchemesAsPrivileged });
    expect(registerSchemesAsPrivileged).toHaveBeenCalledWith([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

    const { root } = rendererDir(null);
    const handle = vi.fn();
    serveAppScheme({ handle } as never, root);
    expect(handle).toHaveBeenCalledWith(APP_SCHEME, expect.any(Function));
    const handler = handle.mock.calls[0]![1] as (request: Request) => Promise<Response>;
    expect((await handler(new Request('http://x/index.html'))).status).toBe(404);
    expect(await (await handler({ url: APP_ENTRY_URL } as Request)).text()).toContain('<title>Posthoc</title>');
  });
});
