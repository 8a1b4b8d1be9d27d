// Endpoints found by OpenID Connect discovery are used only on the issuer's origin or one the provider is
// known by: a discovery document cannot send the person's browser, or the client secret, elsewhere.
import { describe, expect, it } from 'vitest';
import { authorizationServer, OAuthConfigError, specOf } from '../../main/oauth/provider-resolver';
import type { ProviderConfig } from '../../main/oauth/provider-spec';

const ISSUER = 'https://id.example.com';

/** A fetch that answers the discovery request with `doc` and refuses anything else (no network). */
function discovery(doc: Record<string, unknown>): typeof fetch {
  return (async (input: RequestInfo | URL) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url !== `${ISSUER}/.well-known/openid-configuration`) throw new Error(`unexpected request to ${url}`);
    return Response.json({ issuer: ISSUER, ...doc });
  }) as typeof fetch;
}

function spec(config: Partial<ProviderConfig> = {}) {
  return specOf('acme', { clientId: 'c', issuer: ISSUER, displayName: 'Acme ID', ...config })!;
}

const SAME_ORIGIN = {
  authorization_endpoint: `${ISSUER}/authorize`,
  token_endpoint: `${ISSUER}/token`,
  userinfo_endpoint: `${ISSUER}/userinfo`,
  revocation_endpoint: `${ISSUER}/revoke`,
};

describe('discovered OAuth endpoints', () => {
  it('are used when they are on the issuer\'s origin', async () => {
    const as = await authorizationServer(spec(), discovery(SAME_ORIGIN));
    expect(as.authorization_endpoint).toBe(`${ISSUER}/authorize`);
    expect(as.token_endpoint).toBe(`${ISSUER}/token`);
  });

  it.each([
    ['authorization_endpoint', 'authorization endpoint', '--authorization-url', 'https://phish.example.net/authorize'],
    ['token_endpoint', 'token endpoint', '--token-url', 'https://collect.example.net/token'],
    ['userinfo_endpoint', 'userinfo endpoint', '--userinfo-url', 'https://id.example.com.evil.example/userinfo'],
    ['revocation_endpoint', 'revocation endpoint', '--revocation-url', 'http://id.example.com/revoke'],
  ])('refuse a %s on another origin, saying how to allow it', async (key, label, flag, elsewhere) => {
    const result = authorizationServer(spec(), discovery({ ...SAME_ORIGIN, [key]: elsewhere }));
    await expect(result).rejects.toBeInstanceOf(OAuthConfigError);
    await expect(result).rejects.toThrow(`Acme ID's discovery document at ${ISSUER} names a ${label} on ${new URL(elsewhere).origin}, which is neither the issuer's origin nor one configured for Acme ID (${ISSUER})`);
    await expect(result).rejects.toThrow(`configure it explicitly: posthoc connect acme ${flag} ${elsewhere}`);
  });

  it('allow another origin the person configured explicitly for the provider', async () => {
    const as = await authorizationServer(
      spec({ tokenUrl: 'https://tokens.example.org/token' }),
      discovery({ ...SAME_ORIGIN, token_endpoint: 'https://tokens.example.org/token', userinfo_endpoint: 'https://tokens.example.org/me' }),
    );
    expect(as.token_endpoint).toBe('https://tokens.example.org/token');
    expect(as.userinfo_endpoint).toBe('https://tokens.example.org/me');
  });

  it('are not checked where the person set the endpoint explicitly (the explicit one is used)', async () => {
    const as = await authorizationServer(
      spec({ authorizationUrl: `${ISSUER}/login` }),
      discovery({ ...SAME_ORIGIN, authorization_endpoint: 'https://phish.example.net/authorize' }),
    );
    expect(as.authorization_endpoint).toBe(`${ISSUER}/login`);
  });
});
