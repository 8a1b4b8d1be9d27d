// `posthoc engines` as a person types it, against a second Docker daemon started here (TLS with client
// certificates on 127.0.0.1, tests/support/remote-dockerd.ts): add with the TLS files (the key goes to the
// keychain, never into the data folder), list, check (the image missing, then sent, then present), remove;
// bad input answers with what to do and exit code 2.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_IMAGE } from '../../main/sandbox/sandbox-image-name';
import { findSecretInFiles, secretFinder } from '../support/canary';
import { startRemoteDockerd, type RemoteDockerd } from '../support/remote-dockerd';
import { tempDirs } from '../support/temp-dir';

const BIN = resolve('bin/posthoc.js');
const dirs = tempDirs();
let remote: RemoteDockerd;
let dataDir: string;
const name = `box-${process.pid}`;

type Run = { code: number | null; stdout: string; stderr: string };
function posthoc(args: string[]): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, '--data-dir', dataDir], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  if (!existsSync(resolve('out/main/cli.js'))) throw new Error('The CLI is not built: run "npm run build" (npm test does it first).');
  dataDir = dirs.make('posthoc-cli-engines-');
  remote = await startRemoteDockerd();
});
afterAll(async () => {
  await posthoc(['engines', 'remove', name]).catch(() => undefined);
  await remote?.stop();
  dirs.cleanup();
}, 600_000);

describe('posthoc engines', () => {
  it('adds a tcp engine with TLS files, checks it, sends the image, checks again and removes it; the key never lands in the data folder', async () => {
    const add = await posthoc(['engines', 'add', name, remote.url, '--tls-ca', remote.files.ca, '--tls-cert', remote.files.cert, '--tls-key', remote.files.key]);
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    expect(add.stdout).toContain(`${name}\ttcp\t${remote.url}`);
    const keyBody = readFileSync(remote.files.key, 'utf8').split('\n').slice(1, -2).join('');
    expect(await findSecretInFiles(dataDir, secretFinder([keyBody.slice(0, 200)]))).toEqual([]);

    const list = await posthoc(['engines', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ name: 'local' }), { name, kind: 'tcp', address: remote.url, keySet: true }]);

    const missing = await posthoc(['engines', 'check', name]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toMatch(/docker: +\S+ \(linux\/x86_64\)/);
    expect(missing.stdout).toMatch(/round trip: +[\d.]+ ms/);
    expect(missing.stdout).toContain(`image:        ${SANDBOX_IMAGE} missing`);
    expect(missing.stdout).toContain(`posthoc engines send-image NAME`);

    const send = await posthoc(['engines', 'send-image', name, '--json']);
    expect(send.code).toBe(0);
    const localId = (await new Docker().getImage(SANDBOX_IMAGE).inspect()).Id;
    expect(JSON.parse(send.stdout)).toMatchObject({ name, image: SANDBOX_IMAGE, imageId: localId, sent: true });
    expect(JSON.parse(send.stdout).bytes).toBeGreaterThan(100 * 1024 * 1024);
    const again = await posthoc(['engines', 'send-image', name, '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ imageId: localId, sent: false });

    const present = await posthoc(['engines', 'check', name, '--json']);
    expect(present.code).toBe(0);
    expect(JSON.parse(present.stdout)).toMatchObject({ name, reachable: true, imagePresent: true, imageId: localId, problem: null });

    const removed = await posthoc(['engines', 'remove', name]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).not.toContain(name);
  }, 600_000);

  it('answers bad input with what to do: another scheme, tcp without TLS, a TLS file that cannot be read, an engine that does not exist', async () => {
    const ftp = await posthoc(['engines', 'add', 'x', 'ftp://127.0.0.1:21']);
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toMatch(/"ftp:\/\/" is not an engine address.*tcp:\/\/HOST:PORT with TLS/);
    const bare = await posthoc(['engines', 'add', 'x', remote.url]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/needs TLS with a client certificate/);
    const unreadable = await posthoc(['engines', 'add', 'x', remote.url, '--tls-ca', remote.files.ca, '--tls-cert', remote.files.cert, '--tls-key', '/nonexistent/key.pem']);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toMatch(/--tls-key \/nonexistent\/key.pem cannot be read/);
    const unknown = await posthoc(['engines', 'check', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/No engine nope; add it with "posthoc engines add nope tcp:\/\//);
    const list = await posthoc(['engines', 'list', '--json']);
    expect(JSON.parse(list.stdout).map((e: { name: string }) => e.name)).toEqual(['local']);
  });
});
