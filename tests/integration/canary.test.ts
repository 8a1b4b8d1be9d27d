// The canary: a secret stored in the vault is used by the gateway for real calls, yet never appears in
// any request to the LLM server, in action output, in the store or any file under the data directory, in
// logs, or in a payload to the renderer — also when the service echoes the request's headers back, and
// when code in the sandbox prints its environment or searches the file system for it, and when a
// service reflects it transformed (case, hex, base64url, reversed). Body rules hold for every copy of a
// repeated JSON or form key and for the query string.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callNames, type CallName } from '../../shared/contract';
import { dispatch } from '../../main/ipc/register-contract';
import { Vault } from '../../main/vault/vault';
import { captureProcessLogs, findSecretInFiles, secretFinder } from '../support/canary';
import { startFakeSlack, type FakeSlack } from '../support/fake-slack';
import { mirrorForms, startMirrorServer, type MirrorServer } from '../support/mirror-server';
import { startHarness, type Harness } from '../support/services-harness';

const CANARY = `sk-canary-${randomBytes(12).toString('base64')}+/=`;

const CODE = [
  'Let me look around.',
  '',
  '```python',
  'import os, subprocess, requests',
  "base = os.environ['POSTHOC_GATEWAY']",
  "echo = requests.post(base + '/svc/echo/_echo', json={'hello': 'world'}).text",
  "open('echo.json', 'w').write(echo)  # what the sandbox itself received, before any output filter",
  "print('echo', echo)",
  "print('query', requests.get(base + '/svc/echoq/_echo?x=1').text)",
  "m = requests.get(base + '/svc/mirror/_mirror')",
  "open('mirror.json', 'w').write(m.text + m.headers.get('x-mirror', ''))",
  "print('mirror', m.text, 'x-mirror', m.headers.get('x-mirror'))",
  "post = base + '/svc/ruled/chat.postMessage'",
  "r1 = requests.post(post, data='{\"channel\":\"C0TEAM\",\"text\":\"dup-json\",\"channel\":\"C0EVIL\"}', headers={'content-type': 'application/json'})",
  "r2 = requests.post(post, data='channel=C0TEAM&text=dup-form&channel=C0EVIL', headers={'content-type': 'application/x-www-form-urlencoded'})",
  "r3 = requests.post(post + '?channel=C0EVIL', json={'channel': 'C0TEAM', 'text': 'query'})",
  "r4 = requests.post(post, json={'channel': 'C0TEAM', 'text': 'allowed'})",
  "print('rules', r1.status_code, r2.status_code, r3.status_code, r4.status_code)",
  "print('why', r1.json().get('error', '')[:160])",
  "print('env', dict(os.environ))",
  "needle = 'sk' + '-canary'",
  "found = subprocess.run(['grep', '-rIoa', needle + '[^ \"]*', '/', '--exclude-dir=proc', '--exclude-dir=sys', '--exclude-dir=dev'], capture_output=True, text=True)",
  "print('grep', found.stdout[:2000], 'grep-done')",
  '```',
].join('\n');

let harness: Harness;
let slack: FakeSlack;
let mirror: MirrorServer;
let vault: Vault;
let logs: string[] = [];
const pushed: string[] = [];
let restoreLogs: () => void = () => undefined;

beforeAll(async () => {
  // Everything this process writes to its own stdout and stderr (and console) is a log.
  ({ logs, restore: restoreLogs } = captureProcessLogs());
  slack = await startFakeSlack('unused');
  mirror = await startMirrorServer();
  vault = new Vault(`dev.posthoc.test-canary-${randomUUID()}`);
  harness = await startHarness([CODE, 'Done looking.'], { vault });
  harness.services.events.subscribe((event, payload) => pushed.push(JSON.stringify({ event, payload })));
  await harness.services.handlers['secret:set']({ name: 'canary-key', value: CANARY });
  await harness.services.handlers['service:add']({ name: 'echo', baseUrl: slack.baseUrl, auth: { kind: 'bearer', secret: 'canary-key' } });
  await harness.services.handlers['service:add']({ name: 'echoq', baseUrl: slack.baseUrl, auth: { kind: 'query', param: 'key', secret: 'canary-key' } });
  // The canary is bound to the echo service's origin now; the mirror is another one, so the person confirms it.
  const mirrorService = { name: 'mirror', baseUrl: mirror.baseUrl, auth: { kind: 'bearer' as const, secret: 'canary-key' } };
  await expect(harness.services.handlers['service:add'](mirrorService)).rejects.toMatchObject({ code: 'forbidden' });
  await harness.services.handlers['service:add']({ ...mirrorService, allowSecretOrigin: true });
  await harness.services.handlers['service:add']({
    name: 'ruled',
    baseUrl: mirror.baseUrl,
    auth: { kind: 'bearer', secret: 'canary-key' },
    rules: { body: [{ method: 'POST', path: '/chat.postMessage', field: 'channel', oneOf: ['C0TEAM'] }] },
  });
});

