// Contract events pushed from the services to every connected front end (Electron windows, web clients).
import type { EventName, EventPayload } from '../../shared/contract';

type Listener = <K extends EventName>(event: K, payload: EventPayload<K>) => void;

export class EventBus {
  private readonly listeners = new Set<Listener>();

  emit<K extends EventName>(event: K, payload: EventPayload<K>): void {
    for (const listener of this.listeners) {
      try {
        listener(event, payload);
      } catch {
        // A broken front end must not break the services.
      }
    }
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
