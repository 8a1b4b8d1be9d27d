// The databases' part of undo, redo, rewind and keep, for the undo service. Database effects go first,
// each in a transaction of its own that completes or changes nothing; if a later one (or the files) is
// refused, the ones already done are put back, so an undo is never half-applied.
import { assertNever, type Action, type DbEffect, type UndoBlocker } from '../../shared/domain';
import type { DbChannel } from '../effects/db/db-channel';
import { DbConflict, DbRefusal } from '../effects/db/db-errors';
import { ServiceError } from './service-error';

export type DatabaseUndo = Pick<DbChannel, 'undo' | 'redo' | 'keep'>;

export type DatabaseStep =
  | { ok: true; restored: string[]; compensate(): Promise<void> }
  | { ok: false; blockers: UndoBlocker[]; message: string; canRewind: boolean };

const NOTHING: DatabaseStep = { ok: true, restored: [], compensate: async () => undefined };

export function dbEffectsOf(action: Action): DbEffect[] {
  const out: DbEffect[] = [];
  const held = new Set<string>();
  for (const e of action.effects) {
    switch (e.channel) {
      case 'db':
        if (e.undo.kind === 'none' || e.refused !== null) break;
        // Several requests of one action in a held transaction roll back (or commit) together, once.
        if (e.undo.kind === 'held') {
          if (held.has(e.undo.logId!)) break;
          held.add(e.undo.logId!);
        }
        out.push(e);
        break;
      case 'fs':
      case 'rest':
        break;
      default:
        assertNever(e, 'effect');
    }
  }
  return out;
}

/**
 * Undoes (or redoes) the database effects of `actions`, in the order given (undo: newest action first, and
 * each action's effects newest first). `later` are the task's applied actions after them: if one of them
 * changed the same database, a rewind may get past a conflict.
 */
export async function revertDatabases(db: DatabaseUndo | undefined, actions: Action[], direction: 'undo' | 'redo', later: Action[] = []): Promise<DatabaseStep> {
  const effects = actions.flatMap((a) => (direction === 'undo' ? [...dbEffectsOf(a)].reverse() : dbEffectsOf(a)));
  if (effects.length === 0) return NOTHING;
  if (!db) throw new ServiceError('unavailable', 'This Posthoc was built without database support, so database changes cannot be undone here.');
  const done: DbEffect[] = [];
  const restored: string[] = [];
  const compensate = async () => {
    for (const e of [...done].reverse()) await (direction === 'undo' ? db.redo(e) : db.undo(e));
  };
  for (const effect of effects) {
    try {
      const r = direction === 'undo' ? await db.undo(effect) : await db.redo(effect);
      restored.push(...r.restored);
      done.push(effect);
    } catch (error) {
      await compensate().catch((again: unknown) => {
        throw new ServiceError('internal', `The ${direction} of ${effect.database} failed and putting back what was already ${direction === 'undo' ? 'undone' : 'redone'} failed too (${String(again)}); check the database.`);
      });
      if (error instanceof DbConflict) {
        const canRewind = later.some((a) => a.effects.some((e) => e.channel === 'db' && e.database === effect.database));
        return {
          ok: false,
          message: error.message,
          canRewind: direction === 'undo' && canRewind,
          blockers: error.items.map((item) => ({ path: `${effect.database}: ${item}`, by: 'content', actionId: null, actionSeq: null, taskTitle: null })),
        };
      }
      if (error instanceof DbRefusal) throw new ServiceError('conflict', error.message);
      throw error;
    }
  }
  return { ok: true, restored, compensate };
}

/** Keep: releases what the database effects hold. Returns ids of other actions a held transaction committed with it. */
export async function keepDatabases(db: DatabaseUndo | undefined, action: Action): Promise<string[]> {
  const effects = dbEffectsOf(action);
  if (effects.length === 0 || !db) return [];
  const others = new Set<string>();
  for (const e of effects) {
    try {
      for (const id of await db.keep(e)) if (id !== action.id) others.add(id);
    } catch (error) {
      if (error instanceof DbRefusal) throw new ServiceError('conflict', error.message);
      throw error;
    }
  }
  return [...others];
}
