// pip and npm inside the real sandbox, through the gateway's package routes, against a local index the
// test builds (tests/support/package-index.ts: a wheel made with python3's zipfile, an npm tarball):
// installed into the task's own environment and used by the next action, recorded on the action, a
// second task served from the host cache, and refusals the model is told about. The upstream is set
// with POSTHOC_PIP_INDEX_URL / POSTHOC_NPM_REGISTRY_URL, as a company mirror would be.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Action, PackagesEffect } from '../../shared/domain';
import { createServices, type AppServices } from '../../main/services/app-services';
import { SANDBOX_IMAGE } from '../../main/sandbox/sandbox-image';
import { startFakeOpenAi, type FakeOpenAi, type Reply } from '../support/fake-openai-server';
import { startPackageIndex, type PackageIndex } from '../support/package-index';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
let index: PackageIndex;
let llm: FakeOpenAi | undefined;
let services: AppServices | undefined;
let dataDir: string;

beforeEach(async () => {
  index = await startPackageIndex();
  index.addWheel('tiny-pkg', '1.0.0', { 'tiny_pkg.py': 'VALUE = 42\n' });
  index.addNpm('tiny-npm', '2.0.1', { 'index.js': "module.exports = 'from npm';\n" });
});
afterEach(async () => {
  await services?.close();
  await llm?.close();
  await index.close();
  services = undefined;
  dirs.cleanup();
});

async function start(replies: Reply[], upstream = { pip: index.pipIndexUrl, npm: index.npmRegistryUrl }): Promise<AppServices> {
  llm = await startFakeOpenAi(replies);
  dataDir = dirs.make('posthoc-data-');
  services = createServices({
    dataDir,
    image: process.env.POSTHOC_TEST_IMAGE ?? SANDBOX_IMAGE,
    env: {
      OPENAI_BASE_URL: llm.baseUrl,
      POSTHOC_MODEL: 'scripted',
      POSTHOC_STREAM: '0',
      POSTHOC_PIP_INDEX_URL: upstream.pip,
      POSTHOC_NPM_REGISTRY_URL: upstream.npm,
    },
  });
  return services;
}

async function run(s: AppServices, workspace: string, actionTimeoutSeconds?: number): Promise<Action[]> {
  const task = await s.tasks.wait((await s.tasks.start({ prompt: 'use a package', workspaces: [workspace] }, { actionTimeoutSeconds })).id);
  expect(task.error ?? null).toBeNull();
  return s.tasks.get(task.id).actions;
}

const downloads = (a: Action) => a.effects.filter((e): e is PackagesEffect => e.channel === 'packages');
const bash = (code: string) => `\`\`\`bash\n${code}\n\`\`\``;

