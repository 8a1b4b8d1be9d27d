// A local package index for tests, bound to 127.0.0.1: a PEP 503 simple index (/simple/NAME/, files at
// /files/FILE with their #sha256= fragment) and an npm registry stand-in (/npm-registry/NAME, tarballs
// with dist.integrity sha512 and shasum). It records every request, so a test can assert that a second
// install asked it nothing; a file can be tampered with (served bytes that no longer match the hash).
// Wheels and tarballs are made for real: a wheel with python3's zipfile (METADATA, WHEEL, RECORD), a
// tarball with tar.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Served = { bytes: Buffer; sha256: string; sha1: string; sha512: string };

export type PackageIndex = {
  url: string;
  pipIndexUrl: string;
  npmRegistryUrl: string;
  /** "METHOD PATH" of every request, in order. */
  requests: string[];
  addWheel(name: string, version: string, modules: Record<string, string>): string;
  /** `manifest` adds to package.json (a `bin`, for npx). */
  addNpm(name: string, version: string, files: Record<string, string>, manifest?: Record<string, unknown>): string;
  /** Serve other bytes under this file name from now on (the index keeps the old hash). */
  tamper(file: string): void;
  close(): Promise<void>;
};

export async function startPackageIndex(): Promise<PackageIndex> {
  const files = new Map<string, Served>();
  const wheels = new Map<string, string[]>();
  const npm = new Map<string, Map<string, { file: string; manifest: Record<string, unknown> }>>();
  const requests: string[] = [];
  const work = mkdtempSync(join(tmpdir(), 'posthoc-pkgidx-'));
  let url = '';
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    const send = (status: number, type: string, body: Buffer | string) => res.writeHead(status, { 'content-type': type }).end(body);
    let m: RegExpExecArray | null;
    if ((m = /^\/simple\/([^/]+)\/$/.exec(path))) {
      const list = wheels.get(m[1]!);
      if (!list) return send(404, 'text/plain', 'no such project');
      const links = list.map((f) => `<a href="../../files/${f}#sha256=${files.get(f)!.sha256}" data-requires-python="&gt;=3.8">${f}</a><br/>`);
      return send(200, 'text/html', `<!DOCTYPE html><html><body>${links.join('\n')}</body></html>`);
    }
    if ((m = /^\/files\/([^/]+)$/.exec(path)) && files.has(m[1]!)) return send(200, 'application/octet-stream', files.get(m[1]!)!.bytes);
    if ((m = /^\/npm-registry\/(@[^/]+\/[^/]+|[^/@][^/]*)$/.exec(path))) {
      const versions = npm.get(m[1]!);
      if (!versions) return send(404, 'application/json', '{"error":"Not found"}');
      const doc = {
        name: m[1],
        'dist-tags': { latest: [...versions.keys()].at(-1) },
        versions: Object.fromEntries(
          [...versions].map(([v, { file }]) => {
            const f = files.get(file)!;
            const dist = { tarball: `${url}/npm-registry/${m![1]}/-/${file}`, shasum: f.sha1, integrity: `sha512-${f.sha512}` };
            return [v, { name: m![1], version: v, dist, ...versions.get(v)!.manifest }];
          }),
        ),
      };
      return send(200, 'application/json', JSON.stringify(doc));
    }
    if ((m = /^\/npm-registry\/.+\/-\/([^/]+)$/.exec(path)) && files.has(m[1]!)) return send(200, 'application/octet-stream', files.get(m[1]!)!.bytes);
    send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const add = (file: string, bytes: Buffer) =>
    files.set(file, {
      bytes,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      sha1: createHash('sha1').update(bytes).digest('hex'),
      sha512: createHash('sha512').update(bytes).digest('base64'),
    });
  return {
    url,
    pipIndexUrl: `${url}/simple`,
    npmRegistryUrl: `${url}/npm-registry`,
    requests,
    addWheel(name, version, modules) {
      const file = `${name.replace(/-/g, '_')}-${version}-py3-none-any.whl`;
      const out = join(work, file);
      const script = `
import base64, hashlib, json, sys, zipfile
out, name, version, modules = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
dist = name.replace('-', '_') + '-' + version + '.dist-info'
entries = dict(modules)
entries[dist + '/METADATA'] = 'Metadata-Version: 2.1\\nName: %s\\nVersion: %s\\n' % (name, version)
entries[dist + '/WHEEL'] = 'Wheel-Version: 1.0\\nGenerator: posthoc-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n'
record = []
for path, text in entries.items():
    data = text.encode()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
    record.append('%s,sha256=%s,%d' % (path, digest, len(data)))
record.append(dist + '/RECORD,,')
entries[dist + '/RECORD'] = '\\n'.join(record) + '\\n'
with zipfile.ZipFile(out, 'w') as z:
    for path, text in entries.items():
        z.writestr(path, text)
`;
      execFileSync('python3', ['-c', script, out, name, version, JSON.stringify(modules)]);
      add(file, readFileSync(out));
      wheels.set(name, [...(wheels.get(name) ?? []), file]);
      return file;
    },
    addNpm(name, version, contents, manifest = {}) {
      const base = name.split('/').pop()!;
      const file = `${base}-${version}.tgz`;
      const dir = join(work, `${base}-${version}`);
      mkdirSync(join(dir, 'package'), { recursive: true });
      writeFileSync(join(dir, 'package', 'package.json'), JSON.stringify({ name, version, main: 'index.js', ...manifest }));
      for (const [p, text] of Object.entries(contents)) writeFileSync(join(dir, 'package', p), text);
      execFileSync('tar', ['czf', join(work, file), '-C', dir, 'package']);
      add(file, readFileSync(join(work, file)));
      const versions = npm.get(name) ?? new Map();
      versions.set(version, { file, manifest });
      npm.set(name, versions);
      return file;
    },
    tamper(file) {
      const f = files.get(file)!;
      const bytes = Buffer.concat([f.bytes, Buffer.from('tampered')]);
      files.set(file, { ...f, bytes });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(work, { recursive: true, force: true });
    },
  };
}
