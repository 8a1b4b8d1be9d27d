// The renderer's last way out of a refused undo: keep a copy of the person's edit and undo (or rewind).
// When the timeline offers it, what the button says it does, what the outcome says (where each edit was
// kept, or why no copy could be made), and the store sending keepCopies only when asked.
import { afterEach, describe, expect, it } from 'vitest';
import type { PosthocApi, Result } from '../../shared/contract';
import type { Action, UndoBlocker, UndoResult } from '../../shared/domain';
import type { RewindResult, Timeline } from '../../shared/domain/undo';
import { copyNameOf, describeOutcome, isPersonsEdit, keepCopyOffer, keepCopyTitle, outcomeWords } from '../../renderer/src/model/timeline-view';
import * as t from '../../renderer/src/state/timeline-state';
import { timelineActions, useTimelineStore } from '../../renderer/src/state/timeline-store';
import { actionFixture } from '../support/action-fixture';

const action = (over: Partial<Action> = {}): Action =>
  actionFixture({ effects: [{ channel: 'fs', workspace: 'w', added: [], modified: ['notes.txt'], deleted: [], renamed: [], checkpointBefore: 'x', checkpointAfter: 'y' }], ...over });

const edit = (path: string, over: Partial<UndoBlocker> = {}): UndoBlocker => ({ path, by: 'external', actionId: null, actionSeq: null, taskTitle: null, ...over });
const later = (path: string, seq: number): UndoBlocker => ({ path, by: 'action', actionId: `a${seq}`, actionSeq: seq, taskTitle: null });
const availability = (blockers: UndoBlocker[]) => ({ possible: blockers.length === 0, reason: blockers.length === 0 ? null : 'Later changes stand in the way.', blockers });

describe('when the timeline offers to keep a copy', () => {
  // `count`: how many actions the rewind undoes, this one included (1: no later action).
  const entry = (undo: UndoBlocker[], rewind: UndoBlocker[], count = 2) => ({ action: { seq: 1 }, undo: availability(undo), rewind: { ...availability(rewind), count } });

  it('offers "and undo" when every blocker is a file the person changed (outside edit or changed content)', () => {
    expect(keepCopyOffer(entry([edit('notes.txt'), edit('b.txt', { by: 'content' })], []))).toBe('undo');
    expect(keepCopyOffer(entry([edit('notes.txt', { whileActionSeq: 1, ambiguous: true })], []))).toBe('undo');
  });

  it('offers "and rewind" when a later action stands in the way too and only the person’s edits stop the rewind', () => {
    expect(keepCopyOffer(entry([later('a.txt', 2), edit('notes.txt')], [edit('notes.txt')]))).toBe('rewind');
    expect(keepCopyOffer(entry([later('a.txt', 2)], [edit('a.txt', { by: 'content' })]))).toBe('rewind');
  });

  it('offers nothing when undo is possible, a rewind alone does it, or something a copy cannot keep stands in the way', () => {
    expect(keepCopyOffer(entry([], []))).toBeNull();
    // A plain rewind gets past the later action: no copy is needed.
    expect(keepCopyOffer(entry([later('a.txt', 2)], []))).toBeNull();
    // No later action to rewind.
    expect(keepCopyOffer(entry([later('a.txt', 2)], [edit('a.txt')], 1))).toBeNull();
    // A rewind stopped by another task's action, a database or a file known not to be copyable.
    expect(keepCopyOffer(entry([later('a.txt', 2)], [{ ...later('a.txt', 7), taskTitle: 'other' }]))).toBeNull();
    expect(keepCopyOffer(entry([edit('shop', { channel: 'db', reason: 'rows changed' })], []))).toBeNull();
    expect(keepCopyOffer(entry([edit('notes.txt', { copyable: false })], []))).toBeNull();
    expect(keepCopyOffer(entry([edit('notes.txt'), edit('shop', { channel: 'db' })], []))).toBeNull();
    expect(keepCopyOffer({ ...entry([edit('notes.txt')], []), undo: { possible: true, blockers: [edit('notes.txt')] } })).toBeNull();
    expect([edit('x'), later('y', 2), edit('z', { channel: 'rest' })].map(isPersonsEdit)).toEqual([true, false, false]);
  });
});

