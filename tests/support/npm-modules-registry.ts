// A local npm registry stand-in for tests, bound to 127.0.0.1, serving REAL packages from this repository's
// node_modules: for each root package (e.g. @modelcontextprotocol/server-filesystem) it walks the dependency
// closure as installed — each dependency resolved the way Node does, from the dependent's own folder up
// (nested node_modules first) — and serves a packument for every package name met (every installed version
// of it, with dist.tarball, dist.integrity sha512 and dist.shasum) and the tarballs, each installed folder
// packed as npm packs (entries under `package/`, the package's own files: its nested node_modules left out,
// bundled dependencies kept). So `npm install` / `npx -y ROOT` against it — on the host, or in the sandbox
// through the gateway's npm route — installs the real package with no traffic off the machine.
// Tarballs are packed on first request and are byte-stable (sorted entries, fixed mtime and owner, gzip with
// no name or time), so the same package keeps the same integrity across runs and the gateway's cache holds.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

type Manifest = Record<string, unknown> & {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  bundleDependencies?: string[] | boolean;
  bundledDependencies?: string[] | boolean;
};
type Installed = { dir: string; manifest: Manifest; file: string };
type Packed = { bytes: Buffer; sha1: string; sha512: string };

export type NpmModulesRegistry = {
  /** The registry's root URL (npm's --registry; POSTHOC_NPM_REGISTRY_URL for the gateway). */
  url: string;
  /** "METHOD PATH" of every request, in order. */
  requests: string[];
  /** name → the installed versions served. */
  packages: ReadonlyMap<string, readonly string[]>;
  close(): Promise<void>;
};

/**
 * Serves `roots` and their installed dependency closure. `from` is the folder whose node_modules the roots
 * are resolved from (the repository by default).
 */
export async function startNpmModulesRegistry(roots: readonly string[], from = resolve(__dirname, '..', '..')): Promise<NpmModulesRegistry> {
  const byName = new Map<string, Map<string, Installed>>();
  const latest = new Map<string, string>();
  const seen = new Set<string>();
  const walk = (name: string, fromDir: string, required: boolean): void => {
    const dir = resolvePackage(name, fromDir);
    if (!dir) {
      if (required) throw new Error(`npm-modules-registry: ${name} (needed from ${fromDir}) is not installed in node_modules.`);
      return;
    }
    if (seen.has(dir)) return;
    seen.add(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    const base = manifest.name.split('/').pop()!;
    const versions = byName.get(manifest.name) ?? new Map<string, Installed>();
    if (!versions.has(manifest.version)) versions.set(manifest.version, { dir, manifest, file: `${base}-${manifest.version}.tgz` });
    byName.set(manifest.name, versions);
    if (!latest.has(manifest.name)) latest.set(manifest.name, manifest.version);
    const bundled = bundledOf(manifest);
    for (const dep of Object.keys(manifest.dependencies ?? {})) if (!bundled.includes(dep)) walk(dep, dir, true);
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) if (!bundled.includes(dep)) walk(dep, dir, false);
    for (const dep of Object.keys(manifest.peerDependencies ?? {})) walk(dep, dir, manifest.peerDependenciesMeta?.[dep]?.optional !== true);
  };
  for (const root of roots) walk(root, from, true);

  const packed = new Map<string, Promise<Packed>>();
  const packOf = (pkg: Installed): Promise<Packed> => {
    let p = packed.get(pkg.dir);
    if (!p) {
      p = pack(pkg);
      packed.set(pkg.dir, p);
    }
    return p;
  };

  const requests: string[] = [];
  let url = '';
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const send = (status: number, type: string, body: Buffer | string) => res.writeHead(status, { 'content-type': type }).end(req.method === 'HEAD' ? undefined : body);
    void (async () => {
      let path: string;
      try {
        path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
      } catch {
        return send(400, 'text/plain', 'bad path');
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'application/json', '{"error":"method not allowed"}');
      let m: RegExpExecArray | null;
      if ((m = /^\/(@[^/]+\/[^/]+|[^/@][^/]*)\/-\/([^/]+\.tgz)$/.exec(path))) {
        const pkg = [...(byName.get(m[1]!)?.values() ?? [])].find((p) => p.file === m![2]);
        if (!pkg) return send(404, 'application/json', '{"error":"Not found"}');
        return send(200, 'application/octet-stream', (await packOf(pkg)).bytes);
      }
      if ((m = /^\/(@[^/]+\/[^/]+|[^/@][^/]*)$/.exec(path))) {
        const name = m[1]!;
        const versions = byName.get(name);
        if (!versions) return send(404, 'application/json', '{"error":"Not found"}');
        const entries = await Promise.all(
          [...versions.values()].map(async (pkg) => {
            const p = await packOf(pkg);
            const dist = { tarball: `${url}/${name}/-/${pkg.file}`, shasum: p.sha1, integrity: `sha512-${p.sha512}` };
            const { devDependencies: _dev, ...manifest } = pkg.manifest;
            return [pkg.manifest.version, { ...manifest, dist }] as const;
          }),
        );
        return send(200, 'application/json', JSON.stringify({ name, 'dist-tags': { latest: latest.get(name) }, versions: Object.fromEntries(entries) }));
      }
      send(404, 'application/json', '{"error":"Not found"}');
    })().catch((error: unknown) => {
      if (!res.headersSent) send(500, 'text/plain', (error as Error).message);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    requests,
    packages: new Map([...byName].map(([name, versions]) => [name, [...versions.keys()]])),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** Node's lookup: FROM/node_modules/NAME, then each parent folder's node_modules. */
function resolvePackage(name: string, fromDir: string): string | null {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    if (!dir.endsWith('/node_modules')) {
      const candidate = join(dir, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    }
    if (dirname(dir) === dir) return null;
  }
}

function bundledOf(manifest: Manifest): string[] {
  const b = manifest.bundleDependencies ?? manifest.bundledDependencies;
  if (b === true) return Object.keys(manifest.dependencies ?? {});
  return Array.isArray(b) ? b : [];
}

/** The installed folder as an npm tarball: its files under package/, nested node_modules out except bundled ones. */
async function pack(pkg: Installed): Promise<Packed> {
  const bundled = bundledOf(pkg.manifest);
  const args = ['--create', '--format=ustar', '--sort=name', '--mtime=1985-10-26 08:15:00Z', '--owner=0', '--group=0', '--numeric-owner', '--mode=u+rw,go+r,go-w'];
  args.push('--transform=s,^\\.,package,', '-C', pkg.dir);
  // Top-level node_modules excluded, bundled dependencies put back in explicitly.
  args.push('--exclude=./node_modules', '.');
  for (const dep of bundled) if (existsSync(join(pkg.dir, 'node_modules', dep))) args.push(`./node_modules/${dep}`);
  const tar = await new Promise<Buffer>((done, fail) =>
    execFile('tar', args, { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024 }, (error, stdout) => (error ? fail(error) : done(stdout))),
  );
  const bytes = gzipSync(tar, { level: 9 });
  return { bytes, sha1: createHash('sha1').update(bytes).digest('hex'), sha512: createHash('sha512').update(bytes).digest('base64') };
}
