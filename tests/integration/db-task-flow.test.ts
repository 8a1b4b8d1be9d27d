// "Tried as a new user would": a task on a copy of a shop database, driven by a scripted model through the
// real services — it adds a table, migrates data into it, updates prices and deletes old orders; each step
// is undone and redone from the timeline, and after undoing all of it the dump is identical to the
// original. On SQLite and on PostgreSQL. Plus the prompt (schema, no rows), approvals, and the gateway path.
import Database from 'better-sqlite3';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Action } from '../../shared/domain';
import { Vault } from '../../main/vault/vault';
import { startHarness, type Harness } from '../support/services-harness';
import { createPgDatabase, createSqliteShop, sqliteFileDump, fillPgShop, PG_PASSWORD, PG_SHOP, pgDump, type PgTestDb } from '../support/shop-db';
import { tempDirs } from '../support/temp-dir';
import { createMyDatabase, MY_PASSWORD, type MyTestDb } from '../support/mysql-db';
import { describeReversePlan } from '../../shared/undo/reverse-plan';

const dirs = tempDirs();
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  dirs.cleanup();
});

/** A keychain stand-in: this test is about databases; the real keychain has its own tests. */
function memoryVault(): Vault {
  const secrets = new Map<string, string>();
  return new Vault('dev.posthoc.test', async () => ({
    getPassword: async (_s, a) => secrets.get(a) ?? null,
    setPassword: async (_s, a, p) => void secrets.set(a, p),
    deletePassword: async (_s, a) => secrets.delete(a),
    findCredentials: async () => [...secrets].map(([account, password]) => ({ account, password })),
  }));
}

const sql = (body: string, name = '') => `\`\`\`sql${name ? ` ${name}` : ''}\n${body}\n\`\`\``;

const SQLITE_STEPS = [
  sql(`CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
INSERT INTO categories (name) SELECT DISTINCT CASE WHEN sku LIKE 'TEA%' THEN 'drinks' ELSE 'kitchen' END FROM products;
ALTER TABLE products ADD COLUMN category_id INTEGER REFERENCES categories(id);
UPDATE products SET category_id = (SELECT id FROM categories WHERE name = CASE WHEN products.sku LIKE 'TEA%' THEN 'drinks' ELSE 'kitchen' END);`),
  sql("UPDATE products SET price_cents = price_cents * 110 / 100 WHERE sku <> 'OLD-1';"),
  sql("DELETE FROM orders WHERE placed_at < '2023-01-01';"),
];

const PG_STEPS = [
  sql(`CREATE TABLE categories (id serial PRIMARY KEY, name text NOT NULL UNIQUE);
INSERT INTO categories (name) SELECT DISTINCT CASE WHEN sku LIKE 'TEA%' THEN 'drinks' ELSE 'kitchen' END FROM products ORDER BY 1;
ALTER TABLE products ADD COLUMN category_id integer REFERENCES categories(id);
UPDATE products SET category_id = (SELECT id FROM categories WHERE name = CASE WHEN products.sku LIKE 'TEA%' THEN 'drinks' ELSE 'kitchen' END);`, 'shop'),
  sql("UPDATE products SET price = round(price * 1.1, 2) WHERE sku <> 'OLD-1';", 'shop'),
  sql("DELETE FROM orders WHERE placed_at < '2023-01-01';", 'shop'),
];

async function runShopTask(steps: string[], databases: NonNullable<Parameters<Harness['services']['tasks']['start']>[0]['databases']>, vault?: Vault): Promise<Action[]> {
  harness = await startHarness([...steps, 'Done: categories added, prices raised by 10%, orders before 2023 deleted.'], { vault });
  const { services } = harness;
  const started = await services.tasks.start({ prompt: 'Tidy up the shop database', workspaces: [], databases });
  const task = await services.tasks.wait(started.id);
  expect(task.error).toBeNull();
  expect(task.status).toBe('done');
  const actions = services.tasks.get(task.id).actions;
  expect(actions.map((a) => [a.kind, a.language, a.status])).toEqual(steps.map(() => ['sql', 'sql', 'done']));
  return actions;
}

/**
 * Each step undone and redone from the timeline (newest first, as later steps changed the same rows), an
 * earlier step refused while later ones stand, then all of it undone: the dump must match at every point.
 */
