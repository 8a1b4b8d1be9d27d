// The tools channel (main/effects/mcp): rules, inverses from the real memory server's answers, and the
// gateway's /mcp route in front of a real SDK server (in-process, over the SDK's InMemoryTransport), with
// the hostile cases next to each feature: a denied tool never reaches the server, arguments that do not fit
// the schema never either, a server not granted is refused, secrets are redacted, huge answers are cut.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Action, Effect, Task } from '../../shared/domain';
import type { McpEffect, McpServerDefinition, McpToolView } from '../../shared/domain/mcp';
import { MCP_PROMPT_MAX_TOKENS, mcpSection } from '../../main/agent/mcp-prompt';
import { estimateTokens } from '../../main/agent/token-estimate';
import { Holds } from '../../main/gateway/holds';
import { Redactor } from '../../main/gateway/redaction';
import { deriveInverse, detectApi } from '../../main/effects/mcp/inverses';
import { McpHub } from '../../main/effects/mcp/mcp-hub';
import { McpUndoChannel } from '../../main/effects/mcp/mcp-undo-channel';
import { McpRoute, RESULT_BYTES, type McpRouteContext } from '../../main/effects/mcp/mcp-route';
import { judgeToolCall, toolRule } from '../../main/effects/mcp/rules';
import { hostStdioConnector, inMemoryConnector, MEMORY_SERVER, memoryFilePath } from '../support/mcp-test-connectors';

const SECRET = 'sk-live-4f9a8b7c6d5e';

const def = (name: string, patch: Partial<McpServerDefinition> = {}): McpServerDefinition => ({
  name,
  transport: { kind: 'stdio', command: 'node', args: ['server.js'], env: {} },
  rules: { deny: [], hold: [], noInverse: 'allow' },
  api: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...patch,
});

describe('rules of a call', () => {
  const http = (rules: Partial<McpServerDefinition['rules']>) => def('remote', { transport: { kind: 'http', url: 'http://127.0.0.1:1/mcp', auth: { kind: 'none' } }, rules: { deny: [], hold: [], noInverse: 'allow', ...rules } });

  it('refuses a denied tool and holds a held one, whatever its annotations say', () => {
    const server = def('fs', { rules: { deny: ['delete'], hold: ['move'], noInverse: 'allow' } });
    expect(judgeToolCall(server, { name: 'delete', annotations: { readOnlyHint: true } })).toMatchObject({ kind: 'refuse', message: expect.stringContaining('denied the tool fs.delete') });
    expect(judgeToolCall(server, { name: 'move', annotations: { readOnlyHint: true } })).toMatchObject({ kind: 'hold' });
    expect(toolRule(server, { name: 'delete' })).toBe('deny');
    expect(toolRule(server, { name: 'move' })).toBe('hold');
  });

  it('sends a read-only call as not mutating; anything else may change something', () => {
    expect(judgeToolCall(http({ noInverse: 'deny' }), { name: 'get', annotations: { readOnlyHint: true } })).toEqual({ kind: 'send', mutating: false });
    expect(judgeToolCall(http({}), { name: 'set' })).toEqual({ kind: 'send', mutating: true });
    // readOnlyHint false or absent, and a lying destructiveHint on a remote server, still mutating
    expect(judgeToolCall(http({}), { name: 'set', annotations: { readOnlyHint: false, destructiveHint: false } })).toEqual({ kind: 'send', mutating: true });
  });

  it('applies the noInverse rule only to calls no inverse and no checkpoint covers', () => {
    expect(judgeToolCall(http({ noInverse: 'deny' }), { name: 'drop_table' })).toMatchObject({ kind: 'refuse', message: expect.stringContaining('undo cannot take it back') });
    expect(judgeToolCall(http({ noInverse: 'hold' }), { name: 'drop_table' })).toMatchObject({ kind: 'hold' });
    expect(judgeToolCall(http({ noInverse: 'deny' }), { name: 'drop_table', annotations: { destructiveHint: false } }).kind).toBe('refuse');
    const strict = { deny: [], hold: [], noInverse: 'deny' as const };
    // A confined stdio server that says it only adds is covered (its changes stay on the machine).
    expect(judgeToolCall(def('local', { rules: strict }), { name: 'append', annotations: { destructiveHint: false } }).kind).toBe('send');
    expect(judgeToolCall(def('local', { rules: strict }), { name: 'append' }).kind).toBe('refuse');
    // The memory server's create_entities has a known inverse; the filesystem server is covered by the checkpoint.
    expect(judgeToolCall(def('mem', { api: 'memory', rules: strict }), { name: 'create_entities' })).toEqual({ kind: 'send', mutating: true });
    expect(judgeToolCall(def('mem', { api: 'memory', rules: strict }), { name: 'delete_entities' }).kind).toBe('refuse');
    expect(judgeToolCall(def('files', { api: 'filesystem', rules: strict }), { name: 'write_file' })).toEqual({ kind: 'send', mutating: true });
  });
});

