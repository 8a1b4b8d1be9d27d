// How SQL reaches and leaves the agent: ```sql NAME blocks in replies, the prompt's database section, the
// observation and confinement of a database effect, the card's model and the new-task form's grants.
import { describe, expect, it } from 'vitest';
import type { Action, DbEffect } from '../../shared/domain';
import { describeObservation } from '../../main/agent/agent-loop';
import { parseReply } from '../../main/agent/codeact-parser';
import { systemPrompt } from '../../main/agent/system-prompt';
import { confinementOf } from '../../main/policy/confinement';
import { dbEffectsOf } from '../../main/effects/db/databases-undo-channel';
import { pickGrant } from '../../main/services/sql-action-runner';
import { canUndo, listDbEffects } from '../../renderer/src/model/action-summary';
import { toGrantInputs, emptyDatabaseRow } from '../../renderer/src/components/database-grants-fieldset';
import { sqliteGrant } from '../support/shop-db';
import { describeReversePlan, reversePlanOf } from '../../shared/undo/reverse-plan';

const effect = (patch: Partial<DbEffect> = {}): DbEffect => ({
  channel: 'db',
  database: 'shop',
  engine: 'sqlite',
  via: 'sql',
  mode: 'capture',
  statements: [{ sql: 'UPDATE products SET price = 1', kind: 'dml', rowsAffected: 3, result: null }],
  rowsAffected: 4,
  tables: ['products', 'price_history'],
  undo: { kind: 'rows', logId: 'log-1', statements: ['UPDATE "products" SET "price" = 2 WHERE "id" = 1;'], statementCount: 4 },
  heldUntil: null,
  refused: null,
  ...patch,
});

const action = (effects: DbEffect[], status: Action['status'] = 'done'): Action => {
  const fields = {
  id: 'a1',
  taskId: 't1',
  seq: 1,
  kind: 'sql',
  language: 'sql',
  source: 'UPDATE products SET price = 1',
  status,
  output: { stdout: 'UPDATE: 3 rows changed in shop\n', stderr: '', exitCode: 0, timedOut: false, truncated: false },
  effects,
  confinement: { level: 'reversible' as const, reason: '' },
  startedAt: '2025-01-01T00:00:00.000Z',
  finishedAt: '2025-01-01T00:00:01.000Z',
  undoneAt: null,
  messageId: null,
  } satisfies Omit<Action, 'reverse'>;
  return { ...fields, reverse: reversePlanOf(fields) };
};

describe('```sql blocks', () => {
  it('are actions, with the database named after the tag or left out', () => {
    const reply = 'First:\n```sql shop\nSELECT 1;\n```\nThen:\n```SQL\nSELECT 2\n```\n```postgresql crm\nSELECT 3\n```';
    expect(parseReply(reply).actions).toEqual([
      { language: 'sql', source: 'SELECT 1;', database: 'shop' },
      { language: 'sql', source: 'SELECT 2', database: null },
      { language: 'sql', source: 'SELECT 3', database: 'crm' },
    ]);
  });

  it('find their grant, or say which names exist', () => {
    const shop = sqliteGrant('/a.db');
    const crm = { ...shop, name: 'crm' };
    expect(pickGrant([shop], null)).toBe(shop);
    expect(pickGrant([shop, crm], 'crm')).toBe(crm);
    expect(pickGrant([shop, crm], null)).toMatch(/Several databases are granted \(shop, crm\)/);
    expect(pickGrant([shop], 'nope')).toMatch(/"nope" is not granted to this task. Granted: shop/);
    expect(pickGrant([], null)).toMatch(/No database is granted/);
  });
});

describe('the prompt', () => {
  it('explains sql blocks and the gateway route, and carries the schema text', () => {
    const prompt = systemPrompt([], 10, { names: ['shop'], schema: 'Database "shop" (SQLite; …):\n  table products (4 rows)' });
    expect(prompt).toContain('```sql (or ```sql shop)');
    expect(prompt).toContain('$POSTHOC_GATEWAY/db/NAME/query');
    expect(prompt).toContain('table products (4 rows)');
    expect(systemPrompt([], 10)).not.toContain('Databases:');
  });
});