async function undoRedoEveryStep(actions: Action[], dump: () => Promise<string>, original: string): Promise<void> {
  const { services } = harness!;
  const taskId = actions[0]!.taskId;
  const final = await dump();
  const timeline = services.undoViews.timeline(taskId);
  expect(timeline.entries.filter((e) => e.kind === 'action').map((e) => e.kind === 'action' && e.undo.possible)).toEqual([true, true, true]);

  const refused = await services.undo.undo(actions[0]!.id);
  expect(refused).toMatchObject({ outcome: 'conflict', canRewind: true });
  expect(await dump()).toBe(final);

  for (let k = actions.length - 1; k >= 0; k--) {
    const down = actions.slice(k).reverse();
    for (const action of down) {
      const undo = await services.undo.undo(action.id);
      expect(undo.outcome === 'conflict' ? `#${action.seq} ${undo.message}` : undo.outcome).toBe('undone');
      expect(services.store.getAction(action.id)!.status).toBe('undone');
    }
    if (k === 0) expect(await dump()).toBe(original);
    for (const action of [...down].reverse()) {
      const redo = await services.undo.redo(action.id);
      expect(redo.outcome === 'conflict' ? `#${action.seq} ${redo.message}` : redo.outcome).toBe('redone');
    }
    expect(await dump()).toBe(final);
  }
  expect(await services.undo.rewind(actions[0]!.id)).toMatchObject({ outcome: 'rewound' });
  expect(await dump()).toBe(original);
}

describe('a shop task on SQLite, as a new user would', () => {
  it('runs the migration, price update and cleanup; every step undoes and redoes; the dump ends identical', async () => {
    const master = join(dirs.make('posthoc-shop-'), 'shop.db');
    createSqliteShop(master);
    const copy = join(dirs.make('posthoc-copy-'), 'shop-copy.db');
    copyFileSync(master, copy);
    const dump = async () => sqliteFileDump(copy);
    const original = await dump();
    const actions = await runShopTask(SQLITE_STEPS, [{ name: 'shop', url: `sqlite:${copy}` }]);

    const prompt = harness!.llm.requests[0]!.messages[0]!.content;
    expect(prompt).toContain('Database "shop" (SQLite; allows queries, row changes');
    expect(prompt).toContain('price_cents INTEGER NOT NULL');
    expect(prompt).toContain('foreign key (customer_id) → customers(id) ON DELETE CASCADE');
    expect(prompt).toContain('table customers (3 rows)');
    expect(prompt).not.toContain('Zoë');
    const observation = harness!.llm.requests[2]!.messages.at(-1)!.content;
    expect(observation).toMatch(/UPDATE: 3 rows changed in shop/);
    expect(actions[0]!.effects[0]).toMatchObject({ channel: 'db', undo: { kind: 'snapshot' } });
    expect(describeReversePlan(actions[2]!.reverse, actions[2]!.kind)).toMatch(/^Run \d+ compensating statements on shop/);
    expect(actions[2]!.confinement.level).toBe('reversible');

    await undoRedoEveryStep(actions, dump, original);
  });
});

describe('a shop task on PostgreSQL, as a new user would', () => {
  let db: PgTestDb;
  let other: pg.Client;
  beforeAll(async () => {
    db = await createPgDatabase();
    other = await db.connect();
    await other.query(PG_SHOP);
    await fillPgShop(other);
  });
  afterAll(async () => {
    await other.end();
    await db.drop();
  });

  it('runs the same task; every step undoes and redoes; the dump ends identical; the password never lands in the store', async () => {
    const original = await pgDump(other);
    const url = new URL(db.url);
    url.password = PG_PASSWORD;
    const vault = memoryVault();
    const actions = await runShopTask(PG_STEPS, [{ name: 'shop', url: url.toString() }], vault);
    const task = harness!.services.tasks.get(actions[0]!.taskId).task;
    expect(task.databases![0]).toMatchObject({ engine: 'postgres', location: db.url, passwordSecret: `db-password ${db.url}` });
    expect(await vault.get(`db-password ${db.url}`)).toBe(PG_PASSWORD);
    const stored = harness!.services.db.prepare("SELECT group_concat(databases_json) || group_concat(data_json) FROM tasks, effects").pluck().get() as string;
    expect(stored).not.toContain(PG_PASSWORD);
    expect(JSON.stringify(harness!.llm.requests)).not.toContain(PG_PASSWORD);
    expect(actions[0]!.effects[0]).toMatchObject({ channel: 'db', undo: { kind: 'rows', statements: expect.arrayContaining([expect.stringMatching(/^ALTER TABLE "public"."products" DROP COLUMN "category_id"/)]) } });

    await undoRedoEveryStep(actions, () => pgDump(other), original);
  });
});

