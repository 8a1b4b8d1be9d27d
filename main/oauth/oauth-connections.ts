// The person's OAuth connections: connect (loopback flow), hand out access tokens (refreshed before they
// expire and whenever a service answers 401), and disconnect (revoked where the provider allows). Tokens
// and client secrets go to the vault under fixed names; the store keeps status, account, scopes, expiry.
import * as oauth from 'oauth4webapi';
import type { ConnectionView } from '../../shared/domain/connections';
import { ConnectionStore, emptyRecord, type ConnectionRecord } from './connection-store';
import { DeviceFlowRefused, startDeviceFlow, type DeviceFlowStarted } from './device-flow';
import { describe, startLoopbackFlow } from './loopback-flow';
import { redirectUriOf, type ProviderConfig, type ProviderSpec } from './provider-spec';
import { authorizationServer, clientAuthOf, missingText, normalizerOf, OAuthConfigError, setupOf, specOf, usesLoopbackHttp, validateCustomConfig } from './provider-resolver';
import { BUILT_IN_PROVIDERS, builtInProvider } from './providers';
import { shippedPublicClients, type PublicClient, type PublicClients } from './public-clients';
import { revokeToken } from './revocation';
import { ProviderUnreachable } from './unreachable';

/** The vault, as OAuth needs it (the Vault class fits). */
export type SecretStore = {
  get(name: string): Promise<string | null>;
  set(name: string, value: string): Promise<void>;
  remove(name: string): Promise<boolean>;
};

export class OAuthError extends Error {}

export const tokenSecret = {
  access: (p: string) => `oauth:${p}:access`,
  refresh: (p: string) => `oauth:${p}:refresh`,
  client: (p: string) => `oauth:${p}:client-secret`,
};

/** Refresh this long before the expiry the provider gave. */
const REFRESH_MARGIN_MS = 60_000;

/** flow: 'device' (RFC 8628: a code the person enters on the provider's page) or 'browser' (the loopback redirect); default: device where the provider offers it. */
export type ConnectOptions = { port?: number; timeoutMs?: number; flow?: 'browser' | 'device' };
/** A device sign-in: the code the person enters, and where. */
export type DeviceSignIn = { userCode: string; verificationUri: string; verificationUriComplete: string | null; expiresAt: string };
export type ConfigureInput = ProviderConfig & { provider: string; clientSecret?: string };

export class OAuthConnections {
  private readonly refreshing = new Map<string, Promise<string>>();
  private readonly flows = new Map<string, () => void>();

  constructor(
    private readonly store: ConnectionStore,
    private readonly vault: SecretStore,
    private readonly options: { send?: typeof fetch; now?: () => number; publicClients?: PublicClients } = {},
  ) {
    this.publicClients = options.publicClients ?? shippedPublicClients();
  }

  /** The public clients this distribution ships (public-clients.json), by provider. */
  private readonly publicClients: PublicClients;

  /** The shipped public client a connect uses: only for a built-in provider, and only until the person sets their own. */
  private shipped(provider: string): PublicClient | undefined {
    if (!builtInProvider(provider) || this.store.config(provider)?.clientId) return undefined;
    return this.publicClients[provider];
  }

