// pip and npm inside the real sandbox, through the gateway's package routes, against a local index the
// test builds (tests/support/package-index.ts: a wheel made with python3's zipfile, an npm tarball):
// installed into the task's own environment and used by the next action, recorded on the action, a
// second task served from the host cache, and refusals the model is told about. The upstream is set
// with POSTHOC_PIP_INDEX_URL / POSTHOC_NPM_REGISTRY_URL, as a company mirror would be.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
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

async function start(replies: Reply[]): Promise<AppServices> {
  llm = await startFakeOpenAi(replies);
  dataDir = dirs.make('posthoc-data-');
  services = createServices({
    dataDir,
    image: process.env.POSTHOC_TEST_IMAGE ?? SANDBOX_IMAGE,
    env: {
      OPENAI_BASE_URL: llm.baseUrl,
      POSTHOC_MODEL: 'scripted',
      POSTHOC_STREAM: '0',
      POSTHOC_PIP_INDEX_URL: index.pipIndexUrl,
      POSTHOC_NPM_REGISTRY_URL: index.npmRegistryUrl,
    },
  });
  return services;
}

async function run(s: AppServices, workspace: string): Promise<Action[]> {
  const task = await s.tasks.wait((await s.tasks.start({ prompt: 'use a package', workspaces: [workspace] })).id);
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

  it('tells the model when fetching is off, and refuses a tampered wheel', async () => {
    const s = await start([bash('pip install tiny-pkg'), bash('npm install -g tiny-npm'), 'Fetching is off.', bash('pip install bad-pkg'), 'Tampered.']);
    await s.handlers['settings:update']({ packageFetching: 'off' });
    const [off, npmOff] = await run(s, dirs.workspace());
    expect(off!.output.exitCode).not.toBe(0);
    expect(downloads(off!)).toEqual([expect.objectContaining({ name: 'tiny-pkg', refused: expect.stringMatching(/turned off/) })]);
    expect(llm!.requests[1]!.messages.at(-1)!.content).toMatch(/pip download of tiny-pkg refused: Package fetching is turned off/);
    // npm prints the gateway's message itself.
    expect(npmOff!.output.exitCode).not.toBe(0);
    expect(npmOff!.output.stderr).toMatch(/Package fetching is turned off in Posthoc's settings/);
    expect(index.requests).toEqual([]);

    await s.handlers['settings:update']({ packageFetching: 'on' });
    const file = index.addWheel('bad-pkg', '1.0.0', { 'bad_pkg.py': '' });
    index.tamper(file);
    const [bad] = await run(s, dirs.workspace());
    expect(bad!.output.exitCode).not.toBe(0);
    expect(downloads(bad!)).toEqual([expect.objectContaining({ name: 'bad-pkg', refused: expect.stringMatching(/does not match the index's hash/) })]);
  });
});
