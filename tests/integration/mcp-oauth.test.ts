// A remote MCP server that signs in with OAuth, per the MCP authorization spec, against the SDK's own
// authorization server on loopback (dynamic client registration, PKCE S256 checked at the token endpoint)
// and an MCP server that accepts only the tokens it issued: the first connection finds the authorization
// server from the protected resource metadata, registers Posthoc, and fails with the sign-in link (the
// browser opened on it); a forged answer to the loopback callback is ignored; the person's sign-in lands
// on the callback, the code is exchanged, the tokens go to the real keychain as oauth:mcp-NAME:…; the next
// connection lists and calls the tools with that token, which the task's redactor heard first. Against an
// authorization server that refreshes (the SDK's router over tests/support's RefreshingProvider): an expired
// access token is refreshed without the person (rotated tokens back in the keychain, the redactor hearing
// them first); a refused refresh sends the person to sign in again.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerDefinition } from '../../shared/domain/mcp';
import { HttpMcpConnector } from '../../main/effects/mcp/http-connector';
import { ServiceRegistry } from '../../main/gateway/service-registry';
import { McpCredentials } from '../../main/services/mcp-credentials';
import { mcpTokenSecret } from '../../main/services/mcp-oauth';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { Vault } from '../../main/vault/vault';
import { startMcpAuthServer, type McpAuthServer } from '../support/mcp-auth-server';
import { startMcpHttpServer, type McpHttpServer } from '../support/mcp-http-server';
import { tempDirs } from '../support/temp-dir';

const vault = new Vault(`dev.posthoc.test-mcp-oauth-${randomUUID()}`);
const dirs = tempDirs();
let db: AppDatabase;
let as: McpAuthServer;
let mcp: McpHttpServer;
let credentials: McpCredentials;
let connector: HttpMcpConnector;
const opened: string[] = [];
const heard: string[] = [];
const revoked = new Set<string>();

function server(): McpServerDefinition {
  return { name: 'notes', transport: { kind: 'http', url: mcp.url, auth: { kind: 'oauth' } }, rules: { deny: [], hold: [], noInverse: 'allow' }, api: null, createdAt: new Date().toISOString() };
}

beforeAll(async () => {
  as = await startMcpAuthServer();
  mcp = await startMcpHttpServer('never-accepted', { verify: async (t) => !revoked.has(t) && (await as.verify(t)), authorizationServer: as.issuer });
  db = openDatabase(dirs.make());
  credentials = new McpCredentials(vault, new ServiceRegistry(db), { openExternal: async (url) => (opened.push(url), true) });
  connector = new HttpMcpConnector({ credentials, onSecret: (_task, secret) => heard.push(secret) });
});

afterAll(async () => {
  credentials?.signIns.close();
  for (const s of (await vault.status()).secrets) await vault.remove(s.name);
  db?.close();
  await mcp?.close();
  await as?.close();
  dirs.cleanup();
});

