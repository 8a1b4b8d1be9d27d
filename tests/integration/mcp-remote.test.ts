// Remote MCP servers over streamable HTTP (main/effects/mcp/http-connector.ts) with their token from the
// real keychain by secret name (main/services/mcp-credentials.ts), against a real SDK server on loopback
// that requires the bearer token and logs every request: tools listed and called; a wrong token, an
// unreachable URL and a URL that is no MCP server give plain errors; a secret bound to another origin, or
// one of Posthoc's own entries, is refused and never sent; a redirect to another origin never carries it.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerDefinition, McpTransport } from '../../shared/domain/mcp';
import { HttpMcpConnector } from '../../main/effects/mcp/http-connector';
import { ServiceRegistry } from '../../main/gateway/service-registry';
import { McpCredentialRefused, McpCredentials } from '../../main/services/mcp-credentials';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { Vault } from '../../main/vault/vault';
import { startMcpHttpServer, type McpHttpServer } from '../support/mcp-http-server';
import { tempDirs } from '../support/temp-dir';

const TOKEN = `mcp-canary-${randomBytes(18).toString('base64url')}`;
const vault = new Vault(`dev.posthoc.test-mcp-remote-${randomUUID()}`);
const dirs = tempDirs();
let db: AppDatabase;
let registry: ServiceRegistry;
let mcp: McpHttpServer;
const seen: Array<{ taskId: string; secret: string }> = [];
let connector: HttpMcpConnector;
const task = { taskId: 'task-1', workspaces: [] };

function server(name: string, transport: McpTransport): McpServerDefinition {
  return { name, transport, rules: { deny: [], hold: [], noInverse: 'allow' }, api: null, createdAt: new Date().toISOString() };
}
const bearer = (url: string, secret = 'notes-token'): McpTransport => ({ kind: 'http', url, auth: { kind: 'bearer', secret } });

beforeAll(async () => {
  mcp = await startMcpHttpServer(TOKEN);
  db = openDatabase(dirs.make());
  registry = new ServiceRegistry(db);
  connector = new HttpMcpConnector({ credentials: new McpCredentials(vault, registry), onSecret: (taskId, secret) => seen.push({ taskId, secret }) });
  await vault.set('notes-token', TOKEN);
});

afterEach(() => {
  mcp.setToken(TOKEN);
});

afterAll(async () => {
  for (const s of (await vault.status()).secrets) await vault.remove(s.name);
  db?.close();
  await mcp?.close();
  dirs.cleanup();
});

