// The web host keeps its address across restarts for one data folder: `posthoc web` prints the same URL
// (token and port) after a restart, so an open tab reconnects and a reload works; the token is kept in
// DATA/web-host.json, mode 0600; `posthoc web --new-token` rotates it and the old address stops working.
// And what the CLI changes in the data folder reaches a running host's front ends as store:changed.
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WEB_HOST_FILE } from '../../main/ipc/web-host-state';
import { createServices } from '../../main/services/app-services';
import { assertCliBuilt, runPosthoc } from '../support/posthoc-cli';
import { startPosthoc, until, type LiveRun } from '../support/posthoc-process';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const running: LiveRun[] = [];
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const run of running.splice(0)) {
    run.child.kill('SIGTERM');
    await run.done;
  }
  for (const close of closing.splice(0)) await close();
  dirs.cleanup();
});

/** Starts `posthoc web` and resolves with the URL it prints. */
async function startWeb(dataDir: string, ...flags: string[]): Promise<{ run: LiveRun; url: URL }> {
  assertCliBuilt();
  const run = startPosthoc(['web', '--data-dir', dataDir, ...flags], {});
  running.push(run);
  let stdout = '';
  run.child.stdout!.on('data', (d) => (stdout += d));
  let exited = false;
  void run.done.then(() => (exited = true));
  await until(() => stdout.includes('\n') || exited);
  if (!stdout.includes('\n')) throw new Error(`posthoc web ended: ${JSON.stringify(await run.done)}`);
  return { run, url: new URL(stdout.split('\n')[0]!) };
}

async function stopWeb(run: LiveRun): Promise<void> {
  run.child.kill('SIGTERM');
  expect((await run.done).code).toBe(0);
  running.splice(running.indexOf(run), 1);
}

/** The socket the page opens with the token of `url`: 'open', or the HTTP status it was refused with. */
function socketWith(url: URL, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${url.host}/ws?token=${encodeURIComponent(token)}`, { headers: { origin: url.origin } });
    ws.once('open', () => {
      ws.close();
      resolve('open');
    });
    ws.once('unexpected-response', (_req, res) => resolve(`HTTP ${res.statusCode}`));
    ws.once('error', reject);
  });
}

describe('posthoc web across restarts', () => {
  it('keeps its token (mode 0600) and port, so the same address works again; --new-token rotates it', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const first = await startWeb(dataDir);
    const token = first.url.searchParams.get('token')!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const file = join(dataDir, WEB_HOST_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ token, port: Number(first.url.port) });
    expect(await socketWith(first.url, token)).toBe('open');
    await stopWeb(first.run);

    // Someone loosened the file's mode: the next start makes it private again.
    chmodSync(file, 0o644);
    const second = await startWeb(dataDir);
    expect(second.url.href).toBe(first.url.href);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await socketWith(second.url, token)).toBe('open');
    await stopWeb(second.run);

    const rotated = await startWeb(dataDir, '--new-token');
    const fresh = rotated.url.searchParams.get('token')!;
    expect(fresh).not.toBe(token);
    expect(rotated.url.port).toBe(first.url.port);
    expect(await socketWith(rotated.url, token)).toBe('HTTP 401');
    expect(await socketWith(rotated.url, fresh)).toBe('open');
    expect(JSON.parse(readFileSync(file, 'utf8')).token).toBe(fresh);
  });

  it('another data folder has its own token', async () => {
    const a = await startWeb(dirs.make('posthoc-data-'));
    const b = await startWeb(dirs.make('posthoc-data-'));
    expect(a.url.searchParams.get('token')).not.toBe(b.url.searchParams.get('token'));
    expect(a.url.port).not.toBe(b.url.port);
  });
});

describe('changes made by the CLI', () => {
  it('reach a running host as store:changed, and what it lists then holds them', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const services = createServices({ dataDir, env: {} });
    closing.push(() => services.close());
    await services.ready;
    let changes = 0;
    services.events.subscribe((event) => {
      if (event === 'store:changed') changes++;
    });
    expect(await services.handlers['service:list']({})).toEqual([]);

    const added = await runPosthoc(['service', 'add', 'weather', '--base-url', 'http://127.0.0.1:9/api', '--data-dir', dataDir]);
    expect(added.code).toBe(0);
    await until(() => changes > 0);
    expect((await services.handlers['service:list']({})).map((s) => s.name)).toEqual(['weather']);
  });
});
