// Remote Docker engines as a setting (issue 30), against a second Docker daemon started here
// (tests/support/remote-dockerd.ts: TLS with client certificates on 127.0.0.1, in its own mount namespace):
// saved by name with the client key in the keychain only, checked (version, architecture, round trip, the
// image), reached through a Docker context too, and the sandbox image sent from this machine's engine.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnginesService } from '../../main/services/engines-service';
import { sendImage } from '../../main/sandbox/engines/image-transfer';
import { SANDBOX_IMAGE } from '../../main/sandbox/sandbox-image-name';
import { openDatabase } from '../../main/store/database';
import { TaskStore } from '../../main/store/task-store';
import { Vault } from '../../main/vault/vault';
import { startRemoteDockerd, type RemoteDockerd } from '../support/remote-dockerd';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let remote: RemoteDockerd;
const secrets = new Map<string, string>();
const vault = new Vault('dev.posthoc.test', async () => ({
  getPassword: async (_s, a) => secrets.get(a) ?? null,
  setPassword: async (_s, a, p) => void secrets.set(a, p),
  deletePassword: async (_s, a) => secrets.delete(a),
  findCredentials: async () => [...secrets].map(([account, password]) => ({ account, password })),
}));

beforeAll(async () => {
  remote = await startRemoteDockerd();
});
afterAll(async () => {
  await remote?.stop();
  dirs.cleanup();
}, 600_000);

function engines(env: NodeJS.ProcessEnv = {}): { service: EnginesService; dataDir: string } {
  const dataDir = dirs.make('posthoc-data-');
  const db = openDatabase(dataDir);
  return { service: new EnginesService(new TaskStore(db), vault, { env }), dataDir };
}

const rawSettings = (dataDir: string): string => {
  const db = openDatabase(dataDir);
  try {
    return JSON.stringify(db.prepare('SELECT key, value_json FROM settings').all());
  } finally {
    db.close();
  }
};

