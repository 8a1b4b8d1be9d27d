// The renderer's copy of tasks, messages and actions. Main owns the data; these pure transitions keep the
// copy fresh from explicit loads (task:list, task:get) and the contract events. No I/O in this file.
import type { EventPayload } from '../../../shared/contract';
import type { Action, ActionStatus, Message, Task, TaskDetail } from '../../../shared/domain';

/** `retrying`: the provider failed mid-reply and is asked again; the text so far was dropped. */
export type StreamingText = { streamId: string; text: string; retrying?: string };

export type TasksState = {
  /** Newest first (by createdAt), so the list does not jump while a task runs. */
  tasks: readonly Task[];
  listLoaded: boolean;
  listError: string | null;
  /** Sorted by seq. */
  messagesByTask: Readonly<Record<string, readonly Message[]>>;
  /** Sorted by seq. */
  actionsByTask: Readonly<Record<string, readonly Action[]>>;
  /** The assistant reply being streamed right now, per task. */
  streamingByTask: Readonly<Record<string, StreamingText>>;
  /** The last stream that ended per task, so a late delta cannot reopen a finished bubble. */
  closedStreamByTask: Readonly<Record<string, string>>;
  /** Tasks whose full detail (messages, actions) has been loaded at least once. */
  detailLoaded: Readonly<Record<string, true>>;
};

export function getEmptyState(): TasksState {
  return {
    tasks: [],
    listLoaded: false,
    listError: null,
    messagesByTask: {},
    actionsByTask: {},
    streamingByTask: {},
    closedStreamByTask: {},
    detailLoaded: {},
  };
}

// ---- helpers ----

function without<V>(record: Readonly<Record<string, V>>, key: string): Readonly<Record<string, V>> {
  if (!(key in record)) return record;
  const { [key]: _removed, ...rest } = record;
  return rest;
}

function compareTasks(a: Task, b: Task): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

const bySeq = <T extends { seq: number }>(a: T, b: T): number => a.seq - b.seq;

/** Insert or replace by id, keep sorted by seq. */
function upsertBySeq<T extends { id: string; seq: number }>(items: readonly T[], item: T): T[] {
  const next = items.filter((existing) => existing.id !== item.id);
  next.push(item);
  return next.sort(bySeq);
}

/** How far along an action is; a snapshot never moves an action backwards past what an event already said. */
const actionProgress: Record<ActionStatus, number> = {
  running: 0,
  'awaiting-approval': 1,
  done: 2,
  failed: 2,
  interrupted: 2,
  kept: 3,
  undone: 3,
};

/** A task copy is replaced only by one at least as recent, so a slow snapshot cannot undo an event. */
function isFresher(incoming: Task, existing: Task | undefined): boolean {
  return existing === undefined || incoming.updatedAt >= existing.updatedAt;
}

function withoutStreaming(state: TasksState, taskId: string): TasksState {
  const stream = state.streamingByTask[taskId];
  if (stream === undefined) return state;
  return {
    ...state,
    streamingByTask: without(state.streamingByTask, taskId),
    closedStreamByTask: { ...state.closedStreamByTask, [taskId]: stream.streamId },
  };
}

// ---- transitions ----

export function applyTaskList(state: TasksState, tasks: readonly Task[]): TasksState {
  const merged = new Map(state.tasks.map((task) => [task.id, task]));
  for (const task of tasks) {
    if (isFresher(task, merged.get(task.id))) merged.set(task.id, task);
  }
  return { ...state, tasks: [...merged.values()].sort(compareTasks), listLoaded: true, listError: null };
}

export function applyTaskListError(state: TasksState, message: string): TasksState {
  return { ...state, listError: message };
}

export function applyTaskUpdated(state: TasksState, task: Task): TasksState {
  const existing = state.tasks.find((t) => t.id === task.id);
  if (!isFresher(task, existing)) return state;
  const tasks = [...state.tasks.filter((t) => t.id !== task.id), task].sort(compareTasks);
  const next = { ...state, tasks };
  // A task that stopped has no reply in flight; a half-streamed bubble would otherwise linger.
  return task.status === 'running' ? next : withoutStreaming(next, task.id);
}

export function applyTaskDetail(state: TasksState, detail: TaskDetail): TasksState {
  const taskId = detail.task.id;
  const next = applyTaskUpdated(state, detail.task);

  // Messages never change: the union of the snapshot and what events already brought.
  const messages = new Map((next.messagesByTask[taskId] ?? []).map((m) => [m.id, m]));
  for (const message of detail.messages) messages.set(message.id, message);

  // Actions do change; keep whichever copy is further along.
  const actions = new Map((next.actionsByTask[taskId] ?? []).map((a) => [a.id, a]));
  for (const action of detail.actions) {
    const existing = actions.get(action.id);
    if (existing === undefined || actionProgress[action.status] >= actionProgress[existing.status]) {
      actions.set(action.id, action);
    }
  }

  return {
    ...next,
    messagesByTask: { ...next.messagesByTask, [taskId]: [...messages.values()].sort(bySeq) },
    actionsByTask: { ...next.actionsByTask, [taskId]: [...actions.values()].sort(bySeq) },
    detailLoaded: { ...next.detailLoaded, [taskId]: true },
  };
}

export function applyMessageAdded(state: TasksState, message: Message): TasksState {
  const next: TasksState = {
    ...state,
    messagesByTask: {
      ...state.messagesByTask,
      [message.taskId]: upsertBySeq(state.messagesByTask[message.taskId] ?? [], message),
    },
  };
  // The full assistant message replaces the streamed text that led up to it.
  return message.role === 'assistant' ? withoutStreaming(next, message.taskId) : next;
}

export function applyMessageDelta(state: TasksState, delta: EventPayload<'message:delta'>): TasksState {
  const { taskId, streamId } = delta;
  if (state.closedStreamByTask[taskId] === streamId) return state;
  if (delta.retrying !== undefined) {
    return { ...state, streamingByTask: { ...state.streamingByTask, [taskId]: { streamId, text: '', retrying: delta.retrying } } };
  }
  const current = state.streamingByTask[taskId];
  const text = current !== undefined && current.streamId === streamId ? current.text + delta.delta : delta.delta;
  return { ...state, streamingByTask: { ...state.streamingByTask, [taskId]: { streamId, text } } };
}

export function applyActionUpdated(state: TasksState, action: Action): TasksState {
  return {
    ...state,
    actionsByTask: {
      ...state.actionsByTask,
      [action.taskId]: upsertBySeq(state.actionsByTask[action.taskId] ?? [], action),
    },
  };
}

// ---- selectors (stable references, safe for zustand hooks) ----

const NO_MESSAGES: readonly Message[] = Object.freeze([]);
const NO_ACTIONS: readonly Action[] = Object.freeze([]);

export const selectTasks = (state: TasksState): readonly Task[] => state.tasks;

export const selectTask = (state: TasksState, taskId: string): Task | undefined =>
  state.tasks.find((task) => task.id === taskId);

export const selectMessages = (state: TasksState, taskId: string): readonly Message[] =>
  state.messagesByTask[taskId] ?? NO_MESSAGES;

export const selectActions = (state: TasksState, taskId: string): readonly Action[] =>
  state.actionsByTask[taskId] ?? NO_ACTIONS;

export const selectStreamingText = (state: TasksState, taskId: string): string | null =>
  state.streamingByTask[taskId]?.text ?? null;

export const selectIsDetailLoaded = (state: TasksState, taskId: string): boolean =>
  state.detailLoaded[taskId] === true;
