// The credentials of remote MCP servers: a token by secret name from the vault, under the same rules as
// services (store/secret-origins.ts) — a secret goes only to the origins it is bound to (the first use
// binds one that is bound nowhere; another origin needs the person's yes), and Posthoc's own entries (the
// LLM key, database passwords, OAuth tokens) are never a server's credential. A server that signs in with
// OAuth gets its tokens through mcp-oauth.ts (oauth:mcp-NAME:…). Only here does a value leave the vault for
// the http connector (main/effects/mcp/http-connector.ts); answers elsewhere carry names.
// Composition: new McpCredentials(vault, serviceRegistry, { openExternal }) — openExternal opens the
// sign-in page in the browser (the app's shell.openExternal); without it the error carries the link.
import type { McpHttpCredentials, McpOAuthSession } from '../effects/mcp/http-connector';
import { ownEntryProblem, type ServiceRegistry } from '../gateway/service-registry';
import { originOf } from '../store/secret-origins';
import { kindOf, SECRET_NAME, type Vault } from '../vault/vault';
import { McpOAuth, type McpOAuthOptions } from './mcp-oauth';

/** The secret may not go to this server; the message says why and what to do. */
export class McpCredentialRefused extends Error {}

export class McpCredentials implements McpHttpCredentials {
  /** Sign-ins to servers that use OAuth (tokens in the vault as oauth:mcp-NAME:…). */
  readonly signIns: McpOAuth;

  constructor(
    private readonly vault: Pick<Vault, 'get' | 'set' | 'remove'>,
    private readonly registry: ServiceRegistry,
    oauth: McpOAuthOptions = {},
  ) {
    this.signIns = new McpOAuth(vault, oauth);
  }

  oauth(server: string, url: string, onToken: (token: string) => void): Promise<McpOAuthSession> {
    return this.signIns.session(server, url, onToken);
  }

  /**
   * Checks that secret `secret` may be sent to the server at `url` (for mcp:add, before it is stored):
   * it may when it is bound to that origin; a secret bound nowhere yet is bound there now; one bound
   * elsewhere needs `allowSecretOrigin` (the person's confirmation), which adds the origin.
   */
  bind(server: string, secret: string, url: string, allowSecretOrigin = false): void {
    this.checkName(secret);
    const origin = originOf(url);
    const allowed = this.registry.allowedOrigins(secret);
    if (allowed.includes(origin)) return;
    if (allowed.length > 0 && !allowSecretOrigin) throw new McpCredentialRefused(elsewhere(server, secret, origin, allowed));
    this.registry.origins.add(secret, origin);
  }

  async bearer(secret: string, url: string): Promise<string> {
    this.checkName(secret);
    const origin = originOf(url);
    const allowed = this.registry.allowedOrigins(secret);
    if (allowed.length > 0 && !allowed.includes(origin)) throw new McpCredentialRefused(elsewhere(null, secret, origin, allowed));
    const value = await this.vault.get(secret);
    if (value === null) {
      throw new McpCredentialRefused(`There is no secret ${secret} in the keychain. Store the server's token with: posthoc secret set ${secret} --origin ${origin}`);
    }
    // The first use of a secret bound nowhere decides where it may go, as for services.
    if (allowed.length === 0) this.registry.origins.add(secret, origin);
    return value;
  }

  private checkName(secret: string): void {
    const own = kindOf(secret) !== 'secret' || ownEntryProblem(secret) !== null;
    if (own) {
      throw new McpCredentialRefused(
        `"${secret}" is one of Posthoc's own entries (the language model's key, a database password or an OAuth token); it is never sent to an MCP server. Store the server's own token (posthoc secret set NAME) and name that.`,
      );
    }
    if (!SECRET_NAME.test(secret)) {
      throw new McpCredentialRefused(`"${secret}" is not a secret name: use lower-case letters, digits, ".", "-" and "_". Store the token with: posthoc secret set NAME`);
    }
  }
}

function elsewhere(server: string | null, secret: string, origin: string, allowed: string[]): string {
  const who = server ? `The MCP server ${server}` : 'This MCP server';
  return (
    `${who} would send the secret "${secret}" to ${origin}, but it may only go to ${allowed.join(', ')}. ` +
    `If you trust ${origin} with it, store it again with that origin too: posthoc secret set ${secret} ${[...allowed, origin].map((o) => `--origin ${o}`).join(' ')}. Otherwise use the server's own token.`
  );
}
