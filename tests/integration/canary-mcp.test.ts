// The canary for remote MCP servers: a bearer token stored in the vault is sent to a remote MCP server (a
// real SDK server on loopback that requires it) for the tools the sandbox's code calls through the gateway's
// /mcp route and posthoc_tools, yet never reaches the sandbox — not its environment, its files, the prompt, a tool's answer
// (the server's echo tool sends the token back, raw and base64: the sandbox gets it redacted, and so does
// the effect stored on the action), the store, the data folder, a log, or a payload to the renderer. The
// same for the access token of a server the person signed in to with OAuth.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callNames, type CallName } from '../../shared/contract';
import type { McpEffect } from '../../shared/domain/mcp';
import { dispatch } from '../../main/ipc/register-contract';
import { mcpTokenSecret } from '../../main/services/mcp-oauth';
import { Vault } from '../../main/vault/vault';
import { captureProcessLogs, findSecretInFiles, secretFinder } from '../support/canary';
import { startMcpAuthServer, type McpAuthServer } from '../support/mcp-auth-server';
import { startMcpHttpServer, type McpHttpServer } from '../support/mcp-http-server';
import { startHarness, type Harness } from '../support/services-harness';

const CANARY = `mcp-canary-${randomBytes(15).toString('base64url')}`;

const CODE = [
  'Let me use the notes server.',
  '',
  '```python',
  'import os, subprocess, requests',
  "base = os.environ['POSTHOC_GATEWAY']",
  "print('listing', requests.get(base + '/mcp').status_code)",
  "echo = requests.post(base + '/mcp/notes/echo', json={'message': 'hello'})",
  "open('echo.json', 'w').write(echo.text)  # what the sandbox itself received, before any output filter",
  "print('echo', echo.status_code, echo.text)",
  "print('add', requests.post(base + '/mcp/notes/add_note', json={'text': 'from the sandbox'}).text)",
  'from posthoc_tools import notes',
  "print('tools', notes.echo(message='again'))",
  "print('env', dict(os.environ))",
  "needle = 'mcp' + '-canary'",
  "found = subprocess.run(['grep', '-rIoa', needle + '[^ \"]*', '/', '--exclude-dir=proc', '--exclude-dir=sys', '--exclude-dir=dev'], capture_output=True, text=True)",
  "print('grep', found.stdout[:2000], 'grep-done')",
  '```',
].join('\n');

const SIGNED_IN = [
  'Using the server I signed in to.',
  '',
  '```python',
  'import os, requests',
  "base = os.environ['POSTHOC_GATEWAY']",
  "echo = requests.post(base + '/mcp/secure/echo', json={'message': 'signed in'})",
  "open('echo-oauth.json', 'w').write(echo.text)",
  "print('oauth-echo', echo.status_code, echo.text)",
  'from posthoc_tools import secure',
  "print('oauth-tools', secure.echo(message='again'))",
  "print('env', dict(os.environ))",
  '```',
].join('\n');

let harness: Harness;
let mcp: McpHttpServer;
let authServer: McpAuthServer;
let secure: McpHttpServer;
let vault: Vault;
let logs: string[] = [];
const pushed: string[] = [];
let restoreLogs: () => void = () => undefined;

beforeAll(async () => {
  ({ logs, restore: restoreLogs } = captureProcessLogs());
  mcp = await startMcpHttpServer(CANARY);
  vault = new Vault(`dev.posthoc.test-canary-mcp-${randomUUID()}`);
  authServer = await startMcpAuthServer();
  secure = await startMcpHttpServer('never-accepted', { verify: (t) => authServer.verify(t), authorizationServer: authServer.issuer });
  harness = await startHarness([CODE, 'Done with the notes.', SIGNED_IN, 'Done with the signed-in server.'], { vault });
  harness.services.events.subscribe((event, payload) => pushed.push(JSON.stringify({ event, payload })));
  await harness.services.handlers['secret:set']({ name: 'notes-token', value: CANARY, origins: [mcp.origin] });
  await harness.services.handlers['mcp:add']({ name: 'notes', transport: { kind: 'http', url: mcp.url, auth: { kind: 'bearer', secret: 'notes-token' } } });
  await harness.services.handlers['mcp:add']({ name: 'secure', transport: { kind: 'http', url: secure.url, auth: { kind: 'oauth' } } });
});

afterAll(async () => {
  await harness?.close();
  await vault?.remove('notes-token').catch(() => false);
  for (const name of [mcpTokenSecret.access('secure'), mcpTokenSecret.refresh('secure'), mcpTokenSecret.client('secure')]) await vault?.remove(name).catch(() => false);
  await mcp?.close();
  await secure?.close();
  await authServer?.close();
  restoreLogs();
});

