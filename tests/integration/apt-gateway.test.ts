// The gateway's Debian route without Docker, against a local archive signed with a test key
// (tests/support/apt-repo.ts: real dpkg-deb packages, dpkg-scanpackages, gpg --clearsign): the signed
// InRelease, the index files it lists, the package files the verified index lists, each recorded on the
// action and cached by content; and every refusal: an unsigned or wrongly signed InRelease, a file the
// signed indexes do not list, a package whose bytes do not match, a redirect elsewhere, a path that tries
// to leave the archive, another suite, another method, an answer larger than the index says.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PackagesEffect, Task } from '../../shared/domain';
import { Gateway } from '../../main/gateway/gateway';
import { aptRoute, type AptSource } from '../../main/gateway/packages/apt-route';
import { PackageCache } from '../../main/gateway/packages/package-cache';
import type { PackagePolicy } from '../../main/gateway/packages/package-policy';
import { startAptRepo, type AptRepo } from '../support/apt-repo';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let repo: AptRepo;
let gateway: Gateway;
let cacheDir: string;
let policy: PackagePolicy;
let source: AptSource;
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
  repo = await startAptRepo();
  cacheDir = join(dirs.make('posthoc-aptcache-'), 'packages');
  policy = { fetching: 'on', allowed: [], pipIndexUrl: 'http://127.0.0.1:9/simple', npmRegistryUrl: 'http://127.0.0.1:9', indexMaxAgeMs: 600_000 };
  source = { mirrorUrl: repo.url, suite: 'bookworm', components: ['main'], arch: 'amd64', keyring: repo.keyring };
  gateway = new Gateway(dirs.make('posthoc-gw-'), (id) => task(id));
  gateway.route('apt', aptRoute(new PackageCache(cacheDir), () => policy, () => source));
});
afterEach(async () => {
  await gateway.closeAll();
  await repo.close();
  dirs.cleanup();
});

type Answer = { status: number; body: Buffer };

