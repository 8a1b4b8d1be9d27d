// MCP servers as people already describe them: a real Claude Desktop config, Cursor's and VS Code's layouts,
// and what must never be stored (a token in env, an Authorization header), through the pure reader and
// through McpService over a real SQLite store whose bytes are read back.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type AppDatabase } from '../../main/store/database';
import { McpServerStore } from '../../main/store/mcp-servers';
import { TaskStore } from '../../main/store/task-store';
import { EventBus } from '../../main/services/event-bus';
import { readMcpConfig, parseJsonc } from '../../main/services/mcp-import';
import { McpService } from '../../main/services/mcp-service';
import { checkServerName, checkTransport, McpDefinitionError, secretKey, secretValue, suggestName } from '../../main/services/mcp-validation';
import { ServiceError } from '../../main/services/service-error';
import { detectApi } from '../../main/effects/mcp/inverses';
import { CLAUDE_DESKTOP_CONFIG } from '../fixtures/mcp/claude-desktop-config';

let dir: string;
let db: AppDatabase;
let service: McpService;
let events: Array<{ event: string; payload: unknown }>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'posthoc-mcp-'));
  db = openDatabase(dir);
  const bus = new EventBus();
  events = [];
  bus.subscribe((event, payload) => events.push({ event, payload }));
  service = new McpService(new McpServerStore(db), bus, { detectApi });
});

