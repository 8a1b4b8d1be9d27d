// The one zustand store: the renderer's copy of main's data plus which page is open. Named actions talk to
// main through window.posthoc and fold the answers in with the pure transitions; contract events keep the
// copy fresh.
import { create } from 'zustand';
import type { CallInput, CallName, CallOutput, PosthocApi, Result } from '../../../shared/contract';
import type { Action, ProviderSettings, Task, UndoResult } from '../../../shared/domain';
import { createNotifier } from './attention';
import { landingTask } from './landing';
import * as system from './system-state';
import * as tasks from './tasks-state';
import { keepTimelinesFresh } from './undo-truth';

export type View = { kind: 'new-task' } | { kind: 'task'; taskId: string } | { kind: 'settings' } | { kind: 'connections' };

export type AppState = {
  tasks: tasks.TasksState;
  system: system.SystemState;
  view: View;
};

export function getEmptyState(): AppState {
  return { tasks: tasks.getEmptyState(), system: system.getEmptyState(), view: { kind: 'new-task' } };
}

export const useAppStore = create<AppState>()(() => getEmptyState());

const setTasks = (fn: (state: tasks.TasksState) => tasks.TasksState): void =>
  useAppStore.setState((s) => ({ tasks: fn(s.tasks) }));
const setSystem = (fn: (state: system.SystemState) => system.SystemState): void =>
  useAppStore.setState((s) => ({ system: fn(s.system) }));

/** Calls main; a thrown error (a transport failure) becomes a failed Result like any other. */
async function call<K extends CallName>(
  invoke: (api: PosthocApi) => Promise<Result<CallOutput<K>>>,
): Promise<Result<CallOutput<K>>> {
  try {
    return await invoke(window.posthoc);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: { code: 'internal', message } };
  }
}

// ---- named actions ----

async function loadSettings(): Promise<void> {
  const result = await call<'settings:get'>((api) => api.settingsGet({}));
  setSystem((s) => (result.ok ? system.applyLoaded(s, 'settings', result.value) : system.applyLoadError(s, 'settings', result.error.message)));
}

async function loadVaultStatus(): Promise<void> {
  const result = await call<'vault:status'>((api) => api.vaultStatus({}));
  setSystem((s) => (result.ok ? system.applyLoaded(s, 'vault', result.value) : system.applyLoadError(s, 'vault', result.error.message)));
}

async function loadSandboxStatus(): Promise<void> {
  const result = await call<'sandbox:status'>((api) => api.sandboxStatus({}));
  setSystem((s) => (result.ok ? system.applyLoaded(s, 'sandbox', result.value) : system.applyLoadError(s, 'sandbox', result.error.message)));
}

/** Whether the window still shows where it opened: the first task list may then move it to the running task. */
let landed = false;

async function loadTasks(): Promise<void> {
  const result = await call<'task:list'>((api) => api.taskList({}));
  setTasks((s) => (result.ok ? tasks.applyTaskList(s, result.value) : tasks.applyTaskListError(s, result.error.message)));
  if (!result.ok || landed) return;
  landed = true;
  const taskId = landingTask(result.value);
  if (taskId !== null && useAppStore.getState().view.kind === 'new-task') openTask(taskId);
}

/** Another process changed the data folder, or the web host came back: read again what the window shows. */
function reloadShown(): void {
  void loadTasks();
  const view = useAppStore.getState().view;
  if (view.kind === 'task') void loadTask(view.taskId);
}

async function loadTask(taskId: string): Promise<Result<unknown>> {
  const result = await call<'task:get'>((api) => api.taskGet({ taskId }));
  if (result.ok) setTasks((s) => tasks.applyTaskDetail(s, result.value));
  return result;
}

async function updateSettings(input: CallInput<'settings:update'>): Promise<Result<ProviderSettings>> {
  const result = await call<'settings:update'>((api) => api.settingsUpdate(input));
  if (result.ok) setSystem((s) => system.applyLoaded(s, 'settings', result.value));
  // A stored or removed key changes what the vault lists.
  if (result.ok && input.apiKey !== undefined) void loadVaultStatus();
  return result;
}

/** Shows a task; the task view loads its detail when it opens. */
function openTask(taskId: string): void {
  useAppStore.setState({ view: { kind: 'task', taskId } });
}

