// Secrets bound to origins: the first service binds a secret to its origin, any other origin needs the
// person's confirmation, Posthoc's own entries are never service credentials, and a connection's token
// goes to its provider's API hosts.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SecretOriginRefused, ServiceDefinitionError, ServiceRegistry, type BindingOptions } from '../../main/gateway/service-registry';
import { migrate } from '../../main/store/database';
import { migrations } from '../../main/store/migrations';
import { originOf, OriginError, parseOrigin } from '../../main/store/secret-origins';

function registry(): ServiceRegistry {
  const db = new Database(':memory:');
  migrate(db);
  return new ServiceRegistry(db);
}
const bearer = (secret: string) => ({ kind: 'bearer' as const, secret });

describe('origins', () => {
  it('are scheme://host with the port only when it is not the default', () => {
    expect(originOf('https://API.example.com:443/v1/x?y=1')).toBe('https://api.example.com');
    expect(originOf('http://127.0.0.1:8080/a')).toBe('http://127.0.0.1:8080');
    expect(originOf('https://api.example.com:8443')).toBe('https://api.example.com:8443');
    expect(parseOrigin('https://api.example.com/')).toBe('https://api.example.com');
  });

  it('given by the person have nothing but an origin, and say what to write otherwise', () => {
    expect(() => parseOrigin('https://api.example.com/v1')).toThrow(/give only scheme:\/\/host\[:port\] \(here https:\/\/api.example.com\)/);
    expect(() => parseOrigin('api.example.com')).toThrow(OriginError);
    expect(() => parseOrigin('ftp://files.example.com')).toThrow(/not an http or https origin/);
  });
});

