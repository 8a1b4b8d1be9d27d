// The undo timeline's pure parts in the renderer: store transitions, what an outcome says, diff rows.
import { describe, expect, it } from 'vitest';
import type { Action, DbEffect, RestEffect } from '../../shared/domain';
import type { FileDiff, Timeline } from '../../shared/domain/undo';
import { sideBySideRows, unifiedRows } from '../../renderer/src/model/diff-rows';
import { changeCount, describeOutcome } from '../../renderer/src/model/timeline-view';
import * as t from '../../renderer/src/state/timeline-state';
import { actionFixture } from '../support/action-fixture';

const action = (over: Partial<Action> = {}): Action =>
  actionFixture({
    effects: [
      { channel: 'fs', workspace: 'w', added: ['a.txt'], modified: ['b.txt'], deleted: [], renamed: [{ from: 'c', to: 'd' }], checkpointBefore: 'x', checkpointAfter: 'y' },
    ],
    ...over,
  });

describe('timeline state', () => {
  it('keeps the last timeline while reloading and after a failed reload', () => {
    const timeline: Timeline = { taskId: 't1', rewindOrder: [], entries: [] };
    let s = t.applyLoaded(t.applyLoading(t.getEmptyState(), 't1'), 't1', { ok: true, value: timeline });
    s = t.applyLoading(s, 't1');
    expect(s.byTask.t1).toEqual({ timeline, error: null, loading: true });
    s = t.applyLoaded(s, 't1', { ok: false, error: { code: 'internal', message: 'gone' } });
    expect(s.byTask.t1).toEqual({ timeline, error: 'gone', loading: false });
  });

  it('clears an action’s last outcome when a new operation starts, and records the next', () => {
    let s = t.applyOutcome(t.getEmptyState(), 'a1', { operation: 'undo', tone: 'warn', text: 'refused', paths: [], canRewind: true });
    s = t.applyBusy(s, 'a1', 'rewind');
    expect(s.outcomes.a1).toBeUndefined();
    expect(s.busy).toEqual({ actionId: 'a1', operation: 'rewind' });
    s = t.applyOutcome(s, 'a1', { operation: 'rewind', tone: 'ok', text: 'ok', paths: [], canRewind: false });
    expect(s.busy).toBeNull();
  });

  it('drops a diff answer for a diff that was closed or replaced', () => {
    const first = { actionId: 'a1', path: 'a.txt' };
    const second = { actionId: 'a1', path: 'b.txt' };
    const diff = { ok: true as const, value: { path: 'a.txt' } as FileDiff };
    let s = t.applyDiffOpened(t.getEmptyState(), first);
    s = t.applyDiffOpened(s, second);
    expect(t.applyDiffLoaded(s, first, diff)).toBe(s);
    expect(t.applyDiffLoaded(t.applyDiffClosed(s), second, diff).diff).toBeNull();
  });
});

describe('what the timeline says', () => {
  it('counts changes with renames', () => {
    expect(changeCount(action())).toEqual({ total: 3, text: '3 file changes (+1 ~1 \u21921)' });
    expect(changeCount(action({ effects: [] })).text).toBe('no changes');
  });

  it('says what a database or service action changed, beside its files', () => {
    const db = (database: string, rowsAffected: number, refused: string | null = null): DbEffect => ({
      channel: 'db',
      database,
      engine: 'sqlite',
      via: 'sql',
      mode: 'capture',
      statements: [],
      rowsAffected,
      tables: ['products'],
      undo: { kind: 'rows', logId: 'l', statements: [], statementCount: rowsAffected },
      heldUntil: null,
      refused,
    });
    const call = (service: string, method: string, refused: string | null = null): RestEffect => ({
      channel: 'rest',
      service,
      method,
      path: '/chat.postMessage',
      status: refused ? 403 : 200,
      durationMs: 3,
      requestBytes: 10,
      responseBytes: 10,
      mutating: method !== 'GET',
      refused,
    });
    const effects = [...action().effects, db('shop', 4), db('shop', 4), db('crm', 0), db('crm', 9, 'not granted'), call('slack', 'POST'), call('slack', 'GET'), call('github', 'POST', 'not allowed')];
    expect(changeCount(action({ effects }))).toEqual({ total: 3, text: '3 file changes (+1 ~1 \u21921), 8 rows in shop, 1 call to slack' });
    expect(changeCount(action({ effects: [db('shop', 1)] })).text).toBe('1 row in shop');
  });

  it('explains a refusal path by path and offers a rewind only when it would help', () => {
    const refused = describeOutcome('undo', {
      ok: true,
      value: {
        outcome: 'conflict',
        action: action(),
        paths: ['a.txt'],
        message: 'x',
        canRewind: true,
        blockers: [{ path: 'a.txt', by: 'action', actionId: 'a2', actionSeq: 2, taskTitle: null }],
      },
    });
    expect(refused).toMatchObject({ tone: 'warn', canRewind: true, paths: ['a.txt — changed by action 2'] });
    expect(refused.text).toMatch(/Rewind to before this action/);
    const external = describeOutcome('redo', {
      ok: true,
      value: { outcome: 'conflict', action: action(), paths: ['n.txt'], message: 'x', blockers: [{ path: 'n.txt', by: 'external', actionId: null, actionSeq: null, taskTitle: null }] },
    });
    expect(external).toMatchObject({ canRewind: false, paths: ['n.txt — edited outside Posthoc since'] });
  });

  it('says what an undo did, including files it could not bring back', () => {
    const done = describeOutcome('undo', { ok: true, value: { outcome: 'undone', action: action(), restored: ['b.txt'], removed: ['a.txt'], notRestored: ['big.iso'] } });
    expect(done.text).toBe('Undone: removed a.txt; restored b.txt; left big.iso as it is (not covered by undo).');
    expect(describeOutcome('rewind', { ok: false, error: { code: 'conflict', message: 'kept' } })).toMatchObject({ tone: 'error', text: 'kept' });
  });
});

describe('diff rows', () => {
  it('puts removed lines beside the added lines that replaced them', () => {
    const rows = sideBySideRows('a\nb\nc\n', 'a\nB\nB2\nc\n');
    expect(rows.map((r) => (r.kind === 'hunk' ? 'hunk' : `${r.left?.text ?? '·'}|${r.right?.text ?? '·'}`))).toEqual(['hunk', 'a|a', 'b|B', '·|B2', 'c|c']);
  });

  it('numbers unified rows on both sides', () => {
    expect(unifiedRows('x\n', 'x\ny\n')).toEqual([
      { kind: 'hunk', text: '@@ -1,1 +1,2 @@' },
      { kind: 'same', oldLine: 1, newLine: 1, text: 'x' },
      { kind: 'added', oldLine: null, newLine: 2, text: 'y' },
    ]);
  });
});