afterAll(async () => {
  await harness?.close();
  await vault?.remove('canary-key').catch(() => false);
  await slack?.close();
  await mirror?.close();
  restoreLogs();
});

describe('a vault secret used by the gateway', () => {
  it('appears nowhere but in the keychain and on the wire to the service', async () => {
    const task = await harness.services.handlers['task:start']({
      prompt: 'inspect the echo service',
      workspaces: [harness.workspace],
      services: ['echo', 'echoq', 'mirror', 'ruled'],
    });
    const done = await harness.services.tasks.wait(task.id);
    expect(done.status).toBe('done');
    const detail = harness.services.tasks.get(task.id);
    const output = detail.actions[0]!.output.stdout;

    // The calls really carried the secret (so the test can fail), and really came back echoed.
    expect(slack.calls.map((c) => c.headers.authorization ?? new URL(c.url, 'http://x').searchParams.get('key'))).toEqual([`Bearer ${CANARY}`, CANARY]);
    expect(output).toMatch(/echo .*"authorization":"Bearer \[REDACTED\]"/);
    expect(output).toMatch(/query .*key=%5BREDACTED%5D|query .*key=\[REDACTED\]/);
    expect(output).toContain('POSTHOC_GATEWAY');
    // The mirror reflected every transformed form (the test can fail: the forms hold the canary), and
    // each came back redacted, the response header too.
    for (const [form, value] of Object.entries(mirrorForms(CANARY))) {
      expect(value.length, form).toBeGreaterThan(10);
      expect(output, form).toContain(`"${form}":"[REDACTED]"`);
    }
    expect(output).toContain('x-mirror [REDACTED]');
    // A rule on "channel" held for a second JSON key, a second form key and the query string; the
    // refused calls never arrived, the allowed one did.
    expect(output).toContain('rules 403 403 403 200');
    expect(output).toMatch(/why .*"channel" may only be C0TEAM; it was "C0EVIL"/);
    expect(mirror.posts.map((p) => JSON.parse(p.body) as unknown)).toEqual([{ channel: 'C0TEAM', text: 'allowed' }]);
    expect(output).toContain('grep-done');

    const finds = secretFinder([CANARY]);
    expect(finds(output + detail.actions[0]!.output.stderr), 'action output').toBe(false);
    expect(finds(JSON.stringify(harness.llm.requests)), 'requests to the LLM server').toBe(false);
    expect(harness.llm.requests.length).toBe(2);

    // The store: every row of every table.
    const tables = harness.services.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    const rows = tables.map((t) => JSON.stringify(harness.services.db.prepare(`SELECT * FROM "${t}"`).all()));
    expect(rows.filter(finds), 'rows in the store').toEqual([]);
    // Every file under the data folder, the database's own files included.
    harness.services.db.pragma('wal_checkpoint(PASSIVE)');
    expect(await findSecretInFiles(harness.dataDir, finds), 'files under the data folder').toEqual([]);
    expect(await findSecretInFiles(harness.workspace, finds), 'files in the granted folder').toEqual([]);

    // Everything the renderer is sent: the pushed events, and the answer to every call it can make.
    expect(pushed.length).toBeGreaterThan(3);
    expect(pushed.filter(finds), 'events pushed to the renderer').toEqual([]);
    const answers: string[] = [];
    for (const name of callNames) {
      const input = inputFor(name, task.id, detail.actions[0]!.id);
      if (input) answers.push(JSON.stringify(await dispatch(name, input, harness.services.handlers)));
    }
    expect(answers.join('\n')).toContain('canary-key');
    expect(answers.filter(finds), 'answers to the renderer').toEqual([]);

    expect(logs.filter(finds), 'logs').toEqual([]);
  });
});

/** A harmless input for each read-only call the renderer can make (calls that change things are skipped). */
function inputFor(name: CallName, taskId: string, actionId: string): object | null {
  const reads: Partial<Record<CallName, object>> = {
    'task:list': {},
    'task:get': { taskId },
    'settings:get': {},
    'vault:status': {},
    'service:list': {},
    'sandbox:status': {},
    'task:timeline': { taskId },
    'connection:list': {},
    'secret:list': {},
  };
  void actionId;
  return reads[name] ?? null;
}