describe('a database effect', () => {
  it('is reversible with its reason, and the model reads what changed', () => {
    expect(confinementOf({ network: 'none', writableMountsCheckpointed: true, checkpointsTaken: true }, [effect()])).toEqual({
      level: 'reversible',
      reason: 'Changed 4 rows of shop: restored exactly by undo from before-images captured while the SQL ran.',
    });
    const held = effect({ undo: { kind: 'held', logId: 'x', statements: ['ROLLBACK TO SAVEPOINT p'], statementCount: 1 }, heldUntil: '2025-01-01T01:00:00.000Z' });
    expect(confinementOf({ network: 'none', writableMountsCheckpointed: true, checkpointsTaken: true }, [held]).reason).toMatch(/held in an open transaction on shop/);
    const query = effect({ rowsAffected: 0, tables: [], undo: { kind: 'none', logId: null, statements: [], statementCount: 0 } });
    expect(confinementOf({ network: 'none', writableMountsCheckpointed: true, checkpointsTaken: true }, [query]).reason).toBe('Changed nothing in shop: there is nothing to undo.');
    expect(describeObservation(action([effect()]))).toContain('database shop: 4 row(s) changed in products, price_history');
  });

  it('gives the reverse plan its db step and words, and the card an Undo button', () => {
    const a = action([effect()]);
    expect(a.reverse).toEqual({
      state: 'ready',
      folders: 0,
      steps: [{ channel: 'db', database: 'shop', kind: 'rows', statements: ['UPDATE "products" SET "price" = 2 WHERE "id" = 1;'], statementCount: 4, tables: ['products', 'price_history'] }],
      irreversible: [],
      takenBack: [],
    });
    expect(describeReversePlan(a.reverse, a.kind)).toBe('Run 4 compensating statements on shop (products, price_history), after checking that nothing changed them since.');
    expect(canUndo(a)).toBe(true);
    expect(listDbEffects(a.effects)).toHaveLength(1);
    const query = action([effect({ undo: { kind: 'none', logId: null, statements: [], statementCount: 0 } })]);
    expect(canUndo(query)).toBe(false);
    expect(canUndo(action([effect()], 'awaiting-approval'))).toBe(false);
  });

  it('is undone once per held transaction savepoint, and not at all when nothing changed', () => {
    const held = effect({ via: 'gateway', undo: { kind: 'held', logId: 't/shop#a1', statements: [], statementCount: 1 } });
    const none = effect({ undo: { kind: 'none', logId: null, statements: [], statementCount: 0 } });
    expect(dbEffectsOf(action([held, { ...held, rowsAffected: 2 }, none, effect()]))).toEqual([held, effect()]);
  });
});

describe('the new-task form', () => {
  it('sends grants for rows with a location, a bare path as sqlite:, settings as chosen', () => {
    const rows = [
      { ...emptyDatabaseRow(0), name: 'shop', url: '/data/shop.db', ddl: false, maxRows: '50' },
      { ...emptyDatabaseRow(1), name: 'crm', url: 'postgres://me@h/crm', password: 'pw', readOnly: true, held: true },
      emptyDatabaseRow(2),
      { ...emptyDatabaseRow(3), name: 'legacy', url: 'mysql://me@h/shop' },
    ];
    expect(toGrantInputs(rows)).toEqual([
      { name: 'shop', url: 'sqlite:/data/shop.db', readOnly: false, statements: ['query', 'dml'], sampleRows: false, maxRowsAffected: 50, mode: 'capture' },
      { name: 'crm', url: 'postgres://me@h/crm', password: 'pw', readOnly: true, statements: ['query'], sampleRows: false, maxRowsAffected: 1000, mode: 'held' },
      // A URL goes as written, for main to read by its scheme — never as sqlite:mysql://….
      { name: 'legacy', url: 'mysql://me@h/shop', readOnly: false, statements: ['query', 'dml', 'ddl'], sampleRows: false, maxRowsAffected: 1000, mode: 'capture' },
    ]);
  });
});
