// What an engine's name and address may be, and the dockerode options each kind connects with
// (main/sandbox/engines/engine-spec.ts); the live connections are tested against a second daemon
// (tests/integration/engines.test.ts).
import { describe, expect, it } from 'vitest';
import { dockerOptions, engineAddress, engineKeySecret, parseEngine } from '../../main/sandbox/engines/engine-spec';

const PEM_CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const PEM_KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';

describe('engine addresses', () => {
  it('reads ssh://USER@HOST[:PORT], port 22 by default, and connects through the SSH agent', () => {
    const { engine, key } = parseEngine({ name: 'gpu-box', url: 'ssh://me@gpu.example:2222' });
    expect(engine).toEqual({ name: 'gpu-box', kind: 'ssh', host: 'gpu.example', port: 2222, username: 'me' });
    expect(key).toBeNull();
    expect(engineAddress(engine)).toBe('ssh://me@gpu.example:2222');
    expect(parseEngine({ name: 'b', url: 'ssh://me@gpu.example' }).engine).toMatchObject({ port: 22 });
    if (engine.kind !== 'ssh') throw new Error('ssh expected');
    expect(dockerOptions(engine, null, { SSH_AUTH_SOCK: '/run/agent.sock' })).toEqual({
      protocol: 'ssh',
      host: 'gpu.example',
      port: 2222,
      username: 'me',
      sshOptions: { agent: '/run/agent.sock' },
    });
    expect(() => parseEngine({ name: 'b', url: 'ssh://me@gpu.example', tls: { ca: PEM_CERT } })).toThrow(/TLS files are for tcp/);
  });

  it('keeps a tcp engine\'s key apart from what is saved, and needs it to connect', () => {
    const { engine, key } = parseEngine({ name: 'box', url: 'tcp://10.0.0.5:2376', tls: { ca: PEM_CERT, cert: PEM_CERT, key: PEM_KEY } });
    expect(key).toBe(PEM_KEY);
    expect(JSON.stringify(engine)).not.toContain('PRIVATE KEY');
    expect(engineKeySecret('box')).toBe('engine-tls-key:box');
    if (engine.kind !== 'tcp') throw new Error('tcp expected');
    expect(dockerOptions(engine, PEM_KEY)).toEqual({ protocol: 'https', host: '10.0.0.5', port: 2376, ca: PEM_CERT, cert: PEM_CERT, key: PEM_KEY });
    expect(() => dockerOptions(engine, null)).toThrow(/client key of engine box is not in the keychain/);
  });

  it('refuses addresses with a path, names that are not names, and the default context', () => {
    expect(() => parseEngine({ name: 'box', url: 'tcp://10.0.0.5:2376/v1.41', tls: { ca: PEM_CERT, cert: PEM_CERT, key: PEM_KEY } })).toThrow(/has a path/);
    expect(() => parseEngine({ name: 'box', url: 'not a url' })).toThrow(/is not an address/);
    expect(() => parseEngine({ name: 'box' })).toThrow(/Give the engine's address/);
    expect(() => parseEngine({ name: '-box', url: 'ssh://me@h' })).toThrow(/not an engine name/);
    expect(() => parseEngine({ name: 'box', context: 'default' })).toThrow(/this machine's Docker/);
    expect(() => parseEngine({ name: 'box', context: '../x' })).toThrow(/not a Docker context name/);
  });
});
