// folder:pick and folder:complete through the contract's dispatch on real services: the picker answers what
// the desktop app's dialog chose (or null when closed) and 'unavailable' where there is none (the web host,
// the CLI); completion never offers the services' own data folder.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../main/ipc/register-contract';
import { createServices, type AppServices } from '../../main/services/app-services';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const opened: AppServices[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
  dirs.cleanup();
});

function services(pickFolder?: () => Promise<string | null>): AppServices {
  const s = createServices({ dataDir: dirs.make('posthoc-data-'), env: {}, ...(pickFolder ? { pickFolder } : {}) });
  opened.push(s);
  return s;
}

describe('folder:pick', () => {
  it('answers the folder the desktop dialog chose, and null when the person closed it', async () => {
    const answers: Array<string | null> = ['/home/me/project', null];
    const s = services(async () => answers.shift() ?? null);
    expect(await dispatch('folder:pick', {}, s.handlers)).toEqual({ ok: true, value: { path: '/home/me/project' } });
    expect(await dispatch('folder:pick', {}, s.handlers)).toEqual({ ok: true, value: null });
  });

  it('answers unavailable, in words, without a native picker (the web host and the CLI)', async () => {
    const answer = await dispatch('folder:pick', {}, services().handlers);
    expect(answer).toEqual({ ok: false, error: { code: 'unavailable', message: expect.stringMatching(/type the folder’s full path/) } });
  });
});

describe('folder:complete', () => {
  it('lists a folder’s sub-folders but never the services’ own data folder', async () => {
    const s = services();
    const sibling = join(dirname(s.dataDir), `${basename(s.dataDir)}-project`);
    mkdirSync(sibling);
    try {
      const answer = await dispatch('folder:complete', { prefix: s.dataDir }, s.handlers);
      expect(answer).toEqual({ ok: true, value: { folder: dirname(s.dataDir) + '/', entries: [sibling], truncated: false } });
      // Inside it nothing is offered either.
      mkdirSync(join(s.dataDir, 'cache'), { recursive: true });
      expect(readdirSync(s.dataDir)).toContain('cache');
      expect(await dispatch('folder:complete', { prefix: join(s.dataDir, 'c') }, s.handlers)).toEqual({ ok: true, value: { folder: s.dataDir + '/', entries: [], truncated: false } });
    } finally {
      rmSync(sibling, { recursive: true, force: true });
    }
  });

  it('refuses an empty prefix and ".." with invalid-input', async () => {
    const s = services();
    expect((await dispatch('folder:complete', { prefix: '' }, s.handlers)).ok).toBe(false);
    const dotted = await dispatch('folder:complete', { prefix: '/tmp/../etc/' }, s.handlers);
    expect(dotted).toEqual({ ok: false, error: { code: 'invalid-input', message: expect.stringMatching(/without "\." or "\.\."/) } });
  });
});
