// After a rewind the task reads "rewound" and its plan and answer follow; a schema change and an MCP call
// that changed its service are said as what they did.
import { describe, expect, it } from 'vitest';
import type { Action, DbEffect, Effect } from '../../shared/domain';
import type { McpEffect } from '../../shared/domain/mcp';
import { schemaChangeWords } from '../../renderer/src/model/db-summary';
import { answerRewoundWords, planRewoundWords, taskState } from '../../renderer/src/model/task-state';
import { changeCount } from '../../renderer/src/model/timeline-view';
import { actionFixture } from '../support/action-fixture';

const wrote = (seq: number, status: Action['status']): Action =>
  actionFixture({ id: `a${seq}`, seq, status, effects: [{ channel: 'fs', workspace: '/w', added: [`f${seq}.txt`], modified: [], deleted: [], renamed: [] }] as unknown as Effect[] });
const query = (seq: number): Action => actionFixture({ id: `a${seq}`, seq, status: 'done' });
const plan = [1, 2, 3, 4, 5].map((n) => ({ text: `step ${n}`, done: true }));

describe('the task state', () => {
  it('reads "rewound" once every action that changed something is undone, and the plan and the answer follow', () => {
    const state = taskState({ status: 'done' }, [wrote(1, 'undone'), query(2), wrote(3, 'undone')]);
    expect(state).toMatchObject({ word: 'rewound', rewound: 'all', undoneSeqs: [1, 3], detail: 'rewound to before action 1' });
    expect(planRewoundWords(state, plan)).toBe('rewound: its 5 done steps were undone');
    expect(answerRewoundWords(state)).toMatch(/^Rewound since: what this answer describes was undone/);
  });

  it('a rewind to a later action reads "rewound" with where it went back to', () => {
    const state = taskState({ status: 'done' }, [wrote(1, 'done'), wrote(2, 'done'), wrote(3, 'undone'), wrote(4, 'undone')]);
    expect(state).toMatchObject({ word: 'rewound', rewound: 'partly', undoneSeqs: [3, 4] });
    expect(planRewoundWords(state, plan)).toBe('5 of 5 done, then rewound to before action 3');
    expect(answerRewoundWords(state)).toBe('Rewound since: actions 3 and 4 were undone, so part of what this answer describes no longer holds.');
  });

  it('keeps the status when nothing was undone, when an early action alone was, and while running', () => {
    expect(taskState({ status: 'done' }, [wrote(1, 'done'), wrote(2, 'kept')]).word).toBe('done');
    const early = taskState({ status: 'done' }, [wrote(1, 'undone'), wrote(2, 'done')]);
    expect(early).toMatchObject({ word: 'done', rewound: null });
    expect(planRewoundWords(early, plan)).toBeNull();
    expect(answerRewoundWords(early)).toBeNull();
    expect(taskState({ status: 'running' }, [wrote(1, 'undone')]).word).toBe('running');
    expect(taskState({ status: 'failed' }, [wrote(1, 'undone')]).word).toBe('rewound');
  });
});

describe('a schema change says what it changed', () => {
  it('names the column, table or index of each DDL statement', () => {
    expect(schemaChangeWords('ALTER TABLE products ADD COLUMN sku TEXT')).toBe('column products.sku added');
    expect(schemaChangeWords('alter table "order items" drop column note')).toBe('column order items.note dropped');
    expect(schemaChangeWords('ALTER TABLE t RENAME COLUMN a TO b')).toBe('column t.a renamed to b');
    expect(schemaChangeWords('ALTER TABLE t RENAME TO u')).toBe('table t renamed to u');
    expect(schemaChangeWords('ALTER TABLE t ADD CONSTRAINT c CHECK (x > 0)')).toBe('constraint on t added');
    expect(schemaChangeWords('CREATE TABLE IF NOT EXISTS audit (id int)')).toBe('table audit created');
    expect(schemaChangeWords('CREATE UNIQUE INDEX idx_sku ON products (sku)')).toBe('index idx_sku on products created');
    expect(schemaChangeWords('DROP VIEW v')).toBe('view v dropped');
    expect(schemaChangeWords('UPDATE t SET a = 1')).toBeNull();
  });

  it('an ALTER TABLE card says the schema change, not "1 row in shop"', () => {
    const db: DbEffect = {
      channel: 'db',
      database: 'shop',
      engine: 'sqlite',
      via: 'sql',
      mode: 'capture',
      statements: [{ sql: 'ALTER TABLE products ADD COLUMN sku TEXT', kind: 'ddl', rowsAffected: null, result: null }],
      rowsAffected: 1,
      tables: ['products'],
      undo: { kind: 'snapshot', logId: 'l1', statements: [], statementCount: 0 },
      heldUntil: null,
      refused: null,
    };
    expect(changeCount(actionFixture({ kind: 'sql', language: 'sql', effects: [db] })).text).toBe('column products.sku added in shop');
    const both: DbEffect = { ...db, statements: [...db.statements, { sql: 'UPDATE products SET sku = id', kind: 'dml', rowsAffected: 3, result: null }], rowsAffected: 4 };
    expect(changeCount(actionFixture({ effects: [both] })).text).toBe('3 rows in shop, column products.sku added in shop');
  });
});

describe('an MCP call that changed its service', () => {
  const call = (over: Partial<McpEffect>): McpEffect => ({
    channel: 'mcp',
    server: 'memory',
    transport: 'stdio',
    tool: 'create_entities',
    arguments: '{}',
    result: 'ok',
    isError: false,
    durationMs: 3,
    mutating: true,
    refused: null,
    inverse: null,
    ...over,
  });

  it('counts as a change, a read-only or refused one does not', () => {
    expect(changeCount(actionFixture({ effects: [call({}), call({ tool: 'add_observations' })] })).text).toBe('2 tool calls to memory');
    expect(changeCount(actionFixture({ effects: [call({ mutating: false }), call({ refused: 'denied' }), call({ isError: true })] })).text).toBe('no changes');
  });
});