describe('a remote MCP server that signs in with OAuth', () => {
  it('registers, sends the person to sign in, exchanges the code on the loopback callback, and connects with the token', async () => {
    const first = await connector.connect(server(), { taskId: 't1', workspaces: [] }).catch((e: Error) => e);
    expect(first).toBeInstanceOf(Error);
    expect(opened).toHaveLength(1);
    const signIn = new URL(opened[0]!);
    expect((first as Error).message).toBe(`Sign in to the MCP server notes (${mcp.url}) in your browser: ${signIn.href} — then try again (the sign-in waits 5 minutes while Posthoc runs; in a terminal, posthoc mcp sign-in notes waits for it).`);
    // Found through the server's protected resource metadata, registered dynamically, PKCE S256, the resource named.
    expect(signIn.origin).toBe(as.issuer);
    expect(as.registrations).toHaveLength(1);
    expect(as.registrations[0]).toMatchObject({ client_name: 'Posthoc', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] });
    expect(signIn.searchParams.get('code_challenge_method')).toBe('S256');
    expect(signIn.searchParams.get('resource')).toBe(mcp.url);
    const redirect = new URL(signIn.searchParams.get('redirect_uri')!);
    expect(`${redirect.protocol}//${redirect.hostname}${redirect.pathname}`).toBe('http://127.0.0.1/callback');
    expect(await vault.get(mcpTokenSecret.access('notes'))).toBeNull();

    // A forged answer (another state) is refused; the sign-in keeps waiting.
    const forged = new URL(redirect);
    forged.searchParams.set('code', 'forged');
    forged.searchParams.set('state', 'not-the-state');
    const refused = await fetch(forged);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('does not match the sign-in Posthoc started');
    expect(as.tokenRequests).toEqual([]);

    // The person signs in: the browser follows the authorization server's redirect to the callback.
    const authorize = await fetch(signIn, { redirect: 'manual' });
    const callback = new URL(authorize.headers.get('location')!);
    expect(callback.origin).toBe(redirect.origin);
    const page = await fetch(callback);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Posthoc is signed in');
    expect(as.tokenRequests).toHaveLength(1);
    expect(as.tokenRequests[0]).toMatchObject({ grant_type: 'authorization_code', resource: mcp.url });
    expect(as.tokenRequests[0]!.code_verifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
    const access = await vault.get(mcpTokenSecret.access('notes'));
    expect(access).toBeTruthy();
    // The callback answers once: the listener is gone after the sign-in.
    expect(await fetch(callback).then((r) => r.status, () => 'closed')).toBe('closed');

    const before = mcp.requests.length;
    const connection = await connector.connect(server(), { taskId: 't2', workspaces: [] });
    try {
      const { tools } = await connection.use((c) => c.listTools());
      expect(tools.map((t) => t.name)).toContain('add_note');
      const added = await connection.use((c) => c.callTool({ name: 'add_note', arguments: { text: 'signed in' } }));
      expect(added.content).toEqual([{ type: 'text', text: 'added note 1' }]);
    } finally {
      await connection.close();
    }
    const sent = mcp.requests.slice(before).filter((r) => r.path.startsWith('/mcp'));
    expect(sent.length).toBeGreaterThan(2);
    expect(sent.every((r) => r.authorization === `Bearer ${access}`)).toBe(true);
    expect(heard).toContain(access);
    // No second sign-in, and the store never saw the token.
    expect(opened).toHaveLength(1);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    expect(tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t}"`).all())).join('\n')).not.toContain(access!);
  });

  it('a token the server no longer accepts sends the person to sign in again, with a new link', async () => {
    const access = (await vault.get(mcpTokenSecret.access('notes')))!;
    revoked.add(access);
    const error = await connector.connect(server(), { taskId: 't3', workspaces: [] }).catch((e: Error) => e);
    expect(opened).toHaveLength(2);
    expect((error as Error).message).toBe(`Sign in to the MCP server notes (${mcp.url}) in your browser: ${opened[1]} — then try again (the sign-in waits 5 minutes while Posthoc runs; in a terminal, posthoc mcp sign-in notes waits for it).`);
    expect(opened[1]).not.toBe(opened[0]);
    expect((error as Error).message).not.toContain(access);
    // The registration is reused (no second one) while its loopback port is free.
    expect(as.registrations).toHaveLength(1);
  });

  it('forgets a removed server\'s sign-in: its tokens and registration leave the keychain, its listener stops', async () => {
    const link = new URL(new URL(opened[1]!).searchParams.get('redirect_uri')!);
    expect(await vault.get(mcpTokenSecret.client('notes'))).toBeTruthy();
    await credentials.signIns.forget('notes');
    for (const name of [mcpTokenSecret.access('notes'), mcpTokenSecret.refresh('notes'), mcpTokenSecret.client('notes')]) expect(await vault.get(name)).toBeNull();
    expect(await fetch(link).then((r) => r.status, () => 'closed')).toBe('closed');
  });
});

