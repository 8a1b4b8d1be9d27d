// The app's Build button where it shows the sandbox status: with the image missing it offers a build, shows
// the build's phase while it runs, and the reason when it fails. Docker is a local stand-in on a unix
// socket that answers the status check and keeps the build's first request waiting until the test answers.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { createServices } from '../../main/services/app-services';
import { imageBuilds } from '../../main/sandbox/sandbox-image';
import { browserTestbed, SCREENSHOTS } from '../support/browser';
import { tempDirs } from '../support/temp-dir';

const { open, defer } = browserTestbed({ width: 1100, height: 800 });

describe('building the sandbox image from the app', () => {
  it('offers Build when the image is missing, shows the phase while it runs and the reason when it fails', async () => {
    const dirs = tempDirs();
    const socketPath = join(dirs.make('posthoc-fake-docker-'), 'docker.sock');
    let holdVersion = false;
    const held: ServerResponse[] = [];
    const heldOne: Array<() => void> = [];
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? '').replace(/^\/v[\d.]+/, '').split('?')[0];
      const json = (code: number, body: unknown) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (path === '/version' && holdVersion) {
        held.push(res);
        heldOne.shift()?.();
      } else if (path === '/version') json(200, { Version: '20.10.24', ApiVersion: '1.41' });
      else if (path === '/containers/json') json(200, []);
      else json(404, { message: `No such image` });
    });
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    const services = createServices({ dataDir: dirs.make('posthoc-data-'), docker: new Docker({ socketPath }), image: 'posthoc-sandbox:e2e-missing', env: {} });
    defer(async () => {
      for (const res of held.splice(0)) res.destroy();
      await imageBuilds.settled();
      await services.close();
      await new Promise((resolve) => server.close(resolve));
      dirs.cleanup();
    });

    const page = await open(services);
    const section = page.getByTestId('sandbox-status');
    await section.waitFor();
    await page.getByTestId('sandbox-build-button').waitFor();
    expect(await page.getByTestId('sandbox-message').textContent()).toMatch(/posthoc-sandbox:e2e-missing is missing/);
    await section.screenshot({ path: join(SCREENSHOTS, 'sandbox-build-offered.png') });

    holdVersion = true;
    const asked = new Promise<void>((resolve) => heldOne.push(resolve));
    await page.getByTestId('sandbox-build-button').click();
    await asked;
    await page.getByTestId('sandbox-build-bar').waitFor();
    await expect.poll(() => page.getByTestId('sandbox-build-phase').textContent()).toMatch(/^Starting · 0:0\d$/);
    expect(await page.getByTestId('sandbox-build-button').count()).toBe(0); // no second build from this window
    await section.screenshot({ path: join(SCREENSHOTS, 'sandbox-build-running.png') });

    const res = held.shift()!;
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: 'the daemon is broken on purpose' }));
    await page.getByTestId('sandbox-build-error').waitFor();
    expect(await page.getByTestId('sandbox-build-error').textContent()).toMatch(/broken on purpose/);
    expect(await page.getByTestId('sandbox-build-button').textContent()).toBe('Try the build again');
    await section.screenshot({ path: join(SCREENSHOTS, 'sandbox-build-failed.png') });
  });
});
