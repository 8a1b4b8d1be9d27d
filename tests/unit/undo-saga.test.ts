// The undo saga over channels it is handed (undo-channels.ts builds the real list): it names none of
// them, and orders them by their properties alone — the exact ones first in the order given, those that
// leave the machine last, and a refusal from one of those puts the exact ones back.
import { afterEach, describe, expect, it } from 'vitest';
import type { Action, UndoBlocker } from '../../shared/domain';
import { KeepRefused, type ApplyResult, type ChannelName, type ChannelStep, type UndoChannel, type UndoJob } from '../../shared/undo/channel';
import type { FsChannel } from '../../main/effects/fs/fs-channel';
import type { FsReverter } from '../../main/effects/fs/fs-revert';
import { EventBus } from '../../main/services/event-bus';
import { UndoService } from '../../main/services/undo-service';
import { openDatabase } from '../../main/store/database';
import { TaskStore } from '../../main/store/task-store';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
afterEach(() => dirs.cleanup());

/** A channel that writes down what the saga asks of it, in one shared log. */
function fakeChannel(name: ChannelName, leavesMachine: boolean, log: string[], refuse = false): UndoChannel {
  const step: ChannelStep = {
    async check(): Promise<UndoBlocker[]> {
      log.push(`${name}:check`);
      return [];
    },
    async apply(): Promise<ApplyResult> {
      log.push(`${name}:apply`);
      const report = { items: [`${name} done`], restored: [], removed: [], notRestored: [], refs: [] };
      return refuse ? { ok: false, report: { ...report, items: [] }, refused: { what: `${name} call`, why: 'no' } } : { ok: true, report };
    },
    async compensate() {
      log.push(`${name}:compensate`);
    },
  };
  return {
    name,
    leavesMachine,
    async session<T>(_job: UndoJob, body: (step: ChannelStep | null) => Promise<T>): Promise<T> {
      log.push(`${name}:open`);
      try {
        return await body(step);
      } finally {
        log.push(`${name}:close`);
      }
    },
  };
}

function world(channels: UndoChannel[]) {
  const store = new TaskStore(openDatabase(dirs.make('posthoc-saga-')));
  const fs = { setGate: () => undefined, history: { changes: () => [] } } as unknown as FsChannel;
  const reverter = { recoverPending: async () => [] } as unknown as FsReverter;
  const events = new EventBus();
  const undo = new UndoService(store, fs, events, { isRunning: () => false, channels, reverter });
  const task = store.createTask({ title: 'saga', workspaces: [], model: 'test' });
  const action = store.saveAction({
    id: 'a1',
    taskId: task.id,
    seq: 1,
    kind: 'code',
    language: 'python',
    source: 'pass',
    status: 'done',
    output: { stdout: '', stderr: '', exitCode: 0, timedOut: false, truncated: false },
    effects: [],
    messageId: null,
    confinement: { level: 'reversible', reason: 'test' },
    startedAt: new Date().toISOString(),
    finishedAt: new Date().toISOString(),
    undoneAt: null,
  } as unknown as Action);
  return { store, events, undo, action };
}

describe('the undo saga over the channels it is handed', () => {
  it('checks all, applies the exact channels first in the given order and those that leave the machine last', async () => {
    const log: string[] = [];
    const { undo, action } = world([
      fakeChannel('rest', true, log),
      fakeChannel('db', false, log),
      fakeChannel('mcp', true, log),
      fakeChannel('fs', false, log),
    ]);
    const result = await undo.undo(action.id);
    expect(result).toMatchObject({ outcome: 'undone', action: { status: 'undone' } });
    expect(log).toEqual([
      'db:open', 'fs:open', 'rest:open', 'mcp:open',
      'db:check', 'fs:check', 'rest:check', 'mcp:check',
      'db:apply', 'fs:apply', 'rest:apply', 'mcp:apply',
      'mcp:close', 'rest:close', 'fs:close', 'db:close',
    ]);
    expect(result.steps?.map((s) => s.channel)).toEqual(['db', 'fs', 'rest', 'mcp']);
  });

  it('puts the exact channels back when one that leaves the machine refuses, and refuses with nothing sent', async () => {
    const log: string[] = [];
    const { undo, action } = world([fakeChannel('mcp', true, log, true), fakeChannel('fs', false, log)]);
    const result = await undo.undo(action.id);
    expect(result).toMatchObject({ outcome: 'conflict', action: { status: 'done' } });
    expect(log.filter((l) => !l.endsWith('open') && !l.endsWith('close'))).toEqual(['fs:check', 'mcp:check', 'fs:apply', 'mcp:apply', 'fs:compensate']);
  });

  it('with no channel at all, an undo is a change of status', async () => {
    const { undo, action } = world([]);
    expect(await undo.undo(action.id)).toMatchObject({ outcome: 'undone', steps: [] });
    expect(await undo.redo(action.id)).toMatchObject({ outcome: 'redone', action: { status: 'done' } });
  });

  it('previews only the channels whose check writes nothing, opening no operation and changing no status', async () => {
    const log: string[] = [];
    const files = fakeChannel('fs', false, log);
    const blocked: UndoBlocker = { path: 'memory', by: 'content', actionId: null, actionSeq: null, taskTitle: null, channel: 'memory', reason: 'edited since' };
    const memory: UndoChannel = { ...fakeChannel('memory', false, log), preview: async (job) => (log.push(`memory:preview:${job.direction}`), [blocked]) };
    const { undo, action, store } = world([files, memory]);
    expect(await undo.preview(action.id)).toEqual([blocked]);
    // The files channel (no preview) was not opened, and nothing was applied, recorded or changed.
    expect(log).toEqual(['memory:preview:undo']);
    expect(store.getAction(action.id)!.status).toBe('done');
  });

  it('keeps through each channel that holds something, and refuses in its words when one cannot', async () => {
    const log: string[] = [];
    const held: UndoChannel = { ...fakeChannel('db', false, log), keep: async (a) => (log.push(`db:keep:${a.id}`), []) };
    const { undo, action } = world([fakeChannel('fs', false, log), held]);
    expect(await undo.keep(action.id)).toMatchObject({ status: 'kept' });
    expect(log).toEqual(['db:keep:a1']);

    const refusing: UndoChannel = { ...fakeChannel('db', false, []), keep: async () => Promise.reject(new KeepRefused('the held transaction was rolled back: run the action again')) };
    const second = world([refusing]);
    await expect(second.undo.keep(second.action.id)).rejects.toThrow('the held transaction was rolled back: run the action again');
    expect(second.store.getAction(second.action.id)!.status).toBe('done');
  });
});
