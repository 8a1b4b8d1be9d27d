// The keyboard shortcuts: Ctrl on Linux and Windows, ⌘ on macOS; the keys a text box keeps for itself are
// left to it; the help sheet writes each the way the platform does.
import { describe, expect, it } from 'vitest';
import { chordLabels, isMacPlatform, matchShortcut, SHORTCUTS, type KeyPress } from '../../renderer/src/model/shortcuts';
import { lastUndoable } from '../../renderer/src/components/keyboard-shortcuts';
import { actionFixture } from '../support/action-fixture';
import type { Effect } from '../../shared/domain';

const press = (key: string, over: Partial<KeyPress> = {}): KeyPress => ({ key, code: '', ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, inTextField: false, ...over });
const ctrl = (key: string, over: Partial<KeyPress> = {}) => press(key, { ctrlKey: true, ...over });
const cmd = (key: string, over: Partial<KeyPress> = {}) => press(key, { metaKey: true, ...over });

describe('keyboard shortcuts', () => {
  it('Ctrl on Linux and Windows, Cmd on macOS, and not the other one', () => {
    expect(matchShortcut(ctrl('n'), false)).toBe('new-task');
    expect(matchShortcut(cmd('n'), true)).toBe('new-task');
    expect(matchShortcut(cmd('n'), false)).toBeNull();
    expect(matchShortcut(ctrl('n'), true)).toBeNull();
    expect(matchShortcut(ctrl('O', { shiftKey: true }), false)).toBe('new-task');
    expect(matchShortcut(ctrl('k'), false)).toBe('search');
    expect(matchShortcut(ctrl('l'), false)).toBe('focus-composer');
    expect(matchShortcut(press('Escape', { shiftKey: true, inTextField: true }), false)).toBe('focus-composer');
    expect(matchShortcut(ctrl('.'), false)).toBe('stop');
    expect(matchShortcut(ctrl(','), false)).toBe('settings');
    expect(matchShortcut(ctrl('z'), false)).toBe('undo-last');
    expect(matchShortcut(ctrl('/'), false)).toBe('help');
    expect(matchShortcut(press('?', { shiftKey: true }), false)).toBe('help');
  });

  it('a text box keeps Ctrl+Z and ?, and Alt or an extra modifier is never a shortcut', () => {
    expect(matchShortcut(ctrl('z', { inTextField: true }), false)).toBeNull();
    expect(matchShortcut(press('?', { shiftKey: true, inTextField: true }), false)).toBeNull();
    expect(matchShortcut(ctrl('k', { inTextField: true }), false)).toBe('search');
    expect(matchShortcut(ctrl('n', { altKey: true }), false)).toBeNull();
    expect(matchShortcut(ctrl('n', { shiftKey: true }), false)).toBeNull();
    expect(matchShortcut(press('n'), false)).toBeNull();
    expect(matchShortcut(press('Escape'), false)).toBeNull();
  });

  it('matches by the key\'s position when the layout gives another character', () => {
    expect(matchShortcut(ctrl('т', { code: 'KeyN' }), false)).toBe('new-task');
  });

  it('the help sheet writes Ctrl+K on Linux and ⌘K on macOS, for every shortcut', () => {
    const search = SHORTCUTS.find((s) => s.id === 'search')!;
    expect(chordLabels(search, false)).toEqual(['Ctrl+K']);
    expect(chordLabels(search, true)).toEqual(['⌘K']);
    expect(chordLabels(SHORTCUTS.find((s) => s.id === 'help')!, false)).toEqual(['Ctrl+/', '?']);
    expect(chordLabels(SHORTCUTS.find((s) => s.id === 'help')!, true)).toEqual(['⌘/', '?']);
    expect(SHORTCUTS.map((s) => s.id).sort()).toEqual(['focus-composer', 'help', 'new-task', 'search', 'settings', 'stop', 'undo-last']);
    expect(isMacPlatform('MacIntel')).toBe(true);
    expect(isMacPlatform('Linux x86_64')).toBe(false);
    expect(isMacPlatform('Win32')).toBe(false);
  });

  it('undo-last picks the latest action undo can take back', () => {
    const wrote = (seq: number, status: 'done' | 'undone') =>
      actionFixture({ id: `a${seq}`, seq, status, effects: [{ channel: 'fs', workspace: '/w', added: [`f${seq}`], modified: [], deleted: [], renamed: [], checkpointBefore: 'c', checkpointAfter: 'd' }] as Effect[] });
    expect(lastUndoable([wrote(1, 'done'), wrote(2, 'done'), wrote(3, 'undone'), actionFixture({ id: 'a4', seq: 4 })])?.seq).toBe(2);
    expect(lastUndoable([wrote(1, 'undone')])).toBeNull();
  });
});
