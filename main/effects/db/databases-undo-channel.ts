// The databases channel behind the undo saga's interface (shared/undo/channel.ts). Each effect is reverted in a transaction of its own that completes or changes
// nothing; if a later one (or another channel) is refused, the ones already done are put back.
import { effectsOf } from '../../../shared/channels/registry';
import type { Action, DbEffect, UndoBlocker } from '../../../shared/domain';
import { KeepRefused, StepRefused, type ApplyResult, type ChannelStep, type UndoChannel, type UndoJob } from '../../../shared/undo/channel';
import type { DbChannel } from './db-channel';
import { DbConflict, DbRefusal } from './db-errors';

export type DatabaseUndo = Pick<DbChannel, 'undo' | 'redo' | 'keep' | 'conflicts'>;

export function dbEffectsOf(action: Action): DbEffect[] {
  const held = new Set<string>();
  return effectsOf(action.effects, 'db').filter((e) => {
    if (e.undo.kind === 'none' || e.refused !== null) return false;
    // Several requests of one action in a held transaction roll back (or commit) together, once.
    if (e.undo.kind !== 'held') return true;
    if (held.has(e.undo.logId!)) return false;
    held.add(e.undo.logId!);
    return true;
  });
}

/**
 * The databases channel behind the undo saga's interface. Effects are reverted in the job's order (undo:
 * newest action first, and each action's effects newest first), each in a transaction of its own that
 * completes or changes nothing; compensate reverts the done ones the other way, newest first.
 */
export class DatabasesUndoChannel implements UndoChannel {
  readonly name = 'db' as const;
  readonly leavesMachine = false;

  constructor(private readonly db: DatabaseUndo | undefined) {}

  async session<T>(job: UndoJob, body: (step: ChannelStep | null) => Promise<T>): Promise<T> {
    const effects = job.actions.flatMap((a) => (job.direction === 'undo' ? [...dbEffectsOf(a)].reverse() : dbEffectsOf(a)));
    return body(effects.length === 0 ? null : new DatabasesStep(this.db, job, effects));
  }

  // No preview: the check is a dry run of the whole undo (every row, rolled back), too costly for every read of
  // the timeline (a million-row action takes seconds); a database's refusal shows when undo is asked for.

  /** Keep releases what the action's database effects hold; a held transaction commits as a whole, so its other actions become final too. */
  async keep(action: Action): Promise<string[]> {
    const effects = dbEffectsOf(action);
    if (effects.length === 0 || !this.db) return [];
    const others = new Set<string>();
    for (const e of effects) {
      try {
        for (const id of await this.db.keep(e)) if (id !== action.id) others.add(id);
      } catch (error) {
        if (error instanceof DbRefusal) throw new KeepRefused(error.message);
        throw error;
      }
    }
    return [...others];
  }
}

class DatabasesStep implements ChannelStep {
  private readonly done: DbEffect[] = [];

  constructor(
    private readonly db: DatabaseUndo | undefined,
    private readonly job: UndoJob,
    private readonly effects: DbEffect[],
  ) {}

  /**
   * The first effect on each database is checked against the database as it is now; the ones after it
   * depend on it being reverted first, so they are checked by their own transaction when applied (still
   * before anything leaves the machine).
   */
  async check(): Promise<UndoBlocker[]> {
    const db = this.db;
    if (!db) {
      return [blocker('databases', 'this Posthoc was built without database support, so database changes cannot be undone here')];
    }
    const out: UndoBlocker[] = [];
    const seen = new Set<string>();
    for (const effect of this.effects) {
      if (this.job.direction === 'redo' && effect.undo.kind === 'held') {
        out.push(blocker(effect.database, 'a rolled-back held transaction cannot be redone; run the action again'));
        continue;
      }
      if (seen.has(effect.database)) continue;
      seen.add(effect.database);
      try {
        for (const item of await db.conflicts(effect, this.job.direction)) out.push(blocker(`${effect.database}: ${item}`, item));
      } catch (error) {
        if (error instanceof DbRefusal) out.push(blocker(effect.database, error.message));
        else throw error;
      }
    }
    return out;
  }

  async apply(): Promise<ApplyResult> {
    const db = this.db!;
    const restored: string[] = [];
    for (const effect of this.effects) {
      try {
        const r = this.job.direction === 'undo' ? await db.undo(effect) : await db.redo(effect);
        restored.push(...r.restored);
        this.done.push(effect);
      } catch (error) {
        await this.compensate().catch((again: unknown) => {
          throw new Error(
            `The ${this.job.direction} of ${effect.database} failed and putting back what was already ${this.job.direction === 'undo' ? 'undone' : 'redone'} failed too (${String(again)}); check the database.`,
          );
        });
        if (error instanceof DbConflict) throw new StepRefused(error.items.map((item) => blocker(`${effect.database}: ${item}`, item)));
        if (error instanceof DbRefusal) throw new StepRefused([blocker(effect.database, error.message)]);
        throw error;
      }
    }
    return { ok: true, report: { items: restored.map((r) => `${r} put back`), restored, removed: [], notRestored: [], refs: [] } };
  }

  async compensate(): Promise<void> {
    const db = this.db!;
    while (this.done.length > 0) {
      const e = this.done.at(-1)!;
      await (this.job.direction === 'undo' ? db.redo(e) : db.undo(e));
      this.done.pop();
    }
  }
}

function blocker(path: string, reason: string): UndoBlocker {
  return { path, by: 'content', actionId: null, actionSeq: null, taskTitle: null, channel: 'db', reason };
}
