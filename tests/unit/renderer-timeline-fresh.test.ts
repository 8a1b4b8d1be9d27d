// Issue 27: while an action prints, action:updated comes every 250 ms; the timeline is reloaded only when an
// event changes more than the action's output text. The bridge is a stub that counts task:timeline calls.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PosthocApi } from '../../shared/contract';
import type { Action, RestEffect } from '../../shared/domain';
import type { Timeline } from '../../shared/domain/undo';
import { timelineActions, useTimelineStore } from '../../renderer/src/state/timeline-store';
import { getEmptyState } from '../../renderer/src/state/timeline-state';
import { changesTimeline, keepTimelinesFresh, timelineShapeOf } from '../../renderer/src/state/undo-truth';
import { actionFixture, RUNNING_OUTPUT } from '../support/action-fixture';

type Listener = (payload: unknown) => void;

/** A bridge whose task:timeline answers with the actions given and counts its calls; events are pushed by hand. */
function stubBridge(actions: () => Action[]) {
  const listeners = new Map<string, Listener[]>();
  let loads = 0;
  const api = {
    taskTimeline: async ({ taskId }: { taskId: string }) => {
      loads += 1;
      const timeline: Timeline = {
        taskId,
        rewindOrder: [],
        entries: actions().map((action) => ({
          kind: 'action',
          at: action.startedAt,
          action: structuredClone(action),
          undo: { possible: false, reason: null, blockers: [] },
          redo: { possible: false, reason: null, blockers: [] },
          rewind: { possible: false, reason: null, blockers: [], count: 0 },
        })),
      };
      return { ok: true as const, value: timeline };
    },
    on: (name: string, fn: Listener) => {
      listeners.set(name, [...(listeners.get(name) ?? []), fn]);
      return () => listeners.set(name, (listeners.get(name) ?? []).filter((f) => f !== fn));
    },
  };
  const emit = (name: string, payload: unknown) => {
    for (const fn of listeners.get(name) ?? []) fn(structuredClone(payload));
  };
  return { api: api as unknown as PosthocApi, emit, loads: () => loads };
}

const running = (over: Partial<Action> = {}): Action =>
  actionFixture({ status: 'running', output: { ...RUNNING_OUTPUT }, finishedAt: null, effects: [], ...over });

/** Lets the freshener's settle timer fire and the load it starts finish. */
async function settle(): Promise<void> {
  await vi.advanceTimersByTimeAsync(200);
}

beforeEach(() => {
  vi.useFakeTimers();
  useTimelineStore.setState(getEmptyState());
});
afterEach(() => {
  vi.useRealTimers();
  Reflect.deleteProperty(globalThis, 'window');
});

describe('output events and the timeline', () => {
  it('an output-only event is no timeline change; status, effects and a new action are', () => {
    const a = running();
    const shape = timelineShapeOf(a);
    expect(changesTimeline(shape, { ...a, output: { ...a.output, stdout: 'line 1\nline 2\n', stderr: 'warn\n' } })).toBe(false);
    // The same action with its fields in another order (the event's copy against the timeline's row).
    const reordered = Object.fromEntries(Object.entries(a).reverse()) as Action;
    expect(changesTimeline(shape, reordered)).toBe(false);
    expect(changesTimeline(shape, { ...a, status: 'done', finishedAt: '2026-01-01T00:00:01.000Z' })).toBe(true);
    expect(changesTimeline(shape, { ...a, output: { ...a.output, exitCode: 0 } })).toBe(true);
    expect(changesTimeline(undefined, a)).toBe(true);
  });

  it('reloads the timeline 0 times across a stream of output events, once per status or effect change', async () => {
    let actions = [running()];
    const bridge = stubBridge(() => actions);
    Object.assign(globalThis, { window: { posthoc: bridge.api } });
    const off = keepTimelinesFresh(bridge.api);
    await timelineActions.loadTimeline('t1');
    expect(bridge.loads()).toBe(1);

    // 40 output events, 250 ms apart, as a running action prints: no reload at all.
    let stdout = '';
    for (let i = 0; i < 40; i++) {
      stdout += `line ${i}\n`;
      bridge.emit('action:updated', running({ output: { ...RUNNING_OUTPUT, stdout } }));
      await vi.advanceTimersByTimeAsync(250);
    }
    expect(bridge.loads()).toBe(1);

    // A held service call shows on the running action: its effects changed, so the row may have.
    const hold = { id: 'h1', kind: 'approval' as const, reason: 'outside the rules', until: null, state: 'waiting' as const };
    const call = { channel: 'rest', service: 'slack', method: 'POST', path: '/chat.postMessage', mutating: true, refused: null, hold } as unknown as RestEffect;
    const held = running({ output: { ...RUNNING_OUTPUT, stdout }, effects: [call] });
    bridge.emit('action:updated', held);
    await settle();
    expect(bridge.loads()).toBe(2);

    // The action ends: reload. A second action starts: reload; its output: none.
    const done = actionFixture({ output: { ...RUNNING_OUTPUT, stdout, exitCode: 0 } });
    actions = [done];
    bridge.emit('action:updated', done);
    await settle();
    expect(bridge.loads()).toBe(3);
    const second = running({ id: 'a2', seq: 2 });
    actions = [done, second];
    bridge.emit('action:updated', second);
    await settle();
    expect(bridge.loads()).toBe(4);
    for (let i = 0; i < 20; i++) {
      bridge.emit('action:updated', running({ id: 'a2', seq: 2, output: { ...RUNNING_OUTPUT, stderr: 'x'.repeat(i + 1) } }));
      await vi.advanceTimersByTimeAsync(250);
    }
    expect(bridge.loads()).toBe(4);

    // Undo (a status change from main) reloads; so does a task event.
    bridge.emit('action:updated', { ...done, status: 'undone', undoneAt: '2026-01-01T00:00:02.000Z' });
    await settle();
    expect(bridge.loads()).toBe(5);
    bridge.emit('task:updated', { id: 't1' });
    await settle();
    expect(bridge.loads()).toBe(6);
    off();
  });

  it('the first output event of an action shown in a loaded timeline reloads nothing either', async () => {
    const bridge = stubBridge(() => [running({ output: { ...RUNNING_OUTPUT, stdout: 'begun\n' } })]);
    Object.assign(globalThis, { window: { posthoc: bridge.api } });
    const off = keepTimelinesFresh(bridge.api);
    await timelineActions.loadTimeline('t1');
    bridge.emit('action:updated', running({ output: { ...RUNNING_OUTPUT, stdout: 'begun\nmore\n' } }));
    await settle();
    expect(bridge.loads()).toBe(1);
    off();
  });
});