describe('binding a secret to where it may go', () => {
  it('binds a secret to the first service that uses it', () => {
    const r = registry();
    r.add({ name: 'gh', baseUrl: 'https://api.github.com', auth: bearer('gh-token') });
    expect(r.origins.list('gh-token')).toEqual(['https://api.github.com']);
    // Another service at the same origin, or the same service redefined there, needs nothing.
    r.add({ name: 'gh2', baseUrl: 'https://api.github.com/v3', auth: bearer('gh-token') });
    r.add({ name: 'gh', baseUrl: 'https://api.github.com/graphql', auth: bearer('gh-token') });
  });

  it('refuses a service that would send it elsewhere, naming the secret and the origin, and changes nothing', () => {
    const r = registry();
    r.add({ name: 'gh', baseUrl: 'https://api.github.com', auth: bearer('gh-token') });
    let refused: unknown;
    try {
      r.add({ name: 'steal', baseUrl: 'http://127.0.0.1:9999/x', auth: bearer('gh-token') });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(SecretOriginRefused);
    expect((refused as Error).message).toMatch(/"steal" would send the secret "gh-token" to http:\/\/127.0.0.1:9999, but it may only go to https:\/\/api.github.com.*--allow-secret-origin/);
    expect(r.get('steal')).toBeUndefined();
    expect(r.origins.list('gh-token')).toEqual(['https://api.github.com']);
  });

  it('refuses moving the service that uses it to another origin', () => {
    const r = registry();
    r.add({ name: 'gh', baseUrl: 'https://api.github.com', auth: bearer('gh-token') });
    expect(() => r.add({ name: 'gh', baseUrl: 'https://evil.example', auth: bearer('gh-token') })).toThrow(SecretOriginRefused);
    expect(r.get('gh')!.baseUrl).toBe('https://api.github.com');
  });

  it('accepts another origin once the person confirms it, and binds it there too', () => {
    const r = registry();
    r.add({ name: 'gh', baseUrl: 'https://api.github.com', auth: bearer('gh-token') });
    r.add({ name: 'mirror', baseUrl: 'https://ghe.example.com/api', auth: bearer('gh-token') }, { allowSecretOrigin: true });
    expect(r.origins.list('gh-token')).toEqual(['https://api.github.com', 'https://ghe.example.com']);
    r.add({ name: 'mirror2', baseUrl: 'https://ghe.example.com/api/v4', auth: bearer('gh-token') });
  });

  it('counts services defined before origins were kept as where the secret goes', () => {
    const r = registry();
    r.add({ name: 'legacy', baseUrl: 'https://api.example.com', auth: bearer('k1') });
    r.origins.forget('k1');
    expect(r.allowedOrigins('k1')).toEqual(['https://api.example.com']);
    expect(() => r.add({ name: 'steal', baseUrl: 'https://evil.example', auth: bearer('k1') })).toThrow(SecretOriginRefused);
  });

  it('never lets Posthoc\'s own entries be a service credential, confirmed or not', () => {
    const r = registry();
    expect(() => r.add({ name: 'steal', baseUrl: 'http://127.0.0.1:1', auth: bearer('llm-api-key') }, { allowSecretOrigin: true })).toThrow(/Posthoc's own key for the language model/);
    expect(() => r.add({ name: 'steal', baseUrl: 'http://127.0.0.1:1', auth: { kind: 'header', header: 'X-Key', secret: 'db-password' } })).toThrow(/database password/);
    expect(() => r.add({ name: 'steal', baseUrl: 'http://127.0.0.1:1', auth: { kind: 'query', param: 'k', secret: 'oauth:github:access' } })).toThrow(ServiceDefinitionError);
    expect(r.list()).toEqual([]);
  });

  it('sends a built-in connection\'s token to its API hosts, and elsewhere only when confirmed', () => {
    const r = registry();
    const known: BindingOptions = { knownOrigins: (c) => (c === 'oauth:github' ? ['https://api.github.com'] : []) };
    const oauth = { kind: 'oauth' as const, provider: 'github' };
    r.add({ name: 'github', baseUrl: 'https://api.github.com', auth: oauth }, known);
    expect(() => r.add({ name: 'steal', baseUrl: 'https://evil.example', auth: oauth }, known)).toThrow(/the github connection's token to https:\/\/evil.example/);
    r.add({ name: 'ghe', baseUrl: 'https://ghe.example.com', auth: oauth }, { ...known, allowSecretOrigin: true });
    expect(r.origins.list('oauth:github')).toEqual(['https://ghe.example.com']);
  });

  it('binds a connection of the person\'s own provider to its first service, like a secret', () => {
    const r = registry();
    const oauth = { kind: 'oauth' as const, provider: 'acme' };
    r.add({ name: 'crm', baseUrl: 'https://crm.acme.example/api', auth: oauth });
    expect(() => r.add({ name: 'steal', baseUrl: 'https://evil.example', auth: oauth })).toThrow(SecretOriginRefused);
  });
});

describe('the migration', () => {
  it('binds the credentials of services defined before it to where they already go', () => {
    const db = new Database(':memory:');
    const before = migrations.findIndex((m) => m.includes('CREATE TABLE secret_origins'));
    expect(before).toBeGreaterThan(0);
    // The schema as it was before origins were kept, with services of every kind.
    for (const [i, sql] of migrations.slice(0, before).entries()) {
      db.exec(sql);
      db.pragma(`user_version = ${i + 1}`);
    }
    const add = db.prepare("INSERT INTO services (name, base_url, created_at, auth_json) VALUES (?, ?, '2026-01-01', ?)");
    add.run('gh', 'https://api.github.com/v3', JSON.stringify({ kind: 'bearer', secret: 'gh-token' }));
    add.run('local', 'http://127.0.0.1:8080', JSON.stringify({ kind: 'query', param: 'k', secret: 'local-key' }));
    add.run('crm', 'https://crm.acme.example:8443/api/x', JSON.stringify({ kind: 'oauth', provider: 'acme' }));
    add.run('open', 'https://open.example/api', JSON.stringify({ kind: 'none' }));
    migrate(db);
    const r = new ServiceRegistry(db);
    expect([...r.origins.all()]).toEqual([
      ['gh-token', ['https://api.github.com']],
      ['local-key', ['http://127.0.0.1:8080']],
      ['oauth:acme', ['https://crm.acme.example:8443']],
    ]);
    // Removing the service leaves its secret bound.
    r.remove('gh');
    expect(() => r.add({ name: 'steal', baseUrl: 'https://evil.example', auth: bearer('gh-token') })).toThrow(SecretOriginRefused);
  });
});
