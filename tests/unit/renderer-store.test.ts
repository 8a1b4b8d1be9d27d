// The renderer store's pure transitions: how the copy of main's data changes on loads and events.
import { describe, expect, it } from 'vitest';
import type { Action, Message, ProviderSettings, Task, TaskDetail } from '../../shared/domain';
import * as system from '../../renderer/src/state/system-state';
import {
  applyActionUpdated,
  applyMessageAdded,
  applyMessageDelta,
  applyTaskDetail,
  applyTaskList,
  applyTaskUpdated,
  getEmptyState,
  selectActions,
  selectMessages,
  selectStreamingText,
  selectTask,
  selectTasks,
} from '../../renderer/src/state/tasks-state';
import { actionFixture, RUNNING_OUTPUT } from '../support/action-fixture';
import { defaultsView, SETTINGS } from '../../shared/settings';

function task(overrides: Partial<Task> = {}): Task {
  return {
    id: 't1',
    title: 'Tidy the folder',
    status: 'running',
    workspaces: [],
    services: [],
    model: 'gpt-test',
    answer: null,
    error: null,
    createdAt: '2025-01-01T10:00:00.000Z',
    updatedAt: '2025-01-01T10:00:00.000Z',
    ...overrides,
  };
}

function message(overrides: Partial<Message> = {}): Message {
  return {
    id: 'm1',
    taskId: 't1',
    seq: 1,
    role: 'user',
    content: 'hello',
    createdAt: '2025-01-01T10:00:00.000Z',
    ...overrides,
  };
}

function action(overrides: Partial<Action> = {}): Action {
  return actionFixture({
    source: 'print(1)',
    status: 'running',
    output: RUNNING_OUTPUT,
    confinement: { level: 'reversible', reason: 'Only granted folders, checkpointed.' },
    startedAt: '2025-01-01T10:00:01.000Z',
    ...overrides,
  });
}

describe('tasks state: task list and task:updated', () => {
  it('starts empty', () => {
    const state = getEmptyState();
    expect(selectTasks(state)).toEqual([]);
    expect(state.listLoaded).toBe(false);
  });

  it('loads the list newest first', () => {
    const older = task({ id: 'old', createdAt: '2025-01-01T09:00:00.000Z' });
    const newer = task({ id: 'new', createdAt: '2025-01-02T09:00:00.000Z' });
    const state = applyTaskList(getEmptyState(), [older, newer]);
    expect(selectTasks(state).map((t) => t.id)).toEqual(['new', 'old']);
    expect(state.listLoaded).toBe(true);
  });

  it('inserts a task it has not seen and replaces one it has', () => {
    let state = applyTaskUpdated(getEmptyState(), task());
    expect(selectTask(state, 't1')?.status).toBe('running');
    state = applyTaskUpdated(state, task({ status: 'done', answer: '42', updatedAt: '2025-01-01T10:05:00.000Z' }));
    expect(selectTasks(state)).toHaveLength(1);
    expect(selectTask(state, 't1')).toMatchObject({ status: 'done', answer: '42' });
  });

  it('ignores a copy older than the one it holds', () => {
    let state = applyTaskUpdated(getEmptyState(), task({ status: 'done', updatedAt: '2025-01-01T10:05:00.000Z' }));
    state = applyTaskUpdated(state, task({ status: 'running', updatedAt: '2025-01-01T10:01:00.000Z' }));
    expect(selectTask(state, 't1')?.status).toBe('done');
    state = applyTaskList(state, [task({ status: 'running' })]);
    expect(selectTask(state, 't1')?.status).toBe('done');
  });

  it('does not change the input state', () => {
    const before = getEmptyState();
    const frozen = JSON.stringify(before);
    applyTaskUpdated(before, task());
    expect(JSON.stringify(before)).toBe(frozen);
  });
});

