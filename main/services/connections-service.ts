// Connections as the front ends see them: OAuth providers and their connections, services with their
// credentials and rules, secrets by name, and the calls the gateway keeps back. It joins main/oauth and
// main/vault to the gateway (which may not import them) through CredentialSource. No value of a secret
// leaves here: answers carry names, kinds, scopes and expiry.
import type { CallInput } from '../../shared/contract';
import type { ServiceDefinition } from '../../shared/domain';
import type { ConnectionView, ConnectStarted, RestHold, SecretEntry } from '../../shared/domain/connections';
import type { PromptService } from '../agent/system-prompt';
import { describeBodyRule } from '../gateway/call-rules';
import type { Gateway } from '../gateway/gateway';
import { describePattern } from '../gateway/path-glob';
import { HoldError } from '../gateway/holds';
import { RestUndo } from '../gateway/rest-undo';
import { CredentialMissing, ServiceCaller, type CredentialSource } from '../gateway/service-caller';
import { ownEntryProblem, SecretOriginRefused, ServiceDefinitionError, type BindingOptions, type ServiceInput, type ServiceRegistry } from '../gateway/service-registry';
import { ConnectionStore } from '../oauth/connection-store';
import { OAuthFlowError } from '../oauth/loopback-flow';
import { OAuthConfigError, OAuthConnections, OAuthError, tokenSecret, type ConnectOptions } from '../oauth/oauth-connections';
import { apiIds, apiSpec, builtInProvider } from '../oauth/providers';
import type { PublicClients } from '../oauth/public-clients';
import { ProviderUnreachable } from '../oauth/unreachable';
import type { AppDatabase } from '../store/database';
import { originOf, OriginError, parseOrigin } from '../store/secret-origins';
import { checkSecretName, kindOf, VaultUnavailable, type Vault } from '../vault/vault';
import type { EventBus } from './event-bus';
import { ServiceError } from './service-error';

export type ConnectionsOptions = {
  /** Opens the system browser (Electron's shell.openExternal); absent: the front end shows the link. */
  openExternal?: (url: string) => Promise<boolean>;
  /** HTTP for OAuth endpoints and services (tests point it at local servers; default fetch). */
  send?: typeof fetch;
  now?: () => number;
  connect?: ConnectOptions;
  /** The public OAuth clients this distribution ships (default: main/oauth/public-clients.json); tests give their own. */
  publicClients?: PublicClients;
};

export class ConnectionsService {
  readonly oauth: OAuthConnections;
  readonly caller: ServiceCaller;
  readonly restUndo: RestUndo;

  constructor(
    db: AppDatabase,
    private readonly vault: Vault,
    private readonly registry: ServiceRegistry,
    private readonly gateway: Gateway,
    private readonly events: EventBus,
    private readonly options: ConnectionsOptions = {},
  ) {
    this.oauth = new OAuthConnections(new ConnectionStore(db), vault, { send: options.send, now: options.now, publicClients: options.publicClients });
    const credentials: CredentialSource = {
      secret: (name) => vault.get(name),
      oauthToken: async (provider, opts) => {
        try {
          return await this.oauth.accessToken(provider, opts);
        } catch (error) {
          if (error instanceof OAuthError) {
            void this.publish(provider);
            throw new CredentialMissing(error.message);
          }
          throw error;
        }
      },
    };
    this.caller = new ServiceCaller(credentials, options.send);
    this.restUndo = new RestUndo(registry, this.caller);
  }

  async list(): Promise<ConnectionView[]> {
    return Promise.all(this.oauth.providerIds().map((id) => this.view(id)));
  }

  async configure(input: CallInput<'connection:configure'>): Promise<ConnectionView> {
    await this.guard(() => this.oauth.configure({ ...input, clientId: input.clientId ?? null }));
    return this.publish(input.provider);
  }

  async connect(provider: string, options: ConnectOptions = this.options.connect ?? {}): Promise<ConnectStarted & { done: Promise<ConnectionView> }> {
    const started = await this.guard(() => this.oauth.connect(provider, options));
    void this.publish(provider);
    const done = started.done.then(
      async () => {
        this.defineProviderServices(provider);
        return this.publish(provider);
      },
      async (error: Error) => {
        await this.publish(provider);
        throw error instanceof OAuthFlowError ? new ServiceError('conflict', error.message) : error;
      },
    );
    done.catch(() => undefined);
    const opened = this.options.openExternal ? await this.options.openExternal(started.authorizationUrl).catch(() => false) : false;
    const device = started.device
      ? { userCode: started.device.userCode, verificationUri: started.device.verificationUri, expiresAt: started.device.expiresAt }
      : {};
    return { provider, authorizationUrl: started.authorizationUrl, opened, ...device, done };
  }