describe('inverses as data', () => {
  it('recognises the well-known servers on a stdio command line, and nothing else', () => {
    const stdio = (command: string, ...args: string[]) => ({ kind: 'stdio' as const, command, args, env: {} });
    expect(detectApi(stdio('npx', '-y', '@modelcontextprotocol/server-memory'))).toBe('memory');
    expect(detectApi(stdio('npx', '-y', '@modelcontextprotocol/server-memory@2026.8.31'))).toBe('memory');
    expect(detectApi(stdio('node', '/x/node_modules/@modelcontextprotocol/server-memory/dist/index.js'))).toBe('memory');
    expect(detectApi(stdio('npx', '-y', '@modelcontextprotocol/server-filesystem', '/home/me/notes'))).toBe('filesystem');
    expect(detectApi(stdio('/usr/local/bin/mcp-server-filesystem', '/data'))).toBe('filesystem');
    expect(detectApi(stdio('npx', '-y', '@modelcontextprotocol/server-memory-plus'))).toBeNull();
    expect(detectApi(stdio('npx', '-y', 'evil-server', '--name', 'server-memory'))).toBeNull();
    expect(detectApi({ kind: 'http', url: 'https://x/@modelcontextprotocol/server-memory/', auth: { kind: 'none' } })).toBeNull();
  });

  it("derives each inverse from the real memory server's answers, and undoing them leaves the graph as before", async () => {
    const connector = hostStdioConnector({ MEMORY_FILE_PATH: memoryFilePath() });
    const server = def('mem', { transport: { kind: 'stdio', command: process.execPath, args: [MEMORY_SERVER], env: {} }, api: detectApi({ kind: 'stdio', command: 'node', args: [MEMORY_SERVER], env: {} }) });
    expect(server.api).toBe('memory');
    const hub = new McpHub({ connectors: { stdio: connector, http: connector }, server: () => server, task: (id) => ({ taskId: id, workspaces: [] }) });
    try {
      const call = (tool: string, args: Record<string, unknown>) => hub.call('t', 'mem', tool, args);
      await call('create_entities', { entities: [{ name: 'alice', entityType: 'person', observations: ['likes tea'] }] });
      const before = (await call('read_graph', {})).structuredContent;

      const created = await call('create_entities', { entities: [{ name: 'alice', entityType: 'person', observations: [] }, { name: 'bob', entityType: 'person', observations: ['new'] }] });
      const entities = deriveInverse('memory', 'create_entities', {}, created);
      // alice existed already: the server says only bob was created, so only bob is deleted.
      expect(entities).toEqual({ inverse: { tool: 'delete_entities', arguments: { entityNames: ['bob'] }, summary: 'delete entity bob' } });
      const related = await call('create_relations', { relations: [{ from: 'alice', to: 'bob', relationType: 'knows' }] });
      const relations = deriveInverse('memory', 'create_relations', {}, related);
      expect(relations).toEqual({ inverse: { tool: 'delete_relations', arguments: { relations: [{ from: 'alice', to: 'bob', relationType: 'knows' }] }, summary: 'delete relation alice knows bob' } });
      const observed = await call('add_observations', { observations: [{ entityName: 'alice', contents: ['likes tea', 'plays chess'] }] });
      const observations = deriveInverse('memory', 'add_observations', {}, observed);
      expect(observations).toEqual({ inverse: { tool: 'delete_observations', arguments: { deletions: [{ entityName: 'alice', observations: ['plays chess'] }] }, summary: 'delete the observation added to alice' } });
      // Nothing new: nothing to take back.
      const again = await call('create_entities', { entities: [{ name: 'bob', entityType: 'person', observations: [] }] });
      expect(deriveInverse('memory', 'create_entities', {}, again)).toMatchObject({ nothingChanged: true });
      // Without structuredContent, the JSON text of the answer says the same.
      expect(deriveInverse('memory', 'create_entities', {}, { content: created.content })).toEqual(entities);
      // An error answer, or a tool with no inverse data, gives none.
      expect(deriveInverse('memory', 'create_entities', {}, { ...created, isError: true })).toBeNull();
      expect(deriveInverse('memory', 'delete_entities', {}, created)).toBeNull();

      for (const d of [observations, relations, entities]) {
        const inverse = (d as { inverse: { tool: string; arguments: Record<string, unknown> } }).inverse;
        expect((await call(inverse.tool, inverse.arguments)).isError).toBe(false);
      }
      expect((await call('read_graph', {})).structuredContent).toEqual(before);
    } finally {
      await hub.close();
    }
  });
});