describe('a remote MCP server with a bearer token from the vault', () => {
  it('lists and calls its tools, the token on every request, the task redactor told first', async () => {
    const before = mcp.requests.length;
    const connection = await connector.connect(server('notes', bearer(mcp.url)), task);
    try {
      expect(seen).toEqual([{ taskId: 'task-1', secret: TOKEN }]);
      const { tools } = await connection.use((c) => c.listTools());
      expect(tools.map((t) => [t.name, t.annotations?.readOnlyHint ?? null]).sort()).toEqual([
        ['add_note', false],
        ['echo', true],
        ['list_notes', true],
        ['remove_note', null],
        ['wait_for_release', true],
      ]);
      expect(tools.find((t) => t.name === 'add_note')?.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
      // Two calls at once are sent one after the other on the connection, and both answer.
      const [added, again] = await Promise.all([
        connection.use((c) => c.callTool({ name: 'add_note', arguments: { text: 'first' } })),
        connection.use((c) => c.callTool({ name: 'add_note', arguments: { text: 'second' } })),
      ]);
      expect([added.content, again.content]).toEqual([[{ type: 'text', text: 'added note 1' }], [{ type: 'text', text: 'added note 2' }]]);
      const listed = await connection.use((c) => c.callTool({ name: 'list_notes', arguments: {} }));
      expect(listed.content).toEqual([{ type: 'text', text: '["first","second"]' }]);
      expect(mcp.notes).toEqual(['first', 'second']);
      // A tool's own error comes back as the server's answer, not as a failed connection.
      const missing = await connection.use((c) => c.callTool({ name: 'remove_note', arguments: { text: 'third' } }));
      expect(missing).toMatchObject({ isError: true, content: [{ type: 'text', text: 'no note "third"' }] });
    } finally {
      await connection.close();
    }
    const sent = mcp.requests.slice(before);
    expect(sent.length).toBeGreaterThan(5);
    expect(sent.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
    // Closing ends the session on the server too.
    expect(sent.at(-1)).toMatchObject({ method: 'DELETE' });
    // The first use bound the secret, which was bound nowhere, to the server's origin.
    expect(registry.origins.list('notes-token')).toEqual([mcp.origin]);
  });

  it('a token the server refuses gives the plain error naming the secret, and never the token', async () => {
    mcp.setToken(`another-${TOKEN}`);
    const error = await connector.connect(server('notes', bearer(mcp.url)), task).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^The MCP server notes \(http:\/\/127\.0\.0\.1:\d+\/mcp\) refused the token in secret notes-token: HTTP 401 .*posthoc secret set notes-token$/);
    expect((error as Error).message).not.toContain(TOKEN);
    expect(mcp.requests.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('a token revoked while connected gives the same plain error on the next call', async () => {
    const connection = await connector.connect(server('notes', bearer(mcp.url)), task);
    mcp.setToken(`rotated-${TOKEN}`);
    const error = await connection.use((c) => c.callTool({ name: 'list_notes', arguments: {} })).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/refused the token in secret notes-token: HTTP 401/);
    await connection.close();
  });

  it('closing does not wait for a call still running: the call is given up', async () => {
    const connection = await connector.connect(server('notes', bearer(mcp.url)), task);
    const waiting = connection.use((c) => c.callTool({ name: 'wait_for_release', arguments: {} })).catch((e: Error) => e);
    const queued = connection.use((c) => c.listTools()).catch((e: Error) => e);
    while (!mcp.calls.some((c) => c.tool === 'wait_for_release')) await new Promise((resolve) => setTimeout(resolve, 10));
    await connection.close();
    expect(((await waiting) as Error).message).toMatch(/Connection closed/);
    expect(((await queued) as Error).message).toBe('The connection to the MCP server was closed.');
    mcp.release();
    const after = await connection.use((c) => c.listTools()).catch((e: Error) => e);
    expect((after as Error).message).toBe('The connection to the MCP server was closed.');
  });

  it('an unreachable URL and a URL that is no MCP server say so', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await vault.set('nowhere-token', `nowhere-${TOKEN}`);
    const unreachable = await connector.connect(server('gone', bearer(`http://127.0.0.1:${port}/mcp`, 'nowhere-token')), task).catch((e: Error) => e);
    expect((unreachable as Error).message).toBe(`Could not reach the MCP server gone (http://127.0.0.1:${port}/mcp): nothing is listening there. Check that the server is running and the URL is right.`);

    // The same server's other path answers an HTML 404; a plain web page answers 200 with HTML.
    const wrongPath = await connector.connect(server('notes', bearer(`${mcp.origin}/not-mcp`)), task).catch((e: Error) => e);
    expect((wrongPath as Error).message).toMatch(/^The MCP server notes \(.*\/not-mcp\) answered HTTP 404\. Check the URL: it must be the server's MCP endpoint/);
    const page = await startPage();
    try {
      const notMcp = await connector.connect(server('page', { kind: 'http', url: page.url, auth: { kind: 'none' } }), task).catch((e: Error) => e);
      expect((notMcp as Error).message).toMatch(/^The MCP server page \(.*\) did not answer as an MCP server \(.*text\/html.*\)\. Check the URL/);
    } finally {
      await page.close();
    }
  });

  it('a secret bound to another origin is refused and never sent', async () => {
    await vault.set('elsewhere-token', `elsewhere-${TOKEN}`);
    registry.origins.set('elsewhere-token', ['https://api.example.com']);
    const before = mcp.requests.length;
    const error = await connector.connect(server('notes', bearer(mcp.url, 'elsewhere-token')), task).catch((e: Error) => e);
    expect(error).toBeInstanceOf(McpCredentialRefused);
    expect((error as Error).message).toBe(
      `This MCP server would send the secret "elsewhere-token" to ${mcp.origin}, but it may only go to https://api.example.com. If you trust ${mcp.origin} with it, store it again with that origin too: posthoc secret set elsewhere-token --origin https://api.example.com --origin ${mcp.origin}. Otherwise use the server's own token.`,
    );
    expect(mcp.requests.length).toBe(before);
    expect(seen.some((s) => s.secret.startsWith('elsewhere-'))).toBe(false);
    // Binding it for `mcp add` is refused the same way, unless the person confirms.
    const credentials = new McpCredentials(vault, registry);
    expect(() => credentials.bind('notes', 'elsewhere-token', mcp.url)).toThrow(/The MCP server notes would send the secret "elsewhere-token"/);
    credentials.bind('notes', 'elsewhere-token', mcp.url, true);
    expect(registry.origins.list('elsewhere-token')).toEqual(['https://api.example.com', mcp.origin].sort());
  });

  it("Posthoc's own entries are never a server's credential", async () => {
    await vault.set('llm-api-key', TOKEN);
    await vault.set('oauth:mcp-notes:access', TOKEN);
    const before = mcp.requests.length;
    for (const secret of ['llm-api-key', 'oauth:mcp-notes:access', 'db-password sqlite:x']) {
      const error = await connector.connect(server('notes', bearer(mcp.url, secret)), task).catch((e: Error) => e);
      expect((error as Error).message, secret).toMatch(/is one of Posthoc's own entries .* it is never sent to an MCP server/);
    }
    expect(mcp.requests.length).toBe(before);
  });

  it('a credential never crosses the network in plain http, and a redirect elsewhere never carries it', async () => {
    const error = await connector.connect(server('far', bearer('http://192.0.2.10/mcp')), task).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/^The MCP server far is at plain http:\/\/192\.0\.2\.10: its credential would cross the network unencrypted/);

    // A server the secret is bound to answers with a redirect to the MCP server (another origin).
    const redirect = await startRedirect(mcp.url);
    try {
      await vault.set('redirect-token', TOKEN);
      const before = mcp.requests.length;
      const sent = await connector.connect(server('hop', bearer(redirect.url, 'redirect-token')), task).catch((e: Error) => e);
      expect(sent).toBeInstanceOf(Error);
      expect(redirect.authorizations).toEqual([`Bearer ${TOKEN}`]);
      expect(mcp.requests.slice(before).filter((r) => r.authorization !== null)).toEqual([]);
    } finally {
      await redirect.close();
    }
  });
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function startPage(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome</body></html>'));
  const origin = await listen(server);
  return { url: `${origin}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function startRedirect(to: string): Promise<{ url: string; authorizations: Array<string | undefined>; close(): Promise<void> }> {
  const authorizations: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    res.writeHead(307, { location: to }).end();
  });
  const origin = await listen(server);
  return { url: `${origin}/mcp`, authorizations, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
