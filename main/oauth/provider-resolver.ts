// Turns provider data plus the person's configuration into what oauth4webapi needs: the authorization
// server's metadata (explicit endpoints, or discovered from an issuer), the client, and its
// authentication. Plain http is allowed only on the loopback interface (local test servers).
import * as oauth from 'oauth4webapi';
import type { ConnectSetup } from '../../shared/domain/connections';
import { redirectUriOf, type ProviderConfig, type ProviderSpec } from './provider-spec';
import type { PublicClient } from './public-clients';
import { builtInProvider } from './providers';
import { unreachable } from './unreachable';

export class OAuthConfigError extends Error {}

const PROVIDER_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export function isLoopback(url: URL): boolean {
  return url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
}

export function checkEndpoint(label: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthConfigError(`The ${label} "${value}" is not a URL.`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url))) {
    throw new OAuthConfigError(`The ${label} must use https (plain http only on 127.0.0.1 for local test servers): ${value}`);
  }
  return url.href;
}

/** The provider's data with the person's configuration applied; custom providers are built from config alone. */
export function specOf(id: string, config: ProviderConfig | undefined): ProviderSpec | undefined {
  const builtIn = builtInProvider(id);
  if (builtIn) {
    return {
      ...builtIn,
      scopes: config?.scopes?.length ? config.scopes : builtIn.scopes,
      redirectPort: config?.redirectPort ?? builtIn.redirectPort,
    };
  }
  if (!config) return undefined;
  return {
    id,
    displayName: config.displayName ?? id,
    setupUrl: null,
    issuer: config.issuer,
    authorizationUrl: config.authorizationUrl,
    tokenUrl: config.tokenUrl,
    userinfoUrl: config.userinfoUrl,
    scopes: config.scopes ?? (config.issuer ? ['openid', 'profile', 'email'] : []),
    pkce: true,
    clientSecret: config.clientSecretRequired ? 'required' : 'optional',
    tokenAuth: 'basic',
    // With an issuer, the revocation endpoint may come from discovery (url '' until then).
    revocation: config.revocationUrl
      ? { style: 'rfc7009', url: config.revocationUrl }
      : config.issuer
        ? { style: 'rfc7009', url: '' }
        : { style: 'none', howTo: 'Revoke Posthoc\'s access in the provider\'s account settings.' },
    account: { style: 'userinfo', fields: ['email', 'preferred_username', 'name', 'sub'] },
    redirectPort: config.redirectPort,
    apis: [],
  };
}

/**
 * What connecting needs, one truth for the card, the form, the CLI and connect itself: whose client (the person's,
 * else the public one this distribution ships), the flow it signs in with, whether a client secret is asked for
 * (never for the device sign-in or a shipped public client; else as the provider's token endpoint demands), and
 * what is still missing. Nothing missing with a shipped client: one click.
 */
export function setupOf(
  spec: ProviderSpec,
  config: ProviderConfig | undefined,
  shipped: PublicClient | undefined,
  clientSecretSet: boolean,
  /** The flow the person asked for (the CLI's --browser / --device), else the default. */
  asked?: 'browser' | 'device',
): ConnectSetup {
  const client = config?.clientId ? 'own' : shipped ? 'shipped' : 'none';
  const flow = asked ?? (client === 'shipped' ? (shipped!.flow === 'device' ? 'device' : 'browser') : spec.deviceAuthorizationUrl ? 'device' : 'browser');
  const clientSecret = client === 'shipped' || flow === 'device' ? 'none' : spec.clientSecret;
  const missing: ConnectSetup['missing'] = [];
  if (client === 'none') missing.push('clientId');
  if (clientSecret === 'required' && !clientSecretSet) missing.push('clientSecret');
  return { client, flow, clientSecret, missing };
}

