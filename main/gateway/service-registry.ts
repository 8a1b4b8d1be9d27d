// Services the gateway may forward to: a name, a base URL, how credentials are added (secrets by name
// only), the person's rules for the calls, and whose provider data says how calls are taken back.
import type { ServiceDefinition } from '../../shared/domain';
import { ServiceAuth, ServiceRules } from '../../shared/domain/connections';
import type { AppDatabase } from '../store/database';
import { originOf, SecretOrigins } from '../store/secret-origins';
import { defaultRules } from './call-rules';

export type { ServiceDefinition };
export type ServiceInput = { name: string; baseUrl: string; auth?: ServiceAuth; rules?: Partial<ServiceRules>; api?: string | null };
export type ResolvedService = ServiceDefinition & { auth: ServiceAuth; rules: ServiceRules; api: string | null };

/** What the person said about where the service's credential may go. */
export type BindingOptions = {
  /** The person confirmed sending the credential to the base URL's origin (CLI --allow-secret-origin, the app's confirm step). */
  allowSecretOrigin?: boolean;
  /** Origins a credential may always go to (an OAuth provider's own API hosts). */
  knownOrigins?: (credential: string) => string[];
};

export class ServiceDefinitionError extends Error {}

/** The service would send its credential to an origin it is not bound to, and the person has not confirmed it. */
export class SecretOriginRefused extends ServiceDefinitionError {
  constructor(
    readonly service: string,
    readonly credential: string,
    readonly origin: string,
    readonly allowed: string[],
  ) {
    const what = credential.startsWith('oauth:') ? `the ${credential.slice(6)} connection's token` : `the secret "${credential}"`;
    super(
      `The service "${service}" would send ${what} to ${origin}, but it may only go to ${allowed.join(', ')}. ` +
        `If you trust ${origin} with it, confirm: posthoc service add ${service} … --allow-secret-origin (in the app, confirm it on the Connections page). Otherwise use the service's own key.`,
    );
  }
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const SECRET_NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'cookie']);

