// When the sandbox fails part-way through an action, what the code already did stays recorded on the
// action: its file changes and its calls through the gateway.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxError } from '../../main/sandbox/docker-client';
import { startEchoServer, type EchoServer } from '../support/echo-server';
import { startHarness, type Harness } from '../support/services-harness';

let harness: Harness | undefined;
let echo: EchoServer | undefined;
afterEach(async () => {
  await harness?.close();
  await echo?.close();
  harness = undefined;
  echo = undefined;
});

describe('an action whose sandbox fails part-way', () => {
  it('keeps the files it changed and the service calls it made, and the task fails with the sandbox error', async () => {
    echo = await startEchoServer();
    harness = await startHarness([
      "```python\nimport os, requests\nopen('made.txt', 'w').write('x')\nrequests.post(os.environ['POSTHOC_GATEWAY'] + '/svc/notes/n', json={'a': 1})\n```",
    ]);
    const { services, workspace } = harness;
    services.services.add('notes', echo.baseUrl);
    writeFileSync(join(workspace, 'keep.txt'), 'mine');
    const run = services.executor.run.bind(services.executor);
    services.executor.run = async (req) => {
      await run(req);
      throw new SandboxError('docker-failed', 'Docker went away mid-action.');
    };
    const started = await services.tasks.start({ prompt: 'x', workspaces: [workspace], services: ['notes'] });
    const task = await services.tasks.wait(started.id);
    expect(task.status).toBe('failed');
    expect(task.error).toContain('Docker went away');
    const [action] = services.tasks.get(task.id).actions;
    expect(action!.status).toBe('failed');
    expect(action!.effects.map((e) => e.channel).sort()).toEqual(['fs', 'rest']);
    const fs = action!.effects.find((e) => e.channel === 'fs');
    expect(fs && fs.channel === 'fs' ? fs.added : []).toEqual(['made.txt']);
    const call = action!.effects.find((e) => e.channel === 'rest');
    expect(call).toMatchObject({ method: 'POST', service: 'notes', status: 200 });
    expect(action!.confinement.level).not.toBe('reversible');
    expect(echo.received).toHaveLength(1);
  });
});
