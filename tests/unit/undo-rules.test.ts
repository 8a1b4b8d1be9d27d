// The history rules of undo, redo and rewind (main/effects/fs/undo-rules.ts), and path overlap.
import { describe, expect, it } from 'vitest';
import { PathSet } from '../../main/effects/fs/tree-model';
import { FolderHistory, type HistoryEvent } from '../../main/effects/fs/undo-rules';

let nextId = 1;
const ev = (kind: HistoryEvent['kind'], actionId: string | null, ...paths: string[]): HistoryEvent => ({ id: nextId++, kind, actionId, paths });
const states = (undone: string[] = []) => (id: string) => (undone.includes(id) ? ('undone' as const) : ('applied' as const));
const paths = (blockers: Array<{ path: string }>) => blockers.map((b) => b.path);

describe('PathSet', () => {
  it('overlaps on the same path, inside a changed folder, or on a folder holding a changed path', () => {
    const set = new PathSet(['out', 'out/report.txt', 'notes.txt']);
    expect(set.overlaps('notes.txt')).toBe(true);
    expect(set.overlaps('out/more.txt')).toBe(true); // inside a folder the change created
    expect(set.overlaps('out')).toBe(true);
    expect(new PathSet(['src/a.py']).overlaps('src')).toBe(true); // removing src would take src/a.py
    expect(new PathSet(['src/a.py']).overlaps('src/b.py')).toBe(false);
    expect(new PathSet(['a']).overlaps('ab')).toBe(false);
    expect(set.overlapping(['x', 'out/y', 'notes.txt'])).toEqual(['out/y', 'notes.txt']);
  });
});

describe('FolderHistory', () => {
  it('lets the latest action be undone, and an earlier one whose paths nothing later touched', () => {
    const events = [ev('action', 'a1', 'a.txt'), ev('action', 'a2', 'b.txt'), ev('action', 'a3', 'a.txt')];
    const h = new FolderHistory(events, states());
    expect(h.undoBlockers('a3')).toEqual([]);
    expect(h.undoBlockers('a2')).toEqual([]);
    expect(paths(h.undoBlockers('a1'))).toEqual(['a.txt']);
    expect(h.undoBlockers('a1')[0]!.event.actionId).toBe('a3');
  });

  it('stops blocking once the later action is undone (what a rewind does first)', () => {
    const events = [ev('action', 'a1', 'a.txt'), ev('action', 'a2', 'a.txt')];
    expect(paths(new FolderHistory(events, states()).undoBlockers('a1', new Set(['a2'])))).toEqual([]);
    const withUndo = [...events, ev('undo', 'a2', 'a.txt')];
    expect(new FolderHistory(withUndo, states(['a2'])).undoBlockers('a1')).toEqual([]);
  });

  it('blocks on outside edits made after the action, forever, but not on those made before it', () => {
    const events = [ev('external', null, 'a.txt'), ev('action', 'a1', 'a.txt'), ev('external', null, 'a.txt')];
    const h = new FolderHistory(events, states());
    expect(h.undoBlockers('a1').map((b) => b.event.kind)).toEqual(['external']);
    expect(new FolderHistory(events.slice(0, 2), states()).undoBlockers('a1')).toEqual([]);
  });

  it('redoes when nothing touched the paths since the undo, replaying earlier actions first', () => {
    // a1 and a2 both wrote a.txt; a rewind undid a2 then a1.
    const events = [ev('action', 'a1', 'a.txt'), ev('action', 'a2', 'a.txt'), ev('undo', 'a2', 'a.txt'), ev('undo', 'a1', 'a.txt')];
    const rewound = new FolderHistory(events, states(['a1', 'a2']));
    expect(rewound.redoBlockers('a1')).toEqual([]);
    const redone = [...events, ev('redo', 'a1', 'a.txt')];
    // a1's redo came after a2's undo, but a1 ran before a2: it does not block a2's redo.
    expect(new FolderHistory(redone, states(['a2'])).redoBlockers('a2')).toEqual([]);
    // An action that ran after the undo, or an outside edit, does.
    const later = [...events, ev('action', 'a3', 'a.txt')];
    expect(paths(new FolderHistory(later, states(['a1', 'a2'])).redoBlockers('a1'))).toEqual(['a.txt']);
    const edited = [...events, ev('external', null, 'a.txt')];
    expect(new FolderHistory(edited, states(['a1', 'a2'])).redoBlockers('a1').map((b) => b.event.kind)).toEqual(['external']);
  });

  it('reads the latest application: after a redo, blockers are counted from the redo', () => {
    const events = [ev('action', 'a1', 'a.txt'), ev('external', null, 'b.txt'), ev('undo', 'a1', 'a.txt'), ev('redo', 'a1', 'a.txt')];
    const h = new FolderHistory(events, states());
    expect(h.lastApplied('a1')!.kind).toBe('redo');
    expect(h.undoBlockers('a1')).toEqual([]);
  });

  it('sets aside an outside edit kept as a copy, for that path only and only for edits made before the copy', () => {
    const wroteTheName = ev('action', 'a0', 'n (your edit).txt');
    const events = [ev('action', 'a1', 'n.txt', 'm.txt'), ev('action', 'a2', 'n.txt', 'm.txt'), ev('external', null, 'n.txt', 'm.txt')];
    expect(paths(new FolderHistory(events, states()).undoBlockers('a2'))).toEqual(['n.txt', 'm.txt']);
    const aside: HistoryEvent = { ...ev('external', null, 'n (your edit).txt'), setAside: ['n.txt'] };
    const kept = [...events, aside, ev('undo', 'a2', 'n.txt', 'm.txt')];
    // m.txt's edit was not kept as a copy: it still blocks; n.txt's does not.
    expect(paths(new FolderHistory(kept, states(['a2'])).undoBlockers('a1'))).toEqual(['m.txt']);
    // A later edit of n.txt is the person's again.
    const again = [...kept, ev('external', null, 'n.txt')];
    expect(paths(new FolderHistory(again, states(['a2'])).undoBlockers('a1'))).toEqual(['m.txt', 'n.txt']);
    // The copy is an outside edit like any other: an action that wrote that name cannot take it back.
    expect(paths(new FolderHistory([wroteTheName, ...kept], states(['a2'])).undoBlockers('a0'))).toEqual(['n (your edit).txt']);
  });
});