async function startTask(input: CallInput<'task:start'>): Promise<Result<Task>> {
  const result = await call<'task:start'>((api) => api.taskStart(input));
  if (result.ok) {
    setTasks((s) => tasks.applyTaskUpdated(s, result.value));
    openTask(result.value.id);
  }
  return result;
}

async function sendFollowUp(taskId: string, prompt: string): Promise<Result<Task>> {
  const result = await call<'task:send'>((api) => api.taskSend({ taskId, prompt }));
  if (result.ok) setTasks((s) => tasks.applyTaskUpdated(s, result.value));
  return result;
}

/** Continue a task a restart of Posthoc interrupted. */
async function continueTask(taskId: string): Promise<Result<Task>> {
  const result = await call<'task:continue'>((api) => api.taskContinue({ taskId }));
  if (result.ok) setTasks((s) => tasks.applyTaskUpdated(s, result.value));
  return result;
}

async function cancelTask(taskId: string): Promise<Result<Task>> {
  const result = await call<'task:cancel'>((api) => api.taskCancel({ taskId }));
  if (result.ok) setTasks((s) => tasks.applyTaskUpdated(s, result.value));
  return result;
}

async function undoAction(actionId: string): Promise<Result<UndoResult>> {
  const result = await call<'action:undo'>((api) => api.actionUndo({ actionId }));
  if (result.ok) setTasks((s) => tasks.applyActionUpdated(s, result.value.action));
  return result;
}

async function keepAction(actionId: string): Promise<Result<Action>> {
  const result = await call<'action:keep'>((api) => api.actionKeep({ actionId }));
  if (result.ok) setTasks((s) => tasks.applyActionUpdated(s, result.value));
  return result;
}

/**
 * An action held over its database grant's rows-affected limit: run it anyway. The answer is the action as
 * it was when approved; its run's events may already have arrived, so only events update the copy.
 */
function approveAction(actionId: string): Promise<Result<Action>> {
  return call<'action:approve'>((api) => api.actionApprove({ actionId }));
}

/** An action held over its database grant's rows-affected limit: decline it (nothing was changed). */
function rejectAction(actionId: string): Promise<Result<Action>> {
  return call<'action:reject'>((api) => api.actionReject({ actionId }));
}

export const appActions = {
  /** Everything the first screen needs, in parallel. */
  loadAll(): Promise<void> {
    return Promise.all([loadSettings(), loadVaultStatus(), loadSandboxStatus(), loadTasks()]).then(() => undefined);
  },
  loadSettings,
  loadVaultStatus,
  loadSandboxStatus,
  refreshStatus(): Promise<void> {
    return Promise.all([loadVaultStatus(), loadSandboxStatus()]).then(() => undefined);
  },
  loadTasks,
  loadTask,
  updateSettings,
  openTask,
  showNewTask(): void {
    useAppStore.setState({ view: { kind: 'new-task' } });
  },
  showConnections(): void {
    useAppStore.setState({ view: { kind: 'connections' } });
  },
  showSettings(): void {
    useAppStore.setState({ view: { kind: 'settings' } });
    void loadSettings();
    void loadVaultStatus();
    void loadSandboxStatus();
  },
  startTask,
  sendFollowUp,
  continueTask,
  cancelTask,
  undoAction,
  keepAction,
  approveAction,
  rejectAction,
};

/** Keeps the store's copy fresh from main's events. Returns the unsubscribe. */
export function subscribeToEvents(api: PosthocApi): () => void {
  const showing = (taskId: string) => {
    const view = useAppStore.getState().view;
    return view.kind === 'task' && view.taskId === taskId;
  };
  const notify = createNotifier((taskId) => tasks.selectTask(useAppStore.getState().tasks, taskId)?.title ?? '', openTask, showing);
  const unsubscribes = [
    keepTimelinesFresh(api),
    api.on('action:updated', notify),
    api.on('task:updated', (task) => setTasks((s) => tasks.applyTaskUpdated(s, task))),
    api.on('message:added', (message) => setTasks((s) => tasks.applyMessageAdded(s, message))),
    api.on('message:delta', (delta) => setTasks((s) => tasks.applyMessageDelta(s, delta))),
    api.on('action:updated', (action) => setTasks((s) => tasks.applyActionUpdated(s, action))),
    api.on('store:changed', reloadShown),
  ];
  return () => {
    for (const unsubscribe of unsubscribes) unsubscribe();
  };
}