/** A hostile little server: counts every call it receives. */
function testServer(received: string[]): McpServer {
  const server = new McpServer({ name: 'test', version: '1.0.0' });
  server.registerTool('echo', { description: 'Echo the text back.\nSecond line.', inputSchema: { text: z.string(), times: z.number().int().min(1).optional() }, annotations: { readOnlyHint: true } }, async ({ text, times }) => {
    received.push('echo');
    return { content: [{ type: 'text', text: text.repeat(times ?? 1) }] };
  });
  server.registerTool('remove', { description: 'Remove everything.', inputSchema: { what: z.string() }, annotations: { destructiveHint: true } }, async () => {
    received.push('remove');
    return { content: [{ type: 'text', text: 'removed' }] };
  });
  server.registerTool('leak', { description: 'Answers with a secret.', inputSchema: {} }, async () => {
    received.push('leak');
    return { content: [{ type: 'text', text: `the key is ${SECRET}` }], structuredContent: { key: SECRET } };
  });
  server.registerTool('huge', { description: 'A very large answer.', inputSchema: { mib: z.number() }, annotations: { readOnlyHint: true } }, async ({ mib }) => {
    received.push('huge');
    return { content: [{ type: 'text', text: 'x'.repeat(mib * 1024 * 1024) }, { type: 'image', data: 'A'.repeat(1024), mimeType: 'image/png' }] };
  });
  server.registerTool('verbose', { description: `Talks a lot. ${'blah '.repeat(40000)}`, inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({ content: [] }));
  server.registerTool('fail', { description: 'Always fails.', inputSchema: {} }, async () => {
    received.push('fail');
    return { content: [{ type: 'text', text: 'the disk is full' }], isError: true };
  });
  return server;
}

describe('the /mcp route', () => {
  let hub: McpHub | null = null;
  afterEach(async () => {
    await hub?.close();
    hub = null;
  });

  function setup(rules: Partial<McpServerDefinition['rules']> = {}) {
    const received: string[] = [];
    const servers = new Map([
      ['tools', def('tools', { rules: { deny: ['remove'], hold: [], noInverse: 'allow', ...rules } })],
      ['other', def('other')],
    ]);
    const connector = inMemoryConnector(() => testServer(received));
    hub = new McpHub({ connectors: { stdio: connector, http: connector }, server: (n) => servers.get(n), task: (id) => ({ taskId: id, workspaces: [] }) });
    const holds = new Holds();
    const route = new McpRoute(hub, { granted: () => ['tools'], wait: (...a) => holds.wait(...a) });
    const effects: Effect[] = [];
    let changes = 0;
    const redactor = new Redactor([SECRET]);
    const abort = new AbortController();
    const ctx: McpRouteContext = {
      task: { id: 'task-1' } as Task,
      actionId: 'a1',
      recordEffect: (e) => effects.push(e),
      changed: () => changes++,
      signal: abort.signal,
      redactor,
    };
    const post = (path: string, body: unknown) => route.route(ctx, { method: 'POST', path, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) });
    return { received, connector, holds, route, ctx, effects, post, abort, changes: () => changes };
  }

  it('lists the granted servers with their tools, full schemas and rules', async () => {
    const t = setup();
    const reply = await t.route.route(t.ctx, { method: 'GET', path: '/', body: Buffer.alloc(0) });
    expect(reply.status).toBe(200);
    const servers = (reply.body as { servers: Array<{ name: string; tools: Array<{ name: string; rule: string; inputSchema: { properties: object; required?: string[] } }> }> }).servers;
    expect(servers.map((s) => s.name)).toEqual(['tools']);
    const echo = servers[0]!.tools.find((x) => x.name === 'echo')!;
    expect(Object.keys(echo.inputSchema.properties)).toEqual(['text', 'times']);
    expect(echo.inputSchema.required).toEqual(['text']);
    expect(servers[0]!.tools.find((x) => x.name === 'remove')!.rule).toBe('deny');
    // A hostile description is cut in the listing.
    const verbose = servers[0]!.tools.find((x) => x.name === 'verbose') as unknown as { description: string };
    expect(verbose.description.length).toBeLessThan(8300);
    expect(verbose.description).toMatch(/^Talks a lot\. blah .*… \(cut: 200013 characters\)$/);
    expect(t.received).toEqual([]);
    // Listing twice opens one connection.
    await t.route.route(t.ctx, { method: 'GET', path: '/tools', body: Buffer.alloc(0) });
    expect(t.connector.opened).toEqual(['tools']);
  });

  it('calls a tool and records the call as an effect', async () => {
    const t = setup();
    const reply = await t.post('/tools/echo', { text: 'hi', times: 2 });
    expect(reply).toEqual({ status: 200, body: { content: [{ type: 'text', text: 'hihi' }], isError: false } });
    expect(t.received).toEqual(['echo']);
    expect(t.effects).toEqual([
      expect.objectContaining({ channel: 'mcp', server: 'tools', transport: 'stdio', tool: 'echo', arguments: '{"text":"hi","times":2}', result: 'hihi', isError: false, mutating: false, refused: null, inverse: null, annotations: { readOnlyHint: true } }),
    ]);
  });

  it('refuses a denied tool with a reason the agent reads; it never reaches the server', async () => {
    const t = setup();
    const reply = await t.post('/tools/remove', { what: 'all' });
    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({ refused: true, error: expect.stringContaining('The person denied the tool tools.remove') });
    expect(t.received).toEqual([]);
    expect(t.effects).toEqual([expect.objectContaining({ tool: 'remove', refused: expect.stringContaining('denied'), result: null })]);
  });

  it('answers 422 with the schema problem in words and never calls the server', async () => {
    const t = setup();
    const missing = await t.post('/tools/echo', { times: 0, extra: 1 });
    expect(missing.status).toBe(422);
    const error = (missing.body as { error: string }).error;
    expect(error).toMatch(/do not fit its input schema/);
    expect(error).toMatch(/lack "text"/);
    expect(error).toMatch(/times must be >= 1/);
    expect((await t.post('/tools/echo', { text: 5 })).status).toBe(422);
    expect((await t.post('/tools/echo', '[1,2]')).status).toBe(400);
    expect((await t.post('/tools/echo', '{not json')).status).toBe(400);
    expect((await t.post('/tools/nope', {})).body).toMatchObject({ error: expect.stringContaining('has no tool "nope". Its tools: echo, remove, leak, huge, verbose, fail') });
    expect(t.received).toEqual([]);
    expect(t.effects.every((e) => (e as McpEffect).refused !== null)).toBe(true);
  });

  it('refuses a server not granted with what to do, without starting it', async () => {
    const t = setup();
    const reply = await t.post('/other/echo', { text: 'x' });
    expect(reply.status).toBe(403);
    expect((reply.body as { error: string }).error).toMatch(/"other" is not granted to this task.*Granted: tools.*posthoc run --mcp other/);
    expect((await t.route.route(t.ctx, { method: 'GET', path: '/other', body: Buffer.alloc(0) })).status).toBe(403);
    expect(t.connector.opened).toEqual([]);
  });

  it('redacts secrets in what the sandbox gets and in the effect', async () => {
    const t = setup();
    const reply = await t.post('/tools/leak', { note: SECRET });
    expect(JSON.stringify(reply.body)).not.toContain(SECRET);
    expect(reply.body).toMatchObject({ content: [{ type: 'text', text: 'the key is [REDACTED]' }], structuredContent: { key: '[REDACTED]' } });
    expect(JSON.stringify(t.effects)).not.toContain(SECRET);
    expect((t.effects[0] as McpEffect).result).toContain('[REDACTED]');
  });

  it('cuts a huge answer for the sandbox with a note, and keeps head and tail of it on the effect', async () => {
    const t = setup();
    const reply = await t.post('/tools/huge', { mib: 3 });
    expect(reply.status).toBe(200);
    const size = Buffer.byteLength(JSON.stringify(reply.body));
    expect(size).toBeLessThanOrEqual(RESULT_BYTES);
    expect(size).toBeGreaterThan(RESULT_BYTES / 2);
    const body = reply.body as { content: Array<{ type: string; text?: string }>; truncated: string };
    expect(body.truncated).toMatch(/cut this answer: it was \d+ bytes, over the 1048576 bytes/);
    expect(body.content.at(-1)!.text).toBe(body.truncated);
    expect(body.content.some((c) => c.text === '(1 more item was cut)')).toBe(true);
    const effect = t.effects[0] as McpEffect;
    expect(effect.result!.length).toBeLessThan(5000);
    expect(effect.result).toMatch(/^x+… \(\d+ characters\) …x+\n\[image image\/png, 768 bytes\]$/);
  });

  it("passes a tool's error on as isError, recorded as such", async () => {
    const t = setup();
    const reply = await t.post('/tools/fail', {});
    expect(reply).toEqual({ status: 200, body: { content: [{ type: 'text', text: 'the disk is full' }], isError: true } });
    expect(t.effects[0]).toMatchObject({ isError: true, result: 'the disk is full', mutating: true, refused: null });
  });

  it('holds a held tool until the person approves; their cancel refuses it unsent', async () => {
    const t = setup({ hold: ['echo'] });
    const pending = t.post('/tools/echo', { text: 'ok' });
    await expect.poll(() => t.holds.waiting().length).toBe(1);
    expect(t.received).toEqual([]);
    const effect = t.effects[0] as McpEffect;
    expect(effect.hold).toMatchObject({ kind: 'approval', state: 'waiting', reason: expect.stringContaining('tools.echo') });
    t.holds.approve(t.holds.waiting()[0]!.id);
    expect((await pending).status).toBe(200);
    expect(t.received).toEqual(['echo']);
    expect(effect).toMatchObject({ hold: { state: 'approved' }, refused: null, result: 'ok' });
    expect(t.effects).toHaveLength(1);

    const second = t.post('/tools/echo', { text: 'no' });
    await expect.poll(() => t.holds.waiting().length).toBe(1);
    t.holds.cancel(t.holds.waiting()[0]!.id);
    const refused = await second;
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ refused: true, error: expect.stringContaining('did not approve tools.echo') });
    expect(t.received).toEqual(['echo']);
    expect(t.effects[1]).toMatchObject({ hold: { state: 'cancelled' }, refused: expect.stringContaining('not sent') });
  });

  it('a held call is not sent when the code stops waiting', async () => {
    const t = setup({ hold: ['echo'] });
    const pending = t.post('/tools/echo', { text: 'late' });
    await expect.poll(() => t.holds.waiting().length).toBe(1);
    t.abort.abort();
    expect((await pending).status).toBe(409);
    expect(t.received).toEqual([]);
  });

  it('opens the server again after its connection broke, and closes every connection with the task', async () => {
    const made: McpServer[] = [];
    const received: string[] = [];
    const connector = inMemoryConnector(() => {
      const server = testServer(received);
      made.push(server);
      return server;
    });
    hub = new McpHub({ connectors: { stdio: connector, http: connector }, server: (n) => def(n), task: (id) => ({ taskId: id, workspaces: [] }) });
    expect((await hub.call('t', 'tools', 'echo', { text: 'a' })).content).toEqual([{ type: 'text', text: 'a' }]);
    await made[0]!.close(); // the server went away
    await expect(hub.call('t', 'tools', 'echo', { text: 'b' })).rejects.toThrow();
    expect((await hub.call('t', 'tools', 'echo', { text: 'c' })).content).toEqual([{ type: 'text', text: 'c' }]);
    expect(connector.opened).toEqual(['tools', 'tools']);
    // A protocol error (an unknown tool) keeps the connection.
    await expect(hub.call('t', 'tools', 'no_such_tool', {})).resolves.toMatchObject({ isError: true });
    await hub.call('t', 'tools', 'echo', { text: 'd' });
    expect(connector.opened).toHaveLength(2);
    await hub.closeTask('t');
    expect(connector.closed).toBe(2);
    await expect(hub.call('t', 'tools', 'echo', { text: 'e' })).resolves.toMatchObject({ isError: false });
    expect(connector.opened).toHaveLength(3);
  });

  it('lists every page of a server that pages its tools, and stops a server that pages forever', async () => {
    const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
    const { ListToolsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    let pages = 0;
    const connector = inMemoryConnector(() => {
      const server = new Server({ name: 'pager', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async (req) => {
        pages++;
        const n = Number(req.params?.cursor ?? 0);
        return { tools: [{ name: `t${n}`, inputSchema: { type: 'object' as const } }], nextCursor: String(n + 1) };
      });
      return { connect: (t: never) => server.connect(t), close: () => server.close() } as unknown as McpServer;
    });
    hub = new McpHub({ connectors: { stdio: connector, http: connector }, server: (n) => def(n), task: (id) => ({ taskId: id, workspaces: [] }) });
    const tools = await hub.tools('t', 'pager');
    expect(tools.map((x) => x.name).slice(0, 3)).toEqual(['t0', 't1', 't2']);
    expect(tools).toHaveLength(50);
    expect(pages).toBe(50);
  });
});