describe('engines', () => {
  it('saves a tcp engine with its key in the keychain only, lists it, checks it, and removes it with its key', async () => {
    const { service, dataDir } = engines();
    const list = await service.add({ name: 'box', url: remote.url, tls: remote.tls });
    expect(list).toEqual([
      expect.objectContaining({ name: 'local', kind: 'local' }),
      { name: 'box', kind: 'tcp', address: remote.url, keySet: true },
    ]);
    expect(rawSettings(dataDir)).not.toContain(remote.tls.key.split('\n')[1]);
    expect(secrets.get('engine-tls-key:box')).toBe(remote.tls.key);

    const check = await service.check('box');
    const version = await remote.docker().version();
    expect(check).toMatchObject({ name: 'box', reachable: true, version: version.Version, os: 'linux', architecture: 'x86_64', imagePresent: false, imageId: null });
    expect(check.roundTripMs).toBeGreaterThan(0);
    expect(check.problem).toContain('posthoc engines send-image');

    await expect(service.add({ name: 'box', url: remote.url, tls: remote.tls })).rejects.toThrow(/exists already/);
    const after = await service.remove('box');
    expect(after.map((e) => e.name)).toEqual(['local']);
    expect(secrets.has('engine-tls-key:box')).toBe(false);
    await expect(service.check('box')).rejects.toThrow(/No engine box/);
  });

  it('refuses what is not an engine: another scheme, tcp without TLS, files that hold no PEM, the name local', async () => {
    const { service, dataDir } = engines();
    await expect(service.add({ name: 'x', url: 'http://127.0.0.1:2375' })).rejects.toThrow(/not an engine address.*tcp:\/\/HOST:PORT with TLS/);
    await expect(service.add({ name: 'x', url: 'unix:///var/run/docker.sock' })).rejects.toThrow(/not an engine address/);
    await expect(service.add({ name: 'x', url: remote.url })).rejects.toThrow(/needs TLS with a client certificate/);
    await expect(service.add({ name: 'x', url: remote.url, tls: { ...remote.tls, key: 'not a key' } })).rejects.toThrow(/holds no PEM private key/);
    await expect(service.add({ name: 'x', url: 'tcp://127.0.0.1', tls: remote.tls })).rejects.toThrow(/needs a host and a port/);
    await expect(service.add({ name: 'local', url: remote.url, tls: remote.tls })).rejects.toThrow(/this machine's Docker/);
    await expect(service.add({ name: 'Box One', url: remote.url, tls: remote.tls })).rejects.toThrow(/not an engine name/);
    await expect(service.add({ name: 'x', url: 'ssh://gpu-box' })).rejects.toThrow(/needs a user and a host/);
    expect((await service.list()).map((e) => e.name)).toEqual(['local']);
    expect(rawSettings(dataDir)).not.toContain('engines');
    expect([...secrets.keys()].filter((k) => k.startsWith('engine-tls-key:'))).toEqual([]);
  });

  it('says the TLS check failed when the client certificate is one the daemon does not trust, or the CA is not the daemon\'s', async () => {
    const { service } = engines();
    await service.add({ name: 'stranger', url: remote.url, tls: { ca: remote.tls.ca, cert: remote.strangerTls.cert, key: remote.strangerTls.key } });
    const refused = await service.check('stranger');
    expect(refused).toMatchObject({ reachable: false, version: null });
    expect(refused.problem).toMatch(/does not answer: the TLS handshake failed/);
    await service.add({ name: 'wrong-ca', url: remote.url, tls: { ...remote.tls, ca: remote.strangerTls.ca } });
    const wrongCa = await service.check('wrong-ca');
    expect(wrongCa.reachable).toBe(false);
    expect(wrongCa.problem).toMatch(/TLS handshake failed/);
  });

  it('says nothing answers when the engine is down (an address where no daemon listens)', async () => {
    const { service } = engines();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await service.add({ name: 'down', url: `tcp://127.0.0.1:${port}`, tls: remote.tls });
    const check = await service.check('down');
    expect(check).toMatchObject({ name: 'down', reachable: false, version: null, roundTripMs: null, imagePresent: false });
    expect(check.problem).toMatch(/does not answer: nothing answers there .*is dockerd listening on that address\?/);
  });

  it('reaches an engine through an existing Docker context, and refuses a context without TLS', async () => {
    const config = dirs.make('posthoc-docker-config-');
    const context = (name: string, host: string, tls: boolean) => {
      const id = createHash('sha256').update(name).digest('hex');
      mkdirSync(join(config, 'contexts', 'meta', id), { recursive: true });
      writeFileSync(join(config, 'contexts', 'meta', id, 'meta.json'), JSON.stringify({ Name: name, Metadata: {}, Endpoints: { docker: { Host: host, SkipTLSVerify: false } } }));
      if (!tls) return;
      const dir = join(config, 'contexts', 'tls', id, 'docker');
      mkdirSync(dir, { recursive: true });
      for (const f of ['ca', 'cert', 'key'] as const) writeFileSync(join(dir, `${f}.pem`), readFileSync(remote.files[f]));
    };
    context('remote-box', remote.url, true);
    context('open-box', remote.url, false);
    const { service } = engines({ DOCKER_CONFIG: config });
    await service.add({ name: 'ctx', context: 'remote-box' });
    expect((await service.list())[1]).toEqual({ name: 'ctx', kind: 'context', address: 'context remote-box', keySet: false });
    expect(await service.check('ctx')).toMatchObject({ reachable: true, os: 'linux' });

    await service.add({ name: 'open', context: 'open-box' });
    await expect(service.check('open')).rejects.toThrow(/without verified TLS and a client certificate/);
    await service.add({ name: 'gone', context: 'no-such-context' });
    await expect(service.check('gone')).rejects.toThrow(/no Docker context "no-such-context"/);
    await expect(service.add({ name: 'both', context: 'remote-box', url: remote.url })).rejects.toThrow(/not both/);
  });

  it('sends the sandbox image from this machine\'s engine (docker save streamed into the remote load): the same image id arrives', async () => {
    const { service } = engines();
    await service.add({ name: 'box', url: remote.url, tls: remote.tls });
    const local = new Docker();
    const localId = (await local.getImage(SANDBOX_IMAGE).inspect()).Id;
    const progress: number[] = [];
    const sent = await sendImage(local, await service.connect('box'), SANDBOX_IMAGE, (p) => progress.push(p.bytes));
    expect(sent.imageId).toBe(localId);
    expect(sent.bytes).toBeGreaterThan(100 * 1024 * 1024);
    expect(progress.at(-1)).toBe(sent.bytes);
    const check = await service.check('box');
    expect(check).toMatchObject({ imagePresent: true, imageId: localId, problem: null });

    await expect(sendImage(local, await service.connect('box'), 'posthoc-no-such-image:0')).rejects.toThrow(/not on this machine's Docker either/);
  }, 600_000);
});