/** What is missing, in words that name no front end (each says where to give it: the CLI its flag, the app its field). */
export function missingText(spec: ProviderSpec, setup: ConnectSetup): string {
  const at = spec.setupUrl ? ` at ${spec.setupUrl}` : '';
  if (setup.missing.includes('clientId')) {
    return setup.flow === 'device'
      ? `Connecting to ${spec.displayName} needs the client id of an app registered${at} with “Enable Device Flow” ticked (no redirect address and no client secret).`
      : `Connecting to ${spec.displayName} needs the client id${setup.clientSecret === 'required' ? ' and the client secret' : ''} of an app registered${at} with the redirect address ${redirectUriOf(spec)}.`;
  }
  if (setup.missing.includes('clientSecret')) {
    return `${spec.displayName}'s token endpoint also needs the app's client secret for the browser sign-in: it refuses one without it.`;
  }
  return '';
}

export function validateCustomConfig(id: string, config: ProviderConfig): ProviderConfig {
  if (!PROVIDER_ID.test(id)) throw new OAuthConfigError(`"${id}" is not a provider name: use lower-case letters, digits, "-" and "_".`);
  const issuer = checkEndpoint('issuer', config.issuer);
  const authorizationUrl = checkEndpoint('authorization URL', config.authorizationUrl);
  const tokenUrl = checkEndpoint('token URL', config.tokenUrl);
  if (!issuer && !(authorizationUrl && tokenUrl)) {
    throw new OAuthConfigError(
      `"${id}" is not a built-in provider, so Posthoc needs its endpoints: --issuer URL (OpenID Connect discovery), or --authorization-url and --token-url. Built-in: slack, github, google, spotify, dropbox, discord.`,
    );
  }
  return {
    ...config,
    issuer,
    authorizationUrl,
    tokenUrl,
    revocationUrl: checkEndpoint('revocation URL', config.revocationUrl),
    userinfoUrl: checkEndpoint('userinfo URL', config.userinfoUrl),
  };
}

/** Whether every endpoint of the provider is plain http on the loopback interface (local test servers). */
export function usesLoopbackHttp(spec: ProviderSpec): boolean {
  const urls = [spec.issuer, spec.authorizationUrl, spec.tokenUrl].filter((u): u is string => Boolean(u)).map((u) => new URL(u));
  return urls.length > 0 && urls.every((u) => u.protocol === 'http:' && isLoopback(u));
}

export async function authorizationServer(spec: ProviderSpec, send: typeof fetch = fetch): Promise<oauth.AuthorizationServer> {
  const insecure = usesLoopbackHttp(spec);
  let as: oauth.AuthorizationServer;
  if (spec.issuer) {
    const issuer = new URL(spec.issuer);
    let response: Response;
    try {
      response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', [oauth.allowInsecureRequests]: insecure, [oauth.customFetch]: send });
    } catch (error) {
      throw unreachable(spec.displayName, error, issuer.href) ?? new OAuthConfigError(`Could not reach ${spec.displayName}'s discovery document at ${issuer.href} (${(error as Error).message}).`);
    }
    try {
      as = await oauth.processDiscoveryResponse(issuer, response);
    } catch (error) {
      throw new OAuthConfigError(`${spec.displayName}'s discovery document at ${issuer.href} is not usable: ${(error as Error).message}`);
    }
    checkDiscoveredOrigins(spec, as);
  } else {
    as = { issuer: new URL(spec.authorizationUrl!).origin, authorization_endpoint: spec.authorizationUrl, token_endpoint: spec.tokenUrl };
  }
  return {
    ...as,
    authorization_endpoint: spec.authorizationUrl ?? as.authorization_endpoint,
    token_endpoint: spec.tokenUrl ?? as.token_endpoint,
    // A discovered device endpoint is used only on an origin the provider is known by (else: the browser sign-in).
    device_authorization_endpoint: spec.deviceAuthorizationUrl ?? (onKnownOrigin(spec, as.device_authorization_endpoint) ? as.device_authorization_endpoint : undefined),
    userinfo_endpoint: spec.userinfoUrl ?? as.userinfo_endpoint,
    revocation_endpoint: spec.revocation.style === 'rfc7009' && spec.revocation.url ? spec.revocation.url : as.revocation_endpoint,
  };
}

const DISCOVERED: Array<{ key: 'authorization_endpoint' | 'token_endpoint' | 'userinfo_endpoint' | 'revocation_endpoint'; label: string; flag: string }> = [
  { key: 'authorization_endpoint', label: 'authorization endpoint', flag: '--authorization-url' },
  { key: 'token_endpoint', label: 'token endpoint', flag: '--token-url' },
  { key: 'userinfo_endpoint', label: 'userinfo endpoint', flag: '--userinfo-url' },
  { key: 'revocation_endpoint', label: 'revocation endpoint', flag: '--revocation-url' },
];

