// window.posthoc for a plain browser served by the web host: the same contract as Electron's preload,
// carried over one WebSocket. The method table is built from the contract, never written by hand, so
// the app cannot tell which transport it is on. When the host goes away (a restart), the bridge connects
// again by itself with the same address (the token is kept for the data folder) and then raises
// `store:changed`, so the app reads again what it shows.
import {
  ContractError,
  callNames,
  calls,
  eventNames,
  events,
  methodName,
  type CallName,
  type EventName,
  type EventPayload,
  type PosthocApi,
  type Result,
} from '../../../shared/contract';
import { WEB_SOCKET_PATH, WEB_TOKEN_PARAM, type ClientFrame } from '../../../shared/contract/wire';

export const CONNECTION_LOST_MESSAGE = 'Lost the connection to Posthoc; reload the page.';
export const RECONNECTING_MESSAGE = 'Lost the connection to Posthoc; connecting again…';
/** Said instead once the attempts go on (a host that came back with a new token refuses this page's). */
export const STILL_LOST_MESSAGE =
  'Still cannot reach Posthoc; connecting again… If its web host was started again with a new token (posthoc web --new-token), open the address it printed.';

/** What the bridge needs from a socket; the browser's WebSocket in the app, a fake in tests. */
export type SocketHandlers = {
  onOpen(): void;
  onClose(): void;
  onMessage(data: string): void;
};
export type SocketConnector = (url: string, handlers: SocketHandlers) => { send(data: string): void };

export type WebBridgeOptions = {
  url: string;
  connect: SocketConnector;
  /** Called once, when the socket closes (without `reconnect`, the page cannot recover without a reload). */
  onConnectionLost?: (message: string) => void;
  /**
   * Connect again after a close, waiting each delay in turn (the last one repeats), with `wait` (setTimeout
   * in the page, a fake in tests). Calls made while away fail at once with RECONNECTING_MESSAGE.
   */
  reconnect?: { delaysMs: number[]; wait?: (ms: number, then: () => void) => void; stillLostAfter?: number };
  /** Called each time the socket opens again after it was lost. */
  onReconnected?: () => void;
};

type Pending = { call: CallName; resolve: (result: Result<unknown>) => void };
type Listener = (payload: unknown) => void;

