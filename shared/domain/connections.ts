// Connected services: how the gateway authenticates a service, the person's rules for its calls, the
// provider data that says how each mutating call is taken back, and what the front ends may see of a
// connection. Only names, kinds, scopes and expiry appear here: never a secret value.
import { z } from 'zod';

/** How the gateway adds credentials to a service's calls. Secrets are named, never held. */
export const ServiceAuth = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  z.object({ kind: z.literal('bearer'), secret: z.string() }),
  z.object({ kind: z.literal('header'), header: z.string(), secret: z.string() }),
  z.object({ kind: z.literal('query'), param: z.string(), secret: z.string() }),
  z.object({ kind: z.literal('oauth'), provider: z.string() }),
]);
export type ServiceAuth = z.infer<typeof ServiceAuth>;

/** A method ('*' for any, or several joined by ',') and a path glob ('*' one segment, '**' any depth). */
export const CallPattern = z.object({ method: z.string(), path: z.string() });
export type CallPattern = z.infer<typeof CallPattern>;

/**
 * A rule on the parsed body of matching calls: the value at `field` (a dotted path; '@recipients'
 * reads the To, Cc and Bcc of a base64url MIME message) must be one of `oneOf`, or e-mail addresses
 * in `domains`.
 */
export const BodyRule = CallPattern.extend({
  field: z.string(),
  oneOf: z.array(z.string()).optional(),
  domains: z.array(z.string()).optional(),
});
export type BodyRule = z.infer<typeof BodyRule>;

export const ServiceRules = z.object({
  /** Calls allowed at all; empty allows every call. */
  allow: z.array(CallPattern).default([]),
  body: z.array(BodyRule).default([]),
  /** Calls that always wait for the person's approval. */
  hold: z.array(CallPattern).default([]),
  /** Sends that can never be taken back: delayed by holdSeconds, cancellable until they leave. */
  sends: z.array(CallPattern).default([]),
  /** What happens to a call outside allow or breaking a body rule. */
  outside: z.enum(['refuse', 'hold']).default('refuse'),
  /** What happens to a mutating call with no known inverse. */
  noInverse: z.enum(['allow', 'hold', 'refuse']).default('allow'),
  holdSeconds: z.number().int().min(0).max(3600).default(30),
});
export type ServiceRules = z.infer<typeof ServiceRules>;

/**
 * How one mutating endpoint is taken back, derived from the real request and response. Templates:
 * '{request.a.b}', '{response.x}', '{path.name}' (a ':name' segment of the match) inside strings; a value
 * that is exactly one reference keeps its type; {"$each": REF, "as": TEMPLATE} maps an array ('{item}').
 */
export const InverseRule = z.object({
  match: CallPattern,
  /** The response must hold these values (for example Slack's {"ok": true}). */
  when: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  inverse: z.object({
    method: z.string(),
    path: z.string(),
    body: z.unknown().optional(),
    /** Another API of the same provider (Dropbox uploads are deleted through the API host). */
    api: z.string().optional(),
  }),
  summary: z.string(),
});
export type InverseRule = z.infer<typeof InverseRule>;

/** One API of a provider: where it lives and how its calls are taken back. */
export const ApiSpec = z.object({
  id: z.string(),
  title: z.string(),
  baseUrl: z.string(),
  inverses: z.array(InverseRule),
  /** Sends that can never be taken back (hold window by default). */
  sends: z.array(CallPattern).default([]),
  /** Calls that only read although their method is not GET (Slack's and Dropbox's POST reads). */
  reads: z.array(CallPattern).default([]),
});
export type ApiSpec = z.infer<typeof ApiSpec>;

/** The exact call undo will send to take a call back. */
export const RestInverse = z.object({
  service: z.string(),
  method: z.string(),
  /** Below the service's base URL, with the query string. */
  path: z.string(),
  /** JSON text, or null for no body. */
  body: z.string().nullable(),
  summary: z.string(),
});
export type RestInverse = z.infer<typeof RestInverse>;

export const HoldState = z.enum(['waiting', 'sent', 'approved', 'cancelled', 'abandoned']);
export type HoldState = z.infer<typeof HoldState>;