describe("the system prompt's MCP section", () => {
  const view = (name: string, patch: Partial<McpToolView> = {}): McpToolView => ({
    name, description: `Does ${name}.\nMore words that stay out of the prompt.`, inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, rule: 'allow', inverseTool: null, ...patch,
  });
  const grant = { name: 'notes', hostPath: '/home/me/notes', mountPath: '/workspace/notes', readOnly: false };

  it('names each tool with its first line, how to call it, where a local server sees the folders, and what is denied', () => {
    const text = mcpSection(
      [
        { server: def('my-files'), tools: [view('write_file'), view('delete_file', { rule: 'deny' }), view('read_file', { annotations: { readOnlyHint: true } })] },
        { server: def('remote', { transport: { kind: 'http', url: 'http://127.0.0.1:1/mcp', auth: { kind: 'none' } } }), tools: null, error: 'HTTP 401: the token was refused' },
      ],
      [grant],
    ).join('\n');
    expect(text).toContain('from posthoc_tools import my_files');
    expect(text).toContain('my_files.write_file(path=…)');
    expect(text).toContain('help(my_files.write_file)');
    expect(text).toContain('POST $POSTHOC_GATEWAY/mcp/SERVER/TOOL');
    expect(text).toContain('my_files (local, "my-files"):');
    expect(text).toContain('  - write_file: Does write_file.\n');
    expect(text).toContain('  - delete_file: Does delete_file. [denied: refused]');
    expect(text).toContain('  - read_file: Does read_file. [read-only]');
    expect(text).toContain('/workspace/notes (also at /home/me/notes)');
    expect(text).toContain('(its tools could not be listed: HTTP 401: the token was refused)');
    expect(text).not.toContain('More words');
    expect(mcpSection([], [grant])).toEqual([]);
  });

  it('stays bounded with a server of many tools: names only past the budget, then a count', () => {
    const tools = Array.from({ length: 2000 }, (_, i) => view(`tool_number_${i}`, { description: `A long description of tool ${i} `.repeat(20) }));
    const lines = mcpSection([{ server: def('big'), tools }], []);
    const tokens = estimateTokens(lines.join('\n'));
    expect(tokens).toBeLessThan(MCP_PROMPT_MAX_TOKENS + 400);
    expect(lines.filter((l) => l.startsWith('  - ')).length).toBeGreaterThan(5);
    expect(lines.find((l) => l.startsWith('  also: '))).toMatch(/tool_number_\d+, .* and \d+ more$/);
    expect(lines.at(-1)).toMatch(/Not every tool is described here/);
  });
});