describe('tasks state: messages and streaming', () => {
  it('adds messages in seq order and never twice', () => {
    let state = applyMessageAdded(getEmptyState(), message({ id: 'm2', seq: 2, role: 'assistant' }));
    state = applyMessageAdded(state, message({ id: 'm1', seq: 1 }));
    state = applyMessageAdded(state, message({ id: 'm1', seq: 1 }));
    expect(selectMessages(state, 't1').map((m) => m.id)).toEqual(['m1', 'm2']);
  });

  it('accumulates deltas of one stream into the streaming text', () => {
    let state = applyMessageDelta(getEmptyState(), { taskId: 't1', streamId: 's1', delta: 'Hel' });
    state = applyMessageDelta(state, { taskId: 't1', streamId: 's1', delta: 'lo' });
    expect(selectStreamingText(state, 't1')).toBe('Hello');
    expect(selectStreamingText(state, 'other')).toBeNull();
  });

  it('starts over when a new stream begins', () => {
    let state = applyMessageDelta(getEmptyState(), { taskId: 't1', streamId: 's1', delta: 'first' });
    state = applyMessageDelta(state, { taskId: 't1', streamId: 's2', delta: 'second' });
    expect(selectStreamingText(state, 't1')).toBe('second');
  });

  it('drops the streaming text when the full assistant message arrives, and ignores late deltas of it', () => {
    let state = applyMessageDelta(getEmptyState(), { taskId: 't1', streamId: 's1', delta: 'Hello' });
    state = applyMessageAdded(state, message({ id: 'm2', seq: 2, role: 'assistant', content: 'Hello' }));
    expect(selectStreamingText(state, 't1')).toBeNull();
    expect(selectMessages(state, 't1').map((m) => m.content)).toEqual(['Hello']);
    state = applyMessageDelta(state, { taskId: 't1', streamId: 's1', delta: ' late' });
    expect(selectStreamingText(state, 't1')).toBeNull();
    state = applyMessageDelta(state, { taskId: 't1', streamId: 's2', delta: 'next' });
    expect(selectStreamingText(state, 't1')).toBe('next');
  });

  it('keeps the streaming text when a user or observation message arrives', () => {
    let state = applyMessageDelta(getEmptyState(), { taskId: 't1', streamId: 's1', delta: 'Hi' });
    state = applyMessageAdded(state, message({ id: 'm9', seq: 9, role: 'observation' }));
    expect(selectStreamingText(state, 't1')).toBe('Hi');
  });

  it('keeps streams of different tasks apart', () => {
    let state = applyMessageDelta(getEmptyState(), { taskId: 't1', streamId: 's1', delta: 'one' });
    state = applyMessageDelta(state, { taskId: 't2', streamId: 's2', delta: 'two' });
    state = applyMessageAdded(state, message({ taskId: 't2', id: 'x', role: 'assistant' }));
    expect(selectStreamingText(state, 't1')).toBe('one');
    expect(selectStreamingText(state, 't2')).toBeNull();
  });

  it('drops a half-streamed reply when the task stops', () => {
    let state = applyTaskUpdated(getEmptyState(), task());
    state = applyMessageDelta(state, { taskId: 't1', streamId: 's1', delta: 'partial' });
    state = applyTaskUpdated(state, task({ status: 'cancelled', updatedAt: '2025-01-01T10:02:00.000Z' }));
    expect(selectStreamingText(state, 't1')).toBeNull();
  });
});

describe('tasks state: actions', () => {
  it('inserts or replaces by id, sorted by seq', () => {
    let state = applyActionUpdated(getEmptyState(), action({ id: 'a2', seq: 2 }));
    state = applyActionUpdated(state, action({ id: 'a1', seq: 1 }));
    state = applyActionUpdated(state, action({ id: 'a2', seq: 2, status: 'done' }));
    expect(selectActions(state, 't1').map((a) => [a.id, a.status])).toEqual([
      ['a1', 'running'],
      ['a2', 'done'],
    ]);
  });

  it('gives a stable empty list for an unknown task', () => {
    const state = getEmptyState();
    expect(selectActions(state, 'nope')).toBe(selectActions(state, 'nope'));
    expect(selectMessages(state, 'nope')).toBe(selectMessages(state, 'nope'));
  });
});

