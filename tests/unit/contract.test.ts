// The contract: names, method names, a snapshot of the whole surface, and the one registration
// function that guards every call (sender check, input parsing, error wrapping, event forwarding).
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { dispatch, registerContract, toContractError, type Transport } from '../../main/ipc/register-contract';
import type { Handlers } from '../../main/services/app-services';
import { EventBus } from '../../main/services/event-bus';
import { ServiceError } from '../../main/services/service-error';
import { SandboxError } from '../../main/sandbox/docker-client';
import { VaultUnavailable } from '../../main/vault/vault';
import {
  callChannel,
  callNames,
  calls,
  eventChannel,
  eventNames,
  events,
  methodName,
  type CallName,
  type EventName,
  type Result,
} from '../../shared/contract';
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

/** Every handler a stub that resolves to a marker, so a test can tell which one ran. */
function fakeHandlers() {
  const entries = callNames.map((name) => [name, vi.fn(async (_input: unknown) => ({ handled: name }) as unknown)] as const);
  const mocks = Object.fromEntries(entries) as Record<CallName, ReturnType<typeof vi.fn<(input: unknown) => Promise<unknown>>>>;
  return { mocks, handlers: mocks as unknown as Handlers };
}

describe('contract names', () => {
  it('names every call and event domain:verb in lower case', () => {
    expect(callNames.length).toBeGreaterThan(0);
    expect(eventNames.length).toBeGreaterThan(0);
    for (const name of [...callNames, ...eventNames]) expect(name).toMatch(/^[a-z]+:[a-z]+$/);
  });

  it('derives method names for preload and the web bridge', () => {
    expect(methodName('task:start')).toBe('taskStart');
    expect(methodName('settings:update')).toBe('settingsUpdate');
    expect(methodName('vault:status')).toBe('vaultStatus');
  });

  it('gives every call a distinct method name, and none is called "on"', () => {
    const methods = callNames.map(methodName);
    expect(new Set(methods).size).toBe(methods.length);
    expect(methods).not.toContain('on');
  });

  it('keeps call and event channels in separate namespaces', () => {
    const channels = [...callNames.map(callChannel), ...eventNames.map(eventChannel)];
    expect(new Set(channels).size).toBe(channels.length);
    expect(callChannel('task:start')).toBe('posthoc:call:task:start');
    expect(eventChannel('task:updated')).toBe('posthoc:event:task:updated');
  });
});

describe('contract surface', () => {
  it('matches the reviewed snapshot', () => {
    const surface = {
      calls: Object.fromEntries(
        callNames.map((name) => [
          name,
          {
            method: methodName(name),
            input: z.toJSONSchema(calls[name].input, { io: 'input' }),
            output: z.toJSONSchema(calls[name].output),
          },
        ]),
      ),
      events: Object.fromEntries(eventNames.map((name) => [name, z.toJSONSchema(events[name])])),
    };
    expect(surface).toMatchSnapshot();
  });
});

