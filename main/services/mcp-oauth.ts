// Signing in to a remote MCP server with OAuth, as the MCP authorization spec asks: the SDK's client finds
// the server's authorization server (protected resource metadata, then the server's own metadata),
// registers Posthoc with it where it offers dynamic client registration, and sends the person to sign in
// with PKCE S256 and a one-time state; the answer comes back to a loopback listener on 127.0.0.1 (RFC 8252,
// main/oauth's result page), which exchanges the code. Tokens and the registration live in the vault as
// oauth:mcp-NAME:access|refresh|client-secret, and go to the task's redactor before they are sent.
// A connection with no usable token does not wait for the person: it fails with the sign-in link (opened
// in the browser where Posthoc can), and the next connection after signing in has the token. wait() lets a
// caller that has nothing else to do (posthoc mcp sign-in) wait for the person, keeping its process alive.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthSession } from '../effects/mcp/http-connector';
import { REDIRECT_PATH } from '../oauth/provider-spec';
import { resultPage } from '../oauth/result-page';
import type { Vault } from '../vault/vault';

const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

export const mcpTokenSecret = {
  access: (server: string) => `oauth:mcp-${server}:access`,
  refresh: (server: string) => `oauth:mcp-${server}:refresh`,
  /** The client registration (its id, and its secret where the server gave one), as JSON. */
  client: (server: string) => `oauth:mcp-${server}:client-secret`,
};

export type McpOAuthOptions = {
  /** Opens the system browser; absent, the person opens the link from the message. */
  openExternal?: (url: string) => Promise<boolean>;
  timeoutMs?: number;
  fetch?: typeof fetch;
};

/** How a sign-in the person was sent to ended. */
export type SignInOutcome = { signedIn: true } | { signedIn: false; why: string };

/** One sign-in waiting for the browser's answer: its loopback listener, state and PKCE verifier. */
type SignIn = {
  server: Server;
  port: number;
  state: string;
  verifier: string | null;
  url: string | null;
  timer: NodeJS.Timeout | null;
  done: boolean;
  outcome: Promise<SignInOutcome>;
  settle: (outcome: SignInOutcome) => void;
};

const STOPPED: SignInOutcome = { signedIn: false, why: 'The sign-in was stopped before the person finished it.' };

export class McpOAuth {
  private readonly signIns = new Map<string, SignIn>();

  constructor(
    private readonly vault: Pick<Vault, 'get' | 'set' | 'remove'>,
    private readonly options: McpOAuthOptions = {},
  ) {}

  /** The session a connection to `server` at `url` uses; `onToken` hears every token before it is sent. */
  async session(server: string, url: string, onToken: (token: string) => void): Promise<McpOAuthSession> {
    const signIn = await this.listener(server, url);
    const provider = this.provider(server, signIn, onToken);
    return {
      provider,
      signInUrl: () => signIn.url,
      close: () => {
        // A sign-in the person was sent to keeps listening until it is answered or times out.
        if (!signIn.url) this.finish(server, signIn);
      },
    };
  }

  /** The link of the sign-in waiting for the person to `server`, if one is. */
  pending(server: string): string | null {
    const s = this.signIns.get(server);
    return s && !s.done ? s.url : null;
  }

  /**
   * Waits for the sign-in the person was sent to (null if none is waiting), keeping this process alive
   * meanwhile (its listener and timer are otherwise unref'd, so a finished CLI command never hangs).
   */
  wait(server: string): Promise<SignInOutcome> | null {
    const s = this.signIns.get(server);
    if (!s || s.done || !s.url) return null;
    s.server.ref();
    s.timer?.ref();
    return s.outcome;
  }

  /** Forgets the server's sign-in: its tokens and registration leave the vault, a sign-in waiting stops. */
  async forget(server: string): Promise<void> {
    const waiting = this.signIns.get(server);
    if (waiting) this.finish(server, waiting);
    for (const name of [mcpTokenSecret.access(server), mcpTokenSecret.refresh(server), mcpTokenSecret.client(server)]) await this.vault.remove(name);
  }

  /** Stops every sign-in still waiting (at shutdown). */
  close(): void {
    for (const [server, signIn] of this.signIns) this.finish(server, signIn);
  }

  private provider(server: string, signIn: SignIn, onToken: (token: string) => void): OAuthClientProvider {
    const vault = this.vault;
    const redirectUrl = `http://127.0.0.1:${signIn.port}${REDIRECT_PATH}`;
    const open = this.options.openExternal;
    return {
      get redirectUrl() {
        return redirectUrl;
      },
      get clientMetadata(): OAuthClientMetadata {
        return {
          client_name: 'Posthoc',
          redirect_uris: [redirectUrl],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        };
      },
      state: () => signIn.state,
      async clientInformation() {
        const text = await vault.get(mcpTokenSecret.client(server));
        if (!text) return undefined;
        const info = JSON.parse(text) as OAuthClientInformationMixed & { redirect_uris?: string[] };
        // Registered for another loopback port (the one it had was taken): register again.
        if (Array.isArray(info.redirect_uris) && !info.redirect_uris.includes(redirectUrl)) return undefined;
        return info;
      },
      async saveClientInformation(info) {
        await vault.set(mcpTokenSecret.client(server), JSON.stringify(info));
      },
      async tokens(): Promise<OAuthTokens | undefined> {
        const access = await vault.get(mcpTokenSecret.access(server));
        if (!access) return undefined;
        const refresh = await vault.get(mcpTokenSecret.refresh(server));
        onToken(access);
        if (refresh) onToken(refresh);
        return { access_token: access, token_type: 'Bearer', ...(refresh ? { refresh_token: refresh } : {}) };
      },
      async saveTokens(tokens) {
        onToken(tokens.access_token);
        await vault.set(mcpTokenSecret.access(server), tokens.access_token);
        if (tokens.refresh_token) {
          onToken(tokens.refresh_token);
          await vault.set(mcpTokenSecret.refresh(server), tokens.refresh_token);
        }
      },
      async redirectToAuthorization(authorizationUrl) {
        const target = new URL(authorizationUrl);
        if (target.protocol !== 'https:' && !(target.protocol === 'http:' && isLoopback(target.hostname))) {
          throw new Error(`The MCP server ${server} sends sign-ins to ${target.origin}, which is not https: Posthoc does not sign in there.`);
        }
        signIn.url = target.href;
        if (open) await open(target.href).catch(() => false);
      },
      saveCodeVerifier(verifier) {
        signIn.verifier = verifier;
      },
      codeVerifier() {
        if (!signIn.verifier) throw new Error('No sign-in was started for this server.');
        return signIn.verifier;
      },
      async invalidateCredentials(scope) {
        if (scope === 'all' || scope === 'tokens') {
          await vault.remove(mcpTokenSecret.access(server));
          await vault.remove(mcpTokenSecret.refresh(server));
        }
        if (scope === 'all' || scope === 'client') await vault.remove(mcpTokenSecret.client(server));
      },
    } satisfies OAuthClientProvider;
  }