const lostResult = (message: string): Result<never> => ({
  ok: false,
  error: { code: 'unavailable', message },
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && (eventNames as string[]).includes(name);
}

/** Checks a call's answer against the contract, as preload does: a malformed answer becomes an error. */
export function readResult(call: CallName, raw: unknown): Result<unknown> {
  if (isRecord(raw) && raw.ok === true) {
    const parsed = calls[call].output.safeParse(raw.value);
    if (parsed.success) return { ok: true, value: parsed.data };
    return { ok: false, error: { code: 'internal', message: `Posthoc sent a malformed answer to ${call}.` } };
  }
  if (isRecord(raw) && raw.ok === false) {
    const error = ContractError.safeParse(raw.error);
    if (error.success) return { ok: false, error: error.data };
  }
  return { ok: false, error: { code: 'internal', message: `Posthoc sent an unreadable answer to ${call}.` } };
}

export function createWebBridge(options: WebBridgeOptions): PosthocApi {
  let nextId = 1;
  let state: 'connecting' | 'open' | 'closed' = 'connecting';
  const lostMessage = options.reconnect ? RECONNECTING_MESSAGE : CONNECTION_LOST_MESSAGE;
  /** Whether the socket was lost at least once (an open after it is a reconnection), and the attempts since. */
  let wasLost = false;
  let announced = false;
  let attempts = 0;
  let socket: { send(data: string): void } | null = null;
  const queue: string[] = [];
  const pending = new Map<number, Pending>();
  const listeners = new Map<EventName, Set<Listener>>();

  function flush(): void {
    if (state !== 'open' || socket === null) return;
    for (const frame of queue.splice(0)) socket.send(frame);
  }

  function close(): void {
    // A second close of the same socket (a failed send, then its close event) changes nothing.
    if (state === 'closed') return;
    state = 'closed';
    socket = null;
    queue.length = 0;
    const waiting = [...pending.values()];
    pending.clear();
    for (const entry of waiting) entry.resolve(lostResult(lostMessage));
    if (!announced) options.onConnectionLost?.(lostMessage);
    announced = true;
    wasLost = true;
    const reconnect = options.reconnect;
    if (reconnect === undefined) return;
    const delay = reconnect.delaysMs[Math.min(attempts, reconnect.delaysMs.length - 1)] ?? 1000;
    attempts++;
    if (attempts === (reconnect.stillLostAfter ?? 10)) options.onConnectionLost?.(STILL_LOST_MESSAGE);
    (reconnect.wait ?? ((ms, then) => setTimeout(then, ms)))(delay, open);
  }

  /** One socket per attempt; events of an earlier attempt's socket are ignored. */
  function open(): void {
    const attempt = ++generation;
    state = 'connecting';
    const current = (fn: () => void) => () => {
      if (attempt === generation) fn();
    };
    socket = options.connect(options.url, {
      onOpen: current(() => {
        if (state !== 'connecting') return;
        state = 'open';
        attempts = 0;
        flush();
        if (wasLost) {
          announced = false;
          options.onReconnected?.();
          deliver('store:changed', {});
        }
      }),
      onClose: current(close),
      onMessage: (data) => {
        if (attempt === generation) receive(data);
      },
    });
    flush();
  }
  let generation = 0;

  function receive(data: string): void {
    let frame: unknown;
    try {
      frame = JSON.parse(data);
    } catch {
      console.warn('posthoc: ignored a frame that is not JSON');
      return;
    }
    if (!isRecord(frame)) return;
    if (frame.kind === 'result' && typeof frame.id === 'number') {
      const entry = pending.get(frame.id);
      if (entry === undefined) return;
      pending.delete(frame.id);
      entry.resolve(readResult(entry.call, frame.result));
    } else if (frame.kind === 'error') {
      // The host could not read one of our frames: end that call with the host's words, or say it aloud.
      const error = ContractError.safeParse(frame.error);
      const message = error.success ? error.data : { code: 'internal' as const, message: 'Posthoc could not read a request.' };
      const entry = typeof frame.id === 'number' ? pending.get(frame.id) : undefined;
      if (entry === undefined) {
        console.warn(`posthoc: ${message.message}`);
        return;
      }
      pending.delete(frame.id as number);
      entry.resolve({ ok: false, error: message });
    } else if (frame.kind === 'event' && isEventName(frame.event)) {
      const parsed = events[frame.event].safeParse(frame.payload);
      if (!parsed.success) {
        console.warn(`posthoc: ignored a malformed ${frame.event} event`);
        return;
      }
      deliver(frame.event, parsed.data);
    }
  }

  function deliver(event: EventName, payload: unknown): void {
    for (const listener of [...(listeners.get(event) ?? [])]) {
      try {
        listener(payload);
      } catch (error) {
        console.error(`posthoc: a ${event} listener failed`, error);
      }
    }
  }

  function call(name: CallName, input: unknown): Promise<Result<unknown>> {
    if (state === 'closed') return Promise.resolve(lostResult(lostMessage));
    const frame: ClientFrame = { id: nextId++, call: name, input: input === undefined ? {} : input };
    return new Promise((resolve) => {
      pending.set(frame.id, { call: name, resolve });
      queue.push(JSON.stringify(frame));
      flush();
    });
  }

  function on<K extends EventName>(event: K, listener: (payload: EventPayload<K>) => void): () => void {
    const set = listeners.get(event) ?? new Set<Listener>();
    listeners.set(event, set);
    // One wrapper per subscription, so subscribing the same function twice gives two independent unsubscribes.
    const entry: Listener = (payload) => listener(payload as EventPayload<K>);
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  open();

  const api: Record<string, unknown> = { on };
  for (const name of callNames) {
    api[methodName(name)] = (input: unknown) => call(name, input);
  }
  return api as unknown as PosthocApi;
}

export const connectBrowserSocket: SocketConnector = (url, handlers) => {
  const socket = new WebSocket(url);
  socket.addEventListener('open', () => handlers.onOpen());
  socket.addEventListener('close', () => handlers.onClose());
  socket.addEventListener('message', (event: MessageEvent) => {
    if (typeof event.data === 'string') handlers.onMessage(event.data);
  });
  return {
    send(data) {
      try {
        socket.send(data);
      } catch {
        handlers.onClose();
      }
    },
  };
};

/** The bridge's own notice, outside React: only this transport can lose its connection this way. */
function showConnectionLost(message: string): void {
  const shown = document.querySelector('[data-testid="connection-lost"]');
  if (shown !== null) {
    shown.textContent = message;
    return;
  }
  const banner = document.createElement('div');
  banner.className = 'connection-lost';
  banner.setAttribute('role', 'alert');
  banner.setAttribute('data-testid', 'connection-lost');
  banner.textContent = message;
  document.body.append(banner);
}

/** In Electron, preload has already provided window.posthoc; in a browser, build it over the web host's socket. */
export function installWebBridge(): void {
  if ((window as Partial<Window>).posthoc !== undefined) return;
  const token = new URLSearchParams(location.search).get(WEB_TOKEN_PARAM) ?? '';
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const url = `${scheme}://${location.host}${WEB_SOCKET_PATH}?${WEB_TOKEN_PARAM}=${encodeURIComponent(token)}`;
  window.posthoc = createWebBridge({
    url,
    connect: connectBrowserSocket,
    onConnectionLost: showConnectionLost,
    reconnect: { delaysMs: [250, 500, 1000, 2000] },
    onReconnected: () => document.querySelector('[data-testid="connection-lost"]')?.remove(),
  });
}
