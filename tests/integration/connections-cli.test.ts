// The built CLI for connected services, as a person types it: a secret from standard input (never an
// argument, never printed back), a service with credentials and rules, and `posthoc connect` against a
// real authorization server on loopback, then disconnect.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSecretInFiles, secretFinder } from '../support/canary';
import { followSignIn, startAuthServer, type AuthServer } from '../support/oauth-server';
import { tempDirs } from '../support/temp-dir';

const BIN = resolve('bin/posthoc.js');
const dirs = tempDirs();
const id = randomBytes(3).toString('hex');
const SECRET_NAME = `cli-canary-${id}`;
const SECRET = `ghp_cli+canary/${randomBytes(9).toString('base64')}`;
const PROVIDER = `acme-${id}`;
let dataDir: string;
let auth: AuthServer;

type Run = { code: number | null; stdout: string; stderr: string };

function posthoc(args: string[], options: { stdin?: string; onStdout?: (text: string) => void } = {}): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, '--data-dir', dataDir], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS ?? '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      options.onStdout?.(stdout);
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

beforeAll(async () => {
  if (!existsSync(resolve('out/main/cli.js'))) throw new Error('The CLI is not built: run "npm run build" (npm test does it first).');
  dataDir = dirs.make('posthoc-cli-conn-');
  auth = await startAuthServer();
});
afterAll(async () => {
  await posthoc(['secret', 'remove', SECRET_NAME]).catch(() => undefined);
  await posthoc(['disconnect', PROVIDER]).catch(() => undefined);
  await posthoc(['secret', 'remove', 'discord-bot']).catch(() => undefined);
  await auth.close();
  dirs.cleanup();
});

