// `posthoc mcp sign-in NAME` through the built CLI, against an authorization server on loopback (the SDK's
// router over tests/support's refreshing provider) and an MCP server that accepts only its tokens: the
// command prints the sign-in link and waits; the test plays the browser (the authorization server's
// redirect to the CLI's own loopback listener); the command then says it is signed in with the tools, and a
// later command lists them with the token from the keychain. Hostile: the person denies access (exit 1,
// said in words, still not signed in), Ctrl-C while it waits (it ends, its listener too), a stdio server and
// an unknown name (nothing to sign in to).
// Needs the D-Bus keychain session npm test provides.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpAuthServer, type McpAuthServer } from '../support/mcp-auth-server';
import { startMcpHttpServer, type McpHttpServer } from '../support/mcp-http-server';
import { cliTestbed, runPosthoc } from '../support/posthoc-cli';
import { startPosthoc, until } from '../support/posthoc-process';

const { dirs } = cliTestbed();
let as: McpAuthServer;
let mcp: McpHttpServer;

beforeAll(async () => {
  as = await startMcpAuthServer({ refresh: true });
  mcp = await startMcpHttpServer('never-accepted', { verify: (t) => as.verify(t), authorizationServer: as.issuer });
});
afterAll(async () => {
  await mcp?.close();
  await as?.close();
});

/** A data folder with the server `name` added as a remote server that signs in with OAuth. */
async function withServer(name: string): Promise<string> {
  const data = dirs.make('posthoc-data-');
  const add = await runPosthoc(['mcp', 'add', name, '--url', mcp.url, '--auth', 'oauth', '--data-dir', data]);
  expect(add.code, add.stderr).toBe(0);
  return data;
}

/** Starts `posthoc mcp sign-in NAME` and returns it with the sign-in link it printed. */
async function startSignIn(name: string, data: string) {
  const run = startPosthoc(['mcp', 'sign-in', name, '--data-dir', data], { DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS ?? '' });
  let stdout = '';
  run.child.stdout!.on('data', (d) => (stdout += d));
  let exited = false;
  void run.done.then(() => (exited = true));
  await until(() => exited || /Waiting for you to finish/.test(stdout));
  const link = /^ {2}(http\S+)$/m.exec(stdout)?.[1];
  if (!link) throw new Error(`no sign-in link printed:\n${stdout}\n${(await run.done).stderr}`);
  return { run, link: new URL(link) };
}

describe('posthoc mcp sign-in', () => {
  it('prints the link, waits for the person to finish in the browser, then lists the tools; a later command uses the token', async () => {
    const data = await withServer('wiki');
    const { run, link } = await startSignIn('wiki', data);
    expect(link.origin).toBe(as.issuer);
    expect(link.searchParams.get('code_challenge_method')).toBe('S256');

    // The person signs in: the authorization server redirects the browser to the CLI's listener.
    const authorize = await fetch(link, { redirect: 'manual' });
    const callback = new URL(authorize.headers.get('location')!);
    expect(callback.hostname).toBe('127.0.0.1');
    const page = await fetch(callback);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Posthoc is signed in');

    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/Signed in to wiki: \d+ tools\./);
    expect(as.tokenRequests.filter((r) => r.grant_type === 'authorization_code')).toHaveLength(1);

    // A later command finds the token in the keychain: no link, the tools listed.
    const list = await runPosthoc(['mcp', 'list', '--tools', '--json', '--data-dir', data]);
    expect(list.code, list.stderr).toBe(0);
    const [wiki] = JSON.parse(list.stdout) as Array<{ name: string; tools: Array<{ name: string }> | null; toolsError: string | null }>;
    expect(wiki!.toolsError).toBeNull();
    expect(wiki!.tools!.map((t) => t.name)).toContain('add_note');
    // And sign-in again just says so.
    const again = await runPosthoc(['mcp', 'sign-in', 'wiki', '--data-dir', data]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Already signed in\. Signed in to wiki: \d+ tools\./);

    await runPosthoc(['mcp', 'remove', 'wiki', '--data-dir', data]);
  });

  it('says so, exit 1, when the person denies access, and the server stays not signed in', async () => {
    const data = await withServer('wiki-denied');
    const { run, link } = await startSignIn('wiki-denied', data);
    // The authorization server answers a refusal to the redirect address, with the sign-in's state.
    const denied = new URL(link.searchParams.get('redirect_uri')!);
    denied.searchParams.set('error', 'access_denied');
    denied.searchParams.set('state', link.searchParams.get('state')!);
    const page = await fetch(denied);
    expect(page.status).toBe(403);

    const done = await run.done;
    expect(done.code).toBe(1);
    expect(done.stdout).toContain('The server did not grant access (access_denied). Nothing was signed in; start again and allow access.');
    const list = await runPosthoc(['mcp', 'list', '--tools', '--json', '--data-dir', data]);
    const [server] = JSON.parse(list.stdout) as Array<{ tools: unknown; toolsError: string | null }>;
    expect(server!.tools).toBeNull();
    expect(server!.toolsError).toContain('Sign in to the MCP server wiki-denied');
    await runPosthoc(['mcp', 'remove', 'wiki-denied', '--data-dir', data]);
  });

  it('Ctrl-C while it waits ends it, and its sign-in listener with it', async () => {
    const data = await withServer('wiki-stopped');
    const { run, link } = await startSignIn('wiki-stopped', data);
    const redirect = new URL(link.searchParams.get('redirect_uri')!);
    run.child.kill('SIGINT');
    const done = await run.done;
    expect(done.code).not.toBe(0);
    // Nothing listens for the answer any more: a late sign-in cannot land anywhere.
    expect(await fetch(redirect).then((r) => r.status, () => 'closed')).toBe('closed');
    await runPosthoc(['mcp', 'remove', 'wiki-stopped', '--data-dir', data]);
  });

  it('refuses a server that does not sign in with OAuth, and a name not defined, saying what to do', async () => {
    const data = dirs.make('posthoc-data-');
    const add = await runPosthoc(['mcp', 'add', 'files', '--data-dir', data, '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', dirs.workspace()]);
    expect(add.code, add.stderr).toBe(0);
    const stdio = await runPosthoc(['mcp', 'sign-in', 'files', '--data-dir', data]);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain('files does not sign in with OAuth, so there is nothing to sign in to. Only a server added with --url URL --auth oauth signs in.');
    const unknown = await runPosthoc(['mcp', 'sign-in', 'nowhere', '--data-dir', data]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('No MCP server named nowhere. See the servers defined with: posthoc mcp list.');
  });
});
