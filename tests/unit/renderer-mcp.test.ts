// The MCP parts of the app as pure functions: a pasted command line read as a shell would, badges from a
// tool's annotations, the rules after picking one for a tool, and one line per tool call on the card.
import { describe, expect, it } from 'vitest';
import type { McpEffect, McpServerView } from '../../shared/domain/mcp';
import { describeAuth, describeMcpCall, describeState, describeTransport, oneLine, parseCommandLine, ruleOf, toolBadges, toolRows, withToolRule } from '../../renderer/src/model/mcp-view';

describe('a pasted command line', () => {
  it('is split as a shell would, quotes and escapes kept, NAME=value words as the environment', () => {
    expect(parseCommandLine(`npx -y @modelcontextprotocol/server-filesystem "/home/me/My Notes" '/tmp/a b' c\\ d`)).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/My Notes', '/tmp/a b', 'c d'],
      env: {},
    });
    expect(parseCommandLine(`MEMORY_FILE_PATH=/data/m.json  npx -y @modelcontextprotocol/server-memory ""`)).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-memory', ''],
      env: { MEMORY_FILE_PATH: '/data/m.json' },
    });
    expect(parseCommandLine(`uvx mcp-server-git --repository "a \\"quoted\\" dir"`).args).toEqual(['mcp-server-git', '--repository', 'a "quoted" dir']);
  });

  it('refuses an unclosed quote and an empty line in plain words, and reads back as it was pasted', () => {
    expect(() => parseCommandLine(`npx "unclosed`)).toThrow('The command line has an unclosed double quote.');
    expect(() => parseCommandLine('   ')).toThrow(/^Give the command that starts the server/);
    expect(() => parseCommandLine('A=1 B=2')).toThrow(/^Give the command/);
    const parsed = parseCommandLine(`DEBUG=1 npx -y server "/home/me/My Notes" it\\'s`);
    expect(describeTransport({ kind: 'stdio', ...parsed })).toBe(`DEBUG=1 npx -y server '/home/me/My Notes' 'it'\\''s'`);
    expect(parseCommandLine(describeTransport({ kind: 'stdio', ...parsed }))).toEqual(parsed);
  });
});

describe('a server as the Connections page shows it', () => {
  const server: McpServerView = {
    name: 'memory',
    transport: { kind: 'http', url: 'https://mcp.example.com/mcp', auth: { kind: 'bearer', secret: 'memory-token' } },
    rules: { deny: ['delete_entities'], hold: ['create_relations'], noInverse: 'allow' },
    api: 'memory',
    createdAt: '2026-01-01T00:00:00.000Z',
    tools: [
      { name: 'read_graph', description: 'Read the entire knowledge graph.\nReturns everything.', inputSchema: {}, annotations: { readOnlyHint: true }, rule: 'allow', inverseTool: null },
      { name: 'create_entities', description: 'Create multiple new entities', inputSchema: {}, annotations: { destructiveHint: false, idempotentHint: true }, rule: 'allow', inverseTool: 'delete_entities' },
      { name: 'delete_entities', description: 'x'.repeat(300), inputSchema: {}, rule: 'deny', inverseTool: null },
      { name: 'create_relations', description: '', inputSchema: {}, annotations: { destructiveHint: true, openWorldHint: true }, rule: 'hold', inverseTool: 'delete_relations' },
    ],
    toolsError: null,
    stateBytes: null,
  };

  it('gives each tool one line, its badges, its rule and its inverse', () => {
    const rows = toolRows(server);
    expect(rows.map((r) => [r.name, r.line.length > 0 ? r.line.slice(0, 40) : '', r.badges.map((b) => b.label), r.rule, r.inverseTool])).toEqual([
      ['read_graph', 'Read the entire knowledge graph.', ['read-only'], 'allow', null],
      ['create_entities', 'Create multiple new entities', ['may change', 'idempotent'], 'allow', 'delete_entities'],
      ['delete_entities', 'x'.repeat(40), ['destructive'], 'deny', null],
      ['create_relations', '', ['destructive', 'reaches outside'], 'hold', 'delete_relations'],
    ]);
    expect(rows[2]!.line).toHaveLength(140);
    expect(toolBadges(undefined)[0]!.title).toBe('The server gives no hints: it may change or delete things.');
    expect(oneLine('First. Second.')).toBe('First.');
    expect(describeTransport(server.transport)).toBe('https://mcp.example.com/mcp');
    expect(describeAuth(server.transport)).toBe('bearer token from secret memory-token');
  });

  it('says what a stdio server keeps between tasks, and nothing for a remote one', () => {
    const stdio = { kind: 'stdio' as const, command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: {} };
    expect(describeState(server)).toBeNull();
    expect(describeState({ transport: stdio, stateBytes: 0 })).toBe('keeps nothing between tasks yet');
    expect(describeState({ transport: stdio, stateBytes: 3 * 1024 * 1024 + 512 * 1024 })).toBe('keeps 3.5 MB between tasks (its data and its installed package)');
    expect(describeState({ transport: stdio, stateBytes: null })).toBeNull();
  });

  it('moves a tool between the lists when the person picks its rule', () => {
    expect(withToolRule(server.rules, 'delete_entities', 'allow')).toEqual({ deny: [], hold: ['create_relations'] });
    expect(withToolRule(server.rules, 'create_relations', 'deny')).toEqual({ deny: ['delete_entities', 'create_relations'], hold: [] });
    expect(withToolRule(server.rules, 'read_graph', 'hold')).toEqual({ deny: ['delete_entities'], hold: ['create_relations', 'read_graph'] });
    expect(ruleOf(server.rules, 'read_graph')).toBe('allow');
  });
});

