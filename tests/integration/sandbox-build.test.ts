// Building the sandbox image from the app (sandbox:build and its sandbox:progress events), and what
// `sandbox status` says of an image built with fewer packages than today's list.
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../shared/contract';
import { createServices, type AppServices } from '../../main/services/app-services';
import { imageBuilds, PACKAGES_LABEL, RECIPE_LABEL, sandboxRecipe, sandboxStatus } from '../../main/sandbox/sandbox-image';
import { ServiceError } from '../../main/services/service-error';
import { assertCliBuilt, runPosthoc } from '../support/posthoc-cli';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const open: AppServices[] = [];
const servers: Server[] = [];
const images: string[] = [];
afterEach(async () => {
  await imageBuilds.settled();
  for (const s of open.splice(0)) await s.close();
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
  for (const image of images.splice(0)) execFileSync('docker', ['rmi', '-f', image], { stdio: 'ignore' });
  dirs.cleanup();
});

/**
 * A Docker daemon on a unix socket that lists no containers and keeps every /version request waiting until
 * the test answers it: a build started against it stays running as long as the test wants.
 */
async function heldDaemon(): Promise<{ socketPath: string; versionAsked: () => Promise<ServerResponse>; }> {
  const socketPath = join(dirs.make('posthoc-fake-docker-'), 'docker.sock');
  const waiting: ServerResponse[] = [];
  const asked: Array<(res: ServerResponse) => void> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').replace(/^\/v[\d.]+/, '').split('?')[0];
    if (path === '/version') {
      const next = asked.shift();
      if (next) next(res);
      else waiting.push(res);
      return;
    }
    res.writeHead(path === '/containers/json' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(path === '/containers/json' ? '[]' : JSON.stringify({ message: 'not here' }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    socketPath,
    versionAsked: () => new Promise((resolve) => (waiting.length ? resolve(waiting.shift()!) : asked.push(resolve))),
  };
}

function answerBroken(res: ServerResponse): void {
  res.writeHead(500, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ message: 'the daemon is broken on purpose' }));
}

describe('sandbox:build', () => {
  it('starts a build that reports its progress, refuses a second while it runs, and ends with failed and the reason', async () => {
    const daemon = await heldDaemon();
    const services = createServices({ dataDir: dirs.make(), docker: new Docker({ socketPath: daemon.socketPath }), image: 'posthoc-sandbox:build-test', env: {} });
    open.push(services);
    await services.ready;
    const progress: Array<EventPayload<'sandbox:progress'>> = [];
    services.events.subscribe(<K extends EventName>(event: K, payload: EventPayload<K>) => {
      if (event === 'sandbox:progress') progress.push(payload as EventPayload<'sandbox:progress'>);
    });

    expect(await services.handlers['sandbox:build']({})).toEqual({ image: 'posthoc-sandbox:build-test' });
    const held = await daemon.versionAsked(); // the build is running: it waits on the daemon
    expect(progress.map((p) => p.phase)).toEqual(['starting']);

    // The hostile side: a second build while one runs is refused, with what to do.
    const second = services.handlers['sandbox:build']({});
    await expect(second).rejects.toBeInstanceOf(ServiceError);
    await expect(second).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/already running/) });

    answerBroken(held);
    await imageBuilds.settled();
    const last = progress.at(-1)!;
    expect(last.phase).toBe('failed');
    expect(last.line).toMatch(/broken on purpose/);
    expect(progress.every((p, i) => i === 0 || p.elapsedMs >= progress[i - 1]!.elapsedMs)).toBe(true);

    // Once it has ended, a new build may start.
    expect(await services.handlers['sandbox:build']({})).toEqual({ image: 'posthoc-sandbox:build-test' });
    answerBroken(await daemon.versionAsked());
    await imageBuilds.settled();
    expect(progress.at(-1)!.phase).toBe('failed');
  });
});

describe('sandbox status', () => {
  /** An empty image carrying the labels a build with `packages` would give it. */
  function labelledImage(tag: string, packages: string[], recipe: string): void {
    const empty = join(dirs.make(), 'empty.tar');
    execFileSync('tar', ['-cf', empty, '-T', '/dev/null']);
    execFileSync('docker', ['import', '--change', `LABEL ${RECIPE_LABEL}=${recipe}`, '--change', `LABEL ${PACKAGES_LABEL}=${packages.join(',')}`, empty, tag], { stdio: 'ignore' });
    images.push(tag);
  }

  it('names the packages an image built with the old list lacks', async () => {
    const tag = 'posthoc-sandbox:labels-test';
    labelledImage(tag, ['python3-minimal', 'python3-requests', 'ca-certificates', 'git'], 'old-recipe');
    const status = await sandboxStatus(new Docker(), tag);
    expect(status.imagePresent).toBe(false);
    expect(status.message).toMatch(/^The sandbox image posthoc-sandbox:labels-test lacks python3, python3-numpy, python3-pandas, /);
    expect(status.message).toMatch(/rebuild it with "npx posthoc sandbox build"\.$/);
  });

  it('`posthoc sandbox status --image` says the same, and `sandbox build` prints its phases with the time', async () => {
    assertCliBuilt();
    const tag = 'posthoc-sandbox:labels-cli';
    labelledImage(tag, ['python3-minimal', 'git'], 'old-recipe');
    const status = await runPosthoc(['sandbox', 'status', '--image', tag]);
    expect(status.code).toBe(2);
    expect(status.stdout).toMatch(/lacks python3, python3-numpy, .*; rebuild it with "npx posthoc sandbox build"/);

    // A build against a daemon that is not there fails at once, after saying what it started.
    const build = await runPosthoc(['sandbox', 'build', '--image', 'posthoc-sandbox:never'], { DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
    expect(build.code).not.toBe(0);
    expect(build.stderr).toMatch(/^\[0:\d\d\] starting — building posthoc-sandbox:never$/m);
    expect(build.stderr).toMatch(/^\[0:\d\d\] failed$/m);
    expect(build.stderr.match(/Docker is not running/g)).toHaveLength(1);
  });

  it('says an image with the current recipe is present', async () => {
    const tag = 'posthoc-sandbox:labels-current';
    labelledImage(tag, [], sandboxRecipe());
    expect(await sandboxStatus(new Docker(), tag)).toMatchObject({ imagePresent: true, message: null });
  });
});