describe('tasks state: task detail', () => {
  const detail = (overrides: Partial<TaskDetail> = {}): TaskDetail => ({
    task: task(),
    messages: [message({ id: 'm1', seq: 1 }), message({ id: 'm2', seq: 2, role: 'assistant' })],
    actions: [action({ id: 'a1', seq: 1 })],
    ...overrides,
  });

  it('loads messages and actions and marks the detail loaded', () => {
    const state = applyTaskDetail(getEmptyState(), detail());
    expect(selectTask(state, 't1')).toBeDefined();
    expect(selectMessages(state, 't1')).toHaveLength(2);
    expect(selectActions(state, 't1')).toHaveLength(1);
    expect(state.detailLoaded.t1).toBe(true);
  });

  it('keeps what events brought while the snapshot was on its way', () => {
    let state = applyMessageAdded(getEmptyState(), message({ id: 'm3', seq: 3, role: 'observation' }));
    state = applyActionUpdated(state, action({ id: 'a1', status: 'done' }));
    state = applyActionUpdated(state, action({ id: 'a2', seq: 2 }));
    state = applyTaskDetail(state, detail());
    expect(selectMessages(state, 't1').map((m) => m.id)).toEqual(['m1', 'm2', 'm3']);
    // The snapshot said a1 was running, but an event already said done: done stays.
    expect(selectActions(state, 't1').map((a) => [a.id, a.status])).toEqual([
      ['a1', 'done'],
      ['a2', 'running'],
    ]);
  });

  it('takes the snapshot when it is further along', () => {
    let state = applyActionUpdated(getEmptyState(), action({ id: 'a1', status: 'done' }));
    state = applyTaskDetail(state, detail({ actions: [action({ id: 'a1', status: 'undone' })] }));
    expect(selectActions(state, 't1')[0]?.status).toBe('undone');
  });
});

describe('system state', () => {
  const settings = (overrides: Partial<ProviderSettings> = {}): ProviderSettings => ({
    model: null,
    baseUrl: null,
    apiKeySet: false,
    sources: { model: 'none', baseUrl: 'none', apiKey: 'none' },
    configured: false,
    values: defaultsView(SETTINGS),
    ...overrides,
  });

  it('needs the first-run screen only once settings say unconfigured', () => {
    let state = system.getEmptyState();
    expect(system.selectNeedsFirstRun(state)).toBe(false);
    state = system.applyLoaded(state, 'settings', settings());
    expect(system.selectNeedsFirstRun(state)).toBe(true);
    state = system.applyLoaded(state, 'settings', settings({ configured: true, model: 'm', baseUrl: 'http://x' }));
    expect(system.selectNeedsFirstRun(state)).toBe(false);
    expect(system.selectSettings(state)?.model).toBe('m');
  });

  it('keeps a loaded value when a refresh fails, and reports a failed first load', () => {
    let state = system.applyLoadError(system.getEmptyState(), 'vault', 'keychain locked');
    expect(state.vault).toEqual({ state: 'error', message: 'keychain locked' });
    expect(system.selectVaultProblem(state)).toBe('keychain locked');
    state = system.applyLoaded(state, 'vault', { available: true, message: null, secrets: [] });
    state = system.applyLoadError(state, 'vault', 'again');
    expect(state.vault.state).toBe('ready');
    expect(system.selectVaultProblem(state)).toBeNull();
  });

  it("uses main's message for a sandbox problem", () => {
    const sandbox = {
      dockerAvailable: true,
      dockerVersion: '27.0',
      image: 'posthoc-sandbox:1',
      imagePresent: false,
      message: 'Build the image with: posthoc sandbox build',
    };
    const state = system.applyLoaded(system.getEmptyState(), 'sandbox', sandbox);
    expect(system.selectSandboxProblem(state)).toBe('Build the image with: posthoc sandbox build');
    const ok = system.applyLoaded(state, 'sandbox', { ...sandbox, imagePresent: true, message: null });
    expect(system.selectSandboxProblem(ok)).toBeNull();
  });
});