/** A call the gateway kept back: a send's window, or a wait for the person's approval. */
export const RestHold = z.object({
  id: z.string(),
  kind: z.enum(['window', 'approval']),
  reason: z.string(),
  /** Window: when the call leaves unless cancelled. Approval: null. */
  until: z.string().nullable(),
  state: HoldState,
});
export type RestHold = z.infer<typeof RestHold>;

export const ConnectionStatus = z.enum(['not-connected', 'connecting', 'connected', 'expired', 'error']);
export type ConnectionStatus = z.infer<typeof ConnectionStatus>;

/** An OAuth provider and the person's connection to it, as the front ends see it. */
/** What connecting a provider needs, computed once (provider-resolver's setupOf) for the card, the form and the CLI. */
export const ConnectSetup = z.object({
  /** Whose client a connect uses: the person's own, the public one this distribution ships, or none yet. */
  client: z.enum(['own', 'shipped', 'none']),
  /** device: a code entered on the provider's page (no redirect address); browser: a redirect to 127.0.0.1. */
  flow: z.enum(['device', 'browser']),
  /** Whether the form asks for a client secret: never for the device sign-in or with a shipped public client. */
  clientSecret: z.enum(['required', 'optional', 'none']),
  /** What is still to fill in before Connect can start a sign-in; empty: Connect signs in at once. */
  missing: z.array(z.enum(['clientId', 'clientSecret'])),
});
export type ConnectSetup = z.infer<typeof ConnectSetup>;

/** A personal access token (or bot token) the provider issues, offered beside OAuth: stored as a secret, used by services. */
export const PersonalTokenPath = z.object({
  /** What the provider calls it ("fine-grained personal access token"). */
  label: z.string(),
  /** Where the person creates it. */
  createUrl: z.string(),
  /** What to choose when creating it. */
  hint: z.string(),
  /** The keychain name it is stored under. */
  secretName: z.string(),
  /** How it travels: Authorization: Bearer, or the raw value (after prefix) in a header. */
  auth: z.discriminatedUnion('kind', [z.object({ kind: z.literal('bearer') }), z.object({ kind: z.literal('header'), header: z.string(), prefix: z.string().optional() })]),
  /** The services it defines (the provider's APIs). */
  services: z.array(z.object({ name: z.string(), baseUrl: z.string(), api: z.string() })),
});
export type PersonalTokenPath = z.infer<typeof PersonalTokenPath>;

export const ConnectionView = z.object({
  provider: z.string(),
  displayName: z.string(),
  /** What the connection lets the agent do and what undo takes back (built-in providers). */
  about: z.string().optional(),
  /** The provider offers the device sign-in (a code entered on its page): no redirect URI to register. */
  deviceFlow: z.boolean().optional(),
  builtIn: z.boolean(),
  status: ConnectionStatus,
  account: z.string().nullable(),
  scopes: z.array(z.string()),
  expiresAt: z.string().nullable(),
  /** The client id the person registered (not a secret); null until set. */
  clientId: z.string().nullable(),
  clientSecretSet: z.boolean(),
  needsClientSecret: z.boolean(),
  /** What to register at the provider. */
  redirectUri: z.string(),
  setupUrl: z.string().nullable(),
  revocable: z.boolean(),
  /** Services whose calls use this connection. */
  services: z.array(z.string()),
  /** What went wrong last, and what to do. */
  error: z.string().nullable(),
  /** What connecting needs (built-in and custom providers alike). */
  setup: ConnectSetup,
  /** Where the provider issues personal access tokens: the path beside OAuth; null where it has none. */
  personalToken: PersonalTokenPath.nullable(),
  /** The services that send the person's personal access token for this provider (its secret), if any. */
  tokenServices: z.array(z.string()).optional(),
});
export type ConnectionView = z.infer<typeof ConnectionView>;

export const SecretEntry = z.object({ name: z.string(), kind: z.string() });
export type SecretEntry = z.infer<typeof SecretEntry>;

export const ConnectStarted = z.object({
  provider: z.string(),
  /** Open this in a browser to sign in; it carries no secret. */
  authorizationUrl: z.string(),
  /** Whether Posthoc opened the system browser itself. */
  opened: z.boolean(),
  /** The device sign-in (RFC 8628): the code the person enters at verificationUri, until expiresAt. */
  userCode: z.string().optional(),
  verificationUri: z.string().optional(),
  expiresAt: z.string().optional(),
});
export type ConnectStarted = z.infer<typeof ConnectStarted>;
