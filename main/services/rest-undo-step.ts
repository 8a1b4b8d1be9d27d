// The services' part of undo and rewind: each call an action made that has a recorded inverse is taken
// back through the gateway's credential-injecting door, newest first, before files and databases (those
// can still refuse and put themselves back; a deleted message cannot be un-deleted). A provider that
// refuses an inverse stops the undo: nothing else is touched, and the calls already taken back are
// marked on their effects so a retry does not send them twice.
import { assertNever, type Action, type RestEffect, type UndoBlocker } from '../../shared/domain';
import type { RestUndoOutcome } from '../gateway/rest-undo';
import type { TaskStore } from '../store/task-store';

export type RestUndoPort = { undo(action: Action): Promise<RestUndoOutcome> };

export type RestStep =
  | { ok: true; taken: string[] }
  | { ok: false; paths: string[]; blockers: UndoBlocker[]; canRewind: boolean; message: string };

/** The service calls of an action, by channel, switched exhaustively so a new channel is not forgotten. */
export function serviceCallsOf(action: Action): RestEffect[] {
  const out: RestEffect[] = [];
  for (const e of action.effects) {
    switch (e.channel) {
      case 'rest':
        out.push(e);
        break;
      case 'fs':
      case 'db':
        break;
      default:
        assertNever(e, 'effect');
    }
  }
  return out;
}

/** Calls whose inverse undo already sent: redo cannot send the originals again. */
export function takenBack(action: Action): RestEffect[] {
  return serviceCallsOf(action).filter((e) => e.undone && e.undone.error === null);
}

const callName = (e: { method: string; service: string; path: string }) => `${e.method} svc/${e.service}${e.path}`;

/** Sends the inverses of `actions` (already in undo order, newest first) and saves what happened on each effect. */
export async function revertServiceCalls(port: RestUndoPort | undefined, store: TaskStore, actions: Action[], what: string): Promise<RestStep> {
  const taken: string[] = [];
  for (const action of actions) {
    if (!serviceCallsOf(action).some((e) => e.inverse && !e.refused && !(e.undone && e.undone.error === null))) continue;
    if (!port) {
      return refusal(what, ['service calls'], 'this Posthoc was started without the services channel, so its service calls cannot be taken back here.');
    }
    const outcome = await port.undo(action);
    // The effects were updated in place (what was sent, what the provider answered): keep that.
    store.saveAction(action);
    taken.push(...outcome.sent.map((s) => s.effect.inverse!.summary));
    if (!outcome.ok) {
      const failed = outcome.failed.effect;
      const before = outcome.sent.length > 0 ? ` Already taken back: ${outcome.sent.map((s) => s.effect.inverse!.summary).join('; ')}.` : '';
      return refusal(
        what,
        [callName(failed.inverse!)],
        `${outcome.failed.result.error ?? 'the provider refused the inverse call'} Nothing else was undone.${before} Fix the cause (reconnect the service, check the object still exists) and undo again.`,
      );
    }
  }
  return { ok: true, taken };
}

function refusal(what: string, paths: string[], detail: string): Extract<RestStep, { ok: false }> {
  return {
    ok: false,
    paths,
    blockers: paths.map((path) => ({ path, by: 'content', actionId: null, actionSeq: null, taskTitle: null })),
    canRewind: false,
    message: `${what} stopped: ${detail}`,
  };
}
