// One truth for Undo: the card's Undo, the timeline and the CLI take what is possible from the same service
// answer, the task's timeline (task:timeline, blockers included). It is reloaded on every task event and
// every action event that changes more than the action's output text, of a task whose timeline was loaded —
// the task finishing included, so Undo is enabled as soon as the agent stops, however long its final answer
// took to stream. Output streaming in never reloads it (issue 27).
import type { PosthocApi } from '../../../shared/contract';
import type { Action, UndoBlocker } from '../../../shared/domain';
import type { TimelineEntry } from '../../../shared/domain/undo';
import { timelineActions, useTimelineStore } from './timeline-store';
import type { TimelineState } from './timeline-state';

/** Events come in bursts (a streamed action's output): one reload per task per this many ms. */
const SETTLE_MS = 80;

/** The timeline's answer for undoing one action (the store's own object: stable, safe for zustand hooks). */
export type UndoTruth = { possible: boolean; reason?: string | null; blockers: readonly UndoBlocker[] } | null;

type ActionEntry = Extract<TimelineEntry, { kind: 'action' }>;

/** The timeline's row for an action, when its task's timeline is loaded. */
export function selectEntry(state: TimelineState, taskId: string, actionId: string): ActionEntry | undefined {
  const entries = state.byTask[taskId]?.timeline?.entries;
  return entries?.find((e): e is ActionEntry => e.kind === 'action' && e.action.id === actionId);
}

/**
 * What the timeline says about undoing this action; null until it is loaded. An answer older than the
 * action's own copy (the timeline saw it running, the event says it ended) counts as not loaded yet.
 */
export function selectUndoTruth(state: TimelineState, action: Action): UndoTruth {
  return selectUndoEntry(state, action)?.undo ?? null;
}

export const useUndoTruth = (action: Action): UndoTruth => useTimelineStore((s) => selectUndoTruth(s, action));

/** The timeline's row for an action (undo, redo and rewind, blockers included), when loaded and as new as the action. */
export type UndoEntry = ActionEntry;
export function selectUndoEntry(state: TimelineState, action: Action): UndoEntry | undefined {
  const entry = selectEntry(state, action.taskId, action.id);
  return entry !== undefined && entry.action.status === action.status ? entry : undefined;
}
export const useUndoEntry = (action: Action): UndoEntry | undefined => useTimelineStore((s) => selectUndoEntry(s, action));

/**
 * An action as far as its timeline row goes: everything but the text it printed. A running action's output
 * grows every 250 ms; its row says the same until its status or effects change.
 */
export function timelineShapeOf(action: Action): string {
  const { stdout: _stdout, stderr: _stderr, ...output } = action.output;
  // Keys sorted: an event's copy and the timeline's row list the same fields in different orders.
  return JSON.stringify({ ...action, output }, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : value,
  );
}

/**
 * Whether an action event can change its task's timeline: a new action, or any change but its output text
 * (status, effects, a held call, its end). `previous`: the shape last seen for it, if any.
 */
export function changesTimeline(previous: string | undefined, next: Action): boolean {
  return previous !== timelineShapeOf(next);
}

/**
 * Reloads a loaded timeline after each task event of its task, each action event that changes more than
 * the action's output text (`changesTimeline`), and after store:changed. Returns the unsubscribe.
 */
export function keepTimelinesFresh(api: PosthocApi): () => void {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  // The shape of each action last seen in an event (or in its loaded timeline row, before its first event).
  const seen = new Map<string, string>();
  const shownShape = (action: Action) => {
    const row = selectEntry(useTimelineStore.getState(), action.taskId, action.id);
    return row && timelineShapeOf(row.action);
  };
  const reload = (taskId: string) => {
    if (useTimelineStore.getState().byTask[taskId] === undefined) return; // never shown: nothing to refresh
    clearTimeout(timers.get(taskId));
    timers.set(
      taskId,
      setTimeout(() => {
        timers.delete(taskId);
        void timelineActions.loadTimeline(taskId);
      }, SETTLE_MS),
    );
  };
  const offs = [
    api.on('task:updated', (task) => reload(task.id)),
    api.on('action:updated', (action) => {
      const changes = changesTimeline(seen.get(action.id) ?? shownShape(action), action);
      seen.set(action.id, timelineShapeOf(action));
      if (changes) reload(action.taskId);
    }),
    // Another process changed the data folder, or the web host came back: every loaded timeline is read again.
    api.on('store:changed', () => Object.keys(useTimelineStore.getState().byTask).forEach(reload)),
  ];
  return () => {
    for (const off of offs) off();
    for (const timer of timers.values()) clearTimeout(timer);
  };
}
