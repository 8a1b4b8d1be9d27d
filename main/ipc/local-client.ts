// The in-process transport: the same typed PosthocApi the renderer gets from preload or the web bridge,
// for a front end living in the main process (the CLI). Every call goes through dispatch, so its input is
// parsed by the contract's schema exactly as for the app, and failures come back as {code, message};
// events are the contract's, parsed like the web bridge parses them, with an unsubscribe per listener.
import { callNames, eventNames, events, methodName, type EventName, type EventPayload, type PosthocApi } from '../../shared/contract';
import type { EventBus } from '../services/event-bus';
import type { Handlers } from '../services/app-services';
import { dispatch } from './register-contract';

export function createLocalClient(handlers: Handlers, bus: EventBus): PosthocApi {
  const known = new Set<string>(eventNames);
  function on<K extends EventName>(event: K, listener: (payload: EventPayload<K>) => void): () => void {
    if (!known.has(event)) throw new Error(`Unknown event ${String(event)}`);
    const schema = events[event as EventName];
    return bus.subscribe((name: EventName, payload: unknown) => {
      if (name !== event) return;
      const parsed = schema.safeParse(payload);
      if (parsed.success) listener(parsed.data as EventPayload<K>);
    });
  }
  const api: Record<string, unknown> = { on };
  for (const name of callNames) {
    api[methodName(name)] = (input: unknown) => dispatch(name, input ?? {}, handlers);
  }
  return Object.freeze(api) as unknown as PosthocApi;
}
