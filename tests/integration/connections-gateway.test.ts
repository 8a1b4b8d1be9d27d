// The gateway with credentials, rules, holds and inverse calls, against local fakes of Slack and GitHub
// that accept the real request shapes: forward calls, inverse calls sent by undo, refusals by the
// person's rules, the hold window and its Cancel, approval holds, refresh on 401, and redaction.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Action, Effect, RestEffect, Task } from '../../shared/domain';
import { Gateway } from '../../main/gateway/gateway';
import { RestUndo } from '../../main/gateway/rest-undo';
import { ServiceCaller, type CredentialSource } from '../../main/gateway/service-caller';
import { ServiceRegistry } from '../../main/gateway/service-registry';
import { serviceRoute } from '../../main/gateway/service-route';
import { apiSpec } from '../../main/oauth/providers';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack';
import { callDoor } from '../support/gateway-client';
import { tempDirs } from '../support/temp-dir';

const SLACK_TOKEN = 'xoxp-canary+/=Slack-7Gq2';
const GH_OLD = 'gho_old_token_1234567890';
const GH_NEW = 'gho_new_token_0987654321';

const dirs = tempDirs();
let db: AppDatabase;
let slack: FakeSlack;
let github: FakeGitHub;
let gateway: Gateway;
let registry: ServiceRegistry;
let caller: ServiceCaller;
let socket: string;
let live: Effect[][];
let refreshes: number;
let ghToken: string;

