// What `posthoc connect` adds to the contract's words, which name no front end: the flags that give what a
// provider still needs (the app points at its form's fields instead), and the personal-access-token path
// (`--token-stdin`, the contract's connection:token): the token stored in the keychain, bound to the provider's
// API origins, and the provider's services defined to send it.
import type { PosthocApi } from '../../shared/contract';
import type { ConnectionView } from '../../shared/domain/connections';
import { value } from './session';

/** The flags that give what the provider still needs, and the token path where it has one. */
export function connectHint(view: ConnectionView, flow: 'browser' | 'device' | undefined, message: string): string {
  const needsId = view.setup.missing.includes('clientId');
  const needsSecret = !view.clientSecretSet && (view.setup.missing.includes('clientSecret') || (flow === 'browser' && /client secret/.test(message)));
  const parts: string[] = [];
  if (needsId || needsSecret) {
    parts.push(`Give ${needsId && needsSecret ? 'them' : 'it'} with: posthoc connect ${view.provider}${needsId ? ' --client-id ID' : ''}${needsSecret ? ' --client-secret-stdin < client-secret.txt' : ''}.`);
  }
  if (view.personalToken && (needsId || needsSecret)) {
    parts.push(`Or use a ${view.personalToken.label} (${view.personalToken.createUrl}): posthoc connect ${view.provider} --token-stdin < token.txt.`);
  }
  return parts.join(' ');
}

/** Stores a personal access token for the provider (connection:token) and says where it may go and what uses it. */
export async function connectWithToken(api: PosthocApi, provider: string, token: string): Promise<string> {
  const view = await value(api.connectionToken({ provider, token }));
  const path = view.personalToken!;
  const origins = [...new Set(path.services.map((s) => new URL(s.baseUrl).origin))];
  return `Stored your ${path.label} as the secret ${path.secretName} (it may go only to ${origins.join(', ')}). Services: ${(view.tokenServices ?? []).join(', ')}.`;
}
