// The remote half of the tools channel: an MCP server over streamable HTTP, reached from the host with the
// SDK's StreamableHTTPClientTransport. Its credential is looked up by name when the connection opens
// (McpHttpCredentials, implemented in main/services over the vault and the secrets' origins), handed to
// the task's redactor before anything is sent (onSecret), and added to each request on the way out —
// only to requests for the server's own origin, so a redirect elsewhere never carries it. The sandbox
// never sees it: it reaches the server only through the gateway's /mcp route, which calls through here.
// Errors say what happened in plain words (refused token, unreachable, not an MCP server).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerDefinition } from '../../../shared/domain/mcp';
import type { McpConnection, McpConnector, McpTaskContext } from '../../ports/mcp-connection';

/** Where a remote server's credential comes from; the composition root implements it (main/services/mcp-credentials.ts). */
export interface McpHttpCredentials {
  /**
   * The value of secret `secret`, when it may be sent to `url`'s origin. Throws an Error in plain words
   * otherwise (not stored, bound elsewhere, one of Posthoc's own entries).
   */
  bearer(secret: string, url: string): Promise<string>;
  /**
   * For a server that signs in with OAuth: the SDK provider backed by the vault, and the link the person
   * must open when no token works. `onToken` hears every token before it is sent.
   */
  oauth?(server: string, url: string, onToken: (token: string) => void): Promise<McpOAuthSession>;
}

export type McpOAuthSession = {
  provider: OAuthClientProvider;
  /** The sign-in page the person was sent to, once a sign-in was needed. */
  signInUrl(): string | null;
  /** The connection no longer needs it (a sign-in the person was sent to keeps waiting for them). */
  close(): void;
};

export type HttpConnectorOptions = {
  credentials: McpHttpCredentials;
  /** Called with each credential value before it is first sent for the task (the task's redactor learns it). */
  onSecret?: (taskId: string, secret: string) => void;
  /** HTTP (tests may wrap it); default fetch. */
  fetch?: FetchLike;
  /** How long initializing may take, in ms (default 30 s). */
  connectTimeoutMs?: number;
  clientVersion?: string;
};

type HttpServer = McpServerDefinition & { transport: Extract<McpServerDefinition['transport'], { kind: 'http' }> };