describe('a remote MCP server whose access token expires', () => {
  let ras: McpAuthServer;
  let rmcp: McpHttpServer;
  const wiki = (): McpServerDefinition => ({
    name: 'wiki',
    transport: { kind: 'http', url: rmcp.url, auth: { kind: 'oauth' } },
    rules: { deny: [], hold: [], noInverse: 'allow' },
    api: null,
    createdAt: new Date().toISOString(),
  });
  const signIn = async (link: string) => {
    const authorize = await fetch(new URL(link), { redirect: 'manual' });
    const page = await fetch(new URL(authorize.headers.get('location')!));
    expect(page.status).toBe(200);
  };
  const toolNames = async (taskId: string) => {
    const connection = await connector.connect(wiki(), { taskId, workspaces: [] });
    try {
      return (await connection.use((c) => c.listTools())).tools.map((t) => t.name);
    } finally {
      await connection.close();
    }
  };

  beforeAll(async () => {
    ras = await startMcpAuthServer({ refresh: true });
    rmcp = await startMcpHttpServer('never-accepted', { verify: (t) => ras.verify(t), authorizationServer: ras.issuer });
  });
  afterAll(async () => {
    await credentials.signIns.forget('wiki');
    await rmcp?.close();
    await ras?.close();
  });

  it('is refreshed without the person: new tokens in the keychain and heard by the redactor, the old refresh token spent', async () => {
    const first = await connector.connect(wiki(), { taskId: 'r1', workspaces: [] }).catch((e: Error) => e);
    expect(first).toBeInstanceOf(Error);
    const links = opened.length;
    await signIn(opened.at(-1)!);
    const access1 = (await vault.get(mcpTokenSecret.access('wiki')))!;
    const refresh1 = (await vault.get(mcpTokenSecret.refresh('wiki')))!;
    expect(access1).toMatch(/^at-/);
    expect(refresh1).toMatch(/^rt-/);
    expect(await toolNames('r2')).toContain('add_note');

    ras.expire(access1);
    const before = rmcp.requests.length;
    expect(await toolNames('r3')).toContain('add_note');
    expect(opened).toHaveLength(links); // no browser
    const refreshGrant = ras.tokenRequests.filter((r) => r.grant_type === 'refresh_token');
    expect(refreshGrant).toHaveLength(1);
    expect(refreshGrant[0]).toMatchObject({ refresh_token: refresh1, resource: rmcp.url });
    const access2 = (await vault.get(mcpTokenSecret.access('wiki')))!;
    const refresh2 = (await vault.get(mcpTokenSecret.refresh('wiki')))!;
    expect(access2).toMatch(/^at-/);
    expect(access2).not.toBe(access1);
    expect(refresh2).not.toBe(refresh1);
    const sent = rmcp.requests.slice(before).filter((r) => r.path.startsWith('/mcp'));
    expect(sent.at(-1)!.authorization).toBe(`Bearer ${access2}`);
    expect(heard).toEqual(expect.arrayContaining([access2, refresh2]));
    // Nothing of it in Posthoc's own store.
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    const dump = tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t}"`).all())).join('\n');
    for (const token of [access2, refresh2]) expect(dump).not.toContain(token);
  });

  it('a refused refresh (the person revoked the app) sends the person to sign in again, naming no token', async () => {
    const access = (await vault.get(mcpTokenSecret.access('wiki')))!;
    const refresh = (await vault.get(mcpTokenSecret.refresh('wiki')))!;
    ras.expire(access);
    ras.revokeRefresh(refresh);
    const links = opened.length;
    const error = await connector.connect(wiki(), { taskId: 'r4', workspaces: [] }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect(opened).toHaveLength(links + 1);
    expect((error as Error).message).toBe(`Sign in to the MCP server wiki (${rmcp.url}) in your browser: ${opened.at(-1)} — then try again (the sign-in waits 5 minutes while Posthoc runs; in a terminal, posthoc mcp sign-in wiki waits for it).`);
    for (const token of [access, refresh]) expect((error as Error).message).not.toContain(token);
    // Signing in again works as the first time.
    await signIn(opened.at(-1)!);
    expect(await toolNames('r5')).toContain('add_note');
  });
});
