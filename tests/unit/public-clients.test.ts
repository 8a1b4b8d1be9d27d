// The public OAuth clients a distribution ships (main/oauth/public-clients.json): a client id and the flow it is
// registered for, never a secret; an entry a provider cannot use without a secret is refused when read.
import { describe, expect, it } from 'vitest';
import shippedFile from '../../main/oauth/public-clients.json';
import { parsePublicClients, PublicClientsError, shippedPublicClients } from '../../main/oauth/public-clients';

describe('the public clients data file', () => {
  it('as shipped in this repository, is valid and holds no client (Posthoc has no registered app)', () => {
    expect(shippedPublicClients()).toEqual({});
    expect(JSON.stringify(shippedFile)).not.toMatch(/secret"\s*:/i);
  });

  it('reads a device client for GitHub and PKCE clients for Spotify (with its fixed port) and Dropbox', () => {
    const clients = parsePublicClients({
      clients: {
        github: { clientId: 'Iv1.abc', flow: 'device' },
        spotify: { clientId: 'sp-1', flow: 'pkce', redirectPort: 53682 },
        dropbox: { clientId: 'db-1', flow: 'pkce' },
      },
    });
    expect(clients).toEqual({
      github: { clientId: 'Iv1.abc', flow: 'device' },
      spotify: { clientId: 'sp-1', flow: 'pkce', redirectPort: 53682 },
      dropbox: { clientId: 'db-1', flow: 'pkce' },
    });
  });

  it('refuses a client secret, naming the entry and why', () => {
    expect(() => parsePublicClients({ clients: { github: { clientId: 'Iv1.abc', flow: 'device', clientSecret: 's3cr3t' } } })).toThrow(
      /the entry for github has a client secret\. A shipped client is public/,
    );
  });

  it('refuses a flow the provider cannot run without a secret', () => {
    // Slack's token endpoint needs the secret with the browser sign-in, and Slack has no device sign-in.
    expect(() => parsePublicClients({ clients: { slack: { clientId: 'x', flow: 'pkce' } } })).toThrow(/Slack's token endpoint needs a client secret/);
    expect(() => parsePublicClients({ clients: { spotify: { clientId: 'x', flow: 'device' } } })).toThrow(/Spotify offers no device sign-in/);
  });

  it('refuses an unknown provider, an unknown flow, a missing client id and a file of another shape', () => {
    expect(() => parsePublicClients({ clients: { gitlab: { clientId: 'x', flow: 'device' } } })).toThrow(/"gitlab" is not a built-in provider/);
    expect(() => parsePublicClients({ clients: { github: { clientId: 'x', flow: 'implicit' } } })).toThrow(/the entry for github is not usable \(flow:/);
    expect(() => parsePublicClients({ clients: { github: { flow: 'device' } } })).toThrow(/the entry for github is not usable \(clientId:/);
    expect(() => parsePublicClients({ github: { clientId: 'x', flow: 'device' } })).toThrow(PublicClientsError);
  });
});
