// Undo for the REST channel: each recorded inverse call is sent, newest first, through the same door as
// the forward calls (ServiceCaller: the service's credentials, refreshed on 401, redacted). A provider
// may refuse an inverse (the message is already gone, the token lost its scope): that is why such calls
// are "compensable", and the refusal is reported with the provider's own words.
import type { Action, RestEffect } from '../../shared/domain';
import type { RestInverse } from '../../shared/domain/connections';
import { parseBody, valueAt } from './body-view';
import { Redactor } from './redaction';
import { CredentialMissing, type ServiceCaller } from './service-caller';
import type { ServiceRegistry } from './service-registry';

export type InverseResult = { status: number; error: string | null };

/** Slack-style answers meaning the object is already gone. */
const ALREADY_GONE = new Set(['message_not_found', 'not_found', 'no_reaction', 'no_pin', 'already_archived', 'channel_not_found']);

export type RestUndoOutcome =
  | { ok: true; sent: Array<{ effect: RestEffect; result: InverseResult }> }
  | { ok: false; failed: { effect: RestEffect; result: InverseResult }; sent: Array<{ effect: RestEffect; result: InverseResult }> };

/** The calls of an action that undo must take back, newest first: sent, mutating, with an inverse, not yet undone. */
export function pendingInverses(action: Action): RestEffect[] {
  return action.effects
    .filter((e): e is RestEffect => e.channel === 'rest' && !e.refused && Boolean(e.inverse) && !(e.undone && e.undone.error === null))
    .reverse();
}

export class RestUndo {
  constructor(
    private readonly registry: ServiceRegistry,
    private readonly caller: ServiceCaller,
  ) {}

  /** Sends the inverse of each pending call; stops at the first the provider refuses. Effects are updated in place. */
  async undo(action: Action): Promise<RestUndoOutcome> {
    const sent: Array<{ effect: RestEffect; result: InverseResult }> = [];
    for (const effect of pendingInverses(action)) {
      const result = await this.send(effect.inverse!);
      effect.undone = { status: result.status, at: new Date().toISOString(), error: result.error };
      if (result.error) return { ok: false, failed: { effect, result }, sent };
      sent.push({ effect, result });
    }
    return { ok: true, sent };
  }

  async send(inverse: RestInverse): Promise<InverseResult> {
    const service = this.registry.get(inverse.service);
    if (!service) return { status: 0, error: `The service "${inverse.service}" is no longer defined, so ${inverse.method} ${inverse.path} cannot be sent. Add it again, then undo.` };
    const q = inverse.path.indexOf('?');
    const path = q < 0 ? inverse.path : inverse.path.slice(0, q);
    const search = q < 0 ? '' : inverse.path.slice(q);
    const headers = new Headers({ accept: 'application/json' });
    if (inverse.body !== null) headers.set('content-type', 'application/json; charset=utf-8');
    const redactor = new Redactor();
    try {
      const answer = await this.caller.call(service, {
        method: inverse.method,
        path,
        search,
        headers,
        body: inverse.body === null ? undefined : new TextEncoder().encode(inverse.body),
      }, redactor);
      const value = parseBody(answer.body, answer.headers.get('content-type') ?? undefined);
      // Slack-style APIs answer 200 with {"ok": false, "error": …}.
      const refusedInBody = valueAt(value, 'ok') === false;
      if (answer.status >= 200 && answer.status < 300 && !refusedInBody) return { status: answer.status, error: null };
      // Already gone (someone deleted it meanwhile): what undo wanted is true.
      if (answer.status === 404 || answer.status === 410 || ALREADY_GONE.has(String(valueAt(value, 'error')))) return { status: answer.status, error: null };
      const detail = String(valueAt(value, 'error') ?? valueAt(value, 'message') ?? answer.body.toString('utf8').slice(0, 200));
      return { status: answer.status, error: `${service.name} refused ${inverse.method} ${inverse.path} (HTTP ${answer.status}): ${redactor.text(detail)}` };
    } catch (error) {
      const message = error instanceof CredentialMissing ? error.message : `${service.name} could not be reached: ${error instanceof Error ? error.message : String(error)}`;
      return { status: 0, error: redactor.text(message) };
    }
  }
}