describe('the tools undo channel', () => {
  const call = (patch: Partial<McpEffect> = {}): McpEffect => ({
    channel: 'mcp', server: 'mem', transport: 'stdio', tool: 'create_entities', arguments: '{}', result: '{}', isError: false, durationMs: 1, mutating: true, refused: null,
    inverse: { tool: 'delete_entities', arguments: { entityNames: ['bob'] }, summary: 'delete entity bob' }, hold: null, ...patch,
  });
  const job = (direction: 'undo' | 'redo', effects: McpEffect[]) => ({ taskId: 't', operation: direction, direction, actions: [{ id: 'a', effects } as unknown as Action], later: [] });

  it('has nothing to do for refused, failed, read-only or inverse-less calls', async () => {
    const channel = new McpUndoChannel(undefined, () => undefined);
    const effects = [call({ refused: 'denied' }), call({ isError: true }), call({ mutating: false }), call({ inverse: null }), call({ undone: { at: 'x', error: null } })];
    expect(await channel.session(job('undo', effects), async (step) => step)).toBeNull();
  });

  it('refuses, naming the call, when this Posthoc has no tools channel; redo of a taken-back call is refused', async () => {
    const none = new McpUndoChannel(undefined, () => undefined);
    expect(await none.session(job('undo', [call()]), async (step) => step!.check())).toEqual([
      expect.objectContaining({ channel: 'mcp', path: 'mem.delete_entities', reason: expect.stringContaining('without the tools channel') }),
    ]);
    expect(await none.session(job('redo', [call({ undone: { at: 'x', error: null } })]), async (step) => step!.check())).toEqual([
      expect.objectContaining({ channel: 'mcp', path: 'mem.create_entities', reason: expect.stringContaining('redo cannot call tools again') }),
    ]);
    expect(await none.session(job('redo', [call({ undone: { at: 'x', error: 'refused' } })]), async (step) => step)).toBeNull();
  });

  it('previews what the check would say, sending nothing and releasing nothing an undo under way holds', async () => {
    const asked: string[] = [];
    const port = {
      definition: (server: string) => (server === 'mem' ? null : {}),
      call: async () => Promise.reject(new Error('the preview must not call a tool')),
      releaseUndo: async (taskId: string) => void asked.push(`release ${taskId}`),
    };
    const channel = new McpUndoChannel(port, () => asked.push('save'));
    expect(await channel.preview(job('undo', [call()]))).toEqual([expect.objectContaining({ channel: 'mcp', path: 'mem.delete_entities', reason: expect.stringContaining('no longer defined') })]);
    expect(await channel.preview(job('redo', [call({ undone: { at: 'x', error: null } })]))).toEqual([expect.objectContaining({ reason: expect.stringContaining('redo cannot call tools again') })]);
    expect(await channel.preview(job('undo', [call({ mutating: false })]))).toEqual([]);
    expect(asked).toEqual([]);
  });
});

