// apt-get in the real sandbox, through the gateway's Debian route, against a local archive signed with a test
// key (tests/support/apt-repo.ts): a real `apt-get update` and `sudo apt-get install` resolve a package and its
// dependency, unpack both into the task's own environment (never the image, never the granted folder), and the
// next action uses them; every download is on the action's card; a second task installs from the host's
// cache without asking the archive; an archive signed by another key installs nothing, and says why.
// As root with a root-owned folder and as the person (uid 1000).
import { readdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Action, PackagesEffect } from '../../shared/domain';
import { createServices, type AppServices } from '../../main/services/app-services';
import { SANDBOX_IMAGE } from '../../main/sandbox/sandbox-image';
import { OWNERS, own } from '../support/claims';
import { startAptRepo, type AptRepo } from '../support/apt-repo';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai-server';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let repo: AptRepo;
let llm: FakeOpenAi | undefined;
let services: AppServices | undefined;

beforeAll(async () => {
  repo = await startAptRepo();
  repo.addPackage('hello-posthoc', '1.0', { '/usr/bin/hello-posthoc': { text: '#!/bin/sh\necho "hello from a Debian package"\n', mode: 0o755 } });
  repo.addPackage('greeter-posthoc', '2.1', { '/usr/lib/python3/dist-packages/greeter_posthoc.py': { text: "GREETING = 'greetings from dist-packages'\n" } }, 'hello-posthoc');
});
afterAll(async () => {
  await repo.close();
});
afterEach(async () => {
  await services?.close();
  await llm?.close();
  services = undefined;
  llm = undefined;
  dirs.cleanup();
});

const bash = (code: string) => `\`\`\`bash\n${code}\n\`\`\``;
const apt = (a: Action) => a.effects.filter((e): e is PackagesEffect => e.channel === 'packages' && e.manager === 'apt');

async function start(replies: string[], keyring = repo.keyring): Promise<AppServices> {
  llm = await startFakeOpenAi(replies);
  services = createServices({
    dataDir: dirs.make('posthoc-data-'),
    image: process.env.POSTHOC_TEST_IMAGE ?? SANDBOX_IMAGE,
    env: { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_STREAM: '0', POSTHOC_APT_MIRROR_URL: repo.url, POSTHOC_APT_KEYRING: keyring },
  });
  return services;
}

async function run(s: AppServices, workspace: string): Promise<Action[]> {
  const task = await s.tasks.wait((await s.tasks.start({ prompt: 'install a tool', workspaces: [workspace] })).id);
  expect(task.error ?? null).toBeNull();
  return s.tasks.get(task.id).actions;
}

describe.each(OWNERS)('apt-get in the sandbox ($who)', ({ uid }) => {
  it('installs a package and its dependency into the task, for the next action too; a second task from the cache', async () => {
    const s = await start([
      // What it installed is found by the same action already (its module path was set before it existed).
      bash('sudo apt-get install -y greeter-posthoc && python3 -c "import greeter_posthoc; print(greeter_posthoc.GREETING)"'),
      bash('hello-posthoc && python3 -c "import greeter_posthoc; print(greeter_posthoc.GREETING)"'),
      'Done.',
      bash('apt-get install -y hello-posthoc && hello-posthoc'),
      'Done.',
    ]);
    const ws = dirs.make('posthoc-apt-ws-');
    own(ws, uid);
    const [install, use] = await run(s, ws);
    expect(install!.output.exitCode, `${install!.output.stdout}\n${install!.output.stderr}`).toBe(0);
    expect(install!.output.stderr).toMatch(/unpacked 2 package\(s\) into the task's own environment/);
    expect(install!.output.stdout).toMatch(/greetings from dist-packages\n$/);
    // apt fetches the two at once: in whichever order they came.
    expect(apt(install!).filter((e) => e.file?.endsWith('.deb')).sort((a, b) => String(a.name).localeCompare(String(b.name)))).toEqual([
      expect.objectContaining({ name: 'greeter-posthoc', version: '2.1', refused: null }),
      expect.objectContaining({ name: 'hello-posthoc', version: '1.0', refused: null }),
    ]);
    expect(use!.output).toMatchObject({ exitCode: 0, stdout: 'hello from a Debian package\ngreetings from dist-packages\n' });
    // The person's folder is untouched: the packages went to the task's own environment.
    expect(readdirSync(ws)).toEqual([]);

    const debs = repo.requests.filter((r) => r.includes('.deb')).length;
    const [again] = await run(s, dirs.make('posthoc-apt-ws-'));
    expect(again!.output).toMatchObject({ exitCode: 0, stdout: expect.stringContaining('hello from a Debian package') });
    expect(apt(again!).filter((e) => e.file?.endsWith('.deb'))).toEqual([expect.objectContaining({ name: 'hello-posthoc', source: 'cache' })]);
    expect(repo.requests.filter((r) => r.includes('.deb')).length).toBe(debs);
  });

  it('installs nothing from an archive whose signature the keyring does not vouch for, and says why', async () => {
    const stranger = await startAptRepo();
    stranger.addPackage('hello-posthoc', '1.0', { '/usr/bin/hello-posthoc': { text: '#!/bin/sh\necho pwned\n', mode: 0o755 } });
    try {
      llm = await startFakeOpenAi([bash('apt-get install -y hello-posthoc; hello-posthoc'), 'It failed.']);
      services = createServices({
        dataDir: dirs.make('posthoc-data-'),
        image: process.env.POSTHOC_TEST_IMAGE ?? SANDBOX_IMAGE,
        // The archive is signed by its own key; the keyring given is the other archive's.
        env: { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_STREAM: '0', POSTHOC_APT_MIRROR_URL: stranger.url, POSTHOC_APT_KEYRING: repo.keyring },
      });
      const ws = dirs.make('posthoc-apt-ws-');
      own(ws, uid);
      const [attempt] = await run(services, ws);
      expect(attempt!.output.stdout).not.toContain('pwned');
      expect(attempt!.output.exitCode).not.toBe(0);
      expect(apt(attempt!)).toContainEqual(expect.objectContaining({ refused: expect.stringContaining('not signed by a key Posthoc trusts') }));
      expect(stranger.requests.some((r) => r.includes('.deb'))).toBe(false);
    } finally {
      await stranger.close();
    }
  });
});