  /**
   * The loopback listener for the server's sign-in: the one already waiting, or a new one — on the port
   * the client was registered with when it is free (a registration names its redirect address).
   */
  private async listener(server: string, serverUrl: string): Promise<SignIn> {
    const waiting = this.signIns.get(server);
    if (waiting && !waiting.done) return waiting;
    const registered = await this.registeredPort(server);
    const http = createServer();
    const port = await listen(http, registered).catch(() => listen(http, 0));
    // A sign-in waiting for the person never keeps a finished process (the CLI) alive.
    http.unref();
    let settle!: (outcome: SignInOutcome) => void;
    const outcome = new Promise<SignInOutcome>((resolve) => (settle = resolve));
    const signIn: SignIn = { server: http, port, state: randomBytes(24).toString('base64url'), verifier: null, url: null, timer: null, done: false, outcome, settle };
    const timeoutMs = this.options.timeoutMs ?? SIGN_IN_TIMEOUT_MS;
    signIn.timer = setTimeout(
      () => this.finish(server, signIn, { signedIn: false, why: `The sign-in was not finished within ${Math.round(timeoutMs / 60_000) || 1} minutes; start it again.` }),
      timeoutMs,
    );
    signIn.timer.unref();
    let used = false;
    http.on('request', (req, res) => {
      const page = (status: number, ok: boolean, text: string) => {
        res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" });
        res.end(resultPage(ok, `the MCP server ${server}`, text));
      };
      const here = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
      // Anything but the answer to this sign-in (another path, a wrong or missing state) is refused, and
      // the sign-in keeps waiting.
      if (here.pathname !== REDIRECT_PATH || !signIn.url) return page(404, false, 'Nothing here.');
      if (used) return page(400, false, 'This sign-in answer was already used. Start again from Posthoc if it did not finish.');
      if (!sameState(here.searchParams.get('state'), signIn.state)) {
        return page(400, false, 'This answer does not match the sign-in Posthoc started (its state is wrong or missing), so it was ignored.');
      }
      used = true;
      const code = here.searchParams.get('code');
      if (!code) {
        const why = here.searchParams.get('error_description') ?? here.searchParams.get('error') ?? 'no code came back';
        page(403, false, `The server did not grant access (${why}). Nothing was signed in; try again and allow access.`);
        return this.finish(server, signIn, { signedIn: false, why: `The server did not grant access (${why}). Nothing was signed in; start again and allow access.` });
      }
      void (async () => {
        let ended: SignInOutcome = STOPPED;
        try {
          const provider = this.provider(server, signIn, () => undefined);
          // The SDK's OAuth client, loaded when a sign-in completes, not with the services.
          const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
          const result = await auth(provider, { serverUrl, authorizationCode: code, ...(this.options.fetch ? { fetchFn: this.options.fetch } : {}) });
          if (result !== 'AUTHORIZED') throw new Error('the server asked to sign in again');
          page(200, true, 'Posthoc is signed in. You can close this tab.');
          ended = { signedIn: true };
        } catch (error) {
          page(502, false, `The sign-in code could not be exchanged for a token: ${(error as Error).message}. Try again.`);
          ended = { signedIn: false, why: `The sign-in code could not be exchanged for a token: ${(error as Error).message}. Start again.` };
        } finally {
          this.finish(server, signIn, ended);
        }
      })();
    });
    this.signIns.set(server, signIn);
    return signIn;
  }

  private async registeredPort(server: string): Promise<number> {
    const text = await this.vault.get(mcpTokenSecret.client(server)).catch(() => null);
    if (!text) return 0;
    try {
      const uri = (JSON.parse(text) as { redirect_uris?: string[] }).redirect_uris?.[0];
      return uri ? Number(new URL(uri).port) || 0 : 0;
    } catch {
      return 0;
    }
  }

  private finish(server: string, signIn: SignIn, outcome: SignInOutcome = STOPPED): void {
    if (signIn.done) return;
    signIn.done = true;
    signIn.settle(outcome);
    if (signIn.timer) clearTimeout(signIn.timer);
    signIn.server.closeAllConnections?.();
    signIn.server.close();
    if (this.signIns.get(server) === signIn) this.signIns.delete(server);
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

function sameState(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}
