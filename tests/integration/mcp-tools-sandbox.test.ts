// posthoc_tools in the REAL sandbox container (the image's module), against the real gateway's /mcp route:
// Python code imports the granted servers, calls their tools with keyword arguments, reads help(), and
// meets the errors as exceptions. The servers are the real reference servers (server-everything and
// server-memory, spawned on the host over stdio by the SDK) and an in-process SDK server with a huge answer.
// Hostile: a denied tool, arguments that do not fit the schema, a server not granted, a tool's error, a
// 3 MiB answer (cut before it reaches the sandbox).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Effect, Task } from '../../shared/domain';
import type { McpEffect, McpServerDefinition } from '../../shared/domain/mcp';
import { Gateway } from '../../main/gateway/gateway';
import { detectApi } from '../../main/effects/mcp/inverses';
import { McpHub } from '../../main/effects/mcp/mcp-hub';
import { McpRoute } from '../../main/effects/mcp/mcp-route';
import { createDocker } from '../../main/sandbox/docker-client';
import { SandboxExecutor } from '../../main/sandbox/executor';
import { SANDBOX_IMAGE } from '../../main/sandbox/sandbox-image';
import { EVERYTHING_SERVER, hostStdioConnector, inMemoryConnector, MEMORY_SERVER, memoryFilePath } from '../support/mcp-test-connectors';
import { tempDirs } from '../support/temp-dir';

const dirs = tempDirs();
const stdio = (args: string[], env: Record<string, string> = {}) => ({ kind: 'stdio' as const, command: process.execPath, args, env });
const servers: McpServerDefinition[] = [
  { name: 'everything', transport: stdio([EVERYTHING_SERVER, 'stdio']), rules: { deny: ['get-sum'], hold: [], noInverse: 'allow' }, api: null, createdAt: '2026-01-01T00:00:00.000Z' },
  { name: 'mem', transport: stdio([MEMORY_SERVER], { MEMORY_FILE_PATH: memoryFilePath() }), rules: { deny: [], hold: [], noInverse: 'allow' }, api: 'memory', createdAt: '2026-01-01T00:00:00.000Z' },
  { name: 'big-data', transport: { kind: 'http', url: 'http://127.0.0.1:9/mcp', auth: { kind: 'none' } }, rules: { deny: [], hold: [], noInverse: 'allow' }, api: null, createdAt: '2026-01-01T00:00:00.000Z' },
  // A command that does not exist: the server cannot start.
  { name: 'broken', transport: { kind: 'stdio', command: '/nonexistent/mcp-server', args: [], env: {} }, rules: { deny: [], hold: [], noInverse: 'allow' }, api: null, createdAt: '2026-01-01T00:00:00.000Z' },
];
const task = { id: 'mcp-sandbox-task', title: 't', status: 'running', workspaces: [], services: [], model: 'm', answer: null, error: null, createdAt: '', updatedAt: '' } as Task;

const big = inMemoryConnector(() => {
  const server = new McpServer({ name: 'big', version: '1' });
  server.registerTool('dump', { description: 'A very large answer.', inputSchema: { mib: z.number() }, annotations: { readOnlyHint: true } }, async ({ mib }) => ({
    content: [{ type: 'text', text: `start${'y'.repeat(mib * 1024 * 1024)}end` }],
  }));
  return server;
});
const hub = new McpHub({
  connectors: { stdio: hostStdioConnector(), http: big },
  server: (n) => servers.find((s) => s.name === n),
  task: (id) => ({ taskId: id, workspaces: [] }),
});
const gateway = new Gateway(dirs.make('posthoc-gw-'), (id) => (id === task.id ? task : undefined));
gateway.route('mcp', new McpRoute(hub, { granted: () => servers.map((s) => s.name), wait: (...a) => gateway.holds.wait(...a) }).route);
const executor = new SandboxExecutor(createDocker(), process.env.POSTHOC_TEST_IMAGE ?? SANDBOX_IMAGE, {
  controlDir: join(dirs.make('posthoc-control-'), 'sandbox'),
  doors: { open: async (id) => (await gateway.open(id)).dir, close: (id) => gateway.close(id) },
});

afterAll(async () => {
  await executor.stopAll();
  await gateway.closeAll();
  await hub.close();
  dirs.cleanup();
});

let seq = 0;
/** Runs Python in the task's sandbox as one action; the MCP calls it made, as the gateway recorded them. */
async function run(source: string) {
  gateway.beginAction(task.id, `a${++seq}`);
  let effects: Effect[] = [];
  try {
    const out = await executor.run({ taskId: task.id, workspaces: [], seq, language: 'python', source, timeoutSeconds: 120 });
    return { stdout: out.stdout, stderr: out.stderr, exitCode: out.exitCode, effects: () => effects.filter((e): e is McpEffect => e.channel === 'mcp') };
  } finally {
    effects = gateway.endAction(task.id);
  }
}

