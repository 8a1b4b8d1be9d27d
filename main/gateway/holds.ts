// Calls the gateway keeps back before they leave: a send that can never be taken back waits out its
// window (the person may cancel until then), a call the rules hold waits for the person's approval. The
// sandbox's request stays open meanwhile, so the code gets the real answer or a refusal it can read.
import { randomUUID } from 'node:crypto';
import type { RestHold } from '../../shared/domain/connections';

export type HoldOutcome = 'release' | 'cancel' | 'abandon';

type Pending = { hold: RestHold; taskId: string; settle(outcome: HoldOutcome): void; timer: NodeJS.Timeout | null };

export class HoldError extends Error {
  constructor(
    readonly code: 'not-found' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}

export class Holds {
  private readonly pending = new Map<string, Pending>();

  /**
   * Keeps a call back until its window ends, the person approves or cancels it, or `signal` aborts
   * (the code stopped waiting). `onChange` sees the hold's state each time it changes.
   */
  wait(
    taskId: string,
    spec: { kind: RestHold['kind']; reason: string; seconds?: number },
    onChange: (hold: RestHold) => void,
    signal?: AbortSignal,
  ): Promise<HoldOutcome> {
    const id = randomUUID();
    const until = spec.kind === 'window' ? new Date(Date.now() + (spec.seconds ?? 30) * 1000).toISOString() : null;
    const hold: RestHold = { id, kind: spec.kind, reason: spec.reason, until, state: 'waiting' };
    return new Promise<HoldOutcome>((resolve) => {
      const entry: Pending = {
        hold,
        taskId,
        timer: null,
        settle: (outcome) => {
          if (!this.pending.delete(id)) return;
          if (entry.timer) clearTimeout(entry.timer);
          signal?.removeEventListener('abort', onAbort);
          hold.state = outcome === 'cancel' ? 'cancelled' : outcome === 'abandon' ? 'abandoned' : spec.kind === 'window' ? 'sent' : 'approved';
          onChange({ ...hold });
          resolve(outcome);
        },
      };
      const onAbort = () => entry.settle('abandon');
      this.pending.set(id, entry);
      if (spec.kind === 'window') entry.timer = setTimeout(() => entry.settle('release'), (spec.seconds ?? 30) * 1000);
      signal?.addEventListener('abort', onAbort, { once: true });
      onChange({ ...hold });
      if (signal?.aborted) onAbort();
    });
  }

  /** The person's Cancel: the call never leaves. */
  cancel(id: string): RestHold {
    return this.decide(id, 'cancel');
  }

  /** The person's approval, or "send now" for a window. */
  approve(id: string): RestHold {
    return this.decide(id, 'release');
  }

  /** Every hold of a task, for the task's end or the gateway's close. */
  abandonTask(taskId: string): void {
    for (const entry of [...this.pending.values()]) if (entry.taskId === taskId) entry.settle('abandon');
  }

  abandonAll(): void {
    for (const entry of [...this.pending.values()]) entry.settle('abandon');
  }

  waiting(): RestHold[] {
    return [...this.pending.values()].map((p) => ({ ...p.hold }));
  }

  private decide(id: string, outcome: HoldOutcome): RestHold {
    const entry = this.pending.get(id);
    if (!entry) {
      throw new HoldError('not-found', 'That call is no longer held: it already left, was cancelled, or its action ended.');
    }
    entry.settle(outcome);
    return { ...entry.hold };
  }
}