describe('the tools undo channel against a server that hangs', () => {
  it('gives up on an inverse call the server never answers, and says so; nothing is marked taken back', async () => {
    const connector = inMemoryConnector(() => {
      const server = new McpServer({ name: 'stuck', version: '1' });
      server.registerTool('delete_entities', { description: 'Never answers.', inputSchema: { entityNames: z.array(z.string()) } }, () => new Promise(() => undefined));
      return server;
    });
    const hub = new McpHub({ connectors: { stdio: connector, http: connector }, server: (n) => def(n, { api: 'memory' }), task: (id) => ({ taskId: id, workspaces: [] }) });
    const effect: McpEffect = {
      channel: 'mcp', server: 'mem', transport: 'stdio', tool: 'create_entities', arguments: '{}', result: '{}', isError: false, durationMs: 1, mutating: true, refused: null,
      inverse: { tool: 'delete_entities', arguments: { entityNames: ['bob'] }, summary: 'delete entity bob' }, hold: null,
    };
    const saved: Action[] = [];
    const channel = new McpUndoChannel(hub, (a) => saved.push(a), 300);
    const action = { id: 'a', effects: [effect] } as unknown as Action;
    const result = await channel.session({ taskId: 't', operation: 'undo', direction: 'undo', actions: [action], later: [] }, async (step) => {
      expect(await step!.check()).toEqual([]);
      return step!.apply();
    });
    expect(result).toMatchObject({ ok: false, refused: { what: 'mem.delete_entities (delete entity bob)', why: expect.stringMatching(/^mem did not answer delete_entities within 300 ms; it may or may not have taken create_entities back/) } });
    expect(effect.undone).toMatchObject({ error: expect.stringContaining('did not answer') });
    expect(saved).toHaveLength(1);
    // The connection the undo opened is closed again.
    expect(connector.closed).toBe(connector.opened.length);
    await hub.close();
  });
});
