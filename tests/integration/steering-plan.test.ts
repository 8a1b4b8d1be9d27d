// Steering, the plan and folder instructions through the real services: a scripted OpenAI-compatible
// server (the only stand-in), the agent's code in Docker.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Action } from '../../shared/domain';
import { startHarness, type Harness } from '../support/services-harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('steering and the plan', () => {
  it('a message typed while an action runs reaches the next request; the plan is kept on the task', async () => {
    const first = '<plan>\n- [ ] wait for the marker\n- [ ] report\n</plan>\nWaiting.\n```bash\nwhile [ ! -f go.txt ]; do sleep 0.1; done\necho waited\n```';
    const second = '<plan>\n- [x] wait for the marker\n- [ ] report\n</plan>\nDone waiting; as asked, in French: terminé.';
    harness = await startHarness([first, second]);
    const { services, workspace } = harness;
    const started = await services.tasks.start({ prompt: 'wait for go.txt, then report', workspaces: [workspace] });

    // While the action runs (it waits for go.txt), the person writes.
    await new Promise<void>((resolve) => {
      const off = services.events.subscribe((name, payload) => {
        if (name === 'action:updated' && (payload as Action).status === 'running') {
          off();
          resolve();
        }
      });
    });
    const during = await services.tasks.send(started.id, 'Answer in French, please.');
    expect(during.status).toBe('running');
    writeFileSync(join(workspace, 'go.txt'), 'go');

    const task = await services.tasks.wait(started.id);
    expect(task).toMatchObject({ status: 'done', answer: 'Done waiting; as asked, in French: terminé.' });
    const secondRequest = harness.llm.requests[1]!;
    expect(secondRequest.messages.at(-1)).toEqual({ role: 'user', content: 'Answer in French, please.' });
    expect(secondRequest.messages.at(-2)!.content).toMatch(/^Observation for action 1 \(bash\): exit code 0/);
    expect(task.plan).toEqual([
      { text: 'wait for the marker', done: true },
      { text: 'report', done: false },
    ]);
    // The message is in the conversation, after the observation, as the person's.
    const roles = services.tasks.get(task.id).messages.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'observation', 'user', 'assistant']);
  });

  it('reads AGENTS.md from a granted folder into the first request, with its path', async () => {
    harness = await startHarness(['Nothing to do.']);
    const { services, workspace } = harness;
    writeFileSync(join(workspace, 'AGENTS.md'), 'Name every output file in lower case.\n');
    const started = await services.tasks.start({ prompt: 'say hi', workspaces: [workspace] });
    await services.tasks.wait(started.id);
    const system = harness.llm.requests[0]!.messages[0]!;
    expect(system.role).toBe('system');
    const mount = services.tasks.get(started.id).task.workspaces[0]!.mountPath;
    expect(system.content).toContain(`--- ${mount}/AGENTS.md ---\nName every output file in lower case.`);
  });
});