  /** A personal access token instead of OAuth: stored bound to the provider's API origins, and its services defined to send it. */
  async useToken(provider: string, token: string): Promise<ConnectionView> {
    const spec = builtInProvider(provider);
    const path = spec?.personalToken;
    if (!path) {
      throw new ServiceError('invalid-input', `${spec?.displayName ?? provider} issues no personal access token that Posthoc knows of: connect it with OAuth instead.`);
    }
    const prefix = path.auth.kind === 'header' ? (path.auth.prefix ?? '') : '';
    const value = prefix && !token.startsWith(prefix) ? `${prefix}${token}` : token;
    await this.setSecret(path.secretName, value, [...new Set(path.services.map((s) => originOf(s.baseUrl)))]);
    for (const s of path.services) {
      const auth = path.auth.kind === 'bearer' ? { kind: 'bearer' as const, secret: path.secretName } : { kind: 'header' as const, header: path.auth.header, secret: path.secretName };
      this.addService({ name: s.name, baseUrl: s.baseUrl, auth, api: s.api });
    }
    return this.publish(provider);
  }

  async disconnect(provider: string): Promise<ConnectionView> {
    await this.guard(() => this.oauth.disconnect(provider));
    return this.publish(provider);
  }

  /** Names and kinds, and where each of the person's secrets may be sent (never a value). */
  async secrets(): Promise<Array<SecretEntry & { origins?: string[] }>> {
    // The list waits for the keychain's answer (an unlock prompt the person is answering), unlike a status check.
    const status = await this.vault.status({ waitForAnswer: true });
    if (!status.available) throw new ServiceError('unavailable', status.message ?? 'The OS keychain is not available.');
    return status.secrets.map((s) => {
      const kind = kindOf(s.name);
      const origins = kind === 'secret' ? this.registry.allowedOrigins(s.name, this.binding()) : [];
      return origins.length ? { name: s.name, kind, origins } : { name: s.name, kind };
    });
  }

  /**
   * Stores a secret. With origins, it may be sent only there (they replace those it had); without, it
   * keeps the origins it had, or is bound to the first service that uses it.
   */
  async setSecret(name: string, value: string, origins?: string[]): Promise<SecretEntry & { origins: string[] }> {
    let bound: string[] | undefined;
    try {
      checkSecretName(name);
      if (origins?.length) {
        const own = ownEntryProblem(name);
        if (own) throw new Error(`${own} It takes no --origin.`);
        bound = [...new Set(origins.map(parseOrigin))].sort();
      }
    } catch (error) {
      throw new ServiceError('invalid-input', (error as Error).message);
    }
    if (bound) {
      // Services already sending it elsewhere would break the binding the person is setting.
      const elsewhere = this.registry.usingCredential(name).filter((s) => !bound.includes(originOf(s.baseUrl)));
      if (elsewhere.length > 0) {
        throw new ServiceError(
          'conflict',
          `${elsewhere.map((s) => `The service "${s.name}" sends ${name} to ${originOf(s.baseUrl)}`).join('; ')}. Add that origin (--origin ${originOf(elsewhere[0]!.baseUrl)}), or change or remove the service first (posthoc service remove NAME).`,
        );
      }
    }
    await this.vault.set(name, value);
    if (bound) this.registry.origins.set(name, bound);
    return { name, kind: kindOf(name), origins: this.registry.allowedOrigins(name, this.binding()) };
  }

  async removeSecret(name: string): Promise<{ removed: boolean }> {
    if (name.startsWith('oauth:')) {
      throw new ServiceError('invalid-input', `${name} belongs to an OAuth connection; disconnect it instead (posthoc disconnect ${name.split(':')[1]}).`);
    }
    const removed = await this.vault.remove(name);
    // A new value stored under this name later is a new secret: it starts with no origins.
    this.registry.origins.forget(name);
    return { removed };
  }

