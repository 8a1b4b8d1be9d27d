// Exposes window.posthoc: one method per contract call, built from the contract, and event
// subscriptions that return an unsubscribe function. Nothing else crosses: no generic send or on.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { callChannel, callNames, eventChannel, eventNames, methodName, type EventName } from '../shared/contract';

const api: Record<string, unknown> = {};
for (const name of callNames) {
  api[methodName(name)] = (input: unknown) => ipcRenderer.invoke(callChannel(name), input ?? {});
}
const knownEvents = new Set<string>(eventNames);
api.on = (event: EventName, listener: (payload: unknown) => void): (() => void) => {
  if (!knownEvents.has(event)) throw new Error(`Unknown event ${String(event)}`);
  const wrapped = (_e: IpcRendererEvent, payload: unknown) => listener(payload);
  ipcRenderer.on(eventChannel(event), wrapped);
  return () => {
    ipcRenderer.removeListener(eventChannel(event), wrapped);
  };
};

contextBridge.exposeInMainWorld('posthoc', Object.freeze(api));
