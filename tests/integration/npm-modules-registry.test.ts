// The npm registry stand-in (tests/support/npm-modules-registry.ts) serves the real reference MCP servers from
// this repository's node_modules: a real `npm install` on the host, in a temp folder, against it alone,
// installs them with their whole dependency closure, and the installed server runs and lists its tools.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startNpmModulesRegistry, type NpmModulesRegistry } from '../support/npm-modules-registry';
import { tempDirs } from '../support/temp-dir';

const run = promisify(execFile);
const dirs = tempDirs();
let registry: NpmModulesRegistry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
  dirs.cleanup();
});

async function npmInstall(name: string): Promise<string> {
  const dir = dirs.make('posthoc-npm-host-');
  const cache = dirs.make('posthoc-npm-cache-');
  writeFileSync(join(cache, 'npmrc'), '');
  const env = { ...process.env, npm_config_userconfig: join(cache, 'npmrc'), npm_config_cache: join(cache, 'cache') };
  await run('npm', ['install', '--registry', registry!.url, '--no-audit', '--no-fund', '--no-update-notifier', '--ignore-scripts', '--no-package-lock', name], {
    cwd: dir,
    env,
    timeout: 300_000,
  });
  return dir;
}

const version = (dir: string, name: string) => (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

async function toolsOf(bin: string, args: string[]): Promise<string[]> {
  const client = new Client({ name: 'posthoc-test', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, ...args], stderr: 'ignore' }));
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe('npm registry stand-in serving node_modules', () => {
  it('npm install of server-filesystem on the host gets the same versions and a server that runs', async () => {
    registry = await startNpmModulesRegistry(['@modelcontextprotocol/server-filesystem']);
    expect(registry.packages.get('@modelcontextprotocol/sdk')).toBeDefined();
    const dir = await npmInstall('@modelcontextprotocol/server-filesystem');
    for (const name of ['@modelcontextprotocol/server-filesystem', '@modelcontextprotocol/sdk', 'zod', 'minimatch']) {
      expect(version(dir, name)).toBe(version(process.cwd(), name));
    }
    // Every request was a packument or a tarball the stand-in knows.
    expect(registry.requests.every((r) => /^GET \//.test(r))).toBe(true);
    const tarballs = registry.requests.filter((r) => r.endsWith('.tgz'));
    expect(tarballs.length).toBeGreaterThan(20);
    const workspace = dirs.make('posthoc-npm-ws-');
    const tools = await toolsOf(join(dir, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js'), [workspace]);
    expect(tools).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'list_directory']));
  });

  it('npm install of server-memory on the host; a package not installed here is a 404', async () => {
    registry = await startNpmModulesRegistry(['@modelcontextprotocol/server-memory']);
    const dir = await npmInstall('@modelcontextprotocol/server-memory');
    expect(version(dir, '@modelcontextprotocol/server-memory')).toBe(version(process.cwd(), '@modelcontextprotocol/server-memory'));
    const tools = await toolsOf(join(dir, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js'), []);
    expect(tools).toEqual(expect.arrayContaining(['create_entities', 'delete_entities', 'read_graph']));
    const missing = await fetch(`${registry.url}/left-pad`);
    expect(missing.status).toBe(404);
    const tarball = await fetch(`${registry.url}/@modelcontextprotocol/server-memory/-/other-1.0.0.tgz`);
    expect(tarball.status).toBe(404);
  });

  it('serves the same bytes and integrity on every start (the gateway cache keys on them)', async () => {
    registry = await startNpmModulesRegistry(['@modelcontextprotocol/server-memory']);
    const doc1 = (await (await fetch(`${registry.url}/@modelcontextprotocol%2fserver-memory`)).json()) as { versions: Record<string, { dist: { integrity: string; tarball: string } }> };
    await registry.close();
    registry = await startNpmModulesRegistry(['@modelcontextprotocol/server-memory']);
    const doc2 = (await (await fetch(`${registry.url}/@modelcontextprotocol/server-memory`)).json()) as typeof doc1;
    const v = Object.keys(doc1.versions)[0]!;
    expect(doc2.versions[v]!.dist.integrity).toBe(doc1.versions[v]!.dist.integrity);
    expect(doc1.versions[v]!.dist.integrity).toMatch(/^sha512-/);
    // The tarball's entries are under package/ and hold no nested node_modules.
    const bytes = Buffer.from(await (await fetch(doc2.versions[v]!.dist.tarball)).arrayBuffer());
    const list = await new Promise<string>((done, fail) => {
      const child = execFile('tar', ['tzf', '-'], (error, stdout) => (error ? fail(error) : done(stdout)));
      child.stdin!.end(bytes);
    });
    const entries = list.split('\n').filter(Boolean);
    expect(entries).toContain('package/package.json');
    expect(entries.every((e) => e.startsWith('package/') && !e.includes('/node_modules/'))).toBe(true);
  });
});
