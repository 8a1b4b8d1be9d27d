// One registration function for every transport: it checks the sender, parses the input with the
// contract's schema, calls the service and answers {ok, value} or {ok: false, error}. Events from the
// services are pushed through the same transport.
import { ZodError } from 'zod';
import { callNames, calls, eventNames, type CallName, type ContractError, type EventName, type Result } from '../../shared/contract';
import { describeZod, dispatchCall } from './dispatch-call';
import { SandboxError } from '../sandbox/sandbox-error';
import type { EventBus } from '../services/event-bus';
import type { Handlers } from '../services/app-services';
import { ServiceError } from '../services/service-error';
import { VaultUnavailable } from '../vault/vault';

export type Transport<Sender> = {
  /** True when the call comes from a front end this transport trusts (right origin, main frame, token). */
  isTrustedSender(sender: Sender): boolean;
  handle(name: CallName, listener: (sender: Sender, raw: unknown) => Promise<Result<unknown>>): void;
  push(event: EventName, payload: unknown): void;
};

export function registerContract<Sender>(transport: Transport<Sender>, handlers: Handlers, events: EventBus): () => void {
  for (const name of callNames) {
    transport.handle(name, async (sender, raw) => {
      if (!transport.isTrustedSender(sender)) {
        return { ok: false, error: { code: 'forbidden', message: 'This caller is not allowed to talk to Posthoc.' } };
      }
      return dispatch(name, raw, handlers);
    });
  }
  const known = new Set<string>(eventNames);
  return events.subscribe((event, payload) => {
    if (known.has(event)) transport.push(event, payload);
  });
}

export async function dispatch(name: CallName, raw: unknown, handlers: Handlers): Promise<Result<unknown>> {
  return dispatchCall(name, calls[name], handlers[name] as (input: unknown) => Promise<unknown>, raw, toContractError);
}

export function toContractError(error: unknown): ContractError {
  if (error instanceof ServiceError) return { code: error.code, message: error.message };
  if (error instanceof SandboxError) return { code: 'unavailable', message: error.message };
  if (error instanceof VaultUnavailable) return { code: 'unavailable', message: error.message };
  if (error instanceof ZodError) return { code: 'invalid-input', message: describeZod(error) };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}