describe('approval and the gateway path', () => {
  it('holds an action over the rows limit until approved, then runs it; a rejected one changes nothing', async () => {
    const file = join(dirs.make('posthoc-shop-'), 'shop.db');
    createSqliteShop(file);
    harness = await startHarness([sql("UPDATE products SET name = name || ' (sale)';"), sql('UPDATE products SET weight = 1;'), 'ok'], {});
    const { services } = harness;
    const waiting: Action[] = [];
    services.events.subscribe((event, payload) => {
      if (event === 'action:updated' && (payload as Action).status === 'awaiting-approval') {
        const a = payload as Action;
        waiting.push(a);
        if (waiting.length === 1) services.sqlActions.approve(a.id);
        else services.sqlActions.reject(a.id);
      }
    });
    const started = await services.tasks.start({ prompt: 'x', workspaces: [], databases: [{ name: 'shop', url: file, maxRowsAffected: 2 }] });
    const task = await services.tasks.wait(started.id);
    const [first, second] = services.tasks.get(task.id).actions;
    expect(first).toMatchObject({ status: 'done', effects: [{ rowsAffected: 4 }] });
    expect(waiting.map((a) => a.id)).toEqual([first!.id, second!.id]);
    expect(waiting[0]!.output.stderr).toMatch(/would change 4 rows/);
    expect(second).toMatchObject({ status: 'failed' });
    expect(describeReversePlan(second!.reverse, second!.kind)).toBe('Nothing to undo: no row or table changed.');
    expect(second!.output.stderr).toMatch(/The person declined this action; nothing was changed/);
    expect(harness.llm.requests[2]!.messages.at(-1)!.content).toMatch(/declined/);
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM products WHERE weight = 1').pluck().get()).toBe(0);
    db.close();
    expect(() => services.sqlActions.approve(second!.id)).toThrow(/nothing to approve/);
  });

  it('answers the sandbox at /db/NAME/query for granted databases only, recording the effect on the action', async () => {
    const file = join(dirs.make('posthoc-shop-'), 'shop.db');
    createSqliteShop(file);
    harness = await startHarness(['Nothing to do.'], {});
    const { services } = harness;
    const started = await services.tasks.start({ prompt: 'x', workspaces: [], databases: [{ name: 'shop', url: `sqlite:${file}` }] });
    const task = services.tasks.get(started.id).task;
    const detach = services.tasks.databases!.attach(task, 10_000);
    const handleDbGatewayRequest = services.tasks.databases!.gatewayRoute.handle.bind(services.tasks.databases!.gatewayRoute);
    try {
      const effects: unknown[] = [];
      const ctx = { taskId: task.id, actionId: 'a-1', recordEffect: (e: unknown) => effects.push(e) };
      const ok = await handleDbGatewayRequest(ctx, 'shop', { sql: 'SELECT name FROM customers WHERE id = ?', params: [2] });
      expect(ok).toEqual({ status: 200, body: expect.objectContaining({ columns: ['name'], rows: [['李小龍']], rowCount: 1 }) });
      const write = await handleDbGatewayRequest(ctx, 'shop', JSON.stringify({ sql: "UPDATE customers SET note = 'via gateway' WHERE id = 1" }));
      expect(write).toMatchObject({ status: 200, body: { rowsAffected: 1 } });
      expect(effects).toHaveLength(2);
      expect(effects[1]).toMatchObject({ channel: 'db', via: 'gateway', undo: { kind: 'rows' } });
      const refused = await handleDbGatewayRequest(ctx, 'crm', { sql: 'SELECT 1' });
      expect(refused).toEqual({ status: 403, body: { error: expect.stringMatching(/"crm" is not granted to this task\. Granted: shop/) } });
      expect((await handleDbGatewayRequest(ctx, 'shop', { query: 'x' })).status).toBe(400);
      // Code gets every row; the card keeps the first 50.
      const many = await handleDbGatewayRequest(ctx, 'shop', { sql: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120) SELECT i FROM n' });
      expect(many).toMatchObject({ status: 200, body: { rowCount: 120, truncated: false } });
      expect((many.body as { rows: string[][] }).rows.map((r) => r[0])).toEqual(Array.from({ length: 120 }, (_, i) => String(i + 1)));
      expect((effects.at(-1) as { statements: Array<{ result: { rows: unknown[] } }> }).statements[0]!.result.rows).toHaveLength(50);
      await services.databases.undo(effects[1] as never);
      expect(effects).toHaveLength(3);
    } finally {
      detach();
    }
    const gone = await services.tasks.databases!.gatewayRoute.handle({ taskId: task.id, actionId: 'a-2', recordEffect: () => undefined }, 'shop', { sql: 'SELECT 1' });
    expect(gone.status).toBe(403);
  });
});

describe('code in the sandbox, through the gateway', () => {
  it('reads and changes a granted database from Python; the change is on the action and undo takes it back', async () => {
    const file = join(dirs.make('posthoc-shop-'), 'shop.db');
    createSqliteShop(file);
    const dump = () => sqliteFileDump(file);
    const original = dump();
    const code = [
      '```python',
      'import os, requests',
      "base = os.environ['POSTHOC_GATEWAY'] + '/db/'",
      "r = requests.post(base + 'shop/query', json={'sql': 'SELECT count(*) AS n FROM products WHERE price_cents > ?', 'params': [500]})",
      "print('count', r.status_code, r.json()['rows'])",
      "w = requests.post(base + 'shop/query', json={'sql': \"UPDATE products SET name = upper(name) WHERE sku = 'TEA-1'\"})",
      "print('update', w.status_code, w.json()['rowsAffected'])",
      "x = requests.post(base + 'crm/query', json={'sql': 'SELECT 1'})",
      "print('crm', x.status_code)",
      '```',
    ].join('\n');
    harness = await startHarness([code, 'Done.']);
    const { services } = harness;
    const started = await services.tasks.start({ prompt: 'x', workspaces: [harness.workspace], databases: [{ name: 'shop', url: `sqlite:${file}` }] });
    const task = await services.tasks.wait(started.id);
    expect(task.status).toBe('done');
    const [action] = services.tasks.get(task.id).actions;
    expect(action!.output.stdout).toBe("count 200 [['2']]\nupdate 200 1\ncrm 403\n");
    expect(action!.effects.filter((e) => e.channel === 'db').map((e) => e.channel === 'db' && [e.via, e.undo.kind, e.rowsAffected])).toEqual([
      ['gateway', 'none', 0],
      ['gateway', 'rows', 1],
    ]);
    expect(action!.reverse.steps).toEqual(expect.arrayContaining([expect.objectContaining({ channel: 'db', database: 'shop', kind: 'rows' })]));
    expect(action!.confinement.level).toBe('reversible');
    expect(dump()).not.toBe(original);
    expect(await services.undo.undo(action!.id)).toMatchObject({ outcome: 'undone' });
    expect(dump()).toBe(original);
  });
});

describe('the gateway route on MySQL/MariaDB', () => {
  let db: MyTestDb;
  beforeAll(async () => {
    db = await createMyDatabase();
    const c = await db.connect();
    await c.query('CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, note TEXT)');
    await c.query("INSERT INTO customers VALUES (1, 'Ada', NULL), (2, '李小龍', 'vip')");
    await c.end();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('answers /db/NAME/query with rows and row changes, records the effect, and undo takes the change back', async () => {
    const before = db.dump();
    const url = new URL(db.grant().location);
    url.password = MY_PASSWORD;
    harness = await startHarness(['Nothing to do.'], { vault: memoryVault() });
    const { services } = harness;
    const started = await services.tasks.start({ prompt: 'x', workspaces: [], databases: [{ name: 'shop', url: url.toString() }] });
    const task = services.tasks.get(started.id).task;
    expect(task.databases![0]).toMatchObject({ engine: 'mysql' });
    const detach = services.tasks.databases!.attach(task, 10_000);
    const route = services.tasks.databases!.gatewayRoute;
    try {
      const effects: unknown[] = [];
      const ctx = { taskId: task.id, actionId: 'a-1', recordEffect: (e: unknown) => effects.push(e) };
      const ok = await route.handle(ctx, 'shop', { sql: 'SELECT name FROM customers WHERE id = ?', params: [2] });
      expect(ok).toEqual({ status: 200, body: expect.objectContaining({ columns: ['name'], rows: [['李小龍']], rowCount: 1 }) });
      const write = await route.handle(ctx, 'shop', JSON.stringify({ sql: "UPDATE customers SET note = 'via gateway' WHERE id = 1" }));
      expect(write).toMatchObject({ status: 200, body: { rowsAffected: 1 } });
      expect(effects[1]).toMatchObject({ channel: 'db', via: 'gateway', undo: { kind: 'rows' } });
      expect(db.dump()).toMatch(/via gateway/);
      const refused = await route.handle(ctx, 'shop', { sql: 'SET sql_log_bin = 0' });
      expect(refused.status).not.toBe(200);
      await services.databases.undo(effects[1] as never);
      expect(db.dump()).toBe(before);
    } finally {
      detach();
    }
  });
});
