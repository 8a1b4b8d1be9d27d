// `posthoc mcp add | import | list | remove | rules` and `posthoc run --mcp` through the built CLI, as a new
// user types them: a filesystem server pasted from a desktop agent's config, a real Claude Desktop config
// imported, and the refusals (a token in env, an oversized or broken file, a server not defined) with
// their exit codes and what to do. What is refused is never in the data folder's bytes.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAUDE_DESKTOP_CONFIG } from '../fixtures/mcp/claude-desktop-config';
import { startMcpHttpServer } from '../support/mcp-http-server';
import { startNpmModulesRegistry } from '../support/npm-modules-registry';
import { cliTestbed, runPosthoc } from '../support/posthoc-cli';

const { dirs, model } = cliTestbed();

function dataBytes(dataDir: string): string {
  return readdirSync(dataDir)
    .filter((f) => f.startsWith('posthoc.sqlite3'))
    .map((f) => readFileSync(join(dataDir, f)).toString('latin1'))
    .join('\n');
}

describe('posthoc mcp', () => {
  it('adds a stdio server pasted from a desktop config, lists it, changes its rules, and removes it', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const folder = dirs.workspace();
    const add = await runPosthoc(['mcp', 'add', 'files', '--deny', 'move_file', '--hold', 'edit_file', '--env', 'LOG_LEVEL=info', '--data-dir', dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', folder]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain(`files  stdio: npx -y @modelcontextprotocol/server-filesystem ${folder}  env LOG_LEVEL  ·  api filesystem  ·  deny move_file; hold edit_file; no inverse: allow`);
    expect(add.stdout).toContain('posthoc run --mcp files');

    const list = await runPosthoc(['mcp', 'list', '--json', '--data-dir', dataDir]);
    expect(list.code, list.stderr).toBe(0);
    const [files] = JSON.parse(list.stdout) as Array<Record<string, any>>;
    expect(files).toMatchObject({
      name: 'files',
      transport: { kind: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', folder], env: { LOG_LEVEL: 'info' } },
      rules: { deny: ['move_file'], hold: ['edit_file'], noInverse: 'allow' },
      api: 'filesystem',
      tools: null,
    });

    const again = await runPosthoc(['mcp', 'add', 'files', '--data-dir', dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-memory']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already defined\. Remove it first \(posthoc mcp remove files\) or add it again with --replace/);
    const replaced = await runPosthoc(['mcp', 'add', 'files', '--replace', '--no-inverse', 'hold', '--data-dir', dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', folder]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain('no inverse: hold');

    const ruled = await runPosthoc(['mcp', 'rules', 'files', '--deny', 'write_file', '--hold', 'move_file', '--data-dir', dataDir, '--json']);
    expect(ruled.code, ruled.stderr).toBe(0);
    expect(JSON.parse(ruled.stdout).rules).toEqual({ deny: ['write_file'], hold: ['move_file'], noInverse: 'hold' });
    const allowed = await runPosthoc(['mcp', 'rules', 'files', '--allow', 'write_file', '--no-inverse', 'deny', '--data-dir', dataDir, '--json']);
    expect(JSON.parse(allowed.stdout).rules).toEqual({ deny: [], hold: ['move_file'], noInverse: 'deny' });
    const badRule = await runPosthoc(['mcp', 'rules', 'files', '--no-inverse', 'maybe', '--data-dir', dataDir]);
    expect(badRule.code).toBe(2);
    expect(badRule.stderr).toMatch(/--no-inverse takes allow, hold or deny, not "maybe"/);

    const removed = await runPosthoc(['mcp', 'remove', 'files', '--data-dir', dataDir]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe('Removed files.\n');
    const gone = await runPosthoc(['mcp', 'remove', 'files', '--data-dir', dataDir]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/No MCP server named files\. List them with: posthoc mcp list/);
    expect((await runPosthoc(['mcp', 'list', '--data-dir', dataDir])).stdout).toMatch(/^No MCP servers\. Add one with: posthoc mcp add NAME -- COMMAND ARGS/);
  }, 120_000);

  it('adds a remote server by URL with its token by secret name, and refuses what cannot work', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const add = await runPosthoc(['mcp', 'add', 'docs', '--url', 'https://mcp.example.com/mcp', '--auth', 'bearer', '--secret', 'docs-token', '--data-dir', dataDir]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain('docs  http: https://mcp.example.com/mcp  auth bearer (secret docs-token)');

    const noSecret = await runPosthoc(['mcp', 'add', 'other', '--url', 'https://mcp.example.com/mcp', '--auth', 'bearer', '--data-dir', dataDir]);
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/--auth bearer needs --secret NAME/);
    const both = await runPosthoc(['mcp', 'add', 'other', '--url', 'https://mcp.example.com/mcp', '--data-dir', dataDir, '--', 'npx', 'x']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/either a command after -- .* or --url/);
    const nothing = await runPosthoc(['mcp', 'add', 'other', '--data-dir', dataDir]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/Give the command that starts the server after --, for example: posthoc mcp add files -- npx -y @modelcontextprotocol\/server-filesystem/);
    const badName = await runPosthoc(['mcp', 'add', 'my server', '--data-dir', dataDir, '--', 'npx', 'x']);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toMatch(/Try "my-server"/);
  }, 120_000);

  it('list --tools reaches a remote server with its token from the keychain: tools, annotations and rules shown, the token nowhere', async () => {
    const token = 'mcp-cli-canary-7Qz2Wk9Lp4Rt8Vx1';
    const server = await startMcpHttpServer(token);
    try {
      const dataDir = dirs.make('posthoc-data-');
      const set = await runPosthoc(['secret', 'set', 'notes-token', '--origin', server.origin, '--data-dir', dataDir], {}, { stdin: token });
      expect(set.code, set.stderr).toBe(0);
      const add = await runPosthoc(['mcp', 'add', 'notes', '--url', server.url, '--auth', 'bearer', '--secret', 'notes-token', '--deny', 'remove_note', '--no-inverse', 'hold', '--data-dir', dataDir]);
      expect(add.code, add.stderr).toBe(0);
      const list = await runPosthoc(['mcp', 'list', '--tools', '--data-dir', dataDir]);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toContain(`notes  http: ${server.url}  auth bearer (secret notes-token)  ·  deny remove_note; no inverse: hold  ·  5 tools`);
      expect(list.stdout).toContain('  list_notes [allow] (read-only) — Lists the notes kept on the server.');
      expect(list.stdout).toMatch(/ {2}add_note \[hold\]/);
      expect(list.stdout).toMatch(/ {2}remove_note \[deny\] \(destructive\) — Removes a note by its text\./);
      // Listing calls no tool; every request carried the token, and nothing Posthoc printed or stored does.
      expect(server.calls).toEqual([]);
      expect(server.requests.length).toBeGreaterThan(0);
      expect(server.requests.every((r) => r.authorization === `Bearer ${token}`)).toBe(true);
      expect(list.stdout + list.stderr + add.stdout + add.stderr).not.toContain(token);
      expect(dataBytes(dataDir)).not.toContain(token);

      // A token the server refuses: the tools are not listed, and the reason says so in plain words.
      server.setToken('another-token-entirely-0000');
      const refused = await runPosthoc(['mcp', 'list', '--tools', '--json', '--data-dir', dataDir]);
      expect(refused.code, refused.stderr).toBe(0);
      const [view] = JSON.parse(refused.stdout);
      expect(view.tools).toBeNull();
      expect(view.toolsError).toMatch(/^The server could not be asked for its tools: /);
      expect(refused.stdout).not.toContain(token);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('list --tools starts a stdio server outside any task: npx installs it through the gateway, and nothing of the listing is left', async () => {
    const registry = await startNpmModulesRegistry(['@modelcontextprotocol/server-filesystem']);
    try {
      const dataDir = dirs.make('posthoc-data-');
      const add = await runPosthoc(['mcp', 'add', 'listfs', '--data-dir', dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '/home/someone/project']);
      expect(add.code, add.stderr).toBe(0);
      const list = await runPosthoc(['mcp', 'list', '--tools', '--json', '--data-dir', dataDir], { POSTHOC_NPM_REGISTRY_URL: registry.url });
      expect(list.code, list.stderr).toBe(0);
      const [view] = JSON.parse(list.stdout);
      expect(view.toolsError).toBeNull();
      const tools = Object.fromEntries((view.tools as Array<{ name: string; annotations?: Record<string, unknown>; rule: string }>).map((t) => [t.name, t]));
      expect(tools.read_text_file).toMatchObject({ annotations: { readOnlyHint: true }, rule: 'allow' });
      expect(tools.write_file).toMatchObject({ annotations: { destructiveHint: true }, rule: 'allow' });
      expect(registry.requests.length).toBeGreaterThan(0);
      // The listing's container and its environment (npx's install) are gone.
      const left = execFileSync('docker', ['ps', '-a', '--filter', 'label=dev.posthoc.mcp-server=listfs', '--format', '{{.ID}}'], { encoding: 'utf8' }).trim();
      expect(left).toBe('');
      const envs = join(dataDir, 'task-env');
      expect(existsSync(envs) ? readdirSync(envs) : []).toEqual([]);
    } finally {
      await registry.close();
    }
  }, 300_000);

  it('refuses a token in a stdio server\'s env, naming the key, and stores nothing of it', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const token = 'ghp_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa';
    const add = await runPosthoc(['mcp', 'add', 'github', '--env', `GITHUB_PERSONAL_ACCESS_TOKEN=${token}`, '--data-dir', dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-github']);
    expect(add.code).toBe(2);
    expect(add.stderr).toMatch(/GITHUB_PERSONAL_ACCESS_TOKEN looks like it holds a secret.*posthoc secret set NAME.*\$POSTHOC_GATEWAY\/svc\/NAME/);
    expect(add.stderr + add.stdout).not.toContain(token);
    expect(dataBytes(dataDir)).not.toContain(token);
    expect(JSON.parse((await runPosthoc(['mcp', 'list', '--json', '--data-dir', dataDir])).stdout)).toEqual([]);
  }, 120_000);

  it('imports a real Claude Desktop config: the filesystem server added, each server with a token skipped with the reason', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const file = join(dirs.make(), 'claude_desktop_config.json');
    writeFileSync(file, CLAUDE_DESKTOP_CONFIG);
    const run = await runPosthoc(['mcp', 'import', file, '--data-dir', dataDir]);
    // Partly done: one added, four skipped.
    expect(run.code, run.stderr).toBe(4);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^added {3}filesystem {2}stdio: npx -y @modelcontextprotocol\/server-filesystem \/Users\/YOUR_USERNAME\/apps\/MCP {2}· {2}api filesystem/);
    expect(lines.slice(1).map((l) => l.split(':')[0])).toEqual(['skipped brave-search', 'skipped github', 'skipped gdrive', 'skipped google-workspace-mcp']);
    expect(run.stdout).toMatch(/skipped github: The environment variable GITHUB_PERSONAL_ACCESS_TOKEN looks like it holds a secret/);
    expect(run.stdout).not.toContain('YOUR_GITHUB_TOKEN');
    expect(dataBytes(dataDir)).not.toContain('YOUR_GITHUB_TOKEN');

    const only = await runPosthoc(['mcp', 'import', file, '--only', 'filesystem', '--json', '--data-dir', dirs.make('posthoc-data-')]);
    expect(only.code, only.stderr).toBe(0);
    const result = JSON.parse(only.stdout);
    expect(result.added.map((s: { name: string }) => s.name)).toEqual(['filesystem']);
    expect(result.skipped).toEqual([]);
  }, 120_000);

  it('refuses a 2 MiB file before reading it, and says where a broken file is wrong', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const dir = dirs.make();
    const big = join(dir, 'big.json');
    writeFileSync(big, JSON.stringify({ mcpServers: { a: { command: 'x', args: ['y'.repeat(2 * 1024 * 1024)] } } }));
    const tooBig = await runPosthoc(['mcp', 'import', big, '--data-dir', dataDir]);
    expect(tooBig.code).toBe(2);
    expect(tooBig.stderr).toMatch(/big\.json is 2\.0 MiB, over the 1 MiB a config may be/);

    const broken = join(dir, 'mcp.json');
    writeFileSync(broken, '{\n  "mcpServers": {\n    "files": { "command": "npx" }\n    "memory": { "command": "npx" }\n  }\n}\n');
    const bad = await runPosthoc(['mcp', 'import', broken, '--data-dir', dataDir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not valid JSON at line 4, column 5/);
    const missing = await runPosthoc(['mcp', 'import', join(dir, 'nope.json'), '--data-dir', dataDir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Cannot read .*nope\.json: there is no such file/);
  }, 120_000);

  it('a server whose folder the task was not granted: the agent reads why its tools are missing and what the person should do', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const notGranted = dirs.workspace();
    const add = await runPosthoc(['mcp', 'add', 'files', '--data-dir', dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', notGranted]);
    expect(add.code, add.stderr).toBe(0);
    const llm = await model(['The files server is not available to me.']);
    const run = await runPosthoc(['run', 'list my files', '--mcp', 'files', '--workspace', dirs.workspace(), '--data-dir', dataDir, '--json'], { OPENAI_BASE_URL: llm.baseUrl, POSTHOC_MODEL: 'scripted' });
    expect(run.code, run.stderr).toBe(0);
    const system = llm.requests[0]!.messages[0]!.content;
    expect(system).toContain('from posthoc_tools import files');
    expect(system).toContain(`files (local):\n  (its tools could not be listed: The MCP server files names ${notGranted}, which this task was not granted: run with --workspace ${notGranted}`);
  }, 120_000);

  it('run --mcp with a server that is not defined exits 2 naming posthoc mcp list, before any model or sandbox', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const run = await runPosthoc(['run', 'list my files', '--mcp', 'files', '--workspace', dirs.workspace(), '--data-dir', dataDir], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', POSTHOC_MODEL: 'none' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/No MCP server named files\. See the servers defined with: posthoc mcp list/);
    expect(JSON.parse((await runPosthoc(['tasks', '--json', '--data-dir', dataDir])).stdout)).toEqual([]);
  }, 120_000);
});
