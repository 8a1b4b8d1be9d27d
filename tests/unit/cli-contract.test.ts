// The CLI as a client of the contract: the in-process client goes through dispatch (inputs parsed by the
// contract's schemas, errors as {code, message}), events arrive parsed with an unsubscribe each, and a
// command's input error and exit code come from the contract's answer.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../main/cli';
import { EXIT, exitCodeOf, type Session } from '../../main/cli/session';
import { createLocalClient } from '../../main/ipc/local-client';
import { dispatch } from '../../main/ipc/register-contract';
import type { Handlers } from '../../main/services/app-services';
import { EventBus } from '../../main/services/event-bus';
import { ServiceError } from '../../main/services/service-error';
import { callNames, methodName, type CallName, type ContractError } from '../../shared/contract';
import type { Task } from '../../shared/domain';

const task: Task = {
  id: 'task-1',
  title: 'Count files',
  status: 'running',
  workspaces: [],
  services: [],
  model: 'test-model',
  answer: null,
  error: null,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

/** Every handler a stub that rejects, so a test sets only what it needs and sees which ones ran. */
function fakeHandlers() {
  const entries = callNames.map((name) => [name, vi.fn(async (_input: unknown): Promise<unknown> => Promise.reject(new Error(`unexpected ${name}`)))] as const);
  const mocks = Object.fromEntries(entries) as Record<CallName, ReturnType<typeof vi.fn<(input: unknown) => Promise<unknown>>>>;
  return { mocks, handlers: mocks as unknown as Handlers };
}

describe('the local client', () => {
  it('has one method per contract call, and on', () => {
    const api = createLocalClient(fakeHandlers().handlers, new EventBus()) as unknown as Record<string, unknown>;
    for (const name of callNames) expect(typeof api[methodName(name)]).toBe('function');
    expect(typeof api.on).toBe('function');
  });

  it('parses input with the contract: the same answer as dispatch, and the handler never runs', async () => {
    const { mocks, handlers } = fakeHandlers();
    const api = createLocalClient(handlers, new EventBus());
    const input = { prompt: '   ', workspaces: [] };
    const result = await api.taskStart(input);
    expect(result).toEqual(await dispatch('task:start', input, handlers));
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid-input', message: expect.stringContaining('Say what the agent should do.') } });
    expect(mocks['task:start']).not.toHaveBeenCalled();
  });

  it("answers a handler's error as {code, message} and a value as {ok, value}", async () => {
    const { mocks, handlers } = fakeHandlers();
    mocks['task:cancel'].mockRejectedValueOnce(new ServiceError('not-found', 'No task nope.'));
    mocks['task:list'].mockResolvedValueOnce([task]);
    const api = createLocalClient(handlers, new EventBus());
    expect(await api.taskCancel({ taskId: 'nope' })).toEqual({ ok: false, error: { code: 'not-found', message: 'No task nope.' } });
    expect(await api.taskList({})).toEqual({ ok: true, value: [task] });
  });

  it('delivers only the named event, parsed, until unsubscribed', () => {
    const bus = new EventBus();
    const api = createLocalClient(fakeHandlers().handlers, bus);
    const seen: unknown[] = [];
    const off = api.on('task:updated', (t) => seen.push(t));
    bus.emit('timeline:updated', { taskId: 'task-1' });
    bus.emit('task:updated', { ...task, extra: 'dropped by the schema' } as Task);
    off();
    bus.emit('task:updated', task);
    expect(seen).toEqual([task]);
    expect(() => api.on('nope:event' as 'task:updated', () => undefined)).toThrow(/Unknown event/);
  });
});

describe('the CLI over the contract', () => {
  let stderr = '';
  let stdout = '';
  beforeEach(() => {
    stderr = '';
    stdout = '';
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
    process.exitCode = undefined;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  });

  function session(handlers: Handlers): { open: () => Session; closed: () => number } {
    let closed = 0;
    const open = (): Session => ({
      api: createLocalClient(handlers, new EventBus()),
      ready: Promise.resolve([]),
      close: async () => void closed++,
    });
    return { open, closed: () => closed };
  }

  it("run's input error is the contract's zod message, exit 2, and no task starts", async () => {
    const { mocks, handlers } = fakeHandlers();
    const s = session(handlers);
    const code = await main(['run', '   '], { open: s.open });
    const app = await dispatch('task:start', { prompt: '   ', workspaces: [], services: [], databases: [] }, handlers);
    expect(app.ok).toBe(false);
    const message = (app as { error: ContractError }).error.message;
    expect(message).toContain('Say what the agent should do.');
    expect(stderr).toBe(`posthoc: ${message}\n`);
    expect(code).toBe(EXIT.usage);
    expect(mocks['task:start']).not.toHaveBeenCalled();
    expect(s.closed()).toBe(1);
  });

  it('run --max-steps over the contract\'s limit is refused by the contract, as the app would be', async () => {
    const { mocks, handlers } = fakeHandlers();
    const code = await main(['run', 'x', '--max-steps', '500'], { open: session(handlers).open });
    expect(code).toBe(EXIT.usage);
    expect(stderr).toMatch(/^posthoc: maxSteps: /);
    expect(mocks['task:start']).not.toHaveBeenCalled();
  });

  it("maps a handler's error code to the exit code: not-found 2, conflict 1", async () => {
    const { mocks, handlers } = fakeHandlers();
    mocks['action:keep'].mockRejectedValueOnce(new ServiceError('not-found', 'No action a-1.'));
    expect(await main(['keep', 'a-1'], { open: session(handlers).open })).toBe(EXIT.usage);
    expect(stderr).toBe('posthoc: No action a-1.\n');
    mocks['action:keep'].mockRejectedValueOnce(new ServiceError('conflict', 'Action 1 is already kept.'));
    expect(await main(['keep', 'a-1'], { open: session(handlers).open })).toBe(EXIT.failed);
    expect(mocks['action:keep']).toHaveBeenCalledWith({ actionId: 'a-1' });
  });

  it('lists actions of one task through action:list', async () => {
    const { mocks, handlers } = fakeHandlers();
    mocks['action:list'].mockResolvedValueOnce([]);
    expect(await main(['actions', '--task', 'task-1', '--json'], { open: session(handlers).open })).toBe(EXIT.ok);
    expect(mocks['action:list']).toHaveBeenCalledWith({ taskId: 'task-1' });
    expect(stdout).toBe('[]\n');
  });

  it('every contract error code has an exit code, configuration apart from failure', () => {
    expect(exitCodeOf('invalid-input')).toBe(EXIT.usage);
    expect(exitCodeOf('not-found')).toBe(EXIT.usage);
    expect(exitCodeOf('unavailable')).toBe(EXIT.usage);
    expect(exitCodeOf('conflict')).toBe(EXIT.failed);
    expect(exitCodeOf('forbidden')).toBe(EXIT.failed);
    expect(exitCodeOf('internal')).toBe(EXIT.failed);
  });
});
