// One action across three channels, through the built CLI as a person runs it: a ```python block in the
// real sandbox writes report.txt in the granted folder, posts to (fake) Slack through the gateway and
// inserts a row into a granted SQLite file through the gateway's /db route. Then `posthoc undo`:
//   - with report.txt edited since, it refuses (exit 3, names report.txt) and Slack receives nothing: the
//     message, the row and the edit all stay;
//   - without the edit, it takes back the file, the row and the message (chat.delete names the posted ts);
//   - when Slack refuses chat.delete, it refuses (exit 3) and the file and the row are as the action left them.
// Needs the D-Bus keychain session npm test provides (the Slack token is a secret).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack';
import { createSqliteShop, sqliteFileDump } from '../support/shop-db';
import { cliTestbed, jsonLines, runPosthoc } from '../support/posthoc-cli';

const { dirs, model } = cliTestbed();
const posthoc = runPosthoc;

const REPORT = 'Q3 report: revenue up 4%\n';
const MESSAGE = 'The Q3 report is in report.txt';

const CODE = [
  'Writing the report, telling the team, and logging it.',
  '',
  '```python',
  'import os, requests',
  "base = os.environ['POSTHOC_GATEWAY']",
  `open('report.txt', 'w').write(${JSON.stringify(REPORT)})`,
  `m = requests.post(base + '/svc/slack/chat.postMessage', json={'channel': 'C0TEAM', 'text': ${JSON.stringify(MESSAGE)}})`,
  "print('slack', m.status_code, m.json().get('ok'))",
  "r = requests.post(base + '/db/shop/query', json={'sql': 'INSERT INTO products (sku, name, price_cents) VALUES (?, ?, ?)', 'params': ['RPT-3', 'Q3 report binder', 300]})",
  "print('db', r.status_code, r.json().get('rowsAffected'))",
  '```',
].join('\n');

type Scenario = {
  slack: FakeSlack;
  ws: string;
  data: string;
  shop: string;
  actionId: string;
  /** The posted message's ts and channel, as Slack answered them. */
  posted: { ts: string; channel: string };
  /** The database as the action left it. */
  afterAction: string;
  /** The database before the action. */
  before: string;
};

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const binder = (file: string): unknown[] => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT sku, name, price_cents FROM products WHERE sku = 'RPT-3'").all();
  } finally {
    db.close();
  }
};

