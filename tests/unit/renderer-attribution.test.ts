// The card's words for attribution: what changed by someone else while an action ran, and why an undo
// is refused for a path both wrote.
import { describe, expect, it } from 'vitest';
import type { FsEffect } from '../../shared/domain';
import { describeBlocker } from '../../shared/undo/blocker-words';
import { listWhileRunning } from '../../renderer/src/model/while-running';

const effect = (workspace: string, extra: Partial<FsEffect>): FsEffect => ({
  channel: 'fs',
  workspace,
  added: [],
  modified: [],
  deleted: [],
  checkpointBefore: 'a',
  checkpointAfter: 'b',
  ...extra,
});

describe('attribution on the card', () => {
  it("lists the changes others made while the action ran, marking those the action also wrote", () => {
    const { items, notes } = listWhileRunning([
      effect('w0', { whileRunning: { added: ['new.txt'], modified: ['notes.txt'], deleted: [], renamed: [{ from: 'a', to: 'b' }], ambiguous: ['notes.txt'] } }),
      effect('w1', { whileRunning: { added: [], modified: [], deleted: ['old.txt'], renamed: [], ambiguous: [] } }),
    ]);
    expect(items.map((i) => [i.path, i.what, i.both])).toEqual([
      ['w0/new.txt', 'added', false],
      ['w0/notes.txt', 'modified', true],
      ['w0/a → b', 'moved', false],
      ['w1/old.txt', 'deleted', false],
    ]);
    expect(new Set(items.map((i) => i.key)).size).toBe(items.length);
    expect(notes).toEqual([]);
  });

  it('says once why changes could not be told apart, and lists nothing when nothing else changed', () => {
    const why = 'Posthoc has no log of what the action wrote.';
    expect(listWhileRunning([effect('w0', { unattributed: why }), effect('w1', { unattributed: why })])).toEqual({ items: [], notes: [why] });
    expect(listWhileRunning([effect('w0', {})])).toEqual({ items: [], notes: [] });
  });

  it('words a refusal for a path both wrote, and an edit made while another action ran', () => {
    const base = { path: 'notes.txt', by: 'external' as const, actionId: null, actionSeq: null, taskTitle: null };
    expect(describeBlocker({ ...base, whileActionSeq: 3, ambiguous: true })).toBe(
      "also edited outside Posthoc while action 3 ran, so undo cannot tell your edit from the action's and leaves it",
    );
    expect(describeBlocker({ ...base, whileActionSeq: 3, ambiguous: false })).toBe('edited outside Posthoc while action 3 ran');
    expect(describeBlocker(base)).toBe('edited outside Posthoc since');
  });
});

describe('describeBlocker: a later action', () => {
  it('names the later action, and its task when it belongs to another', () => {
    const base = { path: 'a.txt', by: 'action' as const, actionId: 'x', actionSeq: 2, taskTitle: null };
    expect(describeBlocker(base)).toBe('changed by action 2');
    expect(describeBlocker({ ...base, taskTitle: 'Tidy' })).toBe('changed by action 2 of "Tidy"');
    expect(describeBlocker({ ...base, by: 'content' })).toBe('no longer holds what the action left there');
  });
});