describe('packages in the sandbox', () => {
  it('removes at start the environments of tasks that no longer exist, and keeps those of tasks that do', async () => {
    const s = await start(['Nothing to do.']);
    const task = await s.tasks.wait((await s.tasks.start({ prompt: 'nothing', workspaces: [dirs.workspace()] })).id);
    await s.close();
    services = undefined;
    mkdirSync(join(dataDir, 'task-env', task.id, 'python'), { recursive: true });
    mkdirSync(join(dataDir, 'task-env', 'gone-task', 'npm', 'lib'), { recursive: true });
    writeFileSync(join(dataDir, 'task-env', 'gone-task', 'npm', 'lib', 'x.js'), '1');
    services = createServices({ dataDir, image: process.env.POSTHOC_TEST_IMAGE ?? SANDBOX_IMAGE, env: { POSTHOC_MODEL: 'scripted', OPENAI_BASE_URL: llm!.baseUrl } });
    await services.ready;
    await expect.poll(() => readdirSync(join(dataDir, 'task-env'))).toEqual([task.id]);
  });

  it('pip installs a wheel into the task environment; the next action imports it; a second task is served from the cache', async () => {
    const s = await start([bash('pip install tiny-pkg'), "```python\nimport tiny_pkg\nprint('value', tiny_pkg.VALUE)\n```", 'Done.', bash('pip install tiny-pkg && python3 -c "import tiny_pkg; print(tiny_pkg.VALUE)"'), 'Done.']);
    const workspace = dirs.workspace();
    const [install, use] = await run(s, workspace);
    expect(install!.output).toMatchObject({ exitCode: 0 });
    expect(downloads(install!)).toEqual([expect.objectContaining({ manager: 'pip', name: 'tiny-pkg', version: '1.0.0', file: 'tiny_pkg-1.0.0-py3-none-any.whl', refused: null })]);
    expect(downloads(install!)[0]!.source).toBe(`${index.url}/files/tiny_pkg-1.0.0-py3-none-any.whl`);
    expect(use!.output).toMatchObject({ exitCode: 0, stdout: 'value 42\n' });
    // Installed outside the person's folder: nothing changed there.
    expect(readdirSync(workspace)).toEqual([]);
    const envs = readdirSync(join(dataDir, 'task-env'));
    expect(envs).toHaveLength(1);
    expect(existsSync(join(dataDir, 'task-env', envs[0]!, 'python', 'lib'))).toBe(true);

    const asked = index.requests.length;
    const [again] = await run(s, dirs.workspace());
    expect(again!.output).toMatchObject({ exitCode: 0, stdout: expect.stringContaining('42') });
    expect(downloads(again!)).toEqual([expect.objectContaining({ name: 'tiny-pkg', source: 'cache', refused: null })]);
    expect(index.requests.length).toBe(asked);
  });

  it('npm installs globally into the task environment and into a granted folder, where node_modules is checkpointed like any change', async () => {
    const s = await start([
      bash('npm install -g tiny-npm'),
      bash(`node -e "console.log(require('tiny-npm'))"`),
      bash('npm install tiny-npm'),
      bash('npx -y tiny-cli world'),
      'Done.',
    ]);
    index.addNpm('tiny-cli', '0.3.0', { 'cli.js': "#!/usr/bin/env node\nconsole.log('hello', process.argv[2]);\n" }, { bin: { 'tiny-cli': 'cli.js' } });
    const workspace = dirs.workspace();
    const [global, use, local, npx] = await run(s, workspace);
    expect(global!.output).toMatchObject({ exitCode: 0 });
    expect(downloads(global!)).toEqual([expect.objectContaining({ manager: 'npm', name: 'tiny-npm', version: '2.0.1', refused: null })]);
    expect(use!.output).toMatchObject({ exitCode: 0, stdout: 'from npm\n' });
    expect(local!.output).toMatchObject({ exitCode: 0 });
    expect(downloads(local!)).toEqual([]); // npm's cache in the task environment already had it
    const fs = local!.effects.find((e) => e.channel === 'fs');
    expect(fs && fs.channel === 'fs' ? fs.added : []).toEqual(expect.arrayContaining(['node_modules/tiny-npm/index.js', 'package.json']));
    expect(npx!.output).toMatchObject({ exitCode: 0, stdout: 'hello world\n' });
    expect(downloads(npx!)).toEqual([expect.objectContaining({ manager: 'npm', name: 'tiny-cli', version: '0.3.0', refused: null })]);
    const undone = await s.tasks.undo(local!.id);
    expect(undone.outcome).toBe('undone');
    expect(existsSync(join(workspace, 'node_modules'))).toBe(false);
  });

  it('tells the model when fetching is off, and refuses a tampered wheel and tarball, in words pip and npm print', async () => {
    const s = await start([
      bash('pip install tiny-pkg'),
      bash('npm install -g tiny-npm'),
      'Fetching is off.',
      bash('pip install bad-pkg'),
      bash('npm install -g bad-npm'),
      'Tampered.',
    ]);
    await s.handlers['settings:update']({ packageFetching: 'off' });
    const [off, npmOff] = await run(s, dirs.workspace());
    expect(off!.output.exitCode).not.toBe(0);
    expect(off!.output.stderr).toContain(`Posthoc's gateway, HTTP 403: Package fetching is turned off in Posthoc's settings, so pip cannot download tiny-pkg.`);
    expect(downloads(off!)).toEqual([expect.objectContaining({ name: 'tiny-pkg', refused: expect.stringMatching(/turned off/) })]);
    expect(llm!.requests[1]!.messages.at(-1)!.content).toMatch(/pip download of tiny-pkg refused: Package fetching is turned off/);
    // npm prints the gateway's message itself.
    expect(npmOff!.output.exitCode).not.toBe(0);
    expect(npmOff!.output.stderr).toMatch(/Package fetching is turned off in Posthoc's settings/);
    expect(index.requests).toEqual([]);

    await s.handlers['settings:update']({ packageFetching: 'on' });
    const file = index.addWheel('bad-pkg', '1.0.0', { 'bad_pkg.py': '' });
    index.tamper(file);
    index.tamper(index.addNpm('bad-npm', '1.0.0', { 'index.js': '' }));
    const [bad, badNpm] = await run(s, dirs.workspace());
    expect(bad!.output.exitCode).not.toBe(0);
    expect(downloads(bad!)).toEqual([expect.objectContaining({ name: 'bad-pkg', refused: expect.stringMatching(/does not match the index's hash/) })]);
    // pip prints the status line's reason of a file it could not get.
    expect(bad!.output.stderr).toMatch(/HTTP error 502 Server Error: pip bad_pkg-1\.0\.0-py3-none-any\.whl: refused: the downloaded file does not match the index's hash/);
    expect(badNpm!.output.exitCode).not.toBe(0);
    expect(badNpm!.output.stderr).toMatch(/502 Bad Gateway - GET http:\/\/127\.0\.0\.1:8080\/npm\/bad-npm\/-\/bad-npm-1\.0\.0\.tgz - npm bad-npm-1\.0\.0\.tgz: refused: the downloaded file does not match the index's hash/);
  });
});

describe('an upstream that cannot be reached', () => {
  const opened: Server[] = [];
  const sockets = new Set<Socket>();
  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(opened.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** 127.0.0.1 and a port: with nothing listening (connection refused), or a server that accepts and never answers. */
  async function upstream(kind: 'refusing' | 'silent'): Promise<string> {
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    if (kind === 'refusing') await new Promise((resolve) => server.close(resolve));
    else opened.push(server);
    return origin;
  }

  // The action's timeout is 120 s: pip and npm must end on their own before it, saying the gateway's reason.
  for (const [kind, reason] of [
    ['refusing', 'could not be reached: connection refused (nothing listens there)'],
    ['silent', 'accepted the connection but sent no answer within 15 s'],
  ] as const) {
    it(`pip and npm fail on their own with the gateway's reason when the index is ${kind === 'refusing' ? 'refusing connections' : 'silent'}`, async () => {
      // One upstream each, so npm's request is not answered from what pip's taught the gateway.
      const pipUpstream = await upstream(kind);
      const npmUpstream = await upstream(kind);
      const s = await start([bash('pip install tiny-pkg'), bash('npm install -g tiny-npm'), 'The index is down.'], { pip: `${pipUpstream}/simple`, npm: `${npmUpstream}/npm` });
      const [pip, npm] = await run(s, dirs.workspace(), 120);
      const said = (a: Action) => `${a.output.stdout}${a.output.stderr}`;

      expect(pip!.output).toMatchObject({ timedOut: false, exitCode: 1 });
      // pip warns about the page the gateway gave instead of the index, quoting the reason; then it has no version.
      expect(said(pip!)).toContain(`Posthoc's gateway, HTTP 502: The package index cannot be reached, so pip gets no page for tiny-pkg: ${pipUpstream} ${reason}`);
      expect(said(pip!)).toMatch(/No matching distribution found for tiny-pkg/);
      expect(downloads(pip!)).toEqual([expect.objectContaining({ manager: 'pip', name: 'tiny-pkg', refused: expect.stringContaining(`${pipUpstream} ${reason}`) })]);

      expect(npm!.output.timedOut).toBe(false);
      expect(npm!.output.exitCode).not.toBe(0);
      expect(said(npm!)).toContain('502 Bad Gateway - GET http://127.0.0.1:8080/npm/tiny-npm - The npm registry cannot be reached, so npm gets no metadata for tiny-npm:');
      expect(said(npm!)).toContain(`${npmUpstream} ${reason}`);
      expect(downloads(npm!).length).toBeGreaterThan(0);
      expect(downloads(npm!).every((e) => e.name === 'tiny-npm' && e.refused?.includes(`${npmUpstream} ${reason}`))).toBe(true);
    });
  }
});
