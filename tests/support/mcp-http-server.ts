// A remote MCP server on loopback speaking streamable HTTP, built with the SDK's own server (McpServer +
// StreamableHTTPServerTransport, one session per client): it requires `Authorization: Bearer TOKEN` and
// answers 401 otherwise, and logs every request it was sent (so a test can see what reached it and what
// never did). Its tools: `list_notes` (read-only), `add_note` (changes its state; `remove_note` takes it
// back), `wait_for_release` (answers when the test says so), and `echo`, which answers with everything it was sent — the arguments and the request's
// Authorization header, raw and base64 — for the canary.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export type McpHttpRequest = { method: string; path: string; authorization: string | null; sessionId: string | null; body: string };

export type McpHttpServer = {
  /** The MCP endpoint: http://127.0.0.1:PORT/mcp */
  url: string;
  origin: string;
  /** Every request, in order, refused ones included. */
  requests: McpHttpRequest[];
  /** The tool calls that ran: name and arguments. */
  calls: Array<{ tool: string; arguments: Record<string, unknown> }>;
  notes: string[];
  /** The token it accepts from now on. */
  setToken(token: string): void;
  /** Lets every `wait_for_release` call that is waiting answer. */
  release(): void;
  close(): Promise<void>;
};

export type McpHttpServerOptions = {
  /** Accepts a token another way (an authorization server's); the fixed token is then not accepted. */
  verify?: (token: string) => Promise<boolean>;
  /** Serves OAuth protected resource metadata naming this authorization server, and points to it on 401. */
  authorizationServer?: string;
};

export async function startMcpHttpServer(token: string, options: McpHttpServerOptions = {}): Promise<McpHttpServer> {
  let accepted = token;
  let origin = '';
  const requests: McpHttpRequest[] = [];
  const calls: McpHttpServer['calls'] = [];
  const notes: string[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let release!: () => void;
  let released = new Promise<void>((resolve) => (release = resolve));

  const newServer = (): McpServer => {
    const mcp = new McpServer({ name: 'notes-over-http', version: '1.0.0' });
    mcp.registerTool(
      'list_notes',
      { description: 'Lists the notes kept on the server.', inputSchema: {}, annotations: { readOnlyHint: true } },
      () => {
        calls.push({ tool: 'list_notes', arguments: {} });
        return { content: [{ type: 'text', text: JSON.stringify(notes) }] };
      },
    );
    mcp.registerTool(
      'add_note',
      {
        description: 'Adds a note on the server.',
        inputSchema: { text: z.string() },
        annotations: { readOnlyHint: false, destructiveHint: false },
      },
      ({ text }) => {
        calls.push({ tool: 'add_note', arguments: { text } });
        notes.push(text);
        return { content: [{ type: 'text', text: `added note ${notes.length}` }] };
      },
    );
    mcp.registerTool(
      'remove_note',
      { description: 'Removes a note by its text.', inputSchema: { text: z.string() }, annotations: { destructiveHint: true } },
      ({ text }) => {
        calls.push({ tool: 'remove_note', arguments: { text } });
        const at = notes.indexOf(text);
        if (at < 0) return { content: [{ type: 'text', text: `no note "${text}"` }], isError: true };
        notes.splice(at, 1);
        return { content: [{ type: 'text', text: 'removed' }] };
      },
    );
    mcp.registerTool(
      'wait_for_release',
      { description: 'Answers once the test releases it.', inputSchema: {}, annotations: { readOnlyHint: true } },
      async () => {
        calls.push({ tool: 'wait_for_release', arguments: {} });
        await released;
        return { content: [{ type: 'text', text: 'released' }] };
      },
    );
    mcp.registerTool(
      'echo',
      { description: 'Answers with what it was sent, headers included.', inputSchema: { message: z.string() }, annotations: { readOnlyHint: true } },
      ({ message }, extra) => {
        calls.push({ tool: 'echo', arguments: { message } });
        const authorization = String(extra.requestInfo?.headers.authorization ?? '');
        const sent = { message, authorization, authorizationBase64: Buffer.from(authorization).toString('base64') };
        return { content: [{ type: 'text', text: JSON.stringify(sent) }], structuredContent: sent };
      },
    );
    return mcp;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = typeof sessionHeader === 'string' ? sessionHeader : null;
    requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization ?? null, sessionId, body: text });
    if (options.authorizationServer && req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [options.authorizationServer] }));
      return;
    }
    if (!(req.url ?? '').startsWith('/mcp')) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not here</body></html>');
      return;
    }
    const given = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const ok = options.verify ? await options.verify(given) : given === accepted;
    if (!ok) {
      const metadata = options.authorizationServer ? `, resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` : '';
      res
        .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': `Bearer error="invalid_token"${metadata}` })
        .end(JSON.stringify({ error: 'invalid_token', error_description: 'The access token is not valid.' }));
      return;
    }
    const body: unknown = text ? JSON.parse(text) : undefined;
    let transport = sessionId ? sessions.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId || !isInitializeRequest(body)) {
        res.writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'No such session' }, id: null }));
        return;
      }
      const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => void sessions.set(id, created) });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await newServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    requests,
    calls,
    notes,
    setToken: (t) => {
      accepted = t;
    },
    release: () => {
      release();
      released = new Promise<void>((resolve) => (release = resolve));
    },
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