const task: Task = {
  id: 'task-conn',
  title: 't',
  status: 'running',
  workspaces: [],
  services: ['slack', 'github', 'echo', 'mail'],
  model: 'm',
  answer: null,
  error: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

beforeEach(async () => {
  db = openDatabase(dirs.make());
  slack = await startFakeSlack(SLACK_TOKEN);
  github = await startFakeGitHub([GH_NEW]);
  ghToken = GH_OLD;
  refreshes = 0;
  const credentials: CredentialSource = {
    secret: async (name) => (name === 'slack-token' ? SLACK_TOKEN : null),
    oauthToken: async (_provider, options) => {
      if (options?.refresh) {
        refreshes++;
        ghToken = GH_NEW;
      }
      return ghToken;
    },
  };
  registry = new ServiceRegistry(db);
  registry.add({
    name: 'slack',
    baseUrl: slack.baseUrl,
    auth: { kind: 'bearer', secret: 'slack-token' },
    api: 'slack',
    rules: {
      allow: [{ method: 'POST', path: '/chat.*' }, { method: 'POST', path: '/reactions.*' }, { method: 'POST', path: '/auth.test' }],
      body: [{ method: 'POST', path: '/chat.postMessage', field: 'channel', oneOf: ['#team', 'C0TEAM'] }],
      hold: [{ method: 'POST', path: '/reactions.add' }],
    },
  });
  registry.add({ name: 'github', baseUrl: github.baseUrl, auth: { kind: 'oauth', provider: 'acme' }, api: 'github' });
  registry.add({ name: 'echo', baseUrl: slack.baseUrl, auth: { kind: 'query', param: 'token', secret: 'slack-token' } });
  registry.add({
    name: 'mail',
    baseUrl: slack.baseUrl,
    auth: { kind: 'bearer', secret: 'slack-token' },
    api: 'slack',
    rules: { sends: [{ method: 'POST', path: '/chat.postMessage' }], holdSeconds: 30, noInverse: 'refuse' },
  });
  caller = new ServiceCaller(credentials);
  gateway = new Gateway(dirs.make('posthoc-gw-'), (id) => (id === task.id ? task : undefined));
  gateway.route('svc', serviceRoute(registry, { caller, holds: gateway.holds, apiOf: apiSpec }));
  socket = `${(await gateway.open(task.id)).dir}/gateway.sock`;
  live = [];
  gateway.beginAction(task.id, 'action-1', (effects) => live.push(effects));
});

afterEach(async () => {
  await gateway.closeAll();
  await slack.close();
  await github.close();
  db.close();
  dirs.cleanup();
});

function actionOf(effects: Effect[]): Action {
  return {
    id: 'action-1', taskId: task.id, seq: 1, kind: 'code', language: 'python', source: '', status: 'done',
    output: { stdout: '', stderr: '', exitCode: 0, timedOut: false, truncated: false },
    effects, reverse: { state: 'ready', folders: 0, steps: [], irreversible: [], takenBack: [] }, messageId: null, confinement: { level: 'compensable', reason: '' },
    startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:01.000Z', undoneAt: null,
  };
}

const rest = (effects: Effect[]) => effects.filter((e): e is RestEffect => e.channel === 'rest');

async function heldCall(): Promise<RestEffect> {
  for (;;) {
    const waiting = live.flat().find((e): e is RestEffect => e.channel === 'rest' && e.hold?.state === 'waiting');
    if (waiting) return waiting;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('forward calls and their inverse (Slack)', () => {
  it('adds the bearer token, records chat.delete with the channel and ts Slack answered, and undo deletes the message', async () => {
    const res = await callDoor(socket, 'POST', '/svc/slack/chat.postMessage', { channel: '#team', text: 'Release 1.2 is out' });
    expect(res.status).toBe(200);
    const answer = res.json();
    expect(answer).toMatchObject({ ok: true, channel: 'C0TEAM' });
    expect(slack.calls[0]!.headers.authorization).toBe(`Bearer ${SLACK_TOKEN}`);
    expect(slack.messages).toEqual([expect.objectContaining({ channel: 'C0TEAM', ts: answer.ts, deleted: false })]);

    const [effect] = rest(gateway.endAction(task.id));
    expect(effect).toMatchObject({
      service: 'slack', method: 'POST', path: '/chat.postMessage', status: 200, mutating: true, refused: null,
      auth: 'bearer slack-token', api: 'slack',
      inverse: { service: 'slack', method: 'POST', path: '/chat.delete', body: JSON.stringify({ channel: 'C0TEAM', ts: answer.ts }), summary: `Delete the message ${answer.ts} in C0TEAM` },
    });
    expect(effect!.request).toContain('Release 1.2 is out');

    const undo = await new RestUndo(registry, caller).undo(actionOf([effect!]));
    expect(undo.ok).toBe(true);
    expect(slack.messages[0]!.deleted).toBe(true);
    expect(slack.calls.at(-1)).toMatchObject({ path: '/chat.delete', body: { channel: 'C0TEAM', ts: answer.ts } });
    expect(slack.calls.at(-1)!.headers.authorization).toBe(`Bearer ${SLACK_TOKEN}`);
    expect(effect!.undone).toMatchObject({ status: 200, error: null });
    // Undone calls are not sent twice.
    expect((await new RestUndo(registry, caller).undo(actionOf([effect!]))).sent).toEqual([]);
  });

  it('reads a form-encoded body as well as JSON for rules and inverses', async () => {
    const res = await callDoor(socket, 'POST', '/svc/slack/chat.postMessage', 'channel=C0TEAM&text=hello', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(200);
    const [effect] = rest(gateway.endAction(task.id));
    expect(effect!.inverse?.path).toBe('/chat.delete');
  });
});

describe('GitHub: create issue → close it, create comment → delete it', () => {
  it('records both inverses from the responses and undo sends them newest first', async () => {
    const issue = await callDoor(socket, 'POST', '/svc/github/repos/ada/app/issues', { title: 'Crash on start', body: 'Steps…' });
    expect(issue.status).toBe(201);
    const comment = await callDoor(socket, 'POST', `/svc/github/repos/ada/app/issues/${issue.json().number}/comments`, { body: 'Seen on 1.2' });
    expect(comment.status).toBe(201);
    const effects = rest(gateway.endAction(task.id));
    expect(effects.map((e) => e.inverse && `${e.inverse.method} ${e.inverse.path}`)).toEqual([
      'PATCH /repos/ada/app/issues/1',
      `DELETE /repos/ada/app/issues/comments/${comment.json().id}`,
    ]);
    expect(effects[0]!.inverse!.summary).toBe('Close issue #1 in ada/app');

    const undo = await new RestUndo(registry, caller).undo(actionOf(effects));
    expect(undo.ok).toBe(true);
    expect(github.calls.slice(-2).map((c) => `${c.method} ${c.path}`)).toEqual([`DELETE /repos/ada/app/issues/comments/${comment.json().id}`, 'PATCH /repos/ada/app/issues/1']);
    expect(github.issues[0]).toMatchObject({ state: 'closed', stateReason: 'not_planned' });
    expect(github.comments[0]!.deleted).toBe(true);
  });

  it('refreshes the OAuth token once on 401 and retries', async () => {
    const res = await callDoor(socket, 'POST', '/svc/github/repos/ada/app/issues', { title: 'x' });
    expect(res.status).toBe(201);
    expect(refreshes).toBe(1);
    expect(github.calls.map((c) => c.headers.authorization)).toEqual([`Bearer ${GH_OLD}`, `Bearer ${GH_NEW}`]);
    expect(github.issues).toHaveLength(1);
  });

  it('reports an inverse the provider refuses, with its words, and stops there', async () => {
    const issue = await callDoor(socket, 'POST', '/svc/github/repos/ada/app/issues', { title: 'x' });
    const [effect] = rest(gateway.endAction(task.id));
    github.tokens.clear();
    const undo = await new RestUndo(registry, caller).undo(actionOf([effect!]));
    expect(undo.ok).toBe(false);
    if (!undo.ok) expect(undo.failed.result.error).toMatch(/github refused PATCH \/repos\/ada\/app\/issues\/1 \(HTTP 401\): Bad credentials/);
    expect(effect!.undone?.error).toMatch(/Bad credentials/);
    expect(issue.json().number).toBe(1);
    expect(github.issues[0]!.state).toBe('open');
  });
});

describe("the person's rules", () => {
  it('refuses a message to a channel outside the rule, with what to do, and sends nothing', async () => {
    const res = await callDoor(socket, 'POST', '/svc/slack/chat.postMessage', { channel: '#random', text: 'hi' });
    expect(res.status).toBe(403);
    expect(res.json().error).toMatch(/"channel" may only be #team, C0TEAM; it was "#random".*not sent/);
    const res2 = await callDoor(socket, 'DELETE', '/svc/slack/chat.postMessage');
    expect(res2.status).toBe(403);
    expect(res2.json().error).toMatch(/outside the calls the person allows on slack/);
    expect(slack.calls).toHaveLength(0);
    expect(rest(gateway.endAction(task.id)).map((e) => e.refused !== null)).toEqual([true, true]);
  });

  it('refuses a mutating call with no known inverse when the rules say so', async () => {
    const res = await callDoor(socket, 'POST', '/svc/mail/chat.update', { channel: 'C0TEAM', ts: '1', text: 'x' });
    expect(res.status).toBe(403);
    expect(res.json().error).toMatch(/no known inverse/);
    expect(slack.calls).toHaveLength(0);
  });

  it('holds a call for approval; approved, it leaves and the code gets the real answer', async () => {
    const pending = callDoor(socket, 'POST', '/svc/slack/reactions.add', { channel: 'C0TEAM', timestamp: '1.0', name: 'tada' });
    const held = await heldCall();
    expect(held.hold).toMatchObject({ kind: 'approval', state: 'waiting', until: null });
    expect(slack.calls).toHaveLength(0);
    gateway.holds.approve(held.hold!.id);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(slack.reactions).toEqual([{ channel: 'C0TEAM', timestamp: '1.0', name: 'tada' }]);
    const [effect] = rest(gateway.endAction(task.id));
    expect(effect!.hold?.state).toBe('approved');
    expect(effect!.inverse?.path).toBe('/reactions.remove');
  });
});

describe('the hold window of sends that can never be taken back', () => {
  it('keeps the send back, and Cancel stops it: nothing leaves and the code reads why', async () => {
    const pending = callDoor(socket, 'POST', '/svc/mail/chat.postMessage', { channel: 'C0TEAM', text: 'Dear all' });
    const held = await heldCall();
    expect(held.hold).toMatchObject({ kind: 'window', state: 'waiting' });
    expect(Date.parse(held.hold!.until!)).toBeGreaterThan(Date.now());
    const cancelled = gateway.holds.cancel(held.hold!.id);
    expect(cancelled.state).toBe('cancelled');
    const res = await pending;
    expect(res.status).toBe(409);
    expect(res.json().error).toMatch(/The person cancelled POST \/chat.postMessage on mail before it left; it was not sent/);
    expect(slack.calls).toHaveLength(0);
    const [effect] = rest(gateway.endAction(task.id));
    expect(effect).toMatchObject({ refused: expect.stringContaining('cancelled'), hold: { state: 'cancelled' } });
    expect(() => gateway.holds.cancel(held.hold!.id)).toThrow(/no longer held/);
  });

  it('lets the send leave when the window ends', async () => {
    registry.add({ name: 'mail', baseUrl: slack.baseUrl, auth: { kind: 'bearer', secret: 'slack-token' }, api: 'slack', rules: { sends: [{ method: 'POST', path: '/chat.postMessage' }], holdSeconds: 1 } });
    const res = await callDoor(socket, 'POST', '/svc/mail/chat.postMessage', { channel: 'C0TEAM', text: 'Dear all' });
    expect(res.status).toBe(200);
    expect(slack.messages).toHaveLength(1);
    const [effect] = rest(gateway.endAction(task.id));
    expect(effect!.hold?.state).toBe('sent');
    expect(live.some((effects) => rest(effects).some((e) => e.hold?.state === 'waiting'))).toBe(true);
  });

  it('abandons a held call when the action ends', async () => {
    const pending = callDoor(socket, 'POST', '/svc/mail/chat.postMessage', { channel: 'C0TEAM', text: 'x' });
    await heldCall();
    gateway.endAction(task.id);
    expect((await pending).status).toBe(409);
    expect(slack.calls).toHaveLength(0);
  });
});

describe('redaction', () => {
  it('removes the secret (raw, URL-encoded, base64) from what a service echoes back, and from what is recorded', async () => {
    const res = await callDoor(socket, 'POST', '/svc/slack/auth.test');
    expect(res.status).toBe(200);
    const echoed = await callDoor(socket, 'POST', `/svc/echo/_echo?b64=${Buffer.from(SLACK_TOKEN).toString('base64')}`, { basic: Buffer.from(`user:${SLACK_TOKEN}`).toString('base64') });
    expect(echoed.status).toBe(200);
    const text = echoed.body;
    // The fake saw the real secret in the query string…
    expect(new URL(slack.calls.at(-1)!.url, 'http://x').searchParams.get('token')).toBe(SLACK_TOKEN);
    expect(decodeURIComponent(echoed.json().url)).toContain('[REDACTED]');
    // …and nothing of it comes back, in any form.
    for (const form of [SLACK_TOKEN, encodeURIComponent(SLACK_TOKEN), Buffer.from(SLACK_TOKEN).toString('base64')]) {
      expect(text).not.toContain(form);
    }
    expect(text).not.toContain(Buffer.from(`user:${SLACK_TOKEN}`).toString('base64').slice(8, 24));
    const recorded = JSON.stringify(gateway.endAction(task.id));
    expect(recorded).not.toContain(SLACK_TOKEN);
    expect(recorded).not.toContain(encodeURIComponent(SLACK_TOKEN));
  });
});
