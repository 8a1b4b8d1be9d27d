// The undo saga's channel for effects undone by a recorded inverse call made elsewhere: service calls
// ('rest', main/gateway/rest-undo.ts) and MCP tool calls ('mcp', main/effects/mcp/mcp-undo-channel.ts).
// What they share lives here, once: undo makes each pending inverse, newest first; a refusal stops it and
// is reported with what already went through (never made twice: the port marks each effect `undone`);
// redo of a call undo took back is refused (it cannot be made again); a missing door or a call whose
// target is gone refuses in the check. What differs is a small port: how an action's pending and
// taken-back calls are found and named, and how an inverse call is made.
//
// Pure logic over types (no I/O of its own), so the gateway and the effects layers, which may not import
// each other, both build their channel on it.
import type { Action, UndoBlocker } from '../domain';
import type { ApplyResult, ChannelStep, StepReport, UndoChannel, UndoJob } from './channel';

/** How a remote channel's calls are found in an action and named; no I/O. */
export type RemoteCalls<E> = {
  readonly channel: 'rest' | 'mcp';
  /** The calls of an action undo must take back, newest first. */
  pending(action: Action): E[];
  /** The calls of an action undo already took back (redo cannot make them again). */
  takenBack(action: Action): E[];
  /** The call itself ("POST svc/slack/chat.postMessage"), for a redo's blocker. */
  callName(effect: E): string;
  /** Its inverse ("POST svc/slack/chat.delete"), for blockers and the report. */
  inverseName(effect: E): string;
  /** The inverse in the person's words ("Delete the message 17.01 in C1"). */
  summary(effect: E): string;
  words: {
    /** Why nothing can be taken back when this Posthoc was started without the door. */
    noDoor: string;
    /** Why a redo of a taken-back call is refused. */
    noRedo: string;
    /** The report's verb for an inverse that went through ("sent", "called"). */
    made: string;
    /** The error thrown if a refused redo were applied anyway. */
    redoApplied: string;
  };
};

/** Makes the inverse calls: the door to services or the MCP hub. */
export type InverseDoor<E> = {
  /** Why `effect`'s inverse cannot be made now (its service or server is no longer defined), without making it; null if it can. */
  check(effect: E): Promise<string | null>;
  /**
   * Makes the inverse of each of the action's pending calls, newest first, marking each effect `undone` and
   * saving through `save`; stops at the first refused. `made`: the calls whose inverse went through.
   */
  takeBack(taskId: string, action: Action, save: () => void): Promise<{ made: E[]; refused: { effect: E; why: string } | null }>;
  /** Closes what the undo opened for the task (after the session). */
  release?(taskId: string): Promise<void>;
};

export class RemoteInversesChannel<E> implements UndoChannel {
  readonly name: 'rest' | 'mcp';
  readonly leavesMachine = true;

  constructor(
    private readonly calls: RemoteCalls<E>,
    /** Absent when this Posthoc was started without the channel: its calls refuse in the check. */
    private readonly door: InverseDoor<E> | undefined,
    /** Saves the action's effects after its calls (what was taken back, what the other side answered). */
    private readonly save: (action: Action) => void,
  ) {
    this.name = calls.channel;
  }

  async session<T>(job: UndoJob, body: (step: ChannelStep | null) => Promise<T>): Promise<T> {
    if (job.direction === 'redo') {
      const gone = job.actions.flatMap((a) => this.calls.takenBack(a));
      return body(gone.length === 0 ? null : new RedoRefused(this.calls, gone));
    }
    const actions = job.actions.filter((a) => this.calls.pending(a).length > 0);
    if (actions.length === 0) return body(null);
    try {
      return await body(new MakeInverses(this.calls, this.door, this.save, job.taskId, actions));
    } finally {
      await this.door?.release?.(job.taskId).catch(() => undefined);
    }
  }

  /**
   * Its check asks whether each call's service or server is still defined, sending nothing: the preview is the
   * check, made outside a session, so it releases nothing the door holds (an undo under way keeps its connections).
   */
  async preview(job: UndoJob): Promise<UndoBlocker[]> {
    if (job.direction === 'redo') {
      const gone = job.actions.flatMap((a) => this.calls.takenBack(a));
      return gone.length === 0 ? [] : new RedoRefused(this.calls, gone).check();
    }
    const actions = job.actions.filter((a) => this.calls.pending(a).length > 0);
    return actions.length === 0 ? [] : new MakeInverses(this.calls, this.door, this.save, job.taskId, actions).check();
  }
}

class MakeInverses<E> implements ChannelStep {
  constructor(
    private readonly calls: RemoteCalls<E>,
    private readonly door: InverseDoor<E> | undefined,
    private readonly save: (action: Action) => void,
    private readonly taskId: string,
    private readonly actions: Action[],
  ) {}

  async check(): Promise<UndoBlocker[]> {
    const { calls } = this;
    const pending = this.actions.flatMap((a) => calls.pending(a));
    if (!this.door) return pending.map((c) => blocker(calls.channel, calls.inverseName(c), calls.words.noDoor));
    const out: UndoBlocker[] = [];
    for (const c of pending) {
      const why = await this.door.check(c);
      if (why) out.push(blocker(calls.channel, calls.inverseName(c), why));
    }
    return out;
  }

  async apply(): Promise<ApplyResult> {
    const { calls } = this;
    const items: string[] = [];
    const made: string[] = [];
    const report = (): StepReport => ({ items, restored: [], removed: [], notRestored: [], refs: [], calls: made });
    for (const action of this.actions) {
      const outcome = await this.door!.takeBack(this.taskId, action, () => this.save(action));
      for (const c of outcome.made) {
        items.push(`${calls.inverseName(c)} ${calls.words.made} (${calls.summary(c)})`);
        made.push(calls.summary(c));
      }
      if (outcome.refused) {
        const { effect, why } = outcome.refused;
        return { ok: false, report: report(), refused: { what: `${calls.inverseName(effect)} (${calls.summary(effect)})`, why } };
      }
    }
    return { ok: true, report: report() };
  }

  async compensate(): Promise<void> {
    // What left the machine stays done; the saga never asks (leavesMachine), and there is nothing to do.
  }
}

class RedoRefused<E> implements ChannelStep {
  constructor(
    private readonly calls: RemoteCalls<E>,
    private readonly gone: E[],
  ) {}

  async check(): Promise<UndoBlocker[]> {
    return this.gone.map((e) => blocker(this.calls.channel, this.calls.callName(e), this.calls.words.noRedo));
  }

  async apply(): Promise<ApplyResult> {
    throw new Error(this.calls.words.redoApplied);
  }

  async compensate(): Promise<void> {}
}

function blocker(channel: 'rest' | 'mcp', path: string, reason: string): UndoBlocker {
  return { path, by: 'content', actionId: null, actionSeq: null, taskTitle: null, channel, reason };
}
