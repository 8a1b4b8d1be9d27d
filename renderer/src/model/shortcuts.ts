// The keyboard shortcuts, as desktop peers have them (VS Code, Slack, ChatGPT, Cursor): which key does what,
// how the help sheet writes it (Ctrl on Linux and Windows, ⌘ on macOS), and which shortcut a key press is.
// Pure; no React, no DOM.

export type ShortcutId = 'new-task' | 'search' | 'stop' | 'focus-composer' | 'settings' | 'undo-last' | 'help';

/** A key press, as much of a KeyboardEvent as matching needs, and whether the focus is in a text field. */
export type KeyPress = {
  key: string;
  code: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  inTextField: boolean;
};

/** One way to press a shortcut: the primary modifier (Ctrl, or ⌘ on macOS) or none, Shift, and the key. */
type Chord = { mod: boolean; shift: boolean; key: string; code?: string; outsideText?: boolean };

export type Shortcut = { id: ShortcutId; what: string; chords: readonly Chord[]; note?: string };

export const SHORTCUTS: readonly Shortcut[] = [
  // Browsers keep Ctrl+N for a new window: the web front end has Ctrl+Shift+O as well (ChatGPT's new chat).
  { id: 'new-task', what: 'New task', chords: [{ mod: true, shift: false, key: 'n', code: 'KeyN' }, { mod: true, shift: true, key: 'o', code: 'KeyO' }] },
  { id: 'search', what: 'Search tasks', chords: [{ mod: true, shift: false, key: 'k', code: 'KeyK' }] },
  { id: 'focus-composer', what: 'Write to the agent (focus the message box)', chords: [{ mod: true, shift: false, key: 'l', code: 'KeyL' }, { mod: false, shift: true, key: 'escape' }] },
  { id: 'stop', what: 'Stop the running task', chords: [{ mod: true, shift: false, key: '.', code: 'Period' }] },
  {
    id: 'undo-last',
    what: 'Undo the last action (asks first)',
    note: 'outside a text box, where it undoes typing',
    chords: [{ mod: true, shift: false, key: 'z', code: 'KeyZ', outsideText: true }],
  },
  { id: 'settings', what: 'Settings', chords: [{ mod: true, shift: false, key: ',', code: 'Comma' }] },
  { id: 'help', what: 'Show these shortcuts', chords: [{ mod: true, shift: false, key: '/', code: 'Slash' }, { mod: false, shift: true, key: '?', outsideText: true }] },
];

/** macOS uses ⌘ where Linux and Windows use Ctrl. */
export function isMacPlatform(platform: string): boolean {
  return /mac|iphone|ipad/i.test(platform);
}

function matches(chord: Chord, press: KeyPress, mac: boolean): boolean {
  const mod = mac ? press.metaKey : press.ctrlKey;
  const other = mac ? press.ctrlKey : press.metaKey;
  if (press.altKey || other || mod !== chord.mod) return false;
  if (chord.outsideText === true && press.inTextField) return false;
  const key = press.key.toLowerCase();
  // '?' is Shift+/ on most layouts: the key itself says Shift was needed.
  if (chord.key === '?') return key === '?';
  if (press.shiftKey !== chord.shift) return false;
  return key === chord.key || (chord.code !== undefined && press.code === chord.code);
}

/** The shortcut a key press is, if any. */
export function matchShortcut(press: KeyPress, mac: boolean): ShortcutId | null {
  for (const shortcut of SHORTCUTS) if (shortcut.chords.some((c) => matches(c, press, mac))) return shortcut.id;
  return null;
}

const KEY_NAMES: Record<string, string> = { escape: 'Esc', '.': '.', ',': ',', '/': '/', '?': '?' };

/** How the help sheet writes each way to press a shortcut: ["Ctrl+N", "Ctrl+Shift+O"], ["⌘N", "⌘⇧O"] on macOS. */
export function chordLabels(shortcut: Shortcut, mac: boolean): string[] {
  return shortcut.chords.map((c) => {
    const key = KEY_NAMES[c.key] ?? c.key.toUpperCase();
    if (c.key === '?') return '?';
    if (mac) return `${c.mod ? '⌘' : ''}${c.shift ? '⇧' : ''}${key}`;
    return [c.mod ? 'Ctrl' : null, c.shift ? 'Shift' : null, key].filter(Boolean).join('+');
  });
}
