// The renderer's pure parts of "control that is real": what a task holds for the person (the banner and
// the badge), and the card's Undo read from the timeline's answer (one truth, blockers included).
import { describe, expect, it } from 'vitest';
import type { Action, RestEffect, UndoBlocker } from '../../shared/domain';
import type { Timeline } from '../../shared/domain/undo';
import { heldIn, selectHeld, selectNeedsYou } from '../../renderer/src/state/attention';
import * as tasks from '../../renderer/src/state/tasks-state';
import * as t from '../../renderer/src/state/timeline-state';
import { selectUndoTruth } from '../../renderer/src/state/undo-truth';
import { actionFixture } from '../support/action-fixture';

const action = (over: Partial<Action> = {}): Action =>
  actionFixture({ effects: [{ channel: 'fs', workspace: 'w', added: ['a.txt'], modified: [], deleted: [], renamed: [], checkpointBefore: 'x', checkpointAfter: 'y' }], ...over });

const call = (hold: RestEffect['hold']): RestEffect =>
  ({ channel: 'rest', service: 'slack', method: 'POST', path: '/chat.postMessage', mutating: true, refused: null, hold }) as unknown as RestEffect;

describe('what waits for the person', () => {
  it('is a held action, or a running action’s call held for approval — never a send window or a decided hold', () => {
    expect(heldIn(action({ status: 'awaiting-approval', kind: 'sql', language: 'sql', confinement: { level: 'confined', reason: 'Over the rows limit' } }))).toMatchObject([
      { kind: 'action', id: 'a1', what: 'Action 1 (sql)', reason: 'Over the rows limit' },
    ]);
    const waiting = { id: 'h1', kind: 'approval' as const, reason: 'outside the rules', until: null, state: 'waiting' as const };
    expect(heldIn(action({ status: 'running', effects: [call(waiting)] }))).toMatchObject([{ kind: 'call', id: 'h1', what: 'POST /chat.postMessage to slack' }]);
    expect(heldIn(action({ status: 'running', effects: [call({ ...waiting, kind: 'window', until: '2026-01-01T00:00:30.000Z' })] }))).toEqual([]);
    expect(heldIn(action({ status: 'running', effects: [call({ ...waiting, state: 'approved' })] }))).toEqual([]);
    expect(heldIn(action({ status: 'done', effects: [call(waiting)] }))).toEqual([]);
    const tool = { channel: 'mcp', server: 'notes', transport: 'stdio', tool: 'add_note', arguments: '{}', result: null, isError: false, durationMs: 0, mutating: true, refused: null, inverse: null, hold: { ...waiting, id: 'h2' } } as unknown as Action['effects'][number];
    expect(heldIn(action({ status: 'running', effects: [tool] }))).toMatchObject([{ kind: 'call', id: 'h2', what: 'the tool notes.add_note' }]);
  });

  it('marks the task as needing the person until it is decided', () => {
    let s = tasks.applyActionUpdated(tasks.getEmptyState(), action({ status: 'awaiting-approval' }));
    expect(selectNeedsYou(s, 't1')).toBe(true);
    expect(selectHeld(s, 't1')).toBe(selectHeld(s, 't1')); // stable for the same actions
    s = tasks.applyActionUpdated(s, action({ status: 'done' }));
    expect(selectNeedsYou(s, 't1')).toBe(false);
    expect(selectNeedsYou(s, 'other')).toBe(false);
  });
});

describe('the card’s Undo reads the timeline', () => {
  const timeline = (a: Action, undo: { possible: boolean; reason?: string; blockers?: UndoBlocker[] }): Timeline => ({
    taskId: 't1',
    rewindOrder: [1],
    entries: [
      {
        kind: 'action',
        at: a.startedAt,
        action: a,
        undo: { possible: undo.possible, reason: undo.reason ?? null, blockers: undo.blockers ?? [] },
        redo: { possible: false, reason: null, blockers: [] },
        rewind: { possible: false, reason: null, blockers: [], count: 1 },
      },
    ],
  });

  it('is unknown until loaded, then what the timeline says, blockers included', () => {
    const a = action();
    expect(selectUndoTruth(t.getEmptyState(), a)).toBeNull();
    const blocker = { path: 'a.txt', by: 'action' as const, actionId: 'a2', actionSeq: 2, taskTitle: null };
    const s = t.applyLoaded(t.getEmptyState(), 't1', { ok: true, value: timeline(a, { possible: false, reason: 'a.txt changed since', blockers: [blocker] }) });
    expect(selectUndoTruth(s, a)).toEqual({ possible: false, reason: 'a.txt changed since', blockers: [blocker] });
    expect(selectUndoTruth(s, a)).toBe(selectUndoTruth(s, a)); // stable: a zustand hook re-renders only on change
  });

  it('ignores an answer about an older state of the action (it was running, now it is done)', () => {
    const running = action({ status: 'running' });
    const s = t.applyLoaded(t.getEmptyState(), 't1', { ok: true, value: timeline(running, { possible: false, reason: 'The agent is still working on this task.' }) });
    expect(selectUndoTruth(s, action({ status: 'done' }))).toBeNull();
    expect(selectUndoTruth(s, running)).toMatchObject({ possible: false });
  });
});
