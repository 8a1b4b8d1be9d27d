// The web bridge: window.posthoc over a WebSocket, built from the contract, with a fake socket.
import { describe, expect, it } from 'vitest';
import { callNames, methodName } from '../../shared/contract';
import type { ServerFrame } from '../../shared/contract/wire';
import { CONNECTION_LOST_MESSAGE, createWebBridge, type SocketHandlers } from '../../renderer/src/bridge/web-bridge';
import { defaultsView, SETTINGS } from '../../shared/settings';

function fakeSocket() {
  const sent: Array<{ id: number; call: string; input: unknown }> = [];
  let handlers: SocketHandlers | null = null;
  const lost: string[] = [];
  const api = createWebBridge({
    url: 'ws://127.0.0.1:1/ws?token=t',
    connect(_url, h) {
      handlers = h;
      return { send: (data) => sent.push(JSON.parse(data) as { id: number; call: string; input: unknown }) };
    },
    onConnectionLost: (message) => lost.push(message),
  });
  const server = {
    open: () => handlers?.onOpen(),
    close: () => handlers?.onClose(),
    push: (frame: ServerFrame) => handlers?.onMessage(JSON.stringify(frame)),
  };
  return { api, sent, server, lost };
}

const settings = {
  model: 'm',
  baseUrl: 'http://localhost:11434/v1',
  apiKeySet: false,
  sources: { model: 'settings', baseUrl: 'settings', apiKey: 'none' },
  configured: true,
  values: defaultsView(SETTINGS),
};

describe('web bridge', () => {
  it('has one method per contract call, and on()', () => {
    const { api } = fakeSocket();
    for (const name of callNames) expect(typeof (api as unknown as Record<string, unknown>)[methodName(name)]).toBe('function');
    expect(typeof api.on).toBe('function');
  });

  it('queues calls until the socket opens, then answers each by id', async () => {
    const { api, sent, server } = fakeSocket();
    const first = api.settingsGet({});
    const second = api.taskCancel({ taskId: 'nope' });
    expect(sent).toEqual([]);
    server.open();
    expect(sent.map((f) => f.call)).toEqual(['settings:get', 'task:cancel']);
    const [a, b] = sent;
    server.push({ kind: 'result', id: b!.id, result: { ok: false, error: { code: 'not-found', message: 'No such task.' } } });
    server.push({ kind: 'result', id: a!.id, result: { ok: true, value: settings } });
    expect(await first).toEqual({ ok: true, value: settings });
    expect(await second).toEqual({ ok: false, error: { code: 'not-found', message: 'No such task.' } });
  });

  it('turns an answer that breaks the contract into an error', async () => {
    const { api, sent, server } = fakeSocket();
    server.open();
    const pending = api.settingsGet({});
    server.push({ kind: 'result', id: sent[0]!.id, result: { ok: true, value: { model: 3 } } });
    const result = await pending;
    expect(result.ok).toBe(false);
  });

  it('ends a call with the host error frame for it, and ignores error frames for no call', async () => {
    const { api, sent, server } = fakeSocket();
    server.open();
    const pending = api.taskGet({ taskId: 'x' });
    server.push({ kind: 'error', id: null, error: { code: 'invalid-input', message: 'The frame is not JSON.' } });
    server.push({ kind: 'error', id: 999, error: { code: 'invalid-input', message: 'Frame 999: unknown call.' } });
    const message = 'Frame 1 (task:get) has no "input", and task:get needs one.';
    server.push({ kind: 'error', id: sent[0]!.id, error: { code: 'invalid-input', message } });
    expect(await pending).toEqual({ ok: false, error: { code: 'invalid-input', message } });
  });

  it('delivers events to subscribers until they unsubscribe, and drops malformed ones', () => {
    const { api, server } = fakeSocket();
    server.open();
    const seen: string[] = [];
    const off = api.on('message:delta', (payload) => seen.push(payload.delta));
    server.push({ kind: 'event', event: 'message:delta', payload: { taskId: 't', streamId: 's', delta: 'a' } });
    server.push({ kind: 'event', event: 'message:delta', payload: { taskId: 't' } });
    server.push({ kind: 'event', event: 'task:updated', payload: { nope: true } });
    off();
    server.push({ kind: 'event', event: 'message:delta', payload: { taskId: 't', streamId: 's', delta: 'b' } });
    expect(seen).toEqual(['a']);
  });

  it('answers pending and later calls with "unavailable" once the socket closes, and says so once', async () => {
    const { api, server, lost } = fakeSocket();
    server.open();
    const pending = api.taskList({});
    server.close();
    const expected = { ok: false, error: { code: 'unavailable', message: CONNECTION_LOST_MESSAGE } };
    expect(await pending).toEqual(expected);
    expect(await api.vaultStatus({})).toEqual(expected);
    server.close();
    expect(lost).toEqual([CONNECTION_LOST_MESSAGE]);
  });
});
