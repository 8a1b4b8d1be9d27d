// The undo timeline's zustand store: loads a task's timeline, runs undo, redo, rewind (or undo and rewind
// keeping the person's edits in the way as copies first) and keep through window.posthoc, and opens diffs.
// Transitions are the pure functions in timeline-state.ts; the actions' own copies in app-store stay fresh
// through the action:updated events main sends.
import { create } from 'zustand';
import type { CallName, CallOutput, PosthocApi, Result } from '../../../shared/contract';
import { describeOutcome } from '../model/timeline-view';
import * as t from './timeline-state';

export const useTimelineStore = create<t.TimelineState>()(() => t.getEmptyState());
const set = (fn: (s: t.TimelineState) => t.TimelineState) => useTimelineStore.setState((s) => fn(s));

async function call<K extends CallName>(invoke: (api: PosthocApi) => Promise<Result<CallOutput<K>>>): Promise<Result<CallOutput<K>>> {
  try {
    return await invoke(window.posthoc);
  } catch (error) {
    return { ok: false, error: { code: 'internal', message: error instanceof Error ? error.message : String(error) } };
  }
}

const loads = new Map<string, Promise<void>>();

async function loadTimeline(taskId: string): Promise<void> {
  // One request at a time per task; a reload asked for meanwhile runs once the current one ends.
  const previous = loads.get(taskId) ?? Promise.resolve();
  const next = previous.then(async () => {
    set((s) => t.applyLoading(s, taskId));
    const result = await call<'task:timeline'>((api) => api.taskTimeline({ taskId }));
    set((s) => t.applyLoaded(s, taskId, result));
  });
  loads.set(taskId, next);
  return next;
}

async function run(taskId: string, actionId: string, operation: t.Operation, keepCopies = false): Promise<t.OperationOutcome> {
  set((s) => t.applyBusy(s, actionId, operation, keepCopies));
  // keepCopies is sent only when asked, so a plain undo's request stays what it always was.
  const copies = keepCopies ? { keepCopies: true } : {};
  const result =
    operation === 'undo'
      ? await call<'action:undo'>((api) => api.actionUndo({ actionId, ...copies }))
      : operation === 'redo'
        ? await call<'action:redo'>((api) => api.actionRedo({ actionId }))
        : await call<'action:rewind'>((api) => api.actionRewind({ actionId, ...copies }));
  const outcome = describeOutcome(operation, result, { keepCopies });
  set((s) => t.applyOutcome(s, actionId, outcome));
  await loadTimeline(taskId);
  return outcome;
}

async function keep(taskId: string, actionId: string): Promise<void> {
  const result = await call<'action:keep'>((api) => api.actionKeep({ actionId }));
  if (!result.ok) set((s) => t.applyOutcome(s, actionId, { operation: 'undo', tone: 'error', text: result.error.message, paths: [], canRewind: false }));
  await loadTimeline(taskId);
}

async function openDiff(request: t.DiffRequest): Promise<void> {
  set((s) => t.applyDiffOpened(s, request));
  const result = await call<'action:diff'>((api) => api.actionDiff(request));
  set((s) => t.applyDiffLoaded(s, request, result));
}

export const timelineActions = {
  loadTimeline,
  undo: (taskId: string, actionId: string) => run(taskId, actionId, 'undo'),
  redo: (taskId: string, actionId: string) => run(taskId, actionId, 'redo'),
  rewind: (taskId: string, actionId: string) => run(taskId, actionId, 'rewind'),
  /**
   * The way out of a refused undo or rewind: the person's edits in its way are kept as copies beside their
   * files ("NAME (your edit).ext"), then the operation goes through. The card and the timeline both call this.
   */
  keepCopyAnd: (taskId: string, actionId: string, operation: 'undo' | 'rewind') => run(taskId, actionId, operation, true),
  keep,
  openDiff,
  closeDiff: () => set(t.applyDiffClosed),
};