describe('a remote MCP server token from the vault', () => {
  it('is sent to the server, and appears nowhere else', async () => {
    const task = await harness.services.handlers['task:start']({ prompt: 'use the notes server', workspaces: [harness.workspace], mcp: ['notes'] });
    const done = await harness.services.tasks.wait(task.id);
    expect(done.status).toBe('done');
    const detail = harness.services.tasks.get(task.id);
    const action = detail.actions[0]!;
    const output = action.output.stdout;

    // The calls really carried the token (so the test can fail), and the echo really sent it back.
    expect(mcp.requests.length).toBeGreaterThan(2);
    expect(mcp.requests.every((r) => r.authorization === `Bearer ${CANARY}`)).toBe(true);
    expect(mcp.calls.map((c) => c.tool)).toEqual(['echo', 'add_note', 'echo']);
    expect(mcp.notes).toEqual(['from the sandbox']);
    expect(output).toContain('listing 200');
    expect(output).toMatch(/echo 200 .*"authorization":"Bearer \[REDACTED\]"/);
    // "Bearer TOKEN" in base64: the token's part of it is cut out at whatever alignment it falls.
    expect(output).toMatch(/"authorizationBase64":"[A-Za-z0-9+/]*\[REDACTED\][A-Za-z0-9+/=]*"/);
    expect(output).toMatch(/tools \{'message': 'again', 'authorization': 'Bearer \[REDACTED\]'/);
    expect(output).toContain('grep-done');

    // The calls are on the action, the echo's answer redacted there too.
    const calls = action.effects.filter((e): e is McpEffect => e.channel === 'mcp');
    expect(calls.map((c) => [c.server, c.tool, c.transport, c.refused])).toEqual([
      ['notes', 'echo', 'http', null],
      ['notes', 'add_note', 'http', null],
      ['notes', 'echo', 'http', null],
    ]);
    expect(calls[0]!.result).toContain('Bearer [REDACTED]');

    const finds = secretFinder([CANARY]);
    expect(finds(output + action.output.stderr), 'action output').toBe(false);
    expect(finds(JSON.stringify(action.effects)), 'effects').toBe(false);
    expect(finds(JSON.stringify(harness.llm.requests)), 'requests to the LLM server (the prompt and every observation)').toBe(false);
    // The prompt did list the server's tools (so it was looked at).
    expect(JSON.stringify(harness.llm.requests[0])).toContain('wait_for_release');

    const tables = harness.services.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    const rows = tables.map((t) => JSON.stringify(harness.services.db.prepare(`SELECT * FROM "${t}"`).all()));
    expect(rows.filter(finds), 'rows in the store').toEqual([]);
    harness.services.db.pragma('wal_checkpoint(PASSIVE)');
    expect(await findSecretInFiles(harness.dataDir, finds), 'files under the data folder').toEqual([]);
    expect(await findSecretInFiles(harness.workspace, finds), 'files in the granted folder (what the sandbox received)').toEqual([]);

    expect(pushed.length).toBeGreaterThan(3);
    expect(pushed.filter(finds), 'events pushed to the renderer').toEqual([]);
    const answers: string[] = [];
    for (const name of callNames) {
      const input = inputFor(name, task.id);
      if (input) answers.push(JSON.stringify(await dispatch(name, input, harness.services.handlers)));
    }
    expect(answers.join('\n')).toContain('notes-token');
    expect(answers.filter(finds), 'answers to the renderer').toEqual([]);

    expect(logs.filter(finds), 'logs').toEqual([]);
  });

  it('a token from signing in with OAuth is sent to its server, and appears nowhere else', async () => {
    // The person signs in: listing the tools gives the sign-in link; the browser follows it to the loopback answer.
    const listed = await harness.services.handlers['mcp:list']({ refresh: true });
    const why = listed.find((v) => v.name === 'secure')?.toolsError ?? '';
    const link = /in your browser: (\S+) —/.exec(why)?.[1];
    expect(link, why).toBeTruthy();
    const authorize = await fetch(link!, { redirect: 'manual' });
    const answer = await fetch(authorize.headers.get('location')!);
    expect(await answer.text()).toContain('Posthoc is signed in');
    const access = (await vault.get(mcpTokenSecret.access('secure')))!;
    expect(access.length).toBeGreaterThan(20);

    const task = await harness.services.handlers['task:start']({ prompt: 'use the signed-in server', workspaces: [harness.workspace], mcp: ['secure'] });
    expect((await harness.services.tasks.wait(task.id)).status).toBe('done');
    const action = harness.services.tasks.get(task.id).actions[0]!;
    const output = action.output.stdout;
    // The token really went to the server and really came back in the echo (so the test can fail).
    expect(secure.requests.some((r) => r.authorization === `Bearer ${access}`)).toBe(true);
    expect(secure.calls.map((c) => c.tool)).toEqual(['echo', 'echo']);
    expect(output).toMatch(/oauth-echo 200 .*"authorization":"Bearer \[REDACTED\]"/);
    expect(output).toMatch(/oauth-tools \{'message': 'again', 'authorization': 'Bearer \[REDACTED\]'/);

    const finds = secretFinder([access]);
    expect(finds(output + action.output.stderr), 'action output').toBe(false);
    expect(finds(JSON.stringify(action.effects)), 'effects').toBe(false);
    expect(finds(JSON.stringify(harness.llm.requests)), 'requests to the LLM server').toBe(false);
    const tables = harness.services.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    expect(tables.map((t) => JSON.stringify(harness.services.db.prepare(`SELECT * FROM "${t}"`).all())).filter(finds), 'rows in the store').toEqual([]);
    harness.services.db.pragma('wal_checkpoint(PASSIVE)');
    expect(await findSecretInFiles(harness.dataDir, finds), 'files under the data folder').toEqual([]);
    expect(await findSecretInFiles(harness.workspace, finds), 'files in the granted folder').toEqual([]);
    expect(pushed.filter(finds), 'events pushed to the renderer').toEqual([]);
    const answers: string[] = [];
    for (const name of callNames) {
      const input = inputFor(name, task.id);
      if (input) answers.push(JSON.stringify(await dispatch(name, input, harness.services.handlers)));
    }
    expect(answers.filter(finds), 'answers to the renderer').toEqual([]);
    expect(logs.filter(finds), 'logs').toEqual([]);
  });
});

/** A harmless input for each read-only call the renderer can make. */
function inputFor(name: CallName, taskId: string): object | null {
  const reads: Partial<Record<CallName, object>> = {
    'task:list': {},
    'task:get': { taskId },
    'task:timeline': { taskId },
    'settings:get': {},
    'vault:status': {},
    'service:list': {},
    'connection:list': {},
    'secret:list': {},
    'mcp:list': { refresh: true },
  };
  return reads[name] ?? null;
}
