// The gateway's package routes without Docker: pip's simple API and npm's registry against a local
// index (tests/support/package-index.ts), through a real gateway door (unix socket). What is served,
// what is recorded on the action, the host cache, and every refusal: tampered files, other methods,
// fetching off, names outside the allowed list, paths that try to leave the route, foreign redirects.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PackagesEffect, Task } from '../../shared/domain';
import { Gateway } from '../../main/gateway/gateway';
import { npmRoute } from '../../main/gateway/packages/npm-route';
import { PackageCache } from '../../main/gateway/packages/package-cache';
import type { PackagePolicy } from '../../main/gateway/packages/package-policy';
import { pipRoute } from '../../main/gateway/packages/pip-route';
import { startPackageIndex, type PackageIndex } from '../support/package-index';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let index: PackageIndex;
let gateway: Gateway;
let cacheDir: string;
let policy: PackagePolicy;
const task = (id: string): Task => ({
  id,
  title: 't',
  status: 'running',
  workspaces: [],
  services: [],
  model: 'm',
  answer: null,
  error: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

beforeEach(async () => {
  index = await startPackageIndex();
  cacheDir = join(dirs.make('posthoc-pkgcache-'), 'packages');
  policy = { fetching: 'on', allowed: [], pipIndexUrl: index.pipIndexUrl, npmRegistryUrl: index.npmRegistryUrl, indexMaxAgeMs: 600_000 };
  gateway = newGateway();
});
afterEach(async () => {
  await gateway.closeAll();
  await index.close();
  dirs.cleanup();
});

function newGateway(): Gateway {
  const g = new Gateway(dirs.make('posthoc-gw-'), (id) => task(id));
  const cache = new PackageCache(cacheDir);
  g.route('pip', pipRoute(cache, () => policy));
  g.route('npm', npmRoute(cache, () => policy));
  return g;
}

type Answer = { status: number; reason: string; headers: Record<string, string | string[] | undefined>; body: Buffer };

async function call(g: Gateway, taskId: string, method: string, path: string, headers: Record<string, string> = {}): Promise<{ answer: Answer; effects: PackagesEffect[] }> {
  const door = await g.open(taskId);
  g.beginAction(taskId, `action-${Math.random()}`);
  const answer = await new Promise<Answer>((resolve, reject) => {
    const req = request({ socketPath: `${door.dir}/gateway.sock`, path, method, headers: { host: '127.0.0.1:8080', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
  return { answer, effects: g.endAction(taskId) as PackagesEffect[] };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const blobs = () => (existsSync(join(cacheDir, 'sha256')) ? readdirSync(join(cacheDir, 'sha256'), { recursive: true }).filter((p) => String(p).length > 60) : []);

describe('pip through the gateway', () => {
  it('serves the index page with its links rewritten to the gateway, then the verified file, recorded on the action', async () => {
    const file = index.addWheel('tiny-pkg', '1.2.3', { 'tiny_pkg.py': 'VALUE = 42\n' });
    const page = await call(gateway, 't1', 'GET', '/pip/simple/tiny-pkg/');
    expect(page.answer.status).toBe(200);
    const html = page.answer.body.toString();
    const href = /href="([^"]+)"/.exec(html)![1]!;
    expect(href).toMatch(new RegExp(`^/pip/files/tiny-pkg/${file.replace(/\./g, '\\.')}#sha256=[0-9a-f]{64}$`));
    expect(html).toContain('data-requires-python="&gt;=3.8"');
    expect(html).not.toContain(index.url);
    expect(page.effects).toEqual([]);

    const json = await call(gateway, 't1', 'GET', '/pip/simple/Tiny_Pkg/', { accept: 'application/vnd.pypi.simple.v1+json' });
    const doc = JSON.parse(json.answer.body.toString());
    expect(doc.name).toBe('tiny-pkg');
    expect(doc.files[0]).toMatchObject({ filename: file, url: `/pip/files/tiny-pkg/${file}`, hashes: { sha256: href.split('=')[1] } });

    const got = await call(gateway, 't1', 'GET', href.split('#')[0]!);
    expect(got.answer.status).toBe(200);
    expect(sha256(got.answer.body)).toBe(href.split('=')[1]);
    expect(got.effects).toEqual([
      expect.objectContaining({ channel: 'packages', manager: 'pip', name: 'tiny-pkg', version: '1.2.3', file, source: `${index.url}/files/${file}`, refused: null }),
    ]);
  });

  it('serves a second task from the host cache without asking the upstream anything', async () => {
    const file = index.addWheel('cached-pkg', '0.1.0', { 'cached_pkg.py': 'X = 1\n' });
    await call(gateway, 'first', 'GET', '/pip/simple/cached-pkg/');
    const first = await call(gateway, 'first', 'GET', `/pip/files/cached-pkg/${file}`);
    expect(first.answer.status).toBe(200);
    const before = index.requests.length;
    const other = newGateway();
    try {
      await call(other, 'second', 'GET', '/pip/simple/cached-pkg/');
      const second = await call(other, 'second', 'GET', `/pip/files/cached-pkg/${file}`);
      expect(second.answer.status).toBe(200);
      expect(second.answer.body.equals(first.answer.body)).toBe(true);
      expect(second.effects[0]).toMatchObject({ name: 'cached-pkg', source: 'cache', refused: null });
      expect(index.requests.length).toBe(before);
    } finally {
      await other.closeAll();
    }
  });

  it('refuses a file whose bytes do not match the index hash, and caches nothing', async () => {
    const file = index.addWheel('bad-pkg', '1.0', { 'bad_pkg.py': 'X = 1\n' });
    index.tamper(file);
    const got = await call(gateway, 't1', 'GET', `/pip/files/bad-pkg/${file}`);
    expect(got.answer.status).toBe(502);
    expect(JSON.parse(got.answer.body.toString()).error).toMatch(/does not match the index's hash/);
    expect(got.effects).toEqual([expect.objectContaining({ name: 'bad-pkg', refused: expect.stringMatching(/does not match/) })]);
    expect(blobs()).toEqual([]);
    expect(readdirSync(join(cacheDir, 'tmp'))).toEqual([]);
  });

  it('refuses every method but GET and HEAD, sending nothing upstream', async () => {
    index.addWheel('any-pkg', '1.0', { 'any_pkg.py': '' });
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const got = await call(gateway, 't1', method, '/pip/simple/any-pkg/');
      expect(got.answer.status).toBe(405);
      expect(got.answer.headers.allow).toBe('GET, HEAD');
    }
    expect(index.requests).toEqual([]);
  });

  it('refuses with what to do when fetching is off, or the name is not allowed', async () => {
    index.addWheel('allowed-pkg', '1.0', { 'allowed_pkg.py': '' });
    index.addWheel('other-pkg', '1.0', { 'other_pkg.py': '' });
    policy = { ...policy, fetching: 'off' };
    const off = await call(gateway, 't1', 'GET', '/pip/simple/allowed-pkg/');
    expect(off.answer.status).toBe(403);
    expect(JSON.parse(off.answer.body.toString()).error).toMatch(/Package fetching is turned off in Posthoc's settings.*Ask the person to turn it on/);
    expect(off.effects).toEqual([expect.objectContaining({ manager: 'pip', name: 'allowed-pkg', refused: expect.stringMatching(/turned off/) })]);
    policy = { ...policy, fetching: 'allowed', allowed: ['pip:Allowed_Pkg', 'npm:other-pkg'] };
    expect((await call(gateway, 't1', 'GET', '/pip/simple/allowed-pkg/')).answer.status).toBe(200);
    const outside = await call(gateway, 't1', 'GET', '/pip/simple/other-pkg/');
    expect(outside.answer.status).toBe(403);
    expect(JSON.parse(outside.answer.body.toString()).error).toMatch(/other-pkg is not among the packages the person allows pip to fetch.*add "pip:other-pkg"/);
    expect(index.requests).toEqual(['GET /simple/allowed-pkg/']);
  });

  it('refuses names and paths that try to leave the route, and never fetches a URL the sandbox names', async () => {
    for (const path of [
      '/pip/simple/..%2f..%2fetc/',
      '/pip/simple/%2e%2e/',
      '/pip/files/x/..%2f..%2fsecret',
      `/pip/files/x/${encodeURIComponent('http://127.0.0.1:1/evil.whl')}`,
      '/pip/files/x/a.whl/extra',
      '/pip/simple/',
      '/pip/other',
    ]) {
      const got = await call(gateway, 't1', 'GET', path);
      expect([400, 404]).toContain(got.answer.status);
    }
    expect(index.requests).toEqual([]);
  });

  it('does not follow a file link or a redirect to another origin', async () => {
    const bytes = Buffer.from('not a wheel');
    let foreignHits = 0;
    const foreignServer = createServer((_req, res) => {
      foreignHits++;
      res.end(bytes);
    });
    const foreign = await listen(foreignServer);
    const hash = sha256(bytes);
    const evilServer = createServer((req, res) => {
        if (req.url === '/simple/far/') return res.end(`<a href="${foreign}/far-1.0.tar.gz#sha256=${hash}">far-1.0.tar.gz</a>`);
        if (req.url === '/simple/hop/') return res.end(`<a href="/files/hop-1.0.tar.gz#sha256=${hash}">hop-1.0.tar.gz</a>`);
        if (req.url === '/files/hop-1.0.tar.gz') return res.writeHead(302, { location: `${foreign}/hop-1.0.tar.gz` }).end();
      res.writeHead(404).end();
    });
    const evil = await listen(evilServer);
    try {
      policy = { ...policy, pipIndexUrl: `${evil}/simple` };
      for (const name of ['far', 'hop']) {
        await call(gateway, 't1', 'GET', `/pip/simple/${name}/`);
        const got = await call(gateway, 't1', 'GET', `/pip/files/${name}/${name}-1.0.tar.gz`);
        expect(got.answer.status).toBe(403);
        expect(JSON.parse(got.answer.body.toString()).error).toMatch(/is not the package index's own origin/);
      }
      expect(foreignHits).toBe(0);
    } finally {
      await close(foreignServer);
      await close(evilServer);
    }
  });
});

describe('an upstream that answers too much', () => {
  it('stops reading an index page or packument past 64 MiB, declared or streamed', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const huge = createServer((req, res) => {
      if (req.url?.startsWith('/simple/')) {
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(65 * 1024 * 1024) });
        res.write(chunk);
        return;
      }
      // npm: chunked, no length, 70 MiB unless the reader stops first.
      res.writeHead(200, { 'content-type': 'application/json' });
      let sent = 0;
      const more = () => {
        while (sent < 70 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const url = await listen(huge);
    try {
      policy = { ...policy, pipIndexUrl: `${url}/simple`, npmRegistryUrl: `${url}/npm` };
      const pip = await call(gateway, 't1', 'GET', '/pip/simple/big/');
      expect(pip.answer.status).toBe(502);
      expect(JSON.parse(pip.answer.body.toString()).error).toMatch(/more than the 64 MiB the gateway reads/);
      const npm = await call(gateway, 't1', 'GET', '/npm/big');
      expect(npm.answer.status).toBe(502);
      expect(JSON.parse(npm.answer.body.toString()).error).toMatch(/over the 64 MiB the gateway reads/);
    } finally {
      await close(huge);
    }
  });
});

describe('npm through the gateway', () => {
  it('serves the packument with tarballs pointing at the gateway, then the tarball verified by its integrity', async () => {
    const file = index.addNpm('tiny-npm', '2.0.1', { 'index.js': 'module.exports = 7;\n' });
    const doc = await call(gateway, 't1', 'GET', '/npm/tiny-npm');
    expect(doc.answer.status).toBe(200);
    const packument = JSON.parse(doc.answer.body.toString());
    expect(packument.versions['2.0.1'].dist.tarball).toBe(`http://127.0.0.1:8080/npm/tiny-npm/-/${file}`);
    expect(packument.versions['2.0.1'].dist.integrity).toMatch(/^sha512-/);
    const tgz = await call(gateway, 't1', 'GET', `/npm/tiny-npm/-/${file}`);
    expect(tgz.answer.status).toBe(200);
    expect(tgz.effects).toEqual([expect.objectContaining({ channel: 'packages', manager: 'npm', name: 'tiny-npm', version: '2.0.1', file, refused: null })]);
    const before = index.requests.length;
    const other = newGateway();
    try {
      await call(other, 'second', 'GET', '/npm/tiny-npm');
      const again = await call(other, 'second', 'GET', `/npm/tiny-npm/-/${file}`);
      expect(again.answer.body.equals(tgz.answer.body)).toBe(true);
      expect(again.effects[0]).toMatchObject({ source: 'cache' });
      expect(index.requests.length).toBe(before);
    } finally {
      await other.closeAll();
    }
  });

  it('serves a scoped package, and refuses a tampered tarball, a POST (npm audit) and names outside the route', async () => {
    const file = index.addNpm('@acme/thing', '1.0.0', { 'index.js': 'module.exports = 1;\n' });
    const doc = await call(gateway, 't1', 'GET', '/npm/@acme%2fthing');
    expect(JSON.parse(doc.answer.body.toString()).versions['1.0.0'].dist.tarball).toBe(`http://127.0.0.1:8080/npm/@acme/thing/-/${file}`);
    index.tamper(file);
    const bad = await call(gateway, 't1', 'GET', `/npm/@acme/thing/-/${file}`);
    expect(bad.answer.status).toBe(502);
    expect(JSON.parse(bad.answer.body.toString()).error).toMatch(/does not match the index's hash/);
    expect(blobs()).toEqual([]);
    const requests = index.requests.length;
    const audit = await call(gateway, 't1', 'POST', '/npm/-/npm/v1/security/advisories/bulk');
    expect(audit.answer.status).toBe(405);
    for (const path of ['/npm/..%2f..%2fetc', '/npm/-/v1/search?text=x', `/npm/${encodeURIComponent('http://127.0.0.1:1/x')}`, '/npm/x/-/..%2fy.tgz']) {
      expect([400, 404]).toContain((await call(gateway, 't1', 'GET', path)).answer.status);
    }
    expect(index.requests.length).toBe(requests);
  });

  it('says what to do when the name is not allowed', async () => {
    index.addNpm('left-pad', '1.0.0', { 'index.js': '' });
    policy = { ...policy, fetching: 'allowed', allowed: ['pip:left-pad'] };
    const got = await call(gateway, 't1', 'GET', '/npm/left-pad');
    expect(got.answer.status).toBe(403);
    expect(JSON.parse(got.answer.body.toString()).error).toMatch(/left-pad is not among the packages the person allows npm to fetch.*"npm:left-pad"/);
    expect(index.requests).toEqual([]);
  });
});

describe('an upstream that cannot be reached', () => {
  const PIP_AGENT = 'pip/23.0.1 {"installer":{"name":"pip","version":"23.0.1"}}';

  it('answers pip at once in the shape it prints: a page it warns about naming the reason, a file whose status line gives it', async () => {
    const down = await closedOrigin();
    policy = { ...policy, pipIndexUrl: `${down}/simple` };
    const why = new RegExp(`The package index cannot be reached, so pip gets no page for tiny-pkg: ${down} could not be reached: connection refused`);
    // pip logs a failed index page at debug level only; a page of another Content-Type it warns about, quoting it.
    const page = await call(gateway, 't1', 'GET', '/pip/simple/tiny-pkg/', { 'user-agent': PIP_AGENT });
    expect(page.answer.status).toBe(200);
    expect(page.answer.headers['content-type']).toMatch(/^text\/plain \(Posthoc's gateway, HTTP 502: /);
    expect(page.answer.headers['content-type']).toMatch(why);
    expect(page.answer.headers['content-type']).toMatch(/Try again later, or ask the person to check the package index in Settings \("Packages"\)\)$/);
    expect(page.answer.body.toString()).toMatch(why);
    expect(page.effects).toEqual([expect.objectContaining({ manager: 'pip', name: 'tiny-pkg', refused: expect.stringMatching(why) })]);
    // Any other client gets the status, the reason phrase and the JSON error.
    const curl = await call(gateway, 't1', 'GET', '/pip/simple/tiny-pkg/', { 'user-agent': 'curl/8.0' });
    expect(curl.answer.status).toBe(502);
    expect(curl.answer.reason).toMatch(why);
    expect(JSON.parse(curl.answer.body.toString()).error).toMatch(why);
    // A file: pip prints "HTTP error 502 ... Server Error: REASON for url".
    const file = await call(gateway, 't1', 'GET', '/pip/files/tiny-pkg/tiny_pkg-1.0-py3-none-any.whl', { 'user-agent': PIP_AGENT });
    expect(file.answer.status).toBe(502);
    expect(file.answer.reason).toMatch(why);
  });

  it("puts the policy's refusal and a hash mismatch where pip prints them", async () => {
    policy = { ...policy, fetching: 'off' };
    const page = await call(gateway, 't1', 'GET', '/pip/simple/tiny-pkg/', { 'user-agent': PIP_AGENT });
    expect(page.answer.status).toBe(200);
    expect(page.answer.headers['content-type']).toMatch(/HTTP 403: Package fetching is turned off in Posthoc's settings/);
    const refusedFile = await call(gateway, 't1', 'GET', '/pip/files/tiny-pkg/tiny_pkg-1.0-py3-none-any.whl', { 'user-agent': PIP_AGENT });
    expect(refusedFile.answer.status).toBe(403);
    expect(refusedFile.answer.reason).toMatch(/^Package fetching is turned off in Posthoc's settings/);
    policy = { ...policy, fetching: 'on' };
    const file = index.addWheel('bad-pkg', '1.0', { 'bad_pkg.py': '' });
    index.tamper(file);
    const bad = await call(gateway, 't1', 'GET', `/pip/files/bad-pkg/${file}`, { 'user-agent': PIP_AGENT });
    expect(bad.answer.status).toBe(502);
    expect(bad.answer.reason).toMatch(/^pip bad_pkg-1\.0-py3-none-any\.whl: refused: the downloaded file does not match the index's hash \(its sha256 is [0-9a-f]{64}, the index says [0-9a-f]{64}\)/);
    // A package the index does not have stays a 404 (pip says "No matching distribution" itself).
    expect((await call(gateway, 't1', 'GET', '/pip/simple/no-such-pkg/', { 'user-agent': PIP_AGENT })).answer.status).toBe(404);
  });

  it('answers npm with the JSON error it prints after the status line, which stays the standard one', async () => {
    const down = await closedOrigin();
    policy = { ...policy, npmRegistryUrl: `${down}/npm` };
    const got = await call(gateway, 't1', 'GET', '/npm/tiny-npm', { 'user-agent': 'npm/9.2.0 node/v18.20.4 linux x64' });
    expect(got.answer.status).toBe(502);
    expect(got.answer.reason).toBe('Bad Gateway');
    const why = `The npm registry cannot be reached, so npm gets no metadata for tiny-npm: ${down} could not be reached: connection refused (nothing listens there). Try again later, or ask the person to check the npm registry in Settings ("Packages").`;
    expect(JSON.parse(got.answer.body.toString())).toEqual({ error: why });
    expect(got.effects).toEqual([expect.objectContaining({ manager: 'npm', name: 'tiny-npm', version: '', refused: why })]);
  });
});

/** An origin on 127.0.0.1 where nothing listens (the port was bound, then closed). */
async function closedOrigin(): Promise<string> {
  const server = createServer();
  const url = await listen(server);
  await close(server);
  return url;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
