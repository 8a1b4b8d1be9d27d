// What waits for the person: an action held over its database grant's rows limit, or a service call the
// rules hold for approval. The task view shows it as a banner above the composer, the sidebar as a
// "needs you" badge, and a desktop notification says so once per held thing. Pure selectors, plus the
// notifier (the Notification API; the desktop app allows it, a browser asks once).
import type { Action } from '../../../shared/domain';
import type { TasksState } from './tasks-state';

export type Held =
  | { kind: 'action'; id: string; taskId: string; action: Action; what: string; reason: string }
  | { kind: 'call'; id: string; taskId: string; action: Action; what: string; reason: string };

/** What in one action waits for the person now. */
export function heldIn(action: Action): Held[] {
  if (action.status === 'awaiting-approval') {
    return [{ kind: 'action', id: action.id, taskId: action.taskId, action, what: `Action ${action.seq} (${action.language})`, reason: action.confinement.reason }];
  }
  if (action.status !== 'running') return [];
  // Service calls and MCP tool calls the rules keep back for approval (one Holds in the gateway).
  return action.effects.flatMap((e): Held[] => {
    if ((e.channel !== 'rest' && e.channel !== 'mcp') || e.hold?.state !== 'waiting' || e.hold.kind !== 'approval') return [];
    const what = e.channel === 'rest' ? `${e.method} ${e.path} to ${e.service}` : `the tool ${e.server}.${e.tool}`;
    return [{ kind: 'call', id: e.hold.id, taskId: action.taskId, action, what, reason: e.hold.reason }];
  });
}

const NOTHING: readonly Held[] = Object.freeze([]);
const cache = new WeakMap<readonly Action[], readonly Held[]>();

/** Everything a task holds for the person (stable for the same actions, safe for zustand hooks). */
export function selectHeld(state: TasksState, taskId: string): readonly Held[] {
  const actions = state.actionsByTask[taskId];
  if (actions === undefined) return NOTHING;
  let held = cache.get(actions);
  if (held === undefined) {
    held = actions.flatMap(heldIn);
    if (held.length === 0) held = NOTHING;
    cache.set(actions, held);
  }
  return held;
}

export const selectNeedsYou = (state: TasksState, taskId: string): boolean => selectHeld(state, taskId).length > 0;

/**
 * Says once per held thing, with a desktop notification, that a task waits for the person — unless they are
 * looking at that task already (the banner says it there).
 */
export function createNotifier(titleOf: (taskId: string) => string, open: (taskId: string) => void, showing: (taskId: string) => boolean = () => false): (action: Action) => void {
  const told = new Set<string>();
  return (action) => {
    for (const held of heldIn(action)) {
      if (told.has(held.id)) continue;
      told.add(held.id);
      if (showing(held.taskId) && document.visibilityState === 'visible' && document.hasFocus()) continue;
      void notify(`Posthoc needs you: ${titleOf(held.taskId) || 'a task'}`, `${held.what} waits for your approval. ${held.reason}`, () => open(held.taskId));
    }
  };
}

async function notify(title: string, body: string, onClick: () => void): Promise<void> {
  if (typeof Notification === 'undefined') return;
  try {
    const permission = Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission;
    if (permission !== 'granted') return;
    const note = new Notification(title, { body, tag: title });
    note.onclick = () => {
      window.focus();
      onClick();
    };
  } catch {
    // A notification is a courtesy: the banner and the badge say the same.
  }
}