/** A data folder with the Slack service (its token in the keychain), then the one action, run to its end. */
async function runScenario(): Promise<Scenario> {
  const token = `xoxp-h7-${randomBytes(8).toString('hex')}`;
  const secret = `slack-h7-${randomBytes(3).toString('hex')}`;
  const slack = await startFakeSlack(token);
  cleanups.push(() => slack.close());
  const data = dirs.make('posthoc-data-');
  const ws = dirs.workspace();
  const shop = join(dirs.make('posthoc-shop-'), 'shop.db');
  createSqliteShop(shop);
  const before = sqliteFileDump(shop);

  const set = await posthoc(['secret', 'set', secret, '--data-dir', data], {}, { stdin: `${token}\n` });
  expect(set.code, set.stderr).toBe(0);
  cleanups.push(() => posthoc(['secret', 'remove', secret, '--data-dir', data]));
  const add = await posthoc(['service', 'add', 'slack', '--base-url', slack.baseUrl, '--auth', 'bearer', '--secret', secret, '--api', 'slack', '--data-dir', data]);
  expect(add.code, add.stderr).toBe(0);

  const llm = await model([CODE, 'Wrote report.txt, posted to #team and logged the binder.']);
  const run = await posthoc(['run', 'write the Q3 report, tell the team, log it', '--workspace', ws, '--service', 'slack', '--db', `shop=sqlite:${shop}`, '--data-dir', data, '--json'], {
    OPENAI_BASE_URL: llm.baseUrl,
    POSTHOC_MODEL: 'scripted',
  });
  expect(run.code, run.stderr + run.stdout).toBe(0);
  const lines = jsonLines(run.stdout);
  const actions = lines.filter((l) => l.type === 'action').map((l) => l.action as Record<string, any>);
  expect(actions).toHaveLength(1);
  const action = actions[0]!;
  expect(action.status, JSON.stringify(action.output)).toBe('done');
  expect(action.output.stdout).toBe('slack 200 True\ndb 200 1\n');

  // The three worlds as the action left them.
  expect(readFileSync(join(ws, 'report.txt'), 'utf8')).toBe(REPORT);
  expect(binder(shop)).toEqual([{ sku: 'RPT-3', name: 'Q3 report binder', price_cents: 300 }]);
  expect(slack.messages).toEqual([{ channel: 'C0TEAM', ts: expect.any(String), text: MESSAGE, deleted: false }]);
  const posted = { ts: slack.messages[0]!.ts, channel: slack.messages[0]!.channel };
  expect(slack.calls.map((c) => c.path)).toEqual(['/chat.postMessage']);

  // The CLI's own record of the action names the same call and the same ts, and a channel of each kind.
  const listed = await posthoc(['actions', '--data-dir', data, '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  const recorded = (JSON.parse(listed.stdout) as Array<Record<string, any>>).find((a) => a.id === action.id);
  expect(recorded).toBeDefined();
  const effects = recorded!.effects as Array<Record<string, any>>;
  expect(new Set(effects.map((e) => e.channel))).toEqual(new Set(['fs', 'rest', 'db']));
  const call = effects.find((e) => e.channel === 'rest')!;
  expect(call).toMatchObject({ service: 'slack', path: '/chat.postMessage', inverse: { path: '/chat.delete' } });
  expect(JSON.parse(call.inverse.body)).toEqual(posted);

  return { slack, ws, data, shop, actionId: action.id as string, posted, afterAction: sqliteFileDump(shop), before };
}

describe('posthoc undo of one action that wrote a file, posted to Slack and inserted a row', () => {
  it('refuses when the person edited report.txt since: exit 3, report.txt named, and Slack receives nothing', async () => {
    const s = await runScenario();
    writeFileSync(join(s.ws, 'report.txt'), 'my own words\n');

    const undo = await posthoc(['undo', s.actionId, '--data-dir', s.data]);
    expect(undo.code, undo.stdout + undo.stderr).toBe(3);
    expect(undo.stdout + undo.stderr).toContain('report.txt');
    // Nothing left the machine after the post: no chat.delete, the message is still there.
    expect(s.slack.calls.map((c) => c.path)).toEqual(['/chat.postMessage']);
    expect(s.slack.messages).toEqual([{ ...s.posted, text: MESSAGE, deleted: false }]);
    // Nothing changed here either: the person's edit and the row stay.
    expect(readFileSync(join(s.ws, 'report.txt'), 'utf8')).toBe('my own words\n');
    expect(sqliteFileDump(s.shop)).toBe(s.afterAction);

    // Asked again for JSON: the same refusal, naming report.txt, and still nothing sent.
    const json = await posthoc(['undo', s.actionId, '--data-dir', s.data, '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ outcome: 'conflict', paths: expect.arrayContaining(['report.txt']) });
    expect(s.slack.calls.map((c) => c.path)).toEqual(['/chat.postMessage']);
    expect(sqliteFileDump(s.shop)).toBe(s.afterAction);
  });

  it('without the edit, takes back the file, the row and the message (chat.delete names the posted ts)', async () => {
    const s = await runScenario();

    const undo = await posthoc(['undo', s.actionId, '--data-dir', s.data, '--json']);
    expect(undo.code, undo.stdout + undo.stderr).toBe(0);
    expect(JSON.parse(undo.stdout)).toMatchObject({ outcome: 'undone' });
    expect(existsSync(join(s.ws, 'report.txt'))).toBe(false);
    expect(binder(s.shop)).toEqual([]);
    expect(sqliteFileDump(s.shop)).toBe(s.before);
    expect(s.slack.calls.map((c) => c.path)).toEqual(['/chat.postMessage', '/chat.delete']);
    expect(s.slack.calls[1]!.body).toEqual(s.posted);
    expect(s.slack.messages).toEqual([{ ...s.posted, text: MESSAGE, deleted: true }]);
  });

  it('when Slack refuses chat.delete: exit 3, the file and the row exactly as the action left them, and it says so', async () => {
    const s = await runScenario();
    s.slack.refuse['/chat.delete'] = 'cant_delete_message';

    const undo = await posthoc(['undo', s.actionId, '--data-dir', s.data]);
    expect(undo.code, undo.stdout + undo.stderr).toBe(3);
    const said = undo.stdout + undo.stderr;
    expect(said).toMatch(/slack refused/i);
    expect(said).toMatch(/cant_delete_message/);
    expect(said).toMatch(/nothing (else )?(was )?changed|changed nothing/i);
    // The inverse was sent once and refused; the message is still there.
    expect(s.slack.calls.map((c) => c.path)).toEqual(['/chat.postMessage', '/chat.delete']);
    expect(s.slack.calls[1]!.body).toEqual(s.posted);
    expect(s.slack.messages).toEqual([{ ...s.posted, text: MESSAGE, deleted: false }]);
    // The local channels are back as the action left them.
    expect(readFileSync(join(s.ws, 'report.txt'), 'utf8')).toBe(REPORT);
    expect(sqliteFileDump(s.shop)).toBe(s.afterAction);
    expect(binder(s.shop)).toEqual([{ sku: 'RPT-3', name: 'Q3 report binder', price_cents: 300 }]);

    // Once Slack takes it, a later undo takes back all three.
    delete s.slack.refuse['/chat.delete'];
    const again = await posthoc(['undo', s.actionId, '--data-dir', s.data, '--json']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'undone' });
    expect(existsSync(join(s.ws, 'report.txt'))).toBe(false);
    expect(sqliteFileDump(s.shop)).toBe(s.before);
    expect(s.slack.messages).toEqual([{ ...s.posted, text: MESSAGE, deleted: true }]);
  });
});
