// The built CLI as a person (or an intruder with a shell) types it: Posthoc's own LLM key can never be
// a service's credential, and a secret bound to one origin goes to another only with the person's
// explicit --allow-secret-origin. Run with a data folder owned by root and by uid 1000.
import { randomBytes } from 'node:crypto';
import { chownSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSecretInFiles, secretFinder } from '../support/canary';
import { assertCliBuilt, runPosthoc, type CliRun } from '../support/posthoc-cli';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const id = randomBytes(3).toString('hex');
const SECRET_NAME = `origin-canary-${id}`;
const SECRET = `sk-origin+canary/${randomBytes(9).toString('base64')}`;
const A = 'http://127.0.0.1:18081';
const B = 'http://127.0.0.1:18082';

function posthoc(dataDir: string, args: string[], stdin = ''): Promise<CliRun> {
  return runPosthoc([...args, '--data-dir', dataDir], {}, { stdin });
}

beforeAll(assertCliBuilt);
afterAll(() => dirs.cleanup());

describe.each([
  ['a root-owned data folder', null],
  ['a data folder owned by uid 1000', 1000],
] as const)('secrets bound to origins, with %s', (_what, owner) => {
  let dataDir: string;
  const name = `${SECRET_NAME}-${owner ?? 0}`;
  beforeAll(() => {
    dataDir = dirs.make('posthoc-origins-');
    if (owner !== null && process.getuid?.() === 0) chownSync(dataDir, owner, owner);
  });
  afterAll(async () => {
    await posthoc(dataDir, ['secret', 'remove', name]);
  });

  it("refuses Posthoc's own LLM key as a service credential, confirmed or not", async () => {
    for (const extra of [[], ['--allow-secret-origin']]) {
      const run = await posthoc(dataDir, ['service', 'add', 'steal', '--base-url', `${A}/v1`, '--auth', 'bearer', '--secret', 'llm-api-key', ...extra]);
      expect(run.code, run.stdout).toBe(2);
      expect(run.stderr).toMatch(/"llm-api-key" is Posthoc's own key for the language model; it is never sent to a service/);
    }
    for (const secret of ['db-password', 'db-password-x']) {
      const run = await posthoc(dataDir, ['service', 'add', 'steal', '--base-url', A, '--auth', 'header:X-Key', '--secret', secret]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/database password/);
    }
    expect(JSON.parse((await posthoc(dataDir, ['service', 'list', '--json'])).stdout)).toEqual([]);
  });

  it('sends a secret set with --origin A to a service at A, and to B only with --allow-secret-origin', async () => {
    const set = await posthoc(dataDir, ['secret', 'set', name, '--origin', A], `${SECRET}\n`);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain(`It may be sent only to ${A}.`);

    const atA = await posthoc(dataDir, ['service', 'add', 'good', '--base-url', `${A}/api`, '--auth', 'bearer', '--secret', name]);
    expect(atA.code, atA.stderr).toBe(0);

    const atB = await posthoc(dataDir, ['service', 'add', 'steal', '--base-url', `${B}/x`, '--auth', 'query:key', '--secret', name]);
    expect(atB.code).toBe(1);
    expect(atB.stderr).toContain(`The service "steal" would send the secret "${name}" to ${B}, but it may only go to ${A}.`);
    expect(atB.stderr).toContain('--allow-secret-origin');
    // Moving the good service there is the same thing.
    const moved = await posthoc(dataDir, ['service', 'add', 'good', '--base-url', B, '--auth', 'bearer', '--secret', name]);
    expect(moved.code).toBe(1);
    const services = JSON.parse((await posthoc(dataDir, ['service', 'list', '--json'])).stdout) as Array<{ name: string; baseUrl: string }>;
    expect(services.map((s) => [s.name, s.baseUrl])).toEqual([['good', `${A}/api`]]);

    const confirmed = await posthoc(dataDir, ['service', 'add', 'steal', '--base-url', `${B}/x`, '--auth', 'query:key', '--secret', name, '--allow-secret-origin']);
    expect(confirmed.code, confirmed.stderr).toBe(0);
    const list = JSON.parse((await posthoc(dataDir, ['secret', 'list', '--json'])).stdout) as Array<{ name: string; origins?: string[] }>;
    expect(list.find((e) => e.name === name)).toEqual({ name, kind: 'secret', origins: [A, B] });

    // Setting the origins again cannot leave a service sending it elsewhere.
    const narrow = await posthoc(dataDir, ['secret', 'set', name, '--origin', A], `${SECRET}\n`);
    expect(narrow.code).toBe(1);
    expect(narrow.stderr).toContain(`The service "steal" sends ${name} to ${B}`);

    const badOrigin = await posthoc(dataDir, ['secret', 'set', name, '--origin', `${A}/path`], `${SECRET}\n`);
    expect(badOrigin.code).toBe(2);
    expect(badOrigin.stderr).toMatch(/give only scheme:\/\/host\[:port\]/);

    const finds = secretFinder([SECRET]);
    for (const run of [set, atA, atB, confirmed, narrow]) expect(finds(run.stdout + run.stderr)).toBe(false);
    expect(await findSecretInFiles(dataDir, finds)).toEqual([]);
  });
});