export function validateService(name: string, baseUrl: string): { name: string; baseUrl: string } {
  if (!NAME.test(name)) {
    throw new ServiceDefinitionError(
      `"${name}" is not a valid service name: use lower-case letters, digits, "-" and "_" (it appears in the sandbox as $POSTHOC_GATEWAY/svc/${name}/…).`,
    );
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ServiceDefinitionError(`"${baseUrl}" is not a URL. Give the service's base URL, for example https://api.example.com/v1.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ServiceDefinitionError(`The base URL must use http or https, not ${url.protocol}`);
  }
  if (url.username || url.password) {
    throw new ServiceDefinitionError('Put no credentials in the base URL; they would be stored in plain text. Credentials belong in the vault.');
  }
  if (url.search || url.hash) throw new ServiceDefinitionError('The base URL must not have a query string or a fragment.');
  return { name, baseUrl: url.href.replace(/\/+$/, '') };
}

/** Why a vault entry of Posthoc's own can never be a service's credential, or null for the person's own secrets. */
export function ownEntryProblem(name: string): string | null {
  if (name === 'llm-api-key' || name.startsWith('llm-api-key:')) {
    return `"${name}" is Posthoc's own key for the language model; it is never sent to a service. Store the service's own key (posthoc secret set NAME) and name that.`;
  }
  if (name.startsWith('db-password')) {
    return `"${name}" is a database password Posthoc keeps for a granted database; it is never sent to a service. Store the service's own key (posthoc secret set NAME) and name that.`;
  }
  if (name.startsWith('oauth:')) {
    return `"${name}" belongs to an OAuth connection; its token goes only with --auth oauth:PROVIDER, to that provider's services.`;
  }
  return null;
}

export function validateAuth(auth: ServiceAuth): ServiceAuth {
  const parsed = ServiceAuth.parse(auth);
  const own = 'secret' in parsed ? ownEntryProblem(parsed.secret) : null;
  if (own) throw new ServiceDefinitionError(own);
  if ('secret' in parsed && !SECRET_NAME.test(parsed.secret)) {
    throw new ServiceDefinitionError(
      `"${parsed.secret}" is not a secret name: use lower-case letters, digits, ".", "-" and "_". Store the value with: posthoc secret set NAME (it reads the value from standard input).`,
    );
  }
  if (parsed.kind === 'header' && (!HEADER_NAME.test(parsed.header) || FORBIDDEN_HEADERS.has(parsed.header.toLowerCase()))) {
    throw new ServiceDefinitionError(`"${parsed.header}" cannot carry a credential; name the header the service reads the key from, for example X-Api-Key.`);
  }
  if (parsed.kind === 'query' && !/^[A-Za-z0-9_.-]+$/.test(parsed.param)) {
    throw new ServiceDefinitionError(`"${parsed.param}" is not a query parameter name.`);
  }
  return parsed;
}

/** Parses --auth as the CLI writes it: bearer | header:NAME | query:NAME | oauth:PROVIDER | none. */
export function parseAuth(text: string, secret: string | undefined): ServiceAuth {
  const [kind, arg] = text.includes(':') ? [text.slice(0, text.indexOf(':')), text.slice(text.indexOf(':') + 1)] : [text, ''];
  const needSecret = (): string => {
    if (!secret) throw new ServiceDefinitionError(`--auth ${text} needs --secret NAME: the vault entry holding the key (posthoc secret set NAME).`);
    return secret;
  };
  switch (kind) {
    case 'none':
      return { kind: 'none' };
    case 'bearer':
      return validateAuth({ kind: 'bearer', secret: needSecret() });
    case 'header':
      if (!arg) break;
      return validateAuth({ kind: 'header', header: arg, secret: needSecret() });
    case 'query':
      if (!arg) break;
      return validateAuth({ kind: 'query', param: arg, secret: needSecret() });
    case 'oauth':
      if (!arg) break;
      return validateAuth({ kind: 'oauth', provider: arg });
  }
  throw new ServiceDefinitionError(`"--auth ${text}" is not understood: use bearer, header:NAME, query:NAME or oauth:PROVIDER.`);
}

export function describeAuth(auth: ServiceAuth): string | null {
  switch (auth.kind) {
    case 'none':
      return null;
    case 'bearer':
      return `bearer ${auth.secret}`;
    case 'header':
      return `header ${auth.header} ${auth.secret}`;
    case 'query':
      return `query ${auth.param} ${auth.secret}`;
    case 'oauth':
      return `oauth:${auth.provider}`;
  }
}

type Row = { name: string; base_url: string; created_at: string; auth_json: string; rules_json: string; api: string | null };

/** The credential a service's calls carry: a secret's name, or "oauth:PROVIDER"; null when none. */
export function credentialOf(auth: ServiceAuth): string | null {
  switch (auth.kind) {
    case 'none':
      return null;
    case 'bearer':
    case 'header':
    case 'query':
      return auth.secret;
    case 'oauth':
      return `oauth:${auth.provider}`;
  }
}

export class ServiceRegistry {
  readonly origins: SecretOrigins;

  constructor(private readonly db: AppDatabase) {
    this.origins = new SecretOrigins(db);
  }

  add(input: ServiceInput, options?: BindingOptions): ResolvedService;
  add(name: string, baseUrl: string): ResolvedService;
  add(a: ServiceInput | string, b?: string | BindingOptions): ResolvedService {
    const input: ServiceInput = typeof a === 'string' ? { name: a, baseUrl: typeof b === 'string' ? b : '' } : a;
    const options: BindingOptions = typeof b === 'object' ? b : {};
    const valid = validateService(input.name, input.baseUrl);
    const auth = validateAuth(input.auth ?? { kind: 'none' });
    const rules = ServiceRules.parse({ ...defaultRules(), ...(input.rules ?? {}) });
    this.db.transaction(() => {
      this.bind(valid.name, valid.baseUrl, auth, options);
      this.db
        .prepare(
          `INSERT INTO services (name, base_url, created_at, auth_json, rules_json, api) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT(name) DO UPDATE SET base_url = excluded.base_url, auth_json = excluded.auth_json,
             rules_json = excluded.rules_json, api = excluded.api`,
        )
        .run(valid.name, valid.baseUrl, new Date().toISOString(), JSON.stringify(auth), JSON.stringify(rules), input.api ?? null);
    })();
    return this.get(valid.name)!;
  }

  /**
   * Where a credential may go: the origins stored with it, those it may always go to, and those of the
   * services already sending it (defined before origins were kept, or while it had none) — the service
   * being changed included, so moving it elsewhere needs the person's yes as well.
   */
  allowedOrigins(credential: string, options: BindingOptions = {}): string[] {
    const inUse = this.usingCredential(credential).map((s) => originOf(s.baseUrl));
    return [...new Set([...this.origins.list(credential), ...(options.knownOrigins?.(credential) ?? []), ...inUse])].sort();
  }

  /** Services that send this credential, with where they send it. */
  usingCredential(credential: string): ResolvedService[] {
    return this.list().filter((s) => credentialOf(s.auth) === credential);
  }

  /**
   * Binds the service's credential to its origin: the first binding is free, any other origin needs the
   * person's confirmation, which binds it there too.
   */
  private bind(service: string, baseUrl: string, auth: ServiceAuth, options: BindingOptions): void {
    const credential = credentialOf(auth);
    if (!credential) return;
    const origin = originOf(baseUrl);
    const allowed = this.allowedOrigins(credential, options);
    if (allowed.includes(origin)) return;
    if (allowed.length > 0 && !options.allowSecretOrigin) throw new SecretOriginRefused(service, credential, origin, allowed);
    this.origins.add(credential, origin);
  }

  get(name: string): ResolvedService | undefined {
    const row = this.db.prepare('SELECT * FROM services WHERE name = ?').get(name) as Row | undefined;
    return row && toService(row);
  }

  list(): ResolvedService[] {
    return (this.db.prepare('SELECT * FROM services ORDER BY name').all() as Row[]).map(toService);
  }

  remove(name: string): boolean {
    return this.db.prepare('DELETE FROM services WHERE name = ?').run(name).changes > 0;
  }

  /** Services whose calls use this OAuth provider's connection. */
  usingProvider(provider: string): ResolvedService[] {
    return this.list().filter((s) => s.auth.kind === 'oauth' && s.auth.provider === provider);
  }

  /** A service serving `api` with the same credentials as `like` (Dropbox's API host for an upload's undo). */
  serviceOfApi(api: string, like: ServiceAuth): string | null {
    const same = (a: ServiceAuth) => JSON.stringify(a) === JSON.stringify(like);
    return this.list().find((s) => s.api === api && same(s.auth))?.name ?? null;
  }
}

function toService(row: Row): ResolvedService {
  return {
    name: row.name,
    baseUrl: row.base_url,
    createdAt: row.created_at,
    auth: ServiceAuth.parse(JSON.parse(row.auth_json)),
    rules: ServiceRules.parse({ ...defaultRules(), ...JSON.parse(row.rules_json) }),
    api: row.api,
  };
}
