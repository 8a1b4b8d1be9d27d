// What Posthoc knows about an OAuth provider, as data: endpoints, scopes, how the token is sent and
// revoked, PKCE, where the account name comes from, and its APIs with their inverse rules. Code reads it;
// adding a provider means adding data (main/oauth/providers/), not a flow.
import type { ApiSpec, PersonalTokenPath, ServiceRules } from '../../shared/domain/connections';

export type Revocation =
  /** RFC 7009: POST the token (form) to the endpoint, with the client's authentication. */
  | { style: 'rfc7009'; url: string }
  /** A call authorised by the token itself (Slack auth.revoke, Dropbox token/revoke). */
  | { style: 'bearer'; method: string; url: string }
  /**
   * GitHub: DELETE the grant with the client's id and secret as Basic auth, the token in a JSON body. Without a
   * secret (a public client, the sign-in with a code), `howTo` says where the person revokes it.
   */
  | { style: 'client-basic'; method: string; url: string; howTo?: string }
  /** The provider offers no revocation: say where the person removes the app. */
  | { style: 'none'; howTo: string };

export type AccountSource =
  | { style: 'userinfo'; fields: string[] }
  | { style: 'api'; method: string; url: string; fields: string[] }
  | { style: 'token'; fields: string[] };

export type ProviderSpec = {
  id: string;
  displayName: string;
  /** What the connection lets the agent do, and what undo takes back, in one or two sentences for the gallery. */
  about?: string;
  /** Where the person registers the app (and finds the client id). */
  setupUrl: string | null;
  /** Explicit endpoints, or an issuer to discover them from (OpenID Connect / RFC 8414). */
  authorizationUrl?: string;
  tokenUrl?: string;
  /** RFC 8628's device authorization endpoint, when the provider offers the device flow (discovered from an issuer too). */
  deviceAuthorizationUrl?: string;
  /** The app setting that allows the device flow, and where the person's apps are (GitHub: “Enable Device Flow”). */
  deviceFlowSetting?: { name: string; url: string };
  issuer?: string;
  userinfoUrl?: string;
  scopes: string[];
  /** Slack asks for user scopes in 'user_scope'. */
  scopeParam?: string;
  scopeSeparator?: string;
  pkce: boolean;
  /** Whether the token endpoint needs the client secret with the browser sign-in, even with PKCE (Google, GitHub, Slack, Discord); the device sign-in never sends one. */
  clientSecret: 'required' | 'optional';
  /** How the client secret is sent to the token endpoint. */
  tokenAuth: 'post' | 'basic';
  /** Extra parameters of the authorization request (offline access, consent prompt). */
  authParams?: Record<string, string>;
  /**
   * Token answers that are not plain RFC 6749: where the token sits, a success flag to check, and whether errors
   * come as HTTP 200 with an `error` field (GitHub: `authorization_pending` while the person has not entered the code).
   */
  tokenResponse?: { nested?: string; okField?: string; errorsWith200?: boolean };
  revocation: Revocation;
  account: AccountSource;
  /** Fixed loopback port for providers that match the redirect URI exactly (0 or absent: any free port). */
  redirectPort?: number;
  /** The APIs reached with this connection; connecting defines a service for each. */
  apis: ApiSpec[];
  /** The personal access token (or bot token) the provider issues, offered beside OAuth. */
  personalToken?: PersonalTokenPath;
  /** Rules a new service of this provider starts with. */
  defaultRules?: Partial<ServiceRules>;
};

/** The person's configuration of a provider: the client they registered, and for their own providers the endpoints. */
export type ProviderConfig = {
  clientId: string | null;
  scopes?: string[];
  /** Custom providers only. */
  displayName?: string;
  issuer?: string;
  authorizationUrl?: string;
  tokenUrl?: string;
  revocationUrl?: string;
  userinfoUrl?: string;
  /** Custom providers: whether the token endpoint needs the client secret. */
  clientSecretRequired?: boolean;
  redirectPort?: number;
};

export const REDIRECT_PATH = '/callback';

/** The redirect URI the person registers (the port is chosen per sign-in unless the provider fixes it). */
export function redirectUriOf(spec: Pick<ProviderSpec, 'redirectPort'>): string {
  return spec.redirectPort ? `http://127.0.0.1:${spec.redirectPort}${REDIRECT_PATH}` : `http://127.0.0.1${REDIRECT_PATH}`;
}