async function call(method: string, path: string): Promise<{ answer: Answer; effects: PackagesEffect[]; text: string }> {
  const door = await gateway.open('t1');
  gateway.beginAction('t1', `action-${Math.random()}`);
  const answer = await new Promise<Answer>((resolve, reject) => {
    const req = request({ socketPath: `${door.dir}/gateway.sock`, path, method, headers: { host: '127.0.0.1:8080' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
  return { answer, effects: gateway.endAction('t1') as PackagesEffect[], text: answer.body.toString('utf8') };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const cached = () => (existsSync(join(cacheDir, 'sha256')) ? readdirSync(join(cacheDir, 'sha256'), { recursive: true }).filter((p) => String(p).length > 60) : []);

describe('the apt route', () => {
  it('serves the signed InRelease, the index it lists, and a package the index lists, verified, recorded and cached', async () => {
    const deb = repo.addPackage('hello-posthoc', '1.0', { '/usr/bin/hello-posthoc': { text: '#!/bin/sh\necho hello from apt\n', mode: 0o755 } });
    const release = await call('GET', '/apt/debian/dists/bookworm/InRelease');
    expect(release.answer.status).toBe(200);
    expect(release.text).toContain('-----BEGIN PGP SIGNED MESSAGE-----');
    expect(release.text).toContain('Codename: bookworm');

    const index = await call('GET', '/apt/debian/dists/bookworm/main/binary-amd64/Packages.xz');
    expect(index.answer.status).toBe(200);
    expect(index.effects).toEqual([expect.objectContaining({ manager: 'apt', name: 'main/binary-amd64/Packages.xz', refused: null })]);

    const got = await call('GET', `/apt/debian/${deb}`);
    expect(got.answer.status).toBe(200);
    expect(got.effects).toEqual([
      expect.objectContaining({ channel: 'packages', manager: 'apt', name: 'hello-posthoc', version: '1.0', file: deb.split('/').pop(), source: `${repo.url}/${deb}`, sha256: sha256(got.answer.body), refused: null }),
    ]);
    // A second request is served from the cache: the archive is not asked for the package again.
    const asked = repo.requests.filter((r) => r.includes('.deb')).length;
    const again = await call('GET', `/apt/debian/${deb}`);
    expect(again.effects[0]).toMatchObject({ source: 'cache', refused: null });
    expect(repo.requests.filter((r) => r.includes('.deb')).length).toBe(asked);
  });

  it('serves nothing of an archive whose InRelease is unsigned or signed by a key the keyring lacks', async () => {
    const deb = repo.addPackage('hello-posthoc', '1.0', { '/usr/bin/hello-posthoc': { text: 'x' } });
    repo.unsign();
    const unsigned = await call('GET', '/apt/debian/dists/bookworm/InRelease');
    expect(unsigned.answer.status).toBe(502);
    expect(unsigned.text).toMatch(/not signed by a key Posthoc trusts/);
    expect(unsigned.effects[0]).toMatchObject({ manager: 'apt', refused: expect.stringContaining('not signed') });
    expect((await call('GET', `/apt/debian/${deb}`)).answer.status).toBe(502);

    repo.signWithStranger();
    const stranger = await call('GET', '/apt/debian/dists/bookworm/InRelease');
    expect(stranger.answer.status).toBe(502);
    expect(stranger.text).toMatch(/not signed by a key Posthoc trusts/);
    expect(cached()).toEqual([]);
  });

  it('refuses files the signed indexes do not list, other suites, paths that leave the archive, and other methods', async () => {
    repo.addPackage('hello-posthoc', '1.0', { '/usr/bin/hello-posthoc': { text: 'x' } });
    for (const path of [
      '/apt/debian/dists/bookworm/main/binary-amd64/Packages.bz2',
      '/apt/debian/dists/bookworm/Release',
      '/apt/debian/pool/main/e/evil/evil_1.0_all.deb',
      '/apt/debian/pool/main/h/hello-posthoc/../../../../dists/bookworm/Release',
      '/apt/debian/pool/main/h/hello-posthoc/%2e%2e/%2e%2e/x.deb',
      '/apt/debian/dists/trixie/InRelease',
      '/apt/ubuntu/dists/bookworm/InRelease',
    ]) {
      const got = await call('GET', path);
      expect(got.answer.status, path).toBe(404);
    }
    // Climbing out of the route is refused by the gateway before any route sees it.
    expect((await call('GET', '/apt/../npm/x')).answer.status).toBe(403);
    expect((await call('POST', '/apt/debian/dists/bookworm/InRelease')).answer.status).toBe(405);
    // Nothing was fetched for the refused paths but the InRelease and the index the checks needed.
    expect(repo.requests.every((r) => /InRelease|Packages\.xz/.test(r))).toBe(true);
  });

  it('refuses a package whose bytes do not match the index, and caches nothing of it', async () => {
    const deb = repo.addPackage('hello-posthoc', '1.0', { '/usr/bin/hello-posthoc': { text: 'x' } });
    repo.tamper(deb);
    const tampered = await call('GET', `/apt/debian/${deb}`);
    expect(tampered.answer.status).toBe(502);
    expect(tampered.text).toMatch(/does not match the index's hash/);
    expect(tampered.effects[0]).toMatchObject({ name: 'hello-posthoc', refused: expect.stringContaining('does not match') });
    expect(cached().length).toBe(1); // the verified Packages.xz only
  });

  it('refuses an index file redirected to another origin, connecting nowhere else', async () => {
    repo.addPackage('hello-posthoc', '1.0', { '/usr/bin/hello-posthoc': { text: 'x' } });
    repo.redirect('dists/bookworm/main/binary-amd64/Packages.xz', 'http://127.0.0.2:9/Packages.xz');
    const got = await call('GET', '/apt/debian/dists/bookworm/main/binary-amd64/Packages.xz');
    expect(got.answer.status).toBe(403);
    expect(got.text).toMatch(/is not the package index's own origin/);
  });

  it('refuses everything when package fetching is off, and a package outside the allowed list by name', async () => {
    const deb = repo.addPackage('hello-posthoc', '1.0', { '/usr/bin/hello-posthoc': { text: 'x' } });
    policy = { ...policy, fetching: 'off' };
    expect((await call('GET', '/apt/debian/dists/bookworm/InRelease')).answer.status).toBe(403);
    policy = { ...policy, fetching: 'allowed', allowed: ['apt:make'] };
    expect((await call('GET', '/apt/debian/dists/bookworm/InRelease')).answer.status).toBe(200);
    const refused = await call('GET', `/apt/debian/${deb}`);
    expect(refused.answer.status).toBe(403);
    expect(refused.text).toMatch(/hello-posthoc is not among the packages the person allows apt to fetch/);
    policy = { ...policy, allowed: ['apt:hello-posthoc'] };
    expect((await call('GET', `/apt/debian/${deb}`)).answer.status).toBe(200);
  });
});
