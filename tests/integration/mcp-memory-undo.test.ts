// MCP tool calls undone, end to end on the host with the REAL @modelcontextprotocol/server-memory (spawned
// from node_modules over stdio by the SDK's StdioClientTransport, its graph in a temp folder): an action
// creates entities through the real gateway door (POST /mcp/SERVER/TOOL), the call is an effect with its
// inverse, the task's run ends (its connections close), and the undo saga opens the server again, deletes
// them, and the graph is as before. A server that refuses an inverse gives the saga's partial outcome: what
// went through is marked and never made twice, and the next undo makes only the rest. Redo of a call taken
// back is refused.
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Effect } from '../../shared/domain';
import type { McpEffect, McpServerDefinition } from '../../shared/domain/mcp';
import { Gateway } from '../../main/gateway/gateway';
import { detectApi } from '../../main/effects/mcp/inverses';
import { McpHub } from '../../main/effects/mcp/mcp-hub';
import { McpRoute } from '../../main/effects/mcp/mcp-route';
import { callDoor } from '../support/gateway-client';
import { hostStdioConnector, MEMORY_SERVER, memoryFilePath } from '../support/mcp-test-connectors';
import { tempDirs } from '../support/temp-dir';
import { startUndoHarness, type UndoHarness } from '../support/undo-harness';

const dirs = tempDirs();
let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
  dirs.cleanup();
});

function memoryServer(name: string, file: string): McpServerDefinition {
  const transport = { kind: 'stdio' as const, command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: file } };
  return { name, transport, rules: { deny: [], hold: [], noInverse: 'allow' }, api: detectApi(transport), createdAt: '2026-01-01T00:00:00.000Z' };
}

async function world(servers: McpServerDefinition[]) {
  const byName = new Map(servers.map((s) => [s.name, s]));
  const connector = hostStdioConnector();
  const hub = new McpHub({ connectors: { stdio: connector, http: connector }, server: (n) => byName.get(n), task: (id) => ({ taskId: id, workspaces: [] }) });
  const harness: UndoHarness = await startUndoHarness({ channels: { tools: hub } });
  const gateway = new Gateway(dirs.make('posthoc-gw-'), (id) => harness.store.getTask(id) ?? undefined);
  const route = new McpRoute(hub, { granted: () => servers.map((s) => s.name), wait: (...a) => gateway.holds.wait(...a) });
  gateway.route('mcp', route.route);
  cleanup.push(async () => {
    await gateway.closeAll();
    await hub.close();
    await harness.close();
  });
  const door = await gateway.open(harness.task.id);
  const socket = join(door.dir!, 'gateway.sock');
  /** One action whose code calls tools through the door, as the sandbox would; then the task's run ends. */
  const act = async (calls: Array<[string, string, unknown]>) => {
    let effects: Effect[] = [];
    const answers: unknown[] = [];
    const action = await harness.act(
      async () => {
        gateway.beginAction(harness.task.id, 'running');
        for (const [server, tool, args] of calls) answers.push((await callDoor(socket, 'POST', `/mcp/${server}/${tool}`, args)).json());
        effects = gateway.endAction(harness.task.id);
      },
      { effects: () => effects },
    );
    await hub.closeTask(harness.task.id);
    return { action, answers };
  };
  /** The graph as the server reads it now, through a connection of its own. */
  const graph = async (server: string) => {
    const result = await hub.call('reader', server, 'read_graph', {});
    await hub.closeTask('reader');
    return result.structuredContent;
  };
  return { hub, harness, connector, act, graph, servers: byName };
}

