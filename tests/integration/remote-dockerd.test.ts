// The second Docker daemon the remote-engine tests run against (tests/support/remote-dockerd.ts): it answers only
// over TLS with a client certificate it trusts, and a local folder does not exist where it runs, so a container
// that bind-mounts one is refused.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRemoteDockerd, type RemoteDockerd } from '../support/remote-dockerd';
import { tempDirs } from '../support/temp-dir';

const temps = tempDirs();
let remote: RemoteDockerd;

beforeAll(async () => {
  remote = await startRemoteDockerd();
});

afterAll(async () => {
  await remote?.stop();
  temps.cleanup();
});

/** An image of one empty file, made on the daemon itself (the sandbox image comes with the engine tests). */
async function emptyImage(docker: Docker): Promise<string> {
  const tar = Buffer.alloc(1536);
  Buffer.from('empty').copy(tar, 0);
  Buffer.from('0000644\0').copy(tar, 100);
  Buffer.from('0000000\0').copy(tar, 108);
  Buffer.from('0000000\0').copy(tar, 116);
  Buffer.from('00000000000\0').copy(tar, 124);
  Buffer.from('00000000000\0').copy(tar, 136);
  Buffer.from('0').copy(tar, 156);
  Buffer.from('ustar\x0000').copy(tar, 257);
  Buffer.from('        ').copy(tar, 148);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += tar[i]!;
  Buffer.from(`${sum.toString(8).padStart(6, '0')}\0 `).copy(tar, 148);
  const stream = await docker.importImage(Readable.from([tar]) as unknown as NodeJS.ReadableStream, { repo: 'posthoc-empty', tag: 'test' });
  await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (err) => (err ? reject(err) : resolve())));
  return 'posthoc-empty:test';
}

describe('the second Docker daemon', () => {
  it('answers over TLS with the client certificate, and runs as its own daemon', async () => {
    const info = (await remote.docker().info()) as { DockerRootDir: string; Containers: number };
    expect(info.DockerRootDir).toMatch(/^\/var\/tmp\/posthoc-dockerd-/);
    const local = (await new Docker().info()) as { DockerRootDir: string };
    expect(local.DockerRootDir).not.toBe(info.DockerRootDir);
  });

  it('refuses a client without a certificate, and one signed by a CA it does not trust', async () => {
    const bare = new Docker({ protocol: 'https', host: remote.host, port: remote.port, ca: remote.tls.ca });
    await expect(bare.ping()).rejects.toThrow();
    const stranger = new Docker({ protocol: 'https', host: remote.host, port: remote.port, ca: remote.tls.ca, cert: remote.strangerTls.cert, key: remote.strangerTls.key });
    await expect(stranger.ping()).rejects.toThrow();
    const plain = new Docker({ protocol: 'http', host: remote.host, port: remote.port });
    await expect(plain.ping()).rejects.toThrow();
  });

  it('cannot bind-mount a folder of this machine: it does not exist where the daemon runs', async () => {
    const ws = temps.workspace();
    mkdirSync(join(ws, 'sub'));
    writeFileSync(join(ws, 'sub', 'a.txt'), 'mine');
    const docker = remote.docker();
    const image = await emptyImage(docker);
    await expect(
      docker.createContainer({ Image: image, Cmd: ['/empty'], HostConfig: { NetworkMode: 'none', Mounts: [{ Type: 'bind', Source: ws, Target: '/workspace' }] } }),
    ).rejects.toThrow(/bind source path does not exist|no such file or directory/);
  });
});
