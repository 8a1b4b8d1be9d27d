// Every started action ends on the record: Stop (TaskService.cancel) kills a running action at once and
// records what it wrote so far as an interrupted, undoable action; a failed checkpoint after an action
// leaves it interrupted with a reason, never "running", and the next start records its changes.
// Each case runs with a root-owned folder (when the tests run as root) and with a folder owned by uid 1000.
import { readdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FsChannel } from '../../main/effects/fs/fs-channel';
import { createServices, type AppServices } from '../../main/services/app-services';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai-server';
import { FOLDER_OWNERS as owners, fsEffectOf as fsEffect, ownFolder, SLOW_WRITER, until, writtenFiles as written } from '../support/posthoc-process';
import { tempDirs } from '../support/temp-dir';
import { describeReversePlan } from '../../shared/undo/reverse-plan';

const dirs = tempDirs();
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const o of open.splice(0).reverse()) await o.close();
  dirs.cleanup();
});

async function setup(replies: string[], uid: number): Promise<{ services: AppServices; llm: FakeOpenAi; dataDir: string; workspace: string }> {
  const dataDir = dirs.make('posthoc-data-');
  const workspace = ownFolder(dirs.make('posthoc-ws-'), uid);
  const llm = await startFakeOpenAi(replies);
  open.push(llm);
  const services = serviceOver(dataDir, llm);
  return { services, llm, dataDir, workspace };
}

function serviceOver(dataDir: string, llm: FakeOpenAi): AppServices {
  const services = createServices({ dataDir, env: { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_STREAM: '0' } });
  open.push(services);
  return services;
}

describe.each(owners)('Stop during a running action ($name)', ({ uid }) => {
  it('kills the action, records the files written so far as its effect, and undo takes them back', async () => {
    const { services, workspace } = await setup([SLOW_WRITER, 'Wrote the files.'], uid);
    writeFileSync(join(workspace, 'mine.txt'), 'the person\'s own file\n');
    const started = await services.tasks.start({ prompt: 'write 100 files slowly', workspaces: [workspace] }, { actionTimeoutSeconds: 60 });
    await until(() => written(workspace).length >= 5);

    services.tasks.cancel(started.id);
    const task = await services.tasks.wait(started.id);
    expect(task.status).toBe('cancelled');
    const [action] = services.tasks.get(task.id).actions;
    expect(action!.status).toBe('interrupted');
    expect(action!.output.interrupted).toMatchObject({ recorded: true });
    expect(action!.output.interrupted!.reason).toMatch(/Stopped by you/);
    expect(action!.output.stdout).not.toContain('finished');

    // Nothing of the action runs on after its record: the folder holds what the effect says, and stays so.
    const recorded = fsEffect(action!)!.added.sort();
    expect(recorded.length).toBeGreaterThanOrEqual(5);
    expect(recorded.length).toBeLessThan(100);
    expect(written(workspace)).toEqual(recorded);
    await sleep(1500);
    expect(written(workspace)).toEqual(recorded);

    const undo = await services.tasks.undo(action!.id);
    expect(undo).toMatchObject({ outcome: 'undone' });
    expect(written(workspace)).toEqual([]);
    expect(readdirSync(workspace)).toEqual(['mine.txt']);
    expect(services.store.getAction(action!.id)!.status).toBe('undone');
    // Redo gives it back its interrupted status.
    await services.undo.redo(action!.id);
    expect(services.store.getAction(action!.id)!.status).toBe('interrupted');
    expect(written(workspace)).toEqual(recorded);
  });
});

describe.each(owners)('a checkpoint after an action that fails ($name)', ({ uid }) => {
  it('leaves the action interrupted with what failed and what to do; the next start records its changes, undoable', async () => {
    const writeTwo = "```sh\necho one > a.txt\necho two > b.txt\n```";
    const { services, llm, dataDir, workspace } = await setup([writeTwo, 'Done.'], uid);
    vi.spyOn(FsChannel.prototype, 'after').mockRejectedValueOnce(new Error("ENOSPC: no space left on device, write '/data/checkpoints/x'"));

    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'write two files', workspaces: [workspace] })).id);
    expect(task.status).toBe('done');
    const [action] = services.tasks.get(task.id).actions;
    expect(action!.status).toBe('interrupted');
    expect(action!.output.interrupted).toMatchObject({ recorded: false });
    expect(action!.output.interrupted!.reason).toMatch(/could not take the checkpoint after this action \(ENOSPC: no space left on device/);
    expect(action!.output.interrupted!.reason).toMatch(/Free space .* run any posthoc command/);
    expect(fsEffect(action!)).toBeUndefined();
    // The model was told, in its observation.
    expect(llm.requests[1]!.messages.at(-1)!.content).toMatch(/interrupted: Posthoc could not take the checkpoint/);
    // Nothing to take back until the changes are recorded: undo says so instead of "undoing" nothing.
    expect(describeReversePlan(action!.reverse, action!.kind)).toMatch(/^Not possible yet/);
    await expect(services.undo.undo(action!.id)).rejects.toThrow(/not recorded yet .*Free space/);
    expect(readdirSync(workspace).sort()).toEqual(['a.txt', 'b.txt']);

    open.splice(open.indexOf(services), 1);
    await services.close();
    const next = serviceOver(dataDir, llm);
    const closed = await next.ready;
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatch(new RegExp(`closed action 1 .*${action!.id}.*2 file changes recorded; undo with: posthoc undo ${action!.id}`));
    const recorded = next.store.getAction(action!.id)!;
    expect(recorded.status).toBe('interrupted');
    expect(recorded.output.interrupted).toMatchObject({ recorded: true });
    expect(fsEffect(recorded)!.added.sort()).toEqual(['a.txt', 'b.txt']);
    // Not taken for an edit made outside Posthoc: the folder's history has no external change.
    expect((await next.undoViews.timeline(task.id)).entries.filter((e) => e.kind === 'external')).toEqual([]);

    expect(await next.undo.undo(action!.id)).toMatchObject({ outcome: 'undone' });
    expect(readdirSync(workspace)).toEqual([]);
    expect(await serviceOver(dataDir, llm).ready).toEqual([]);
  });
  it('the next action of the same process records it first, so its changes are never taken for an outside edit', async () => {
    const { services, workspace } = await setup(["```sh\necho one > a.txt\necho two > b.txt\n```", "```sh\necho three > c.txt\n```", 'Done.'], uid);
    vi.spyOn(FsChannel.prototype, 'after').mockRejectedValueOnce(new Error('ENOSPC: no space left on device'));

    const task = await services.tasks.wait((await services.tasks.start({ prompt: 'write three files', workspaces: [workspace] })).id);
    expect(task.status).toBe('done');
    const [first, second] = services.tasks.get(task.id).actions;
    expect(first).toMatchObject({ status: 'interrupted', output: { interrupted: { recorded: true } } });
    expect(fsEffect(first!)!.added.sort()).toEqual(['a.txt', 'b.txt']);
    expect(second!.status).toBe('done');
    expect(fsEffect(second!)!.added).toEqual(['c.txt']);
    expect(services.undoViews.timeline(task.id).entries.filter((e) => e.kind === 'external')).toEqual([]);
    expect(await services.undo.rewind(first!.id)).toMatchObject({ outcome: 'rewound' });
    expect(readdirSync(workspace)).toEqual([]);
  });
});
