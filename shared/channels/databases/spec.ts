// The databases channel: SQL an action ran on a granted database (a ```sql block, or the gateway's
// /db/NAME/query), with its before-images, a snapshot or a held transaction (main/effects/db). Undo runs the
// compensating statements, restores the snapshot or rolls the transaction back, after checking nothing changed since.
import { capitalize, type ChannelSpec } from '../channel-spec';
import { DatabasesStep, DbEffect } from './effect';

export const databases: ChannelSpec<typeof DbEffect, typeof DatabasesStep> = {
  id: 'db',
  label: 'databases',
  heading: 'Databases',
  effect: DbEffect,
  step: DatabasesStep,
  undo: 'local',
  checkpointed: false,
  plan(effects, action) {
    // A SQL action that failed was rolled back whole: nothing of it is left to undo.
    if (action.kind === 'sql' && action.status === 'failed') return { steps: [] };
    return {
      steps: effects.flatMap((e): DatabasesStep[] =>
        e.undo.kind === 'none' || e.refused !== null
          ? []
          : [{ channel: 'db', database: e.database, kind: e.undo.kind, statements: e.undo.statements, statementCount: e.undo.statementCount, tables: e.tables }],
      ),
    };
  },
  words(steps, { before }) {
    if (steps.length === 0) return [];
    const words = steps.map((s) => {
      if (s.kind === 'held') return `roll back the held transaction on ${s.database} to before this action`;
      if (s.kind === 'snapshot') return `restore ${s.database} from the snapshot taken before this action`;
      return `run ${s.statementCount} compensating statement${s.statementCount === 1 ? '' : 's'} on ${s.database}${s.tables.length ? ` (${s.tables.join(', ')})` : ''}`;
    });
    return [`${before > 0 ? `Then ${words.join('; ')}` : capitalize(words.join('; '))}, after checking that nothing changed them since.`];
  },
  call: () => null,
  observe: (effect) =>
    effect.refused
      ? `database ${effect.database} refused: ${effect.refused}`
      : `database ${effect.database}: ${effect.rowsAffected} row(s) changed${effect.tables.length ? ` in ${effect.tables.join(', ')}` : ''}${effect.undo.kind === 'held' ? ' (held in an open transaction until the person keeps or undoes it)' : ''}`,
  lines: (effect) =>
    effect.refused
      ? [`  db ${effect.database}: refused — ${effect.refused}`]
      : [
          `  db ${effect.database}: ${effect.rowsAffected} row(s) changed${effect.tables.length ? ` in ${effect.tables.join(', ')}` : ''}${effect.heldUntil ? ` — transaction held open until ${effect.heldUntil} (other writers wait)` : ''}`,
          ...effect.undo.statements.map((sql) => `    ↶ ${sql}`),
          ...(effect.undo.statementCount > effect.undo.statements.length ? [`    ↶ … ${effect.undo.statementCount - effect.undo.statements.length} more`] : []),
        ],
  level(effect, facts) {
    facts.databases.add(effect.database);
    // Captured before-images, a snapshot or a held transaction: every kind of db effect is undone exactly.
    if (effect.refused) return;
    facts.rowChanges += effect.rowsAffected + (effect.undo.kind === 'snapshot' ? 1 : 0);
    if (effect.undo.kind === 'held') facts.heldOn.add(effect.database);
    if (effect.undo.kind !== 'none') {
      facts.changedRows.push(`${effect.rowsAffected} ${effect.rowsAffected === 1 ? 'row' : 'rows'}${effect.undo.kind === 'snapshot' ? ' and the schema' : ''} of ${effect.database}`);
    }
  },
  tally: { noun: 'row', always: false, of: (e) => e.rowsAffected },
};