describe('a tool call on the card', () => {
  const base: McpEffect = {
    channel: 'mcp',
    server: 'memory',
    transport: 'stdio',
    tool: 'create_entities',
    arguments: '{"entities":[{"name":"alice","entityType":"person","observations":[]}]}',
    result: '[{"name":"alice"}]',
    isError: false,
    durationMs: 12,
    mutating: true,
    refused: null,
    inverse: { tool: 'delete_entities', arguments: { entityNames: ['alice'] }, summary: 'delete entity alice' },
    hold: null,
    undone: null,
  };

  it('says what ran, what undo calls, and whether it was taken back', () => {
    expect(describeMcpCall(base)).toEqual({
      name: 'memory.create_entities',
      args: '({"entities":[{"name":"alice","entityType":"person","observations":[]}]})',
      outcome: { tone: 'ok', text: '→ [{"name":"alice"}]' },
      inverse: 'undo calls memory.delete_entities — delete entity alice',
      undone: null,
      note: null,
    });
    expect(describeMcpCall({ ...base, undone: { at: 'now', error: null } }).undone).toEqual({ tone: 'ok', text: 'taken back' });
    expect(describeMcpCall({ ...base, undone: { at: 'now', error: 'entity changed' } }).undone).toEqual({ tone: 'error', text: 'undo failed: entity changed' });
  });

  it('says why a call was refused, its error, that it waits, and what no inverse means', () => {
    const refused = describeMcpCall({ ...base, refused: 'You denied create_entities on memory.', result: null });
    expect(refused.outcome).toEqual({ tone: 'refused', text: 'refused: You denied create_entities on memory.' });
    expect(refused.inverse).toBeNull();
    expect(describeMcpCall({ ...base, isError: true, result: 'Entity exists' }).outcome).toEqual({ tone: 'error', text: 'error: Entity exists' });
    const held = describeMcpCall({ ...base, result: null, hold: { id: 'h1', kind: 'approval', reason: 'held', until: null, state: 'waiting' } });
    expect([held.outcome, held.inverse]).toEqual([{ tone: 'held', text: 'waits for your approval' }, null]);
    expect(describeMcpCall({ ...base, hold: { id: 'h1', kind: 'approval', reason: 'held', until: null, state: 'cancelled' }, result: null, refused: 'You cancelled it.' }).inverse).toBeNull();
    expect(describeMcpCall({ ...base, inverse: null }).note).toBe('no known inverse: this call cannot be undone');
    expect(describeMcpCall({ ...base, inverse: null, mutating: false, tool: 'read_graph', arguments: '{}' })).toMatchObject({ args: '()', note: 'read-only: changed nothing' });
    expect(describeMcpCall({ ...base, inverse: null, folderOnly: true }).note).toMatch(/^its file changes are in the checkpoint/);
  });
});