describe('posthoc secret and service', () => {
  it('stores a secret read from standard input, lists it by name, and defines a service that uses it', async () => {
    const set = await posthoc(['secret', 'set', SECRET_NAME], { stdin: `${SECRET}\n` });
    expect(set.code).toBe(0);
    expect(set.stdout).toContain(`Stored ${SECRET_NAME} in the keychain`);
    const list = await posthoc(['secret', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toContainEqual({ name: SECRET_NAME, kind: 'secret' });

    const empty = await posthoc(['secret', 'set', 'nothing-here'], { stdin: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/No the value of nothing-here on standard input|standard input/);

    const add = await posthoc([
      'service', 'add', 'github', '--base-url', 'https://api.github.com', '--auth', 'bearer', '--secret', SECRET_NAME,
      '--allow', 'GET /**', '--allow', 'POST /repos/*/*/issues', '--body-rule', 'POST /repos/*/*/issues labels=bug', '--irreversible', 'hold',
    ]);
    expect(add.code).toBe(0);
    expect(add.stdout).toContain(`github  https://api.github.com  ·  auth bearer ${SECRET_NAME}  ·  api github  ·  allow GET /**, POST /repos/*/*/issues  ·  rule POST /repos/*/*/issues labels=bug  ·  no inverse: hold`);
    const services = JSON.parse((await posthoc(['service', 'list', '--json'])).stdout);
    expect(services[0]).toMatchObject({ name: 'github', auth: { kind: 'bearer', secret: SECRET_NAME }, api: 'github', rules: { noInverse: 'hold' } });

    const bad = await posthoc(['service', 'add', 'x', '--base-url', 'https://x.test', '--auth', 'header:X-Key']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/needs --secret NAME/);
    const badRule = await posthoc(['service', 'add', 'x', '--base-url', 'https://x.test', '--allow', 'POST']);
    expect(badRule.code).toBe(2);
    expect(badRule.stderr).toMatch(/METHOD \/path\/glob/);

    const finds = secretFinder([SECRET]);
    for (const run of [set, list, add]) expect(finds(run.stdout + run.stderr)).toBe(false);
    expect(await findSecretInFiles(dataDir, finds)).toEqual([]);
  });
});

describe('posthoc connect', () => {
  it('prints the sign-in URL, waits for the browser, and connects; disconnect revokes', async () => {
    let signedIn: Promise<{ status: number }> | null = null;
    const run = await posthoc(['connect', PROVIDER, '--issuer', auth.issuer, '--client-id', 'posthoc-cli', '--name', 'Acme', '--no-open', '--timeout', '20'], {
      onStdout: (text) => {
        // Only a whole line: the URL may arrive in pieces.
        const url = text.split('\n').slice(0, -1).find((l) => l.startsWith('http://127.0.0.1'));
        if (url && !signedIn) signedIn = followSignIn(url);
      },
    });
    expect(run.stderr, run.stdout).toContain(`Sign in to ${PROVIDER} in your browser`);
    expect(run.code, run.stderr).toBe(0);
    expect((await signedIn!).status).toBe(200);
    expect(run.stdout).toMatch(/Connected Acme as johndoe \(dummy\)\. Use it with: posthoc service add NAME --base-url URL --auth oauth:acme-/);

    const list = JSON.parse((await posthoc(['connections', '--json'])).stdout) as Array<{ provider: string; status: string }>;
    expect(list.find((c) => c.provider === PROVIDER)).toMatchObject({ status: 'connected' });
    expect(list.map((c) => c.provider).slice(0, 6)).toEqual(['slack', 'github', 'google', 'spotify', 'dropbox', 'discord']);

    const off = await posthoc(['disconnect', PROVIDER]);
    expect(off.code).toBe(0);
    expect(off.stdout).toContain('Disconnected Acme. Its tokens were revoked and removed from the keychain.');
    const finds = secretFinder(auth.issued);
    expect(finds(run.stdout + run.stderr + off.stdout)).toBe(false);
    expect(await findSecretInFiles(dataDir, finds)).toEqual([]);
  });
});

describe('posthoc connect without a registered client', () => {
  it('says what the provider needs and the flags that give it, and offers its token; never a page of the app', async () => {
    const run = await posthoc(['connect', 'slack']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(
      'Connecting to Slack needs the client id and the client secret of an app registered at https://api.slack.com/apps with the redirect address http://127.0.0.1/callback. Give them with: posthoc connect slack --client-id ID --client-secret-stdin < client-secret.txt. Or use a bot or user token (https://api.slack.com/apps): posthoc connect slack --token-stdin < token.txt.',
    );
    expect(run.stderr + run.stdout).not.toMatch(/Connections page/);
    // The list says the same of each provider before anyone tries.
    const list = (await posthoc(['connections'])).stdout.split('\n');
    expect(list.find((l) => l.startsWith('slack'))).toMatch(/not-connected\s+\(needs --client-id and --client-secret-stdin, or --token-stdin\)$/);
    expect(list.find((l) => l.startsWith('spotify'))).toMatch(/not-connected\s+\(needs --client-id\)$/);
  });

  it('stores a bot token read from standard input and defines the provider\'s service to send it', async () => {
    const token = `MTA${randomBytes(12).toString('hex')}.bot`;
    const run = await posthoc(['connect', 'discord', '--token-stdin'], { stdin: `${token}\n` });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Stored your bot token as the secret discord-bot (it may go only to https://discord.com). Services: discord.');
    const services = await posthoc(['service', 'list', '--json']);
    expect(JSON.parse(services.stdout)).toContainEqual(
      expect.objectContaining({ name: 'discord', baseUrl: 'https://discord.com/api/v10', api: 'discord', auth: { kind: 'header', header: 'Authorization', secret: 'discord-bot' } }),
    );
    const secrets = JSON.parse((await posthoc(['secret', 'list', '--json'])).stdout) as Array<{ name: string; origins?: string[] }>;
    expect(secrets.find((x) => x.name === 'discord-bot')?.origins).toEqual(['https://discord.com']);
    expect(run.stdout + run.stderr + services.stdout).not.toContain(token);
  });
});