function onKnownOrigin(spec: ProviderSpec, value: unknown): boolean {
  if (typeof value !== 'string' || value === '') return false;
  try {
    const url = new URL(value);
    return knownOrigins(spec).has(url.origin) && (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url))) && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/** The origins a provider is known by: its issuer's and those of the endpoints the person or Posthoc set explicitly. */
export function knownOrigins(spec: ProviderSpec): Set<string> {
  const urls = [spec.issuer, spec.authorizationUrl, spec.tokenUrl, spec.userinfoUrl, spec.revocation.style !== 'none' ? spec.revocation.url : undefined];
  const origins = new Set<string>();
  for (const u of urls) {
    if (!u) continue;
    try {
      origins.add(new URL(u).origin);
    } catch {
      // Not a URL: checkEndpoint refuses it where it is configured.
    }
  }
  return origins;
}

/**
 * A discovery document is fetched over the network and could name endpoints anywhere: the sign-in page
 * Posthoc opens in the browser, and the token endpoint it sends the client secret and code to. Each
 * endpoint it would use must be on the issuer's origin or one the provider is known by; otherwise the
 * person sets it explicitly, having seen where it goes.
 */
export function checkDiscoveredOrigins(spec: ProviderSpec, as: oauth.AuthorizationServer): void {
  const known = knownOrigins(spec);
  const explicit = {
    authorization_endpoint: spec.authorizationUrl,
    token_endpoint: spec.tokenUrl,
    userinfo_endpoint: spec.userinfoUrl,
    revocation_endpoint: spec.revocation.style === 'rfc7009' ? spec.revocation.url : undefined,
  };
  for (const { key, label, flag } of DISCOVERED) {
    const value = as[key];
    if (typeof value !== 'string' || value === '' || explicit[key]) continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new OAuthConfigError(`${spec.displayName}'s discovery document names a ${label} that is not a URL: ${value}`);
    }
    const plainHttpAllowed = url.protocol === 'http:' && isLoopback(url);
    if (!known.has(url.origin) || (url.protocol !== 'https:' && !plainHttpAllowed) || url.username !== '' || url.password !== '') {
      throw new OAuthConfigError(
        `${spec.displayName}'s discovery document at ${spec.issuer} names a ${label} on ${url.origin}, which is neither the issuer's origin nor one configured for ${spec.displayName} (${[...known].join(', ')}), so Posthoc will not open or send anything to it. If ${url.origin} really is ${spec.displayName}'s, configure it explicitly: posthoc connect ${spec.id} ${flag} ${value}`,
      );
    }
  }
}

export function clientAuthOf(spec: ProviderSpec, clientSecret: string | null): oauth.ClientAuth {
  if (!clientSecret) return oauth.None();
  return spec.tokenAuth === 'basic' ? oauth.ClientSecretBasic(clientSecret) : oauth.ClientSecretPost(clientSecret);
}

/** Slack-style token answers: {"ok": false, "error"} becomes an OAuth error; a nested user token is lifted up; GitHub's 200 errors become 400. */
export function normalizerOf(spec: ProviderSpec): ((response: Response) => Promise<Response>) | undefined {
  const shape = spec.tokenResponse;
  if (!shape) return undefined;
  return async (response) => {
    const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (shape.okField && json[shape.okField] === false) {
      return Response.json({ error: String(json.error ?? 'invalid_grant') }, { status: 400 });
    }
    // An error said with HTTP 200 is still an error (RFC 6749 §5.2 answers 400).
    if (shape.errorsWith200 && typeof json.error === 'string') return Response.json(json, { status: response.status === 200 ? 400 : response.status });
    const nested = shape.nested ? (json[shape.nested] as Record<string, unknown> | undefined) : undefined;
    const merged = nested && typeof nested.access_token === 'string' ? { ...json, ...nested } : json;
    if (typeof merged.token_type !== 'string') merged.token_type = 'bearer';
    return Response.json(merged, { status: response.status });
  };
}
