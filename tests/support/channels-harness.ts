// The undo harness (tests/support/undo-harness.ts) with all three channels real: the granted folder, a
// SQLite database changed through the real DbChannel.run, and a Slack stand-in (tests/support/fake-slack.ts)
// reached through the real gateway door, whose recorded inverses undo sends through the real RestUndo.
// Only the provider is fake. act() runs one action touching any of the three, as ActionRunner records it:
// the files' effects, then the database's, then the calls the gateway saw.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { Action, DbEffect, Effect, Task } from '../../shared/domain';
import { DbChannel } from '../../main/effects/db/db-channel';
import { Gateway } from '../../main/gateway/gateway';
import { RestUndo } from '../../main/gateway/rest-undo';
import { ServiceCaller, type CredentialSource } from '../../main/gateway/service-caller';
import { ServiceRegistry } from '../../main/gateway/service-registry';
import { serviceRoute } from '../../main/gateway/service-route';
import { apiSpec } from '../../main/oauth/providers';
import { startFakeSlack, type FakeSlack } from './fake-slack';
import { callDoor } from './gateway-client';
import { dbEngines } from './db-engines';
import { sqliteGrant } from './shop-db';
import { tempDirs } from './temp-dir';
import { startUndoHarness, type UndoHarness } from './undo-harness';

export const SLACK_TOKEN = 'xoxp-channels-harness-token';
/** The granted database's one table: rows 1..ROWS, each with a text value. */
export const ROWS = 3;

export type ChannelsAct = {
  /** Changes to the granted folder (the agent's). */
  files?: () => void;
  /** SQL run on the granted database through DbChannel.run. */
  sql?: string;
  /** Texts posted to #team through the gateway (chat.postMessage), in order. */
  messages?: string[];
};

export type ChannelsHarness = UndoHarness & {
  slack: FakeSlack;
  dbChannel: DbChannel;
  dbFile: string;
  /** Runs one action of the task touching the channels `spec` names. */
  actAcross(spec: ChannelsAct): Promise<Action>;
  /** The table's rows as they are now (id → value). */
  rows(): Map<number, string>;
  /** SQL run by the person with a client of their own, outside Posthoc. */
  personSql(sql: string): void;
};

/** Opens the three worlds. `slack` may be shared between runs (its state is reset here). */
export async function startChannelsHarness(options: { slack?: FakeSlack } = {}): Promise<ChannelsHarness> {
  const dirs = tempDirs();
  const slack = options.slack ?? (await startFakeSlack(SLACK_TOKEN));
  slack.token = SLACK_TOKEN;
  slack.calls.length = 0;
  slack.messages.length = 0;
  slack.down = false;
  slack.cannotDelete = () => false;

  const dbChannel = new DbChannel(dirs.make('posthoc-ch-db-'), dbEngines());
  const dbFile = join(dirs.make('posthoc-ch-sqlite-'), 'granted.db');
  const seed = new Database(dbFile);
  seed.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL);`);
  for (let id = 1; id <= ROWS; id++) seed.prepare('INSERT INTO t VALUES (?, ?)').run(id, `initial ${id}`);
  seed.close();
  const grant = sqliteGrant(dbFile, { name: 'granted', maxRowsAffected: 1_000_000 });

  // The services channel: a registry in Posthoc's own database, a caller with a credential stand-in, the
  // gateway door the sandbox would use, and the RestUndo port the composition root gives UndoService.
  let registry: ServiceRegistry | null = null;
  let caller: ServiceCaller | null = null;
  const credentials: CredentialSource = {
    secret: async (name) => (name === 'slack-token' ? SLACK_TOKEN : null),
    oauthToken: async () => {
      throw new Error('no OAuth provider here');
    },
  };
  const rest = {
    undo: (action: Action) => new RestUndo(registry!, caller!).undo(action),
    check: (inverse: Parameters<RestUndo['check']>[0]) => new RestUndo(registry!, caller!).check(inverse),
  };
  const h = await startUndoHarness({ channels: { db: dbChannel, rest } });
  registry = new ServiceRegistry(h.db);
  registry.add({
    name: 'slack',
    baseUrl: slack.baseUrl,
    auth: { kind: 'bearer', secret: 'slack-token' },
    api: 'slack',
    rules: { allow: [{ method: 'POST', path: '/chat.*' }] },
  });
  caller = new ServiceCaller(credentials);
  const withServices = (task: Task): Task => ({ ...task, services: ['slack'] });
  const gateway = new Gateway(dirs.make('posthoc-ch-gw-'), (id) => {
    const task = h.store.getTask(id);
    return task ? withServices(task) : undefined;
  });
  gateway.route('svc', serviceRoute(registry, { caller, holds: gateway.holds, apiOf: apiSpec }));
  const socket = join((await gateway.open(h.task.id)).dir!, 'gateway.sock');

  let dbEffects: DbEffect[] = [];
  const actAcross = (spec: ChannelsAct) => {
    dbEffects = [];
    gateway.beginAction(h.task.id, 'channels-harness');
    return h.act(
      async () => {
        spec.files?.();
        if (spec.sql) {
          const r = await dbChannel.run({ taskId: h.task.id, actionId: 'channels-harness', grant, sql: spec.sql, params: null, via: 'sql', approved: true, timeoutMs: 30_000 });
          if (r.status !== 'done') throw new Error(`the action's SQL failed: ${r.stderr}`);
          dbEffects.push(r.effect);
        }
        for (const text of spec.messages ?? []) {
          const res = await callDoor(socket, 'POST', '/svc/slack/chat.postMessage', { channel: '#team', text });
          if (res.status !== 200 || res.json().ok !== true) throw new Error(`posting "${text}" failed: ${res.status} ${res.body}`);
        }
      },
      { effects: (): Effect[] => [...dbEffects, ...gateway.endAction(h.task.id)] },
    );
  };

  const rows = () => {
    const db = new Database(dbFile, { readonly: true });
    try {
      return new Map((db.prepare('SELECT id, v FROM t ORDER BY id').all() as Array<{ id: number; v: string }>).map((r) => [r.id, r.v]));
    } finally {
      db.close();
    }
  };
  const personSql = (sql: string) => {
    const db = new Database(dbFile);
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
  };

  return {
    ...h,
    slack,
    dbChannel,
    dbFile,
    actAcross,
    rows,
    personSql,
    async close() {
      await gateway.closeAll();
      await h.close();
      await dbChannel.shutdown();
      if (!options.slack) await slack.close();
      dirs.cleanup();
    },
  };
}
