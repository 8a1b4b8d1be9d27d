// The keyboard shortcuts (model/shortcuts.ts), listened for on the whole window while the app is shown: new
// task, search tasks, focus the message box, stop the running task, settings, undo the last action (after a
// confirmation that says what undo will do), and the help sheet that lists them (? or Ctrl+/, ⌘/ on macOS).
// They act through the same store actions and buttons as a click does.
import { useEffect, useRef, useState } from 'react';
import { create } from 'zustand';
import type { Result } from '../../../shared/contract';
import type { Action, UndoResult } from '../../../shared/domain';
import { describeReversePlan } from '../../../shared/undo/reverse-plan';
import { canUndo, describeUndo } from '../model/action-summary';
import { chordLabels, isMacPlatform, matchShortcut, SHORTCUTS, type ShortcutId } from '../model/shortcuts';
import { appActions, useAppStore } from '../state/app-store';
import { selectActions } from '../state/tasks-state';
import { ModalDialog } from './modal-dialog';
import './keyboard-shortcuts.css';

type Sheet = { kind: 'help' } | { kind: 'undo'; actionId: string | null } | null;

/** Which sheet is open: the help sheet can also be opened from the sidebar. */
export const useShortcutSheet = create<{ sheet: Sheet }>()(() => ({ sheet: null }));
export const openShortcutHelp = (): void => useShortcutSheet.setState({ sheet: { kind: 'help' } });
const closeSheet = (): void => useShortcutSheet.setState({ sheet: null });

const MAC = typeof navigator !== 'undefined' && isMacPlatform(navigator.platform || navigator.userAgent);

/** How this platform presses the help sheet's keys: "Ctrl+/ or ?", "⌘/ or ?". */
export const helpKeys = (): string => chordLabels(SHORTCUTS.find((s) => s.id === 'help')!, MAC).join(' or ');

function inTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file'].includes(target.type);
}

/** Focus the element once it is on the page (after the render a view change starts). */
function focusWhenShown(selector: string, tries = 20): void {
  const element = document.querySelector<HTMLElement>(selector);
  if (element !== null && element.getClientRects().length > 0) {
    element.focus();
    return;
  }
  if (tries > 0) requestAnimationFrame(() => focusWhenShown(selector, tries - 1));
}

/** The latest action of the shown task that undo can take back. */
export function lastUndoable(actions: readonly Action[]): Action | null {
  return [...actions].sort((a, b) => b.seq - a.seq).find(canUndo) ?? null;
}

function run(id: ShortcutId): void {
  const { view, tasks } = useAppStore.getState();
  switch (id) {
    case 'new-task':
      appActions.showNewTask();
      focusWhenShown('[data-testid="new-task-prompt"]');
      return;
    case 'search': {
      // Below 1000 px the task list is in a drawer: open it first.
      const toggle = document.querySelector<HTMLButtonElement>('[data-testid="drawer-toggle"]');
      if (toggle !== null && toggle.getClientRects().length > 0 && toggle.getAttribute('aria-expanded') !== 'true') toggle.click();
      requestAnimationFrame(() => focusWhenShown('[data-testid="task-search"]'));
      return;
    }
    case 'focus-composer':
      if (document.querySelector('[data-testid="follow-up-input"], [data-testid="new-task-prompt"]') === null) appActions.showNewTask();
      focusWhenShown('[data-testid="follow-up-input"], [data-testid="new-task-prompt"]');
      return;
    case 'stop': {
      // The task's own Stop button: it says "Stopping…" until the task stopped.
      const stop = document.querySelector<HTMLButtonElement>('[data-testid="task-cancel"]');
      if (stop !== null && !stop.disabled) stop.click();
      return;
    }
    case 'settings':
      appActions.showSettings();
      return;
    case 'undo-last': {
      const actions = view.kind === 'task' ? selectActions(tasks, view.taskId) : [];
      useShortcutSheet.setState({ sheet: { kind: 'undo', actionId: lastUndoable(actions)?.id ?? null } });
      return;
    }
    case 'help':
      useShortcutSheet.setState((s) => ({ sheet: s.sheet?.kind === 'help' ? null : { kind: 'help' } }));
      return;
  }
}