/** A remote server's URL, checked: http(s) only; a credential only over https, or plain http to this machine. */
export function checkServerUrl(server: HttpServer): URL {
  let url: URL;
  try {
    url = new URL(server.transport.url);
  } catch {
    throw new Error(`The MCP server ${server.name} has no usable URL ("${server.transport.url}"): give its endpoint, for example https://mcp.example.com/mcp.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`The MCP server ${server.name} is at ${url.protocol}//…: only http and https (streamable HTTP) servers can be reached.`);
  }
  if (url.username || url.password) {
    throw new Error(`The URL of the MCP server ${server.name} holds a user name or password: remove it, store the token with posthoc secret set NAME and use --auth bearer --secret NAME.`);
  }
  if (server.transport.auth.kind !== 'none' && url.protocol === 'http:' && !isLoopback(url.hostname)) {
    throw new Error(
      `The MCP server ${server.name} is at plain http://${url.host}: its credential would cross the network unencrypted. Use its https:// URL (plain http is accepted only on this machine, 127.0.0.1 or localhost).`,
    );
  }
  return url;
}

export class HttpMcpConnector implements McpConnector {
  constructor(private readonly options: HttpConnectorOptions) {}

  async connect(server: McpServerDefinition, task: McpTaskContext, signal?: AbortSignal): Promise<McpConnection> {
    if (server.transport.kind !== 'http') throw new Error(`The MCP server ${server.name} is not a remote (http) server.`);
    const remote = server as HttpServer;
    const url = checkServerUrl(remote);
    const auth = remote.transport.auth;
    let token: string | null = null;
    let oauth: McpOAuthSession | null = null;
    const tokens: string[] = [];
    if (auth.kind === 'bearer') {
      token = await this.options.credentials.bearer(auth.secret, url.href);
      tokens.push(token);
      this.options.onSecret?.(task.taskId, token);
    } else if (auth.kind === 'oauth') {
      if (!this.options.credentials.oauth) throw new Error(`The MCP server ${server.name} signs in with OAuth, which this Posthoc cannot do: add it with --auth bearer and a token made on the server's side.`);
      oauth = await this.options.credentials.oauth(server.name, url.href, (t) => {
        tokens.push(t);
        this.options.onSecret?.(task.taskId, t);
      });
    }
    const describe = errorWords(server.name, url, auth.kind === 'bearer' ? auth.secret : null, tokens, oauth);
    const base = this.options.fetch ?? fetch;
    // A bearer credential travels only to the server's own origin, whatever URL the transport is asked to
    // fetch; the OAuth provider's token too (the SDK adds it; a Bearer header for any other origin is dropped).
    const send: FetchLike = (input, init) => {
      const target = new URL(typeof input === 'string' ? input : input.href);
      const headers = new Headers(init?.headers);
      if (target.origin !== url.origin ? /^bearer\s/i.test(headers.get('authorization') ?? '') : !oauth) headers.delete('authorization');
      if (token && target.origin === url.origin) headers.set('authorization', `Bearer ${token}`);
      return base(input, { ...init, headers });
    };
    const { Client, StreamableHTTPClientTransport } = await httpSdk();
    const transport = new StreamableHTTPClientTransport(url, { fetch: send, redirectPolicy: 'same-origin', ...(oauth ? { authProvider: oauth.provider } : {}) });
    const client = new Client({ name: 'posthoc', version: this.options.clientVersion ?? '0.1.0' }, { capabilities: {} });
    try {
      await client.connect(transport, { signal, timeout: this.options.connectTimeoutMs ?? 30_000 });
    } catch (error) {
      await client.close().catch(() => undefined);
      oauth?.close();
      throw describe(error);
    }
    oauth?.close();
    return new HttpConnection(client, transport, describe);
  }
}

/** The SDK's parts for a remote server, loaded when a task first reaches one, not with the services. */
type HttpSdk = {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
  StreamableHTTPError: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPError;
  UnauthorizedError: typeof import('@modelcontextprotocol/sdk/client/auth.js').UnauthorizedError;
  McpError: typeof import('@modelcontextprotocol/sdk/types.js').McpError;
};
let loaded: HttpSdk | null = null;

async function httpSdk(): Promise<HttpSdk> {
  if (loaded) return loaded;
  const [client, http, auth, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/auth.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return (loaded = { Client: client.Client, StreamableHTTPClientTransport: http.StreamableHTTPClientTransport, StreamableHTTPError: http.StreamableHTTPError, UnauthorizedError: auth.UnauthorizedError, McpError: types.McpError });
}

class HttpConnection implements McpConnection {
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly client: Client,
    private readonly transport: StreamableHTTPClientTransport,
    private readonly describe: (error: unknown) => Error,
  ) {}

  use<T>(fn: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const run = async (): Promise<T> => {
      if (this.closed) throw new Error('The connection to the MCP server was closed.');
      signal?.throwIfAborted();
      try {
        return await fn(this.client);
      } catch (error) {
        throw this.describe(error);
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A call still waiting is not waited for: closing the client rejects it ("Connection closed").
    // Ends the session on the server's side too (a server that does not support it answers 405: fine).
    await this.transport.terminateSession().catch(() => undefined);
    await this.client.close().catch(() => undefined);
  }
}

/**
 * Turns the transport's errors into sentences a person can act on. The server's own words are kept, with
 * the token taken out (a server may echo what it was sent). Errors the server answered in the protocol
 * (a tool's error, an unknown tool) keep their class: only their message is cleaned.
 */
function errorWords(name: string, url: URL, secret: string | null, tokens: readonly string[], oauth: McpOAuthSession | null): (error: unknown) => Error {
  const clean = (text: string): string => tokens.reduce((t, token) => (token.length > 0 ? t.split(token).join('[REDACTED]') : t), text);
  const holds = (text: string): boolean => tokens.some((token) => token.length > 0 && text.includes(token));
  return (error: unknown): Error => {
    const e = error instanceof Error ? error : new Error(String(error));
    const where = `the MCP server ${name} (${url.href})`;
    // The SDK is loaded before anything it could throw: connect loads it first.
    const sdk = loaded;
    const unauthorized = sdk !== null && e instanceof sdk.UnauthorizedError;
    const code = sdk !== null && e instanceof sdk.StreamableHTTPError ? e.code : undefined;
    if ((sdk !== null && e instanceof sdk.McpError) || e.name === 'AbortError' || e.name === 'TimeoutError') {
      if (holds(e.message)) e.message = clean(e.message);
      return e;
    }
    const text = clean(e.message).replace(/^Streamable HTTP error:\s*/, '').replace(/^Error POSTing to endpoint:\s*/, '').trim();
    // An HTML page says nothing useful here; the server's JSON or text does.
    const said = /^\s*</.test(text) ? '' : text.slice(0, 300);
    const signIn = oauth?.signInUrl();
    if (signIn) {
      return new Error(`Sign in to ${where} in your browser: ${signIn} — then try again (the sign-in waits 5 minutes while Posthoc runs; in a terminal, posthoc mcp sign-in ${name} waits for it).`);
    }
    if (oauth && (code === 401 || code === 403 || unauthorized)) {
      return new Error(`${cap(where)} refused the token it issued when you signed in (${said || 'HTTP 401'}). Try again; if it keeps refusing, check your account's access on the server.`);
    }
    if (code === 401 || code === 403 || unauthorized) {
      const status = code ? `HTTP ${code}` : 'HTTP 401';
      return new Error(
        secret
          ? `${cap(where)} refused the token in secret ${secret}: ${status}${said ? ` (${said})` : ''}. Store the right token with: posthoc secret set ${secret}`
          : `${cap(where)} asks for credentials (${status}${said ? `: ${said}` : ''}). Store its token (posthoc secret set NAME) and add the server with --auth bearer --secret NAME.`,
      );
    }
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    if (e instanceof TypeError && /fetch failed/i.test(e.message)) {
      const why = cause?.code === 'ECONNREFUSED' ? 'nothing is listening there' : cause?.code === 'ENOTFOUND' ? 'the host name is not known' : clean(cause?.message ?? cause?.code ?? e.message);
      return new Error(`Could not reach ${where}: ${why}. Check that the server is running and the URL is right.`);
    }
    if (code !== undefined && code !== -1 && code >= 400) {
      const hint = code === 404 || code === 405 ? ' Check the URL: it must be the server\'s MCP endpoint (often ending in /mcp).' : '';
      return new Error(`${cap(where)} answered HTTP ${code}${said ? `: ${said}` : ''}.${hint}`);
    }
    if (code === -1 || e instanceof SyntaxError || /Unexpected content type|invalid_union|invalid_type/i.test(e.message)) {
      return new Error(
        `${cap(where)} did not answer as an MCP server (${said}). Check the URL: it must be the server's streamable HTTP endpoint (often ending in /mcp); servers that only speak the older SSE transport are not supported.`,
      );
    }
    if (holds(e.message)) e.message = clean(e.message);
    return e;
  };
}

function cap(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}
