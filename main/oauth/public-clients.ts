// The public OAuth clients a distribution of Posthoc ships, read from one data file (public-clients.json): per
// built-in provider a client id and the flow it is registered for. Public means no secret: the device sign-in
// (RFC 8628) or the loopback sign-in with PKCE where the provider needs none. An entry the provider cannot use
// without a secret is refused when the file is read, so a shipped client always connects in one click.
import { z } from 'zod';
import shipped from './public-clients.json';
import type { ProviderSpec } from './provider-spec';
import { builtInProvider } from './providers';

const PublicClient = z
  .object({
    clientId: z.string().trim().min(1),
    /** device: RFC 8628 (no redirect URI); pkce: the loopback sign-in with PKCE and no client secret. */
    flow: z.enum(['device', 'pkce']),
    /** The loopback port registered with the provider, where it matches redirect URIs exactly (Spotify). */
    redirectPort: z.number().int().min(1024).max(65535).optional(),
  })
  .strict();
export type PublicClient = z.infer<typeof PublicClient>;
export type PublicClients = Readonly<Record<string, PublicClient>>;

const PublicClientsFile = z.object({ about: z.string().optional(), clients: z.record(z.string(), z.unknown()) }).strict();

export class PublicClientsError extends Error {}

/** Why a provider cannot use this public client, or null when it can. */
export function publicClientProblem(spec: ProviderSpec, client: PublicClient): string | null {
  if (client.flow === 'device') {
    return spec.deviceAuthorizationUrl ? null : `${spec.displayName} offers no device sign-in, so a "device" client cannot be used with it`;
  }
  if (!spec.pkce) return `${spec.displayName} does not sign in with PKCE`;
  if (spec.clientSecret === 'required') return `${spec.displayName}'s token endpoint needs a client secret with the browser sign-in, so no public "pkce" client works there`;
  return null;
}

/** Parses the file's content: every entry a built-in provider can use without a secret, or an error naming the entry. */
export function parsePublicClients(data: unknown, source = 'public-clients.json'): PublicClients {
  const file = PublicClientsFile.safeParse(data);
  if (!file.success) throw new PublicClientsError(`${source} is not a list of public clients: ${file.error.issues[0]?.message ?? 'unreadable'}. It holds {"clients": {"PROVIDER": {"clientId": "…", "flow": "device" | "pkce"}}}.`);
  const clients: Record<string, PublicClient> = {};
  for (const [provider, value] of Object.entries(file.data.clients)) {
    const spec = builtInProvider(provider);
    if (!spec) throw new PublicClientsError(`${source}: "${provider}" is not a built-in provider (${['slack', 'github', 'google', 'spotify', 'dropbox', 'discord'].join(', ')}).`);
    if (value && typeof value === 'object' && ('clientSecret' in value || 'client_secret' in value)) {
      throw new PublicClientsError(`${source}: the entry for ${provider} has a client secret. A shipped client is public: a secret inside an app is readable by anyone who has the app.`);
    }
    const parsed = PublicClient.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new PublicClientsError(`${source}: the entry for ${provider} is not usable (${issue?.path.join('.') || 'entry'}: ${issue?.message ?? 'unreadable'}).`);
    }
    const problem = publicClientProblem(spec, parsed.data);
    if (problem) throw new PublicClientsError(`${source}: the entry for ${provider} cannot be used: ${problem}.`);
    clients[provider] = parsed.data;
  }
  return clients;
}

/** The clients this build ships. */
export function shippedPublicClients(): PublicClients {
  return parsePublicClients(shipped);
}