export function KeyboardShortcuts() {
  const sheet = useShortcutSheet((s) => s.sheet);

  useEffect(() => {
    function onKeyDown(event: KeyboardEvent): void {
      if (event.defaultPrevented || event.isComposing) return;
      const id = matchShortcut(
        { key: event.key, code: event.code, ctrlKey: event.ctrlKey, metaKey: event.metaKey, shiftKey: event.shiftKey, altKey: event.altKey, inTextField: inTextField(event.target) },
        MAC,
      );
      if (id === null) return;
      // A dialog of its own (a diff, a picture) keeps the keys, but for the help sheet's own key that closes it.
      const dialog = document.querySelector('dialog[open]');
      if (dialog !== null && !(id === 'help' && dialog.matches('[data-testid="shortcuts-help"]'))) return;
      event.preventDefault();
      run(id);
    }
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  if (sheet === null) return null;
  return sheet.kind === 'help' ? <HelpSheet /> : <UndoLastSheet actionId={sheet.actionId} />;
}

function HelpSheet() {
  return (
    <ModalDialog className="shortcuts-dialog" label="Keyboard shortcuts" testId="shortcuts-help" onClose={closeSheet}>
      <div className="shortcuts-body">
        <h2 className="shortcuts-title">Keyboard shortcuts</h2>
        <table className="shortcuts-table">
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={s.id} data-testid="shortcut-row" data-shortcut={s.id}>
                <th scope="row">
                  {s.what}
                  {s.note !== undefined && <span className="muted"> — {s.note}</span>}
                </th>
                <td>
                  {chordLabels(s, MAC).map((label, i) => (
                    <span key={label}>
                      {i > 0 && <span className="muted"> or </span>}
                      <kbd>{label}</kbd>
                    </span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="shortcuts-actions">
          <button type="button" className="button" data-testid="shortcuts-close" autoFocus onClick={closeSheet}>
            Close
          </button>
        </div>
      </div>
    </ModalDialog>
  );
}

function UndoLastSheet({ actionId }: { actionId: string | null }) {
  const action = useAppStore((s) => (actionId === null || s.view.kind !== 'task' ? undefined : selectActions(s.tasks, s.view.taskId).find((a) => a.id === actionId)));
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result<UndoResult> | null>(null);
  const status = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (result !== null) status.current?.focus();
  }, [result]);

  if (action === undefined) {
    return (
      <ModalDialog className="shortcuts-dialog" label="Nothing to undo" testId="undo-last-dialog" onClose={closeSheet}>
        <div className="shortcuts-body">
          <h2 className="shortcuts-title">Nothing to undo</h2>
          <p data-testid="undo-last-nothing">Open a task: this shortcut undoes its latest action that changed something and is not undone yet.</p>
          <div className="shortcuts-actions">
            <button type="button" className="button" autoFocus onClick={closeSheet}>
              Close
            </button>
          </div>
        </div>
      </ModalDialog>
    );
  }

  const said = result === null ? null : describeUndo(result);
  return (
    <ModalDialog className="shortcuts-dialog" label={`Undo action ${action.seq}?`} testId="undo-last-dialog" onClose={closeSheet}>
      <div className="shortcuts-body">
        <h2 className="shortcuts-title">Undo action {action.seq}?</h2>
        <p className="reverse-plan" data-testid="undo-last-plan">
          <span className="reverse-label">Undo will:</span> {describeReversePlan(action.reverse, action.kind)}
        </p>
        {said !== null && (
          <p ref={status} tabIndex={-1} className={`undo-result tone-${said.tone}`} role="status" data-testid="undo-last-result" data-tone={said.tone}>
            {said.text}
            {said.paths.length > 0 && ` ${said.paths.join('; ')}`}
          </p>
        )}
        <div className="shortcuts-actions">
          {result === null ? (
            <>
              <button
                type="button"
                className="button button-primary"
                data-testid="undo-last-confirm"
                autoFocus
                disabled={busy}
                onClick={() => {
                  setBusy(true);
                  void appActions.undoAction(action.id).then((r) => {
                    setResult(r);
                    setBusy(false);
                  });
                }}
              >
                {busy ? 'Undoing…' : `Undo action ${action.seq}`}
              </button>
              <button type="button" className="button" data-testid="undo-last-cancel" onClick={closeSheet}>
                Cancel
              </button>
            </>
          ) : (
            <button type="button" className="button" data-testid="undo-last-close" onClick={closeSheet}>
              Close
            </button>
          )}
        </div>
      </div>
    </ModalDialog>
  );
}