describe('dispatch', () => {
  it('answers invalid-input for an empty prompt without calling the handler', async () => {
    const { mocks, handlers } = fakeHandlers();
    const result = await dispatch('task:start', { prompt: '   ', workspaces: [] }, handlers);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.code).toBe('invalid-input');
    expect(!result.ok && result.error.message).toContain('prompt: Say what the agent should do.');
    expect(mocks['task:start']).not.toHaveBeenCalled();
  });

  it.each([
    ['task:start', { prompt: 'hi' }],
    ['task:start', 'not an object'],
    ['task:get', { taskId: '' }],
    ['task:get', undefined],
    ['action:undo', { actionId: 42 }],
    ['settings:update', { maxSteps: 0 }],
    ['settings:update', { baseUrl: 'not a url' }],
  ] as Array<[CallName, unknown]>)('refuses %s with %j', async (name, raw) => {
    const { mocks, handlers } = fakeHandlers();
    const result = await dispatch(name, raw, handlers);
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
    expect(mocks[name]).not.toHaveBeenCalled();
  });

  it('calls the handler with the parsed input (trimmed) and wraps its value', async () => {
    const { mocks, handlers } = fakeHandlers();
    mocks['task:start'].mockResolvedValueOnce(task);
    const result = await dispatch('task:start', { prompt: '  count files  ', workspaces: ['/tmp/a'] }, handlers);
    expect(result).toEqual({ ok: true, value: task });
    expect(mocks['task:start']).toHaveBeenCalledWith({ prompt: 'count files', workspaces: ['/tmp/a'] });
    for (const name of callNames) if (name !== 'task:start') expect(mocks[name]).not.toHaveBeenCalled();
  });

  it('drops keys the schema does not know before calling the handler', async () => {
    const { mocks, handlers } = fakeHandlers();
    await dispatch('task:get', { taskId: 't', path: '/etc/passwd' }, handlers);
    expect(mocks['task:get']).toHaveBeenCalledWith({ taskId: 't' });
  });

  it('treats a missing input as an empty object for calls without arguments', async () => {
    const { mocks, handlers } = fakeHandlers();
    mocks['task:list'].mockResolvedValueOnce([task]);
    const result = await dispatch('task:list', undefined, handlers);
    expect(result).toEqual({ ok: true, value: [task] });
    expect(mocks['task:list']).toHaveBeenCalledWith({});
  });

  it('parses answers too: unknown fields never cross, and a malformed answer is an internal error', async () => {
    const { mocks, handlers } = fakeHandlers();
    mocks['task:list'].mockResolvedValueOnce([{ ...task, apiKey: 'sk-should-not-cross' }]);
    const stripped = await dispatch('task:list', {}, handlers);
    expect(stripped).toEqual({ ok: true, value: [task] });
    expect(JSON.stringify(stripped)).not.toContain('sk-should-not-cross');
    mocks['task:list'].mockResolvedValueOnce([{ id: 'half a task' }]);
    expect(await dispatch('task:list', {}, handlers)).toMatchObject({ ok: false, error: { code: 'internal', message: expect.stringContaining('task:list') } });
  });

  it('wraps a thrown ServiceError into its own code and message', async () => {
    const { mocks, handlers } = fakeHandlers();
    mocks['task:get'].mockRejectedValueOnce(new ServiceError('not-found', 'No task t-9.'));
    expect(await dispatch('task:get', { taskId: 't-9' }, handlers)).toEqual({
      ok: false,
      error: { code: 'not-found', message: 'No task t-9.' },
    });
  });

  it('wraps a plain Error as internal, keeping its message', async () => {
    const { mocks, handlers } = fakeHandlers();
    mocks['task:list'].mockRejectedValueOnce(new Error('disk exploded'));
    expect(await dispatch('task:list', {}, handlers)).toEqual({ ok: false, error: { code: 'internal', message: 'disk exploded' } });
  });
});

describe('toContractError', () => {
  it('maps sandbox and vault failures to unavailable', () => {
    expect(toContractError(new SandboxError('docker-unreachable', 'Start Docker.'))).toEqual({ code: 'unavailable', message: 'Start Docker.' });
    expect(toContractError(new VaultUnavailable('No keychain.'))).toEqual({ code: 'unavailable', message: 'No keychain.' });
  });

  it('maps a ZodError to invalid-input with the path of each issue', () => {
    const error = z.object({ a: z.number() }).safeParse({ a: 'x' }).error!;
    const mapped = toContractError(error);
    expect(mapped.code).toBe('invalid-input');
    expect(mapped.message).toMatch(/^a: /);
  });

  it('maps a thrown non-Error to internal with its text', () => {
    expect(toContractError('weird')).toEqual({ code: 'internal', message: 'weird' });
  });
});

type FakeSender = { trusted: boolean };

