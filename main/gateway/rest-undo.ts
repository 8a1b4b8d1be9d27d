// Undo for the REST channel: each recorded inverse call is sent, newest first, through the same door as
// the forward calls (ServiceCaller: the service's credentials, refreshed on 401, redacted). A provider
// may refuse an inverse (the token lost its scope, the object cannot be deleted): that is why such calls
// are "compensable", and the refusal is reported with the provider's own words.
//
// `ServicesUndoChannel` puts this behind the undo saga's interface, as the remote-inverses channel
// (shared/undo/remote-inverses-channel.ts) the tools channel shares. Its calls leave the machine, so the
// saga sends them last, after every channel was checked and the local ones applied; what was sent is marked on its effect (`undone`) and never sent twice.
import { effectsOf } from '../../shared/channels/registry';
import { isTakenBack, restCallName } from '../../shared/channels/services/spec';
import type { Action, RestEffect } from '../../shared/domain';
import { RemoteInversesChannel, type InverseDoor, type RemoteCalls } from '../../shared/undo/remote-inverses-channel';
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

/** What the services channel needs from the door to services. */
export type RestUndoPort = {
  undo(action: Action): Promise<RestUndoOutcome>;
  /** Why `inverse` could not be sent now (the service is no longer defined …), without sending it; null if it could. */
  check?(inverse: RestInverse): Promise<string | null>;
};

export class RestUndo implements RestUndoPort {
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

  async check(inverse: RestInverse): Promise<string | null> {
    if (!this.registry.get(inverse.service)) return `the service "${inverse.service}" is no longer defined; add it again, then undo`;
    return null;
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

/** The service calls of an action, in recorded order. */
export function serviceCallsOf(action: Action): RestEffect[] {
  return effectsOf(action.effects, 'rest');
}

/** Calls whose inverse undo already sent: redo cannot send the originals again. */
export function takenBack(action: Action): RestEffect[] {
  return serviceCallsOf(action).filter(isTakenBack);
}

export const callName = restCallName;

/** How the services channel finds and names its calls (the inverse of each is a recorded REST call). */
const SERVICE_CALLS: RemoteCalls<RestEffect> = {
  channel: 'rest',
  pending: pendingInverses,
  takenBack,
  callName,
  inverseName: (e) => callName(e.inverse!),
  summary: (e) => e.inverse!.summary,
  words: {
    noDoor: 'this Posthoc was started without the services channel, so its service calls cannot be taken back here',
    noRedo: 'undo took this call back; redo cannot send service calls again (ask the agent to do it again instead)',
    made: 'sent',
    redoApplied: 'A redo of taken-back service calls was applied although its check refused it.',
  },
};

/** The door to services as the remote-inverses channel makes its calls: one action's inverses at a time, saved after. */
function serviceDoor(port: RestUndoPort): InverseDoor<RestEffect> {
  return {
    check: async (effect) => (await port.check?.(effect.inverse!)) ?? null,
    takeBack: async (_taskId, action, save) => {
      const outcome = await port.undo(action);
      save();
      const made = outcome.sent.map((s) => s.effect);
      return outcome.ok ? { made, refused: null } : { made, refused: { effect: outcome.failed.effect, why: outcome.failed.result.error ?? 'the provider refused the inverse call' } };
    },
  };
}

/** The services channel: each call's recorded inverse, sent last through the door (it cannot be put back). */
export class ServicesUndoChannel extends RemoteInversesChannel<RestEffect> {
  constructor(port: RestUndoPort | undefined, save: (action: Action) => void) {
    super(SERVICE_CALLS, port && serviceDoor(port), save);
  }
}
