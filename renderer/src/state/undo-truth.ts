// One truth for Undo: the card's Undo, the timeline and the CLI take what is possible from the same service
// answer, the task's timeline (task:timeline, blockers included). It is reloaded on every task and action
// event of a task whose timeline was loaded — the task finishing included, so Undo is enabled as soon as
// the agent stops, however long its final answer took to stream.
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

/** Reloads a loaded timeline after each task or action event of its task, and after store:changed. Returns the unsubscribe. */
export function keepTimelinesFresh(api: PosthocApi): () => void {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
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
    api.on('action:updated', (action) => reload(action.taskId)),
    // Another process changed the data folder, or the web host came back: every loaded timeline is read again.
    api.on('store:changed', () => Object.keys(useTimelineStore.getState().byTask).forEach(reload)),
  ];
  return () => {
    for (const off of offs) off();
    for (const timer of timers.values()) clearTimeout(timer);
  };
}