describe('what the keep-a-copy button says it does', () => {
  it('names the copy the way the engine does, beside the file', () => {
    expect(copyNameOf('notes.txt')).toBe('notes (your edit).txt');
    expect(copyNameOf('docs/report.final.md')).toBe('docs/report.final (your edit).md');
    expect(copyNameOf('Makefile')).toBe('Makefile (your edit)');
    expect(copyNameOf('conf/.env')).toBe('conf/.env (your edit)');
  });

  it('says exactly what happens: the copy’s name, the numbering, then the undo or the rewind', () => {
    expect(keepCopyTitle('undo', ['notes.txt'], 1)).toBe(
      'Copies your edit of notes.txt to "notes (your edit).txt" beside it (numbered "(your edit 2)" if that name is taken), then undoes action 1. Your edit stays in the copy.',
    );
    expect(keepCopyTitle('rewind', ['a.txt', 'b.txt', 'a.txt'], 1, [3, 2, 1])).toBe(
      'Copies each file you edited (a.txt, b.txt) to "NAME (your edit).ext" beside it (numbered "(your edit 2)" if that name is taken), then undoes actions 3, 2, 1, newest first. Your edit stays in the copy.',
    );
    // The card's rewind offer does not know the actions' numbers: it says which way it goes.
    expect(keepCopyTitle('rewind', ['a.txt'], 4)).toMatch(/, then undoes action 4 and the later ones, newest first\./);
  });
});

describe('what the outcome says', () => {
  const conflict = (blockers: UndoBlocker[], over: { canRewind?: boolean; canKeepCopies?: boolean } = {}): Result<UndoResult> => ({
    ok: true,
    value: { outcome: 'conflict', action: action(), paths: blockers.map((b) => b.path), message: 'main says', blockers, ...over },
  });

  it('after a refused undo the person’s edits alone stop, offers the copy with the files it would keep', () => {
    const o = describeOutcome('undo', conflict([edit('notes.txt', { copyable: true })], { canKeepCopies: true }));
    expect(o).toMatchObject({ tone: 'warn', canKeepCopies: true, canRewind: false, keepCopyPaths: ['notes.txt'], paths: ['notes.txt — edited outside Posthoc since'] });
    expect(o.text).toBe('Undo refused: this path changed since, and it would overwrite it. Keep a copy of your edit, and undo goes through.');
    // Main did not say a copy would do: no offer.
    expect(describeOutcome('undo', conflict([edit('notes.txt', { copyable: false })]))).toMatchObject({ canKeepCopies: false });
    expect(describeOutcome('undo', conflict([edit('notes.txt', { copyable: false })])).keepCopyPaths).toBeUndefined();
    // A redo never keeps copies.
    expect(describeOutcome('redo', conflict([edit('notes.txt')], { canKeepCopies: true })).canKeepCopies).toBe(false);
  });

  it('says where each edit was kept', () => {
    const result: Result<UndoResult> = {
      ok: true,
      value: { outcome: 'undone', action: action({ status: 'undone' }), restored: ['notes.txt'], removed: [], copies: [{ path: 'notes.txt', copy: 'notes (your edit).txt' }] },
    };
    const o = describeOutcome('undo', result, { keepCopies: true });
    expect(o).toMatchObject({ tone: 'ok', copies: [{ path: 'notes.txt', copy: 'notes (your edit).txt' }] });
    expect(outcomeWords(o)).toBe('Undone: restored notes.txt. Your edit of notes.txt is kept in notes (your edit).txt.');
    const rewound: Result<RewindResult> = {
      ok: true,
      value: {
        outcome: 'rewound',
        action: action({ status: 'undone' }),
        undone: [action({ id: 'a2', seq: 2, status: 'undone' }), action({ status: 'undone' })],
        restored: ['a.txt', 'notes.txt'],
        removed: [],
        notRestored: [],
        copies: [
          { path: 'notes.txt', copy: 'notes (your edit).txt' },
          { path: 'a.txt', copy: 'a (your edit 2).txt' },
        ],
      },
    };
    expect(outcomeWords(describeOutcome('rewind', rewound, { keepCopies: true }))).toBe(
      'Rewound actions 2, 1: restored a.txt, notes.txt. Your edit of notes.txt is kept in notes (your edit).txt. Your edit of a.txt is kept in a (your edit 2).txt.',
    );
    // No copies: the outcome says nothing of them.
    const plain = describeOutcome('undo', { ok: true, value: { outcome: 'undone', action: action(), restored: ['notes.txt'], removed: [] } });
    expect(plain.copies).toBeUndefined();
    expect(outcomeWords(plain)).toBe('Undone: restored notes.txt.');
  });

  it('asked to keep a copy and still refused, says why no copy gets past each path, in the engine’s words', () => {
    const deleted = describeOutcome('undo', conflict([edit('notes.txt', { copyable: false, noCopy: 'deleted since: there is nothing to keep a copy of' })]), { keepCopies: true });
    expect(deleted).toMatchObject({ tone: 'warn', canKeepCopies: false, paths: ['notes.txt — deleted since: there is nothing to keep a copy of'] });
    expect(deleted.text).toBe('Undo refused, nothing was changed: keeping a copy does not get past this path.');
    // Only what stopped it is listed (the copyable edit is not); a later action with rewind possible says so.
    const mixed = describeOutcome('undo', conflict([edit('notes.txt', { copyable: true }), later('a.txt', 2), edit('b', { copyable: false })], { canRewind: true }), { keepCopies: true });
    expect(mixed.paths).toEqual(['a.txt — changed by action 2: a copy only keeps a file you changed', 'b — edited outside Posthoc since: no copy of it can be kept']);
    expect(mixed.text).toBe('Undo refused, nothing was changed: keeping a copy does not get past these 2 paths. Rewind to before this action to undo the later actions too.');
    // A failure is said in main's words.
    expect(describeOutcome('undo', { ok: false, error: { code: 'conflict', message: 'The folder is busy.' } }, { keepCopies: true })).toMatchObject({ tone: 'error', text: 'The folder is busy.' });
  });
});