  private clientIdOf(provider: string): string {
    return this.store.config(provider)?.clientId ?? this.shipped(provider)?.clientId ?? '';
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  spec(provider: string): ProviderSpec {
    const spec = specOf(provider, this.store.config(provider));
    if (!spec) {
      throw new OAuthError(`No provider "${provider}". Built-in: ${BUILT_IN_PROVIDERS.map((p) => p.id).join(', ')}; add your own with posthoc connect ${provider} --issuer URL --client-id ID.`);
    }
    return spec;
  }

  providerIds(): string[] {
    const custom = this.store.configs().map((c) => c.id).filter((id) => !builtInProvider(id));
    return [...BUILT_IN_PROVIDERS.map((p) => p.id), ...custom];
  }

  async configure(input: ConfigureInput): Promise<void> {
    const { provider, clientSecret, ...rest } = input;
    const current = this.store.config(provider);
    let config: ProviderConfig = { ...current, ...stripUndefined(rest), clientId: rest.clientId ?? current?.clientId ?? null };
    if (!builtInProvider(provider)) config = validateCustomConfig(provider, config);
    if (clientSecret !== undefined) {
      if (clientSecret === '') await this.vault.remove(tokenSecret.client(provider));
      else await this.vault.set(tokenSecret.client(provider), clientSecret);
    }
    this.store.saveConfig(provider, config);
  }

  /** Starts a sign-in; `done` settles when the browser comes back (or the flow fails or times out). */
  async connect(provider: string, options: ConnectOptions = {}): Promise<{ authorizationUrl: string; done: Promise<ConnectionRecord>; device?: DeviceSignIn }> {
    const baseSpec = this.spec(provider);
    const config = this.store.config(provider);
    // A public client this distribution ships (public-clients.json) serves until the person sets their own: it has
    // no secret, and signs in only with the flow it is registered for.
    const shipped = this.shipped(provider);
    const spec = shipped?.redirectPort ? { ...baseSpec, redirectPort: config?.redirectPort ?? shipped.redirectPort } : baseSpec;
    const clientSecret = shipped ? null : await this.vault.get(tokenSecret.client(provider));
    const setup = setupOf(spec, config, shipped, clientSecret !== null, options.flow);
    const clientId = config?.clientId ?? shipped?.clientId ?? null;
    if (!clientId) throw new OAuthError(missingText(spec, setup));
    const flowWanted = options.flow ?? (shipped ? setup.flow : undefined);
    this.flows.get(provider)?.();
    const as = await authorizationServer(spec, this.options.send);
    const client: oauth.Client = { client_id: clientId };
    const useDevice = flowWanted === 'device' || (flowWanted === undefined && Boolean(as.device_authorization_endpoint));
    if (flowWanted === 'device' && !as.device_authorization_endpoint) {
      throw new OAuthError(`${spec.displayName} does not offer the device sign-in (no device authorization endpoint). Connect in the browser instead: posthoc connect ${provider} --browser.`);
    }
    // What both flows need to reach the provider's token endpoint as this client.
    const base = {
      as,
      client,
      clientAuth: clientAuthOf(spec, clientSecret),
      insecureLoopback: usesLoopbackHttp(spec),
      providerName: spec.displayName,
      scopes: spec.scopes,
      scopeSeparator: spec.scopeSeparator,
      normalize: normalizerOf(spec),
      send: this.options.send,
    };
    let flow: DeviceFlowStarted | null = null;
    if (useDevice) {
      try {
        flow = await startDeviceFlow(base, { timeoutMs: options.timeoutMs });
      } catch (error) {
        // Unreachable is said as such (never masked by a fallback that cannot reach the provider either).
        if (error instanceof ProviderUnreachable || !(error instanceof DeviceFlowRefused)) throw error;
        const setting = spec.deviceFlowSetting;
        const allow = setting ? `Tick “${setting.name}” in the app's settings (${setting.url}), then connect again.` : "Allow the sign-in with a code in the app's settings, then connect again.";
        if (flowWanted === 'device') throw new DeviceFlowRefused('exchange', `${error.message} ${allow}`);
        // Offered by the provider but not enabled for this client: sign in through the browser as before, where
        // that can work; where it would need a client secret that is not there, the real cause is the refusal.
        if (spec.clientSecret === 'required' && !clientSecret) throw new DeviceFlowRefused('exchange', `${error.message} ${allow}`);
      }
    }
    if (flow) {
      return { ...this.track(provider, spec, as, flow.tokens, flow.cancel), authorizationUrl: flow.verificationUriComplete ?? flow.verificationUri, device: flow };
    }
    if (spec.clientSecret === 'required' && !clientSecret && !shipped) {
      throw new OAuthError(missingText(spec, setupOf(spec, config, shipped, false, 'browser')));
    }
    const loopback = await startLoopbackFlow(
      { ...base, scopeParam: spec.scopeParam, pkce: spec.pkce, authParams: spec.authParams },
      { port: options.port ?? spec.redirectPort, timeoutMs: options.timeoutMs },
    );
    return { ...this.track(provider, spec, as, loopback.tokens, loopback.cancel), authorizationUrl: loopback.authorizationUrl };
  }

  /** Follows a sign-in to its end: the tokens saved and the connection marked, or its error kept on it. */
  private track(provider: string, spec: ProviderSpec, as: oauth.AuthorizationServer, tokens: Promise<oauth.TokenEndpointResponse>, cancel: () => void): { done: Promise<ConnectionRecord> } {
    this.flows.set(provider, cancel);
    this.store.patch(provider, { status: 'connecting', error: null });
    const done = tokens.then(
      async (t) => this.saveTokens(provider, spec, as, t, spec.scopes),
      (error: Error) => {
        const previous = this.store.get(provider);
        this.store.patch(provider, { status: previous?.connectedAt ? 'connected' : 'error', error: error.message });
        throw error;
      },
    );
    void done.finally(() => this.flows.delete(provider)).catch(() => undefined);
    return { done };
  }

  /** A current access token: refreshed first when it expires within a minute, or when `refresh` is asked (after a 401). */
  async accessToken(provider: string, options: { refresh?: boolean } = {}): Promise<string> {
    const record = this.store.get(provider);
    if (!record || (record.status !== 'connected' && record.status !== 'expired')) {
      throw new OAuthError(`${this.displayName(provider)} is not connected. Ask the person to connect it: posthoc connect ${provider} (or the Connections page).`);
    }
    const expiring = record.expiresAt !== null && Date.parse(record.expiresAt) - REFRESH_MARGIN_MS <= this.now();
    if (options.refresh || expiring) return this.refresh(provider);
    const token = await this.vault.get(tokenSecret.access(provider));
    if (!token) throw new OAuthError(`The token of ${this.displayName(provider)} is missing from the keychain. Connect again: posthoc connect ${provider}.`);
    return token;
  }

  private refresh(provider: string): Promise<string> {
    let running = this.refreshing.get(provider);
    if (!running) {
      running = this.doRefresh(provider).finally(() => this.refreshing.delete(provider));
      this.refreshing.set(provider, running);
    }
    return running;
  }

  private async doRefresh(provider: string): Promise<string> {
    const spec = this.spec(provider);
    const refreshToken = await this.vault.get(tokenSecret.refresh(provider));
    if (!refreshToken) {
      this.store.patch(provider, { status: 'expired', error: 'The token expired and the provider gave no refresh token.' });
      throw new OAuthError(`The connection to ${spec.displayName} expired and cannot be refreshed. Ask the person to connect again: posthoc connect ${provider}.`);
    }
    const config = this.store.config(provider);
    const as = await authorizationServer(spec, this.options.send);
    const client: oauth.Client = { client_id: config?.clientId ?? this.shipped(provider)?.clientId ?? '' };
    const clientSecret = this.shipped(provider) ? null : await this.vault.get(tokenSecret.client(provider));
    try {
      const opts = { [oauth.allowInsecureRequests]: usesLoopbackHttp(spec), [oauth.customFetch]: this.options.send ?? fetch };
      let response = await oauth.refreshTokenGrantRequest(as, client, clientAuthOf(spec, clientSecret), refreshToken, opts);
      const normalize = normalizerOf(spec);
      if (normalize) response = await normalize(response);
      const tokens = await oauth.processRefreshTokenResponse(as, client, response, { recognizedTokenTypes: { bot: () => undefined, user: () => undefined } });
      await this.saveTokens(provider, spec, as, tokens, this.store.get(provider)?.scopes ?? spec.scopes, false);
      return tokens.access_token;
    } catch (error) {
      this.store.patch(provider, { status: 'expired', error: `Refreshing the token failed: ${describe(error)}` });
      throw new OAuthError(`The connection to ${spec.displayName} could not be refreshed (${describe(error)}). Ask the person to connect again: posthoc connect ${provider}.`);
    }
  }

  /** Revokes where the provider allows, then forgets the tokens. Returns what the person should know. */
  async disconnect(provider: string): Promise<{ revoked: boolean; note: string | null }> {
    const spec = this.spec(provider);
    this.flows.get(provider)?.();
    const access = await this.vault.get(tokenSecret.access(provider));
    const refresh = await this.vault.get(tokenSecret.refresh(provider));
    let outcome: { revoked: boolean; note: string | null } = { revoked: false, note: null };
    if (access || refresh) {
      const clientSecret = this.shipped(provider) ? null : await this.vault.get(tokenSecret.client(provider));
      outcome = await revokeToken(spec, { clientId: this.clientIdOf(provider), clientSecret, access, refresh }, this.options.send ?? fetch);
    }
    await this.vault.remove(tokenSecret.access(provider));
    await this.vault.remove(tokenSecret.refresh(provider));
    this.store.save({ ...emptyRecord(provider), error: outcome.note });
    return outcome;
  }

  async view(provider: string, services: string[]): Promise<ConnectionView> {
    const spec = this.spec(provider);
    const config = this.store.config(provider);
    const record = this.store.get(provider) ?? emptyRecord(provider);
    const expired = record.status === 'connected' && record.expiresAt !== null && !record.hasRefreshToken && Date.parse(record.expiresAt) <= this.now();
    const clientSecretSet = (await this.vault.get(tokenSecret.client(provider))) !== null;
    const shipped = this.shipped(provider);
    const setup = setupOf(shipped?.redirectPort ? { ...spec, redirectPort: config?.redirectPort ?? shipped.redirectPort } : spec, config, shipped, clientSecretSet);
    return {
      provider,
      displayName: spec.displayName,
      ...(spec.about ? { about: spec.about } : {}),
      deviceFlow: setup.flow === 'device',
      builtIn: Boolean(builtInProvider(provider)),
      status: expired ? 'expired' : record.status,
      account: record.account,
      scopes: record.scopes,
      expiresAt: record.expiresAt,
      clientId: config?.clientId ?? null,
      clientSecretSet,
      needsClientSecret: setup.clientSecret === 'required',
      redirectUri: redirectUriOf(shipped?.redirectPort ? { redirectPort: config?.redirectPort ?? shipped.redirectPort } : spec),
      setupUrl: spec.setupUrl,
      revocable: spec.revocation.style !== 'none',
      services,
      error: record.error,
      setup,
      personalToken: spec.personalToken ?? null,
    };
  }

  cancelAll(): void {
    for (const cancel of [...this.flows.values()]) cancel();
  }

  private displayName(provider: string): string {
    return specOf(provider, this.store.config(provider))?.displayName ?? provider;
  }

  private async saveTokens(
    provider: string,
    spec: ProviderSpec,
    as: oauth.AuthorizationServer,
    tokens: oauth.TokenEndpointResponse,
    requested: string[],
    lookUpAccount = true,
  ): Promise<ConnectionRecord> {
    await this.vault.set(tokenSecret.access(provider), tokens.access_token);
    if (tokens.refresh_token) await this.vault.set(tokenSecret.refresh(provider), tokens.refresh_token);
    const previous = this.store.get(provider);
    const scopes = typeof tokens.scope === 'string' ? tokens.scope.split(/[ ,]+/).filter(Boolean) : requested;
    const account = lookUpAccount ? await accountOf(spec, as, tokens, this.options.send ?? fetch) : (previous?.account ?? null);
    return this.store.save({
      provider,
      status: 'connected',
      account,
      scopes,
      expiresAt: typeof tokens.expires_in === 'number' ? new Date(this.now() + tokens.expires_in * 1000).toISOString() : null,
      hasRefreshToken: Boolean(tokens.refresh_token) || Boolean(previous?.hasRefreshToken && !lookUpAccount),
      error: null,
      connectedAt: lookUpAccount ? new Date(this.now()).toISOString() : (previous?.connectedAt ?? new Date(this.now()).toISOString()),
    });
  }
}

/** The account's name, for the person to recognise the connection; null when the provider does not say. */
async function accountOf(spec: ProviderSpec, as: oauth.AuthorizationServer, tokens: oauth.TokenEndpointResponse, send: typeof fetch): Promise<string | null> {
  const pick = (value: unknown, fields: string[]): string | null => {
    if (!value || typeof value !== 'object') return null;
    for (const f of fields) {
      const v = (value as Record<string, unknown>)[f];
      if (typeof v === 'string' && v) return v;
    }
    return null;
  };
  const source = spec.account;
  try {
    switch (source.style) {
      case 'token':
        return pick(tokens, source.fields);
      case 'userinfo': {
        if (!as.userinfo_endpoint) return null;
        const res = await send(as.userinfo_endpoint, { headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' } });
        return res.ok ? pick(await res.json(), source.fields) : null;
      }
      case 'api': {
        const res = await send(source.url, { method: source.method, headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' } });
        return res.ok ? pick(await res.json(), source.fields) : null;
      }
    }
  } catch {
    return null;
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export { OAuthConfigError };