afterEach(() => {
  if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every byte Posthoc's database holds on disk (the file and its WAL), closed first so nothing is only in memory. */
function storeBytes(): string {
  db.pragma('wal_checkpoint(TRUNCATE)');
  const files = readdirSync(dir).filter((f) => f.startsWith('posthoc.sqlite3'));
  expect(files).toContain('posthoc.sqlite3');
  return files.map((f) => readFileSync(join(dir, f)).toString('latin1')).join('\n');
}

async function refusal(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('a real Claude Desktop config (five servers)', () => {
  it('adds the filesystem server and skips each server whose env holds a token, naming the key and never the value', async () => {
    const result = await service.import(CLAUDE_DESKTOP_CONFIG);
    expect(result.added.map((s) => s.name)).toEqual(['filesystem']);
    const fs = result.added[0]!;
    expect(fs.transport).toEqual({ kind: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/YOUR_USERNAME/apps/MCP'], env: {} });
    expect(fs.api).toBe('filesystem');
    expect(fs.rules).toEqual({ deny: [], hold: [], noInverse: 'allow' });
    expect(fs.tools).toBeNull();
    expect(fs.toolsError).toMatch(/listed when a task first uses the server/);

    const skipped = Object.fromEntries(result.skipped.map((s) => [s.name, s.reason]));
    expect(Object.keys(skipped).sort()).toEqual(['brave-search', 'gdrive', 'github', 'google-workspace-mcp']);
    expect(skipped['brave-search']).toMatch(/BRAVE_API_KEY looks like it holds a secret/);
    expect(skipped.github).toMatch(/GITHUB_PERSONAL_ACCESS_TOKEN/);
    expect(skipped.gdrive).toMatch(/GOOGLE_CLIENT_SECRET/);
    for (const reason of Object.values(skipped)) {
      expect(reason).toMatch(/posthoc secret set NAME/);
      expect(reason).toMatch(/\$POSTHOC_GATEWAY\/svc\/NAME/);
      expect(reason).not.toMatch(/YOUR_/);
    }
    // The definitions stored hold none of the skipped servers' values, and the event went out for the one added.
    const bytes = storeBytes();
    for (const value of ['YOUR_BRAVE_API_KEY', 'YOUR_GITHUB_TOKEN', 'YOUR_GOOGLE_DRIVE_CLIENT_SECRET', 'YOUR_GOOGLE_WORKSPACE_CLIENT_SECRET']) {
      expect(bytes).not.toContain(value);
    }
    expect(bytes).toContain('/Users/YOUR_USERNAME/apps/MCP');
    expect(events.filter((e) => e.event === 'mcp:updated').map((e) => (e.payload as { name: string }).name)).toEqual(['filesystem']);
  });

  it('imports only the servers named, says so for a name the file lacks, and never replaces a server already defined', async () => {
    const first = await service.import(CLAUDE_DESKTOP_CONFIG, ['filesystem', 'slack']);
    expect(first.added.map((s) => s.name)).toEqual(['filesystem']);
    expect(first.skipped).toEqual([{ name: 'slack', reason: expect.stringMatching(/lists no server named slack .*brave-search, filesystem/) }]);
    const again = await service.import(CLAUDE_DESKTOP_CONFIG, ['filesystem']);
    expect(again.added).toEqual([]);
    expect(again.skipped[0]!.reason).toMatch(/already defined .*posthoc mcp remove filesystem/);
  });
});

describe('other desktop agents', () => {
  it("reads VS Code's mcp.json (comments, trailing commas, type stdio / http / sse) and settings.json's mcp.servers", async () => {
    const vscode = `{
      // Workspace MCP servers
      "inputs": [{ "type": "promptString", "id": "token", "password": true }],
      "servers": {
        "memory": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], },
        "docs": { "type": "http", "url": "https://mcp.example.com/mcp" },
        "old": { "type": "sse", "url": "https://mcp.example.com/sse" },
        "ws": { "type": "stdio", "command": "npx", "args": ["-y", "x", "\${workspaceFolder}"] },
        /* a server whose token VS Code asks for */
        "gh": { "type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": { "Authorization": "Bearer \${input:token}" } },
      },
    }`;
    const read = readMcpConfig(vscode);
    expect(read.servers).toEqual([
      { name: 'memory', transport: { kind: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: {} } },
      { name: 'docs', transport: { kind: 'http', url: 'https://mcp.example.com/mcp', auth: { kind: 'none' } } },
    ]);
    const skipped = Object.fromEntries(read.skipped.map((s) => [s.name, s.reason]));
    expect(skipped.old).toMatch(/SSE transport, which Posthoc does not support/);
    expect(skipped.ws).toMatch(/\$\{workspaceFolder\}, which only the desktop agent fills in/);
    expect(skipped.gh).toBe(
      'It sends a credential in its Authorization header, and Posthoc never stores a token\'s value in a server\'s definition. ' +
        'Store the token: posthoc secret set gh-token, then posthoc mcp add gh --url https://api.githubcopilot.com/mcp/ --auth bearer --secret gh-token',
    );
    const settings = readMcpConfig(JSON.stringify({ 'editor.fontSize': 14, mcp: { servers: { files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'] } } } }));
    expect(settings.servers.map((s) => s.name)).toEqual(['files']);
  });

  it("reads Cursor's url entries, and refuses a bad name with one to use", async () => {
    const read = readMcpConfig(JSON.stringify({ mcpServers: { 'remote docs': { url: 'https://mcp.example.com/mcp' }, '@acme/github': { command: 'acme-mcp' }, '9lives': { command: 'x' } } }));
    expect(read.servers).toEqual([]);
    const skipped = Object.fromEntries(read.skipped.map((s) => [s.name, s.reason]));
    expect(skipped['remote docs']).toMatch(/Try "remote-docs"/);
    expect(skipped['@acme/github']).toMatch(/Try "acme-github"/);
    expect(skipped['9lives']).toMatch(/Try "lives"/);
    for (const name of ['remote docs', '@acme/github', '9lives']) expect(() => checkServerName(suggestName(name))).not.toThrow();
    // The agent writes the name in Python: a keyword cannot be imported.
    expect(await refusal(() => checkServerName('import'))).toMatch(/Python keyword.*Try "import_server"/);
    expect(await refusal(() => checkServerName('None'))).toMatch(/Python keyword/);
    expect(checkServerName('match')).toBe('match');
  });
});

describe('hostile input', () => {
  it('never stores an Authorization header: the entry is skipped and the token is nowhere on disk', async () => {
    const token = 'Bearer sk-live-9f8e7d6c5b4a39281726354453627181';
    const result = await service.import(JSON.stringify({ mcpServers: { api: { url: 'https://mcp.example.com/mcp', headers: { Authorization: token } }, notes: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } } }));
    expect(result.added.map((s) => s.name)).toEqual(['notes']);
    expect(result.skipped).toEqual([{ name: 'api', reason: expect.stringContaining('posthoc mcp add api --url https://mcp.example.com/mcp --auth bearer --secret api-token') }]);
    expect(result.skipped[0]!.reason).not.toContain('sk-live');
    expect(storeBytes()).not.toContain('sk-live-9f8e7d6c5b4a39281726354453627181');
  });

  it('refuses a secret in a stdio server\'s env by its key or by its value, and stores nothing', async () => {
    const byKey = await refusal(() => service.add({ name: 'gh', transport: { kind: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'hunter2hunter2' } } }));
    expect(byKey).toMatch(/GITHUB_PERSONAL_ACCESS_TOKEN looks like it holds a secret.*posthoc secret set NAME.*\$POSTHOC_GATEWAY\/svc\/NAME, where the vault adds the token/);
    expect(byKey).not.toContain('hunter2');
    // A harmless-looking name holding a token's value.
    const byValue = await refusal(() => service.add({ name: 'gh', transport: { kind: 'stdio', command: 'npx', args: [], env: { GH_HOST_SETTING: 'ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A' } } }));
    expect(byValue).toMatch(/GH_HOST_SETTING looks like it holds a secret/);
    const random = await refusal(() => service.add({ name: 'svc', transport: { kind: 'stdio', command: 'npx', args: [], env: { UPSTREAM: 'q8ZfT2vL9xWm4Rk7Pn3Ys6Bd1Hc5Jg0A' } } }));
    expect(random).toMatch(/UPSTREAM looks like it holds a secret/);
    const inArgs = await refusal(() => service.add({ name: 'pg', transport: { kind: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://ada:s3cretPass@db.example.com/app'], env: {} } }));
    expect(inArgs).toMatch(/Argument 3 looks like it holds a secret/);
    expect(service.definitions()).toEqual([]);
    const bytes = storeBytes();
    for (const value of ['hunter2hunter2', 'ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A', 'q8ZfT2vL9xWm4Rk7Pn3Ys6Bd1Hc5Jg0A', 's3cretPass']) expect(bytes).not.toContain(value);
  });

  it('keeps plain settings: paths, URLs without credentials, log levels, short words', async () => {
    const env = { RUST_LOG: 'surreal_mind=info,rmcp=info', PYTHONPATH: '/Users/ada/Projects/backend/src/modules', SUPABASE_URL: 'https://your-project.supabase.co', ENVIRONMENT: 'development', PATH: '/usr/local/bin:/usr/bin' };
    const view = await service.add({ name: 'plain', transport: { kind: 'stdio', command: 'uvx', args: ['mcp-server-fetch', '--ignore-robots-txt'], env } });
    expect(view.transport).toEqual({ kind: 'stdio', command: 'uvx', args: ['mcp-server-fetch', '--ignore-robots-txt'], env });
    expect(view.api).toBeNull();
    for (const key of ['PATH', 'RUST_LOG', 'PYTHONPATH', 'EDITOR', 'DEBUG']) expect(secretKey(key)).toBe(false);
    for (const key of ['API_KEY', 'OPENAI_APIKEY', 'GH_PAT', 'DB_PASSWORD', 'AUTH', 'SLACK_BOT_TOKEN', 'SENTRY_DSN']) expect(secretKey(key)).toBe(true);
    for (const value of ['/Users/ada/Documents/projects/2024', 'https://api.example.com/v1', 'info', '550e8400-e29b-41d4-a716-446655440000x'.slice(0, 10)]) expect(secretValue(value)).toBe(false);
    for (const value of ['sk-proj-abc', 'xoxb-1234-5678', 'glpat-xxxxxxxxxxxxxxxxxxxx', 'AKIAIOSFODNN7EXAMPLE', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig']) expect(secretValue(value)).toBe(true);
  });

  it('refuses a file over 1 MiB before reading it', async () => {
    const big = JSON.stringify({ mcpServers: { a: { command: 'x', args: ['y'.repeat(2 * 1024 * 1024)] } } });
    expect(await refusal(() => service.import(big))).toMatch(/over 1 MiB/);
    expect(service.definitions()).toEqual([]);
  });

  it('says where bad JSON is', async () => {
    expect(await refusal(() => parseJsonc('{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}'))).toMatch(/line 4, column 5/);
    expect(await refusal(() => parseJsonc('{\n  "mcpServers": {\n    "a": { "command": }\n  }\n}'))).toMatch(/line 3, column 23/);
    expect(await refusal(() => parseJsonc('{"mcpServers": {'))).toMatch(/ends before the JSON does/);
    expect(await refusal(() => readMcpConfig('{"servers": []}'))).toMatch(/not an object of NAME/);
    expect(await refusal(() => readMcpConfig('{"preferences": {}}'))).toMatch(/lists no MCP servers: expected "mcpServers"/);
    await expect(service.import('{ nope')).rejects.toThrow(ServiceError);
  });

  it('refuses credentials in a remote URL and a secret value instead of a secret name', async () => {
    expect(await refusal(() => checkTransport({ kind: 'http', url: 'https://ada:pw@mcp.example.com/mcp', auth: { kind: 'none' } }))).toMatch(/no credentials in the URL/);
    expect(await refusal(() => checkTransport({ kind: 'http', url: 'https://mcp.example.com/mcp?api_key=abc', auth: { kind: 'none' } }))).toMatch(/parameter api_key looks like a secret/);
    expect(await refusal(() => checkTransport({ kind: 'http', url: 'https://mcp.example.com/mcp', auth: { kind: 'bearer', secret: 'ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A' } }))).toMatch(/Name the secret that holds the token/);
    expect(() => checkTransport({ kind: 'http', url: 'ftp://x', auth: { kind: 'none' } })).toThrow(McpDefinitionError);
  });
});

describe('definitions', () => {
  it('refuses a duplicate name unless replace, keeps rules, and forgets a removed server', async () => {
    const stdio = { kind: 'stdio' as const, command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: {} };
    const view = await service.add({ name: 'memory', transport: stdio, rules: { deny: ['delete_entities'] } });
    expect(view.api).toBe('memory');
    expect(view.rules).toEqual({ deny: ['delete_entities'], hold: [], noInverse: 'allow' });
    let error: unknown;
    try {
      await service.add({ name: 'memory', transport: stdio });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe('conflict');
    expect((error as Error).message).toMatch(/posthoc mcp remove memory.*--replace/);
    expect((await service.add({ name: 'memory', transport: stdio, replace: true, api: null })).api).toBeNull();
    await service.add({ name: 'my-notes', transport: stdio });
    expect(await refusal(() => service.add({ name: 'my_notes', transport: stdio }))).toMatch(/both my-notes and my_notes as posthoc_tools\.my_notes/);
    expect(await service.remove('my-notes')).toEqual({ removed: true, freedBytes: 0 });

    const ruled = await service.setRules('memory', { hold: ['create_entities'], noInverse: 'deny' });
    expect(ruled.rules).toEqual({ deny: [], hold: ['create_entities'], noInverse: 'deny' });
    expect(await refusal(() => service.setRules('memory', { deny: ['create_entities'] }))).toMatch(/both denied and held/);
    expect(await refusal(() => service.setRules('nothing', {}))).toMatch(/No MCP server named nothing/);

    expect(await refusal(() => service.require(['memory', 'files']))).toMatch(/No MCP server named files.*posthoc mcp list/);
    expect(await service.remove('memory')).toEqual({ removed: true, freedBytes: 0 });
    expect(await service.remove('memory')).toEqual({ removed: false, freedBytes: 0 });
    expect(service.definitions()).toEqual([]);
  });

  it("a server signed in to with OAuth leaves the keychain when removed or pointed elsewhere; others never touch it", async () => {
    const forgotten: string[] = [];
    const bus = new EventBus();
    const withSignIns = new McpService(new McpServerStore(db), bus, { forgetSignIn: async (name) => void forgotten.push(name) });
    const oauth = { kind: 'http' as const, url: 'https://mcp.example.com/mcp', auth: { kind: 'oauth' as const } };
    await withSignIns.add({ name: 'docs', transport: oauth });
    await withSignIns.add({ name: 'files', transport: { kind: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'], env: {} } });
    await withSignIns.add({ name: 'docs', transport: oauth, rules: { deny: ['delete_page'] }, replace: true });
    expect(forgotten).toEqual([]);
    await withSignIns.add({ name: 'docs', transport: { ...oauth, url: 'https://other.example.com/mcp' }, replace: true });
    expect(forgotten).toEqual(['docs']);
    await withSignIns.remove('files');
    await withSignIns.remove('docs');
    expect(forgotten).toEqual(['docs', 'docs']);

    const broken = new McpService(new McpServerStore(db), bus, { forgetSignIn: async () => Promise.reject(new Error('The OS keychain is locked.')) });
    await broken.add({ name: 'docs', transport: oauth });
    expect(await refusal(() => broken.remove('docs'))).toMatch(/docs is removed, but its sign-in could not be taken out of the keychain \(The OS keychain is locked\.\)\. Remove its oauth:mcp-docs:… entries/);
    expect(broken.get('docs')).toBeUndefined();
  });

  it("a task keeps the servers it was granted", () => {
    const tasks = new TaskStore(db);
    const task = tasks.createTask({ title: 't', workspaces: [], model: 'm', mcp: ['files', 'memory'] });
    expect(tasks.getTask(task.id)!.mcp).toEqual(['files', 'memory']);
    expect(tasks.createTask({ title: 'u', workspaces: [], model: 'm' }).mcp).toBeUndefined();
  });
});