function fakeTransport() {
  const listeners = new Map<CallName, (sender: FakeSender, raw: unknown) => Promise<Result<unknown>>>();
  const transport = {
    isTrustedSender: vi.fn((sender: FakeSender) => sender.trusted),
    handle: vi.fn((name: CallName, listener: (sender: FakeSender, raw: unknown) => Promise<Result<unknown>>) => {
      listeners.set(name, listener);
    }),
    push: vi.fn<(event: EventName, payload: unknown) => void>(),
  } satisfies Transport<FakeSender>;
  return { transport, listeners };
}

describe('registerContract', () => {
  it('registers one listener per call, and nothing else', () => {
    const { transport, listeners } = fakeTransport();
    registerContract(transport, fakeHandlers().handlers, new EventBus());
    expect([...listeners.keys()].sort()).toEqual([...callNames].sort());
    expect(transport.handle).toHaveBeenCalledTimes(callNames.length);
  });

  it('refuses an untrusted sender with forbidden and does not call the handler', async () => {
    const { transport, listeners } = fakeTransport();
    const { mocks, handlers } = fakeHandlers();
    registerContract(transport, handlers, new EventBus());
    const result = await listeners.get('task:start')!({ trusted: false }, { prompt: 'rm -rf ~', workspaces: [] });
    expect(result).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(mocks['task:start']).not.toHaveBeenCalled();
    expect(transport.isTrustedSender).toHaveBeenCalledWith({ trusted: false });
  });

  it('checks the sender before the input, so an untrusted caller learns nothing about the schema', async () => {
    const { transport, listeners } = fakeTransport();
    registerContract(transport, fakeHandlers().handlers, new EventBus());
    const result = await listeners.get('task:start')!({ trusted: false }, { prompt: '' });
    expect(result).toMatchObject({ ok: false, error: { code: 'forbidden' } });
  });

  it('dispatches a trusted call to its handler', async () => {
    const { transport, listeners } = fakeTransport();
    const { mocks, handlers } = fakeHandlers();
    registerContract(transport, handlers, new EventBus());
    mocks['task:cancel'].mockResolvedValueOnce(task);
    const result = await listeners.get('task:cancel')!({ trusted: true }, { taskId: 'task-1' });
    expect(result).toEqual({ ok: true, value: task });
    expect(mocks['task:cancel']).toHaveBeenCalledWith({ taskId: 'task-1' });
  });

  it('forwards bus events to transport.push until unsubscribed', () => {
    const { transport } = fakeTransport();
    const bus = new EventBus();
    const unsubscribe = registerContract(transport, fakeHandlers().handlers, bus);
    bus.emit('task:updated', task);
    bus.emit('message:delta', { taskId: 'task-1', streamId: 's', delta: 'hi' });
    expect(transport.push.mock.calls).toEqual([
      ['task:updated', task],
      ['message:delta', { taskId: 'task-1', streamId: 's', delta: 'hi' }],
    ]);
    unsubscribe();
    bus.emit('task:updated', task);
    expect(transport.push).toHaveBeenCalledTimes(2);
  });

  it('does not forward event names outside the contract', () => {
    const { transport } = fakeTransport();
    const bus = new EventBus();
    registerContract(transport, fakeHandlers().handlers, bus);
    (bus.emit as (event: string, payload: unknown) => void)('secret:leak', { key: 'sk-123' });
    expect(transport.push).not.toHaveBeenCalled();
  });

  it('keeps the bus working when a transport push throws', () => {
    const { transport } = fakeTransport();
    transport.push.mockImplementation(() => {
      throw new Error('window gone');
    });
    const bus = new EventBus();
    const other = vi.fn();
    registerContract(transport, fakeHandlers().handlers, bus);
    bus.subscribe(other);
    expect(() => bus.emit('task:updated', task)).not.toThrow();
    expect(other).toHaveBeenCalledWith('task:updated', task);
  });
});