describe('the store keeps a copy only when asked', () => {
  const calls: Array<{ call: string; input: unknown }> = [];
  const timeline: Timeline = { taskId: 't1', rewindOrder: [], entries: [] };
  const fake = (undo: UndoResult, rewind?: RewindResult) =>
    ({
      actionUndo: async (input: unknown) => (calls.push({ call: 'undo', input }), { ok: true, value: undo }),
      actionRewind: async (input: unknown) => (calls.push({ call: 'rewind', input }), { ok: true, value: rewind }),
      taskTimeline: async () => ({ ok: true, value: timeline }),
    }) as unknown as PosthocApi;
  const g = globalThis as unknown as { window?: { posthoc: PosthocApi } };
  afterEach(() => {
    delete g.window;
    calls.length = 0;
    useTimelineStore.setState(t.getEmptyState());
  });

  it('sends keepCopies with the undo or rewind of the way out, never with the plain one, and records the copies', async () => {
    const undone: UndoResult = { outcome: 'undone', action: action({ status: 'undone' }), restored: ['notes.txt'], removed: [], copies: [{ path: 'notes.txt', copy: 'notes (your edit).txt' }] };
    g.window = { posthoc: fake(undone, { outcome: 'rewound', action: action(), undone: [action()], restored: [], removed: [], notRestored: [] }) };
    await timelineActions.undo('t1', 'a1');
    const outcome = await timelineActions.keepCopyAnd('t1', 'a1', 'undo');
    await timelineActions.keepCopyAnd('t1', 'a1', 'rewind');
    await timelineActions.rewind('t1', 'a1');
    expect(calls).toEqual([
      { call: 'undo', input: { actionId: 'a1' } },
      { call: 'undo', input: { actionId: 'a1', keepCopies: true } },
      { call: 'rewind', input: { actionId: 'a1', keepCopies: true } },
      { call: 'rewind', input: { actionId: 'a1' } },
    ]);
    expect(outcome.copies).toEqual([{ path: 'notes.txt', copy: 'notes (your edit).txt' }]);
    expect(useTimelineStore.getState().busy).toBeNull();
  });

  it('marks the action busy keeping a copy while it runs', () => {
    const s = t.applyBusy(t.getEmptyState(), 'a1', 'undo', true);
    expect(s.busy).toEqual({ actionId: 'a1', operation: 'undo', keepCopies: true });
    expect(t.applyBusy(t.getEmptyState(), 'a1', 'undo').busy).toEqual({ actionId: 'a1', operation: 'undo' });
  });
});