describe('posthoc_tools in the sandbox (real Docker, real image)', () => {
  it('calls tools as functions with Python values back, and help() prints the full schema', async () => {
    expect(detectApi(servers[1]!.transport)).toBe('memory');
    const out = await run(`
import json, pydoc
import posthoc_tools
from posthoc_tools import everything, mem
print('SERVERS', posthoc_tools.servers())
print('ECHO', repr(everything.echo(message='hi there')))
print('WEATHER', json.dumps(everything.get_structured_content(location='Chicago'), sort_keys=True))
created = mem.create_entities(entities=[{'name': 'zed', 'entityType': 'cat', 'observations': ['naps']}])
print('CREATED', json.dumps(created))
print('HELP-BEGIN')
print(pydoc.render_doc(everything.get_sum, renderer=pydoc.plaintext))
print('HELP-END')
print('SERVER-HELP-BEGIN')
print(pydoc.render_doc(everything, renderer=pydoc.plaintext))
print('SERVER-HELP-END')
from posthoc_tools import broken, ToolError
try:
    broken.anything(x=1)
except ToolError as e:
    print('BROKEN', e)
`);
    expect(out.stderr).toBe('');
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toContain("SERVERS ['everything', 'mem', 'big_data', 'broken']");
    expect(out.stdout).toContain("ECHO 'Echo: hi there'");
    expect(out.stdout).toContain('WEATHER {"conditions": "Light rain / drizzle", "humidity": 82, "temperature": 36}');
    expect(out.stdout).toContain('CREATED {"entities": [{"name": "zed", "entityType": "cat", "observations": ["naps"]}]}');
    const help = out.stdout.slice(out.stdout.indexOf('HELP-BEGIN'), out.stdout.indexOf('HELP-END'));
    expect(help).toContain('get_sum(*, a, b)');
    expect(help).toContain('Returns the sum of two numbers');
    expect(help).toContain('The person denied this tool');
    expect(help).toContain('a (number, required): First number');
    expect(help).toMatch(/Input schema:\s+\{\s+"type": "object"/);
    const serverHelp = out.stdout.slice(out.stdout.indexOf('SERVER-HELP-BEGIN'), out.stdout.indexOf('SERVER-HELP-END'));
    expect(serverHelp).toContain('The MCP server "everything" (stdio).');
    expect(serverHelp).toContain('echo: Echoes back the input string');
    expect(serverHelp).toMatch(/FUNCTIONS\n\s+echo\(\*, message\)/);
    expect(serverHelp).not.toContain('__getattr__');
    expect(out.stdout).toMatch(/^BROKEN The server "broken" could not be reached: .*ENOENT/m);
    expect(out.effects().map((e) => [e.server, e.tool, e.refused, e.mutating])).toEqual([
      ['everything', 'echo', null, false],
      ['everything', 'get-structured-content', null, false],
      ['mem', 'create_entities', null, true],
    ]);
    expect(out.effects()[2]!.inverse).toMatchObject({ tool: 'delete_entities', arguments: { entityNames: ['zed'] } });
  });

  it('raises ToolRefused for a denied tool, bad arguments and a server not granted; ToolError for a failing tool', async () => {
    const out = await run(`
from posthoc_tools import everything, ToolError, ToolRefused
def attempt(label, fn):
    try:
        fn()
        print(label, 'NO ERROR')
    except ToolRefused as e:
        print(label, 'REFUSED', e)
    except ToolError as e:
        print(label, 'ERROR', e)
attempt('DENIED', lambda: everything.get_sum(a=1, b=2))
attempt('SCHEMA', lambda: everything.echo(message=5))
attempt('MISSING', lambda: everything.get_structured_content())
attempt('FAILING', lambda: everything.get_resource_reference(resourceType='Text', resourceId=-1))
try:
    from posthoc_tools import stranger
except ImportError as e:
    print('IMPORT', e)
try:
    everything.echo('positional')
except TypeError as e:
    print('TYPE', e)
`);
    expect(out.stderr).toBe('');
    expect(out.stdout).toMatch(/^DENIED REFUSED The person denied the tool everything\.get-sum, so the call was refused and never reached the server/m);
    expect(out.stdout).toMatch(/^SCHEMA REFUSED The arguments of everything\.echo do not fit its input schema, so it was not called: message must be string/m);
    expect(out.stdout).toMatch(/^MISSING REFUSED .*lack "location"/m);
    expect(out.stdout).toMatch(/^FAILING ERROR everything\.get-resource-reference: .*Invalid resourceId: -1/m);
    expect(out.stdout).toMatch(/^IMPORT No MCP server "stranger" is granted to this task\. Granted: everything, mem, big_data, broken/m);
    expect(out.stdout).toMatch(/^TYPE everything\.echo takes keyword arguments only, for example everything\.echo\(message=\.\.\.\)/m);
    expect(out.effects().map((e) => [e.tool, e.refused === null, e.isError])).toEqual([
      ['get-sum', false, false],
      ['echo', false, false],
      ['get-structured-content', false, false],
      ['get-resource-reference', true, true],
    ]);
  });

  it('gets a huge answer cut, with a note, and never the whole of it', async () => {
    const out = await run(`
from posthoc_tools import big_data
text = big_data.dump(mib=3)
parts = text if isinstance(text, list) else [text]
print('ITEMS', len(parts))
print('FIRST', len(parts[0]), parts[0][:5], parts[0][-40:])
print('NOTE', parts[-1])
`);
    expect(out.stderr).toBe('');
    expect(out.stdout).toMatch(/^ITEMS 2$/m);
    const first = /^FIRST (\d+) start/m.exec(out.stdout);
    expect(Number(first![1])).toBeLessThan(1024 * 1024);
    expect(Number(first![1])).toBeGreaterThan(512 * 1024);
    expect(out.stdout).toMatch(/^FIRST .*\(cut: 3145736 characters in all\)$/m);
    expect(out.stdout).toMatch(/^NOTE Posthoc cut this answer: it was \d+ bytes, over the 1048576 bytes the gateway passes to the sandbox/m);
    expect(out.effects()[0]!.result!.length).toBeLessThan(5000);
  });
});
