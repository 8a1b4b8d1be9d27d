// The built CLI refuses to grant system folders, the home folder itself and links to them: it exits 2
// with a message saying why and what to do, before any model is asked, and records no task.
import { chownSync, lchownSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliTestbed, runPosthoc } from '../support/posthoc-cli';

const { dirs } = cliTestbed();

async function expectRefused(workspace: string, why: RegExp, env: Record<string, string> = {}): Promise<void> {
  const dataDir = dirs.make('posthoc-data-');
  // A model is configured on purpose: the refusal must come before anything else is asked or started.
  const run = await runPosthoc(['run', 'tidy up', '--workspace', workspace, '--data-dir', dataDir], { POSTHOC_MODEL: 'm', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', ...env });
  expect(run.stderr).toContain(`Posthoc will not grant ${workspace}`);
  expect(run.stderr).toMatch(why);
  expect(run.stderr).toMatch(/Grant (a|one) (project )?folder/);
  expect(run.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  expect(run.code).toBe(2);
  const tasks = await runPosthoc(['tasks', '--data-dir', dataDir, '--json']);
  expect(JSON.parse(tasks.stdout)).toEqual([]);
}

describe('posthoc run --workspace refuses folders that would hand the agent the host', () => {
  it.each([
    ['/proc', /kernel's view of every running process/],
    ['/proc/self/cwd', /inside \/proc/], // resolves to a harmless folder, but is named through /proc
    ['/sys', /hardware's settings/],
    ['/etc', /accounts, password hashes/],
    ['/root', /home folder/],
    ['/dev', /devices/],
    ['/run', /Docker socket/],
    ['/usr/bin', /inside \/usr/],
    ['/', /whole file system/],
  ])('%s', async (folder, why) => {
    await expectRefused(folder, why);
  });

  describe.each([
    ['a root-owned folder', 0],
    ['a folder owned by uid 1000', 1000],
  ])('in %s', (_label, uid) => {
    const owned = (dir: string) => {
      if (process.getuid?.() === 0) chownSync(dir, uid, uid);
      return dir;
    };

    it('refuses a link that leads to /etc, naming where it leads', async () => {
      const projects = owned(dirs.make('posthoc-projects-'));
      const link = join(projects, 'conf');
      symlinkSync('/etc', link);
      if (process.getuid?.() === 0) lchownSync(link, uid, uid);
      await expectRefused(link, /\(it leads to \/etc\): it is the system's configuration/);
    });

    it('refuses the home folder itself, and lets a project inside it through to the next check', async () => {
      const home = owned(dirs.make('posthoc-home-'));
      await expectRefused(home, /your whole home folder/, { HOME: home });
      const keys = join(home, '.ssh');
      mkdirSync(keys);
      await expectRefused(owned(keys), /keys and credentials/, { HOME: home });
      const project = join(home, 'site');
      mkdirSync(project);
      owned(project);
      // No model configured: the grant passed, and the next check (the model) is what stops the run.
      const run = await runPosthoc(['run', 'x', '--workspace', project, '--data-dir', dirs.make('posthoc-data-')], { HOME: home });
      expect(run.stderr).not.toMatch(/will not grant/);
      expect(run.stderr).toMatch(/No model is configured/);
      expect(run.code).toBe(2);
    });
  });
});