  addService(input: CallInput<'service:add'>): ServiceDefinition {
    const { allowSecretOrigin, ...definition } = input;
    if (input.api && !apiSpec(input.api)) {
      throw new ServiceError('invalid-input', `No provider data for the API "${input.api}". Known: ${apiIds().join(', ')}.`);
    }
    if (input.auth?.kind === 'oauth' && !this.oauth.providerIds().includes(input.auth.provider)) {
      throw new ServiceError('invalid-input', `No OAuth provider "${input.auth.provider}". Connect it first: posthoc connect ${input.auth.provider} …`);
    }
    const api = input.api !== undefined ? input.api : inferApi(input.name, input.auth);
    try {
      return this.registry.add({ ...definition, api } as ServiceInput, this.binding(allowSecretOrigin));
    } catch (error) {
      if (error instanceof SecretOriginRefused) throw new ServiceError('forbidden', error.message);
      if (error instanceof ServiceDefinitionError || error instanceof OriginError) throw new ServiceError('invalid-input', error.message);
      throw error;
    }
  }

  /** A connection's tokens may always go to its built-in provider's own API hosts. */
  private binding(allowSecretOrigin = false): BindingOptions {
    return {
      allowSecretOrigin,
      knownOrigins: (credential) =>
        credential.startsWith('oauth:') ? (builtInProvider(credential.slice('oauth:'.length))?.apis ?? []).map((a) => originOf(a.baseUrl)) : [],
    };
  }

  /** What the agent's prompt says about a granted service: its route and the person's rules. */
  promptInfo(name: string): PromptService | undefined {
    const s = this.registry.get(name);
    if (!s) return undefined;
    const r = s.rules;
    const rules: string[] = [];
    if (r.allow.length) rules.push(`only ${r.allow.map(describePattern).join(', ')}`);
    for (const b of r.body) rules.push(`body rule ${describeBodyRule(b)}`);
    if (r.hold.length) rules.push(`${r.hold.map(describePattern).join(', ')} wait for the person's approval`);
    const sends = [...r.sends, ...(s.api ? (apiSpec(s.api)?.sends ?? []) : [])];
    if (sends.length) rules.push(`${sends.map(describePattern).join(', ')} cannot be taken back and wait ${r.holdSeconds} s before they leave`);
    if (r.noInverse !== 'allow') rules.push(`calls with no known inverse are ${r.noInverse === 'hold' ? 'held for approval' : 'refused'}`);
    if (r.outside === 'hold') rules.push('calls outside these rules wait for approval instead of being refused');
    return { name: s.name, baseUrl: s.baseUrl, rules };
  }

  cancelHold(holdId: string): RestHold {
    return this.decide(() => this.gateway.holds.cancel(holdId));
  }

  approveHold(holdId: string): RestHold {
    return this.decide(() => this.gateway.holds.approve(holdId));
  }

  close(): void {
    this.oauth.cancelAll();
  }

  private decide(fn: () => RestHold): RestHold {
    try {
      return fn();
    } catch (error) {
      if (error instanceof HoldError) throw new ServiceError(error.code, error.message);
      throw error;
    }
  }

  /** After a built-in provider connects, each of its APIs becomes a service (unless the person defined one). */
  private defineProviderServices(provider: string): void {
    const spec = builtInProvider(provider);
    if (!spec) return;
    for (const api of spec.apis) {
      if (this.registry.get(api.id)) continue;
      this.registry.add({ name: api.id, baseUrl: api.baseUrl, auth: { kind: 'oauth', provider }, api: api.id, rules: spec.defaultRules }, this.binding());
    }
  }

  private async view(provider: string): Promise<ConnectionView> {
    const view = await this.oauth.view(provider, this.registry.usingProvider(provider).map((s) => s.name));
    const secret = view.personalToken?.secretName;
    return secret ? { ...view, tokenServices: this.registry.usingCredential(secret).map((s) => s.name) } : view;
  }

  private async publish(provider: string): Promise<ConnectionView> {
    const view = await this.view(provider);
    this.events.emit('connection:updated', view);
    return view;
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof OAuthError || error instanceof OAuthConfigError) throw new ServiceError('invalid-input', error.message);
      if (error instanceof OAuthFlowError) throw new ServiceError('conflict', error.message);
      if (error instanceof ProviderUnreachable) throw new ServiceError('unavailable', error.message);
      if (error instanceof VaultUnavailable) throw new ServiceError('unavailable', error.message);
      throw error;
    }
  }
}

/** A service named after a known API, or authenticated by a built-in provider with one API, uses that API's data. */
function inferApi(name: string, auth: CallInput<'service:add'>['auth']): string | null {
  if (apiSpec(name)) return name;
  if (auth?.kind === 'oauth') {
    const apis = builtInProvider(auth.provider)?.apis ?? [];
    if (apis.length === 1) return apis[0]!.id;
  }
  return null;
}

export { tokenSecret };
