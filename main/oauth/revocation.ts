// Revoking a connection's tokens the way each provider allows (see Revocation in provider-spec.ts).
import * as oauth from 'oauth4webapi';
import { describe } from './loopback-flow';
import type { ProviderSpec } from './provider-spec';
import { authorizationServer, clientAuthOf, usesLoopbackHttp } from './provider-resolver';

export type Held = { clientId: string; clientSecret: string | null; access: string | null; refresh: string | null };

export async function revokeToken(spec: ProviderSpec, held: Held, send: typeof fetch): Promise<{ revoked: boolean; note: string | null }> {
  const failed = (why: string) => ({
    revoked: false,
    note: `Posthoc forgot the tokens, but ${spec.displayName} did not confirm the revocation (${why}).${spec.setupUrl ? ` Remove the app's access in your ${spec.displayName} settings to be sure.` : ''}`,
  });
  const r = spec.revocation;
  try {
    switch (r.style) {
      case 'none':
        return { revoked: false, note: `${spec.displayName} offers no way to revoke a token. ${r.howTo}` };
      case 'rfc7009': {
        const as = await authorizationServer(spec, send);
        if (!as.revocation_endpoint) return { revoked: false, note: `${spec.displayName} names no revocation endpoint; Posthoc forgot the tokens. Revoke its access in your account settings there.` };
        const client: oauth.Client = { client_id: held.clientId };
        const opts = { [oauth.allowInsecureRequests]: usesLoopbackHttp(spec), [oauth.customFetch]: send };
        // Revoking the refresh token ends the whole grant; the access token is revoked too where it is separate.
        for (const token of [held.refresh, held.access].filter((t): t is string => Boolean(t))) {
          const response = await oauth.revocationRequest(as, client, clientAuthOf(spec, held.clientSecret), token, opts);
          await oauth.processRevocationResponse(response);
        }
        return { revoked: true, note: null };
      }
      case 'bearer': {
        if (!held.access) return failed('no access token was left to revoke');
        const res = await send(r.url, { method: r.method, headers: { authorization: `Bearer ${held.access}` } });
        const body = (await res.json().catch(() => ({}))) as { ok?: boolean; error?: string };
        return res.ok && body.ok !== false ? { revoked: true, note: null } : failed(`HTTP ${res.status}${body.error ? ` ${body.error}` : ''}`);
      }
      case 'client-basic': {
        if (held.access && !held.clientSecret && r.howTo) {
          // A public client (no secret) cannot revoke a grant this way: say where the person does.
          return { revoked: false, note: `Posthoc forgot the token; ${spec.displayName} revokes a grant only for an app's client secret, which this sign-in has none of. ${r.howTo}` };
        }
        if (!held.access || !held.clientSecret) return failed('the client secret or the token is missing');
        const basic = Buffer.from(`${held.clientId}:${held.clientSecret}`).toString('base64');
        const res = await send(r.url.replace('{client_id}', encodeURIComponent(held.clientId)), {
          method: r.method,
          headers: { authorization: `Basic ${basic}`, accept: 'application/vnd.github+json', 'content-type': 'application/json' },
          body: JSON.stringify({ access_token: held.access }),
        });
        return res.ok ? { revoked: true, note: null } : failed(`HTTP ${res.status}`);
      }
    }
  } catch (error) {
    return failed(describe(error));
  }
}