describe('MCP calls undone with the real memory server', () => {
  it('creates entities through the gateway, and undo deletes exactly them; the graph is as before', async () => {
    const file = memoryFilePath();
    const w = await world([memoryServer('mem', file)]);
    await w.hub.call('seed', 'mem', 'create_entities', { entities: [{ name: 'alice', entityType: 'person', observations: ['likes tea'] }] });
    await w.hub.closeTask('seed');
    const before = await w.graph('mem');

    const { action, answers } = await w.act([
      ['mem', 'create_entities', { entities: [{ name: 'alice', entityType: 'person', observations: [] }, { name: 'bob', entityType: 'person', observations: ['new here'] }] }],
      ['mem', 'add_observations', { observations: [{ entityName: 'alice', contents: ['plays chess'] }] }],
      ['mem', 'read_graph', {}],
    ]);
    expect(answers[0]).toMatchObject({ isError: false, structuredContent: { entities: [{ name: 'bob' }] } });
    const effects = action.effects.filter((e): e is McpEffect => e.channel === 'mcp');
    expect(effects.map((e) => [e.tool, e.mutating, e.inverse?.tool ?? null])).toEqual([
      ['create_entities', true, 'delete_entities'],
      ['add_observations', true, 'delete_observations'],
      ['read_graph', false, null],
    ]);
    expect(effects[0]!.inverse).toEqual({ tool: 'delete_entities', arguments: { entityNames: ['bob'] }, summary: 'delete entity bob' });
    expect(action.reverse.steps.filter((s) => s.channel === 'mcp').map((s) => (s as { summary: string }).summary)).toEqual(['delete the observation added to alice', 'delete entity bob']);
    expect(action.confinement).toMatchObject({ level: 'compensable', reason: expect.stringContaining('mem.create_entities') });
    expect(await w.graph('mem')).not.toEqual(before);

    const opened = w.connector.opened.length;
    const result = await w.harness.undo.undo(action.id);
    expect(result.outcome).toBe('undone');
    expect(result.outcome === 'undone' && result.calls).toEqual(['delete the observation added to alice', 'delete entity bob']);
    expect(await w.graph('mem')).toEqual(before);
    // The task's run had ended: undo opened the server again, and closed it after.
    expect(w.connector.opened.length).toBe(opened + 2);
    expect(w.connector.closed).toBe(w.connector.opened.length);
    const saved = w.harness.store.getAction(action.id)!;
    expect(saved.status).toBe('undone');
    expect((saved.effects as McpEffect[]).filter((e) => e.inverse).every((e) => e.undone?.error === null)).toBe(true);

    // Redo cannot call tools again.
    const redo = await w.harness.undo.redo(action.id);
    expect(redo.outcome).toBe('conflict');
    expect(JSON.stringify(redo)).toMatch(/undo took this tool call back; redo cannot call tools again/);
    expect(await w.graph('mem')).toEqual(before);
  });

  it('a server that refuses an inverse gives the partial outcome; the next undo makes only the rest', async () => {
    const fileA = memoryFilePath();
    const fileB = memoryFilePath();
    const w = await world([memoryServer('mem', fileA), memoryServer('other', fileB)]);
    const beforeA = await w.graph('mem');
    const beforeB = await w.graph('other');
    const { action } = await w.act([
      ['mem', 'create_entities', { entities: [{ name: 'carol', entityType: 'person', observations: [] }] }],
      ['other', 'create_entities', { entities: [{ name: 'dave', entityType: 'person', observations: [] }] }],
    ]);
    // mem's graph can no longer be read: a folder stands where its file was, so the server answers an error.
    const aside = `${fileA}.aside`;
    renameSync(fileA, aside);
    mkdirSync(fileA);

    const partial = await w.harness.undo.undo(action.id);
    expect(partial.outcome).toBe('partial');
    if (partial.outcome !== 'partial') return;
    expect(partial.calls).toEqual(['delete entity dave']);
    expect(partial.refused.what).toBe('mem.delete_entities (delete entity carol)');
    expect(partial.refused.why).toMatch(/^mem refused delete_entities: .*EISDIR/);
    expect(partial.message).toMatch(/partly done: other\.delete_entities called \(delete entity dave\) — these cannot be taken back/);
    expect(partial.steps.find((s) => s.channel === 'mcp')).toMatchObject({ result: 'refused' });
    expect(await w.graph('other')).toEqual(beforeB);
    const stayed = w.harness.store.getAction(action.id)!;
    expect(stayed.status).toBe('done');
    expect(stayed.reverse.takenBack).toEqual([{ channel: 'mcp', name: 'other.create_entities', summary: 'delete entity dave' }]);
    expect(stayed.reverse.steps).toEqual([expect.objectContaining({ channel: 'mcp', server: 'mem', tool: 'delete_entities' })]);

    // The person puts the file back; undo again makes only mem's inverse (dave's is not made twice).
    rmSync(fileA, { recursive: true });
    renameSync(aside, fileA);
    const calls: string[] = [];
    const call = w.hub.call.bind(w.hub);
    w.hub.call = (taskId, server, tool, args, signal, purpose) => {
      calls.push(`${server}.${tool}`);
      return call(taskId, server, tool, args, signal, purpose);
    };
    const done = await w.harness.undo.undo(action.id);
    expect(done.outcome).toBe('undone');
    expect(calls).toEqual(['mem.delete_entities']);
    expect(await w.graph('mem')).toEqual(beforeA);
  });

  it('refuses undo, naming the server, when it is no longer defined; nothing is called', async () => {
    const w = await world([memoryServer('mem', memoryFilePath())]);
    const { action } = await w.act([['mem', 'create_entities', { entities: [{ name: 'erin', entityType: 'person', observations: [] }] }]]);
    const opened = w.connector.opened.length;
    w.servers.delete('mem');
    const refused = await w.harness.undo.undo(action.id);
    expect(refused.outcome).toBe('conflict');
    expect(refused.outcome === 'conflict' && refused.blockers).toEqual([
      expect.objectContaining({ channel: 'mcp', path: 'mem.delete_entities', reason: expect.stringContaining('the MCP server "mem" is no longer defined; add it again') }),
    ]);
    expect(w.connector.opened.length).toBe(opened);
    expect(w.harness.store.getAction(action.id)!.status).toBe('done');
  });
});
