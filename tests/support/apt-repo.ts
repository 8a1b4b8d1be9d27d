// A local Debian archive for tests, bound to 127.0.0.1, signed with a key made for the test (gpg in a fresh
// GNUPGHOME): dists/SUITE/InRelease (clearsigned Release listing main/binary-ARCH/Packages and .xz) and pool/
// with real .deb files built by dpkg-deb. So the gateway's apt route (and apt-get in the sandbox through it)
// meet the real formats and a real signature. It records every request; the hostile cases tamper with it:
// an unsigned InRelease, one signed by another key, a package whose bytes no longer match the index, a
// redirect to another origin.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type AptRepo = {
  /** The archive's root (the gateway's mirror setting). */
  url: string;
  /** A keyring gpgv accepts, holding the test key's public half. */
  keyring: string;
  requests: string[];
  /** Builds a package (files under their absolute paths, e.g. /usr/bin/tool) into pool/ and signs the suite again. */
  addPackage(name: string, version: string, files: Record<string, { text: string; mode?: number }>, depends?: string): string;
  /** Serves InRelease without its signature (a Release in clear text only). */
  unsign(): void;
  /** Signs InRelease with another key than the one in `keyring`. */
  signWithStranger(): void;
  /** Serves other bytes for this pool file from now on (the index keeps the old hash). */
  tamper(poolPath: string): void;
  /** Redirects this path to another origin. */
  redirect(path: string, to: string): void;
  close(): Promise<void>;
};

export async function startAptRepo(suite = 'bookworm', arch = 'amd64'): Promise<AptRepo> {
  const work = mkdtempSync(join(tmpdir(), 'posthoc-aptrepo-'));
  const root = join(work, 'archive');
  const gnupg = join(work, 'gnupg');
  const stranger = join(work, 'gnupg-stranger');
  for (const d of [root, gnupg, stranger]) mkdirSync(d, { recursive: true, mode: 0o700 });
  const gpg = (home: string, args: string[], input?: string) => execFileSync('gpg', ['--batch', '--homedir', home, ...args], { input, stdio: ['pipe', 'pipe', 'pipe'] });
  for (const [home, who] of [[gnupg, 'Posthoc Test Archive <archive@posthoc.invalid>'], [stranger, 'Stranger <stranger@posthoc.invalid>']] as const) {
    gpg(home, ['--passphrase', '', '--quick-gen-key', who, 'ed25519', 'sign', 'never']);
  }
  const keyring = join(work, 'test-archive.gpg');
  writeFileSync(keyring, gpg(gnupg, ['--export']));
  const tampered = new Set<string>();
  const redirects = new Map<string, string>();
  let signer: 'archive' | 'stranger' | 'none' = 'archive';
  const requests: string[] = [];

  const sign = () => {
    const dists = join(root, 'dists', suite);
    const bin = join(dists, 'main', `binary-${arch}`);
    mkdirSync(bin, { recursive: true });
    mkdirSync(join(root, 'pool'), { recursive: true });
    const packages = execFileSync('dpkg-scanpackages', ['--multiversion', 'pool', '/dev/null'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    writeFileSync(join(bin, 'Packages'), packages);
    rmSync(join(bin, 'Packages.xz'), { force: true });
    execFileSync('xz', ['-k', join(bin, 'Packages')]);
    const listed = ['Packages', 'Packages.xz'].map((f) => {
      const bytes = readFileSync(join(bin, f));
      return ` ${createHash('sha256').update(bytes).digest('hex')} ${bytes.length} main/binary-${arch}/${f}`;
    });
    const release = [
      'Origin: Posthoc test',
      'Suite: stable',
      `Codename: ${suite}`,
      `Date: ${new Date().toUTCString()}`,
      `Architectures: ${arch}`,
      'Components: main',
      'Acquire-By-Hash: no',
      'SHA256:',
      ...listed,
      '',
    ].join('\n');
    writeFileSync(join(dists, 'Release'), release);
    rmSync(join(dists, 'InRelease'), { force: true });
    if (signer === 'none') writeFileSync(join(dists, 'InRelease'), release);
    else gpg(signer === 'archive' ? gnupg : stranger, ['--clearsign', '--output', join(dists, 'InRelease'), join(dists, 'Release')]);
  };

  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!).replace(/^\/+/, '');
    const to = redirects.get(path);
    if (to) return void res.writeHead(302, { location: to }).end();
    const file = join(root, path);
    if (path.split('/').includes('..') || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end('not found');
    const body = tampered.has(path) ? Buffer.concat([readFileSync(file), Buffer.from('tampered')]) : readFileSync(file);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) }).end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  sign();

  return {
    url: `http://127.0.0.1:${port}`,
    keyring,
    requests,
    addPackage(name, version, files, depends) {
      const pkg = join(work, `build-${name}-${version}`);
      mkdirSync(join(pkg, 'DEBIAN'), { recursive: true });
      const control = [`Package: ${name}`, `Version: ${version}`, 'Architecture: all', 'Maintainer: Posthoc tests <tests@posthoc.invalid>', `Description: ${name} for Posthoc's apt tests`];
      if (depends) control.push(`Depends: ${depends}`);
      writeFileSync(join(pkg, 'DEBIAN', 'control'), `${control.join('\n')}\n`);
      for (const [abs, f] of Object.entries(files)) {
        const target = join(pkg, abs);
        mkdirSync(join(target, '..'), { recursive: true });
        writeFileSync(target, f.text);
        chmodSync(target, f.mode ?? 0o644);
      }
      const rel = `pool/main/${name[0]}/${name}/${name}_${version}_all.deb`;
      mkdirSync(join(root, rel, '..'), { recursive: true });
      execFileSync('dpkg-deb', ['--root-owner-group', '--build', pkg, join(root, rel)], { stdio: 'ignore' });
      sign();
      return rel;
    },
    unsign() {
      signer = 'none';
      sign();
    },
    signWithStranger() {
      signer = 'stranger';
      sign();
    },
    tamper(poolPath) {
      tampered.add(poolPath);
    },
    redirect(path, to) {
      redirects.set(path, to);
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(work, { recursive: true, force: true });
    },
  };
}
