// Issue 16 as a new user tries it, through the built CLI: a filesystem server entry pasted from a desktop
// agent's config (`posthoc mcp add files -- npx -y @modelcontextprotocol/server-filesystem DIR`), a task
// that calls its tools from Python (`from posthoc_tools import files`), each call on the card with the
// action's level, undo bringing the folder back exactly; then with `--deny write_file` the call is refused
// with a reason the agent reads in its observation, and the server never saw it (nothing written). And the
// memory server: a create carries its inverse, and undo after the run makes that call (the graph as before).
// Real parts: Docker, the sandbox image, the real @modelcontextprotocol/server-filesystem installed by npx
// inside the server's confined container through the gateway's npm route from a local registry stand-in
// serving this repository's node_modules; only the model is scripted (a local OpenAI-compatible server).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNpmModulesRegistry, type NpmModulesRegistry } from '../support/npm-modules-registry';
import { cliTestbed, jsonLines, runPosthoc } from '../support/posthoc-cli';

const { dirs, model } = cliTestbed();
let registry: NpmModulesRegistry;

beforeAll(async () => {
  registry = await startNpmModulesRegistry(['@modelcontextprotocol/server-filesystem', '@modelcontextprotocol/server-memory']);
});
afterAll(async () => {
  await registry?.close();
});

/** Every file of a folder with its bytes, sorted: what "exactly as before" means. */
function snapshot(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(out, snapshot(path, base), { [`${path.slice(base.length + 1)}/`]: '' });
    else out[path.slice(base.length + 1)] = readFileSync(path, 'base64');
  }
  return out;
}

const python = (code: string) => `\`\`\`python\n${code}\n\`\`\``;

/** The MCP server containers of a task still on Docker (running or not). */
function serverContainers(taskId: string): string[] {
  const out = execFileSync('docker', ['ps', '-a', '--filter', 'label=dev.posthoc.mcp-server', '--filter', `label=dev.posthoc.task=${taskId}`, '--format', '{{.ID}}'], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

/** Files named `name` anywhere under `dir`. */
function findFiles(dir: string, name: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.split('/').at(-1) === name)
    .map((p) => join(dir, p));
}

describe('MCP servers in a task (the reference servers from npm, confined)', () => {
  it('a write through it is on the card with the level, undo restores the folder exactly; a denied tool is refused, the agent reads why, the server never sees it', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const folder = dirs.workspace();
    writeFileSync(join(folder, 'notes.txt'), 'my own notes\n');
    const before = snapshot(folder);
    const env = (baseUrl: string) => ({ OPENAI_BASE_URL: baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_NPM_REGISTRY_URL: registry.url });

    const add = await runPosthoc(['mcp', 'add', 'files', '--data-dir', dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', folder]);
    expect(add.code, add.stderr).toBe(0);

    // The agent writes one new file and replaces the person's notes, through the server's write_file.
    const write = python(
      [
        'from posthoc_tools import files',
        `print(files.write_file(path=${JSON.stringify(join(folder, 'hello.txt'))}, content="hello from the filesystem server\\n"))`,
        `print(files.write_file(path=${JSON.stringify(join(folder, 'notes.txt'))}, content="overwritten\\n"))`,
        `print(files.list_directory(path=${JSON.stringify(folder)}))`,
      ].join('\n'),
    );
    const llm = await model([write, 'I wrote hello.txt and replaced notes.txt.']);
    const run = await runPosthoc(['run', 'write a hello file', '--mcp', 'files', '--workspace', folder, '--data-dir', dataDir, '--json'], env(llm.baseUrl));
    expect(run.code, run.stderr).toBe(0);
    // The system prompt named the server's tools and how to call them.
    const system = llm.requests[0]!.messages[0]!.content;
    expect(system).toContain('from posthoc_tools import files');
    expect(system).toMatch(/- write_file: /);
    expect(system).toMatch(/- list_directory: .*\[read-only\]/);
    // npx fetched the real package through the gateway, from the stand-in.
    expect(registry.requests.some((r) => r.includes('/@modelcontextprotocol%2fserver-filesystem') || r.includes('/@modelcontextprotocol/server-filesystem'))).toBe(true);

    expect(readFileSync(join(folder, 'hello.txt'), 'utf8')).toBe('hello from the filesystem server\n');
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('overwritten\n');
    const printed = jsonLines(run.stdout).find((l) => l.type === 'action')!.action;
    const actions = JSON.parse((await runPosthoc(['actions', '--json', '--data-dir', dataDir])).stdout) as Array<Record<string, any>>;
    expect(actions).toHaveLength(1);
    const action = actions[0]!;
    expect(action.id).toBe(printed.id);
    expect(action.output.stdout).toContain('hello.txt');
    const calls = action.effects.filter((e: { channel: string }) => e.channel === 'mcp');
    expect(calls.map((e: Record<string, unknown>) => [e.tool, e.mutating, e.refused, e.isError])).toEqual([
      ['write_file', true, null, false],
      ['write_file', true, null, false],
      ['list_directory', false, null, false],
    ]);
    expect(calls[0]).toMatchObject({ server: 'files', transport: 'stdio', folderOnly: true, inverse: null });
    expect(JSON.parse(calls[0].arguments)).toEqual({ path: join(folder, 'hello.txt'), content: 'hello from the filesystem server\n' });
    // The server's writes are the action's own file changes, in its checkpoint: undoable, as the card says.
    const fs = action.effects.find((e: { channel: string }) => e.channel === 'fs');
    expect(fs.added).toEqual(['hello.txt']);
    expect(fs.modified).toEqual(['notes.txt']);
    expect(action.confinement.level).toBe('reversible');
    const card = await runPosthoc(['actions', '--data-dir', dataDir]);
    expect(card.code, card.stderr).toBe(0);
    // The run ended: its server's container is gone.
    expect(serverContainers(action.taskId)).toEqual([]);

    const undo = await runPosthoc(['undo', action.id, '--data-dir', dataDir]);
    expect(undo.code, undo.stderr + undo.stdout).toBe(0);
    expect(snapshot(folder)).toEqual(before);

    // The person denies write_file: the agent's call is refused before the server, and the agent reads why.
    const rules = await runPosthoc(['mcp', 'rules', 'files', '--deny', 'write_file', '--data-dir', dataDir]);
    expect(rules.code, rules.stderr).toBe(0);
    const attempt = python(
      [
        'from posthoc_tools import files, ToolRefused',
        'try:',
        `    files.write_file(path=${JSON.stringify(join(folder, 'denied.txt'))}, content="should never exist")`,
        'except ToolRefused as refused:',
        '    print("REFUSED:", refused)',
      ].join('\n'),
    );
    const llm2 = await model([attempt, 'The person denied write_file, so I could not write the file.']);
    const second = await runPosthoc(['run', 'write denied.txt', '--mcp', 'files', '--workspace', folder, '--data-dir', dataDir, '--json'], env(llm2.baseUrl));
    expect(second.code, second.stderr).toBe(0);
    expect(llm2.requests[0]!.messages[0]!.content).toMatch(/- write_file: .*denied: refused/);
    const observation = llm2.requests[1]!.messages.at(-1)!.content;
    expect(observation).toMatch(/REFUSED: .*The person denied the tool files\.write_file, so the call was refused and never reached the server/);
    const refusedAction = jsonLines(second.stdout).find((l) => l.type === 'action')!.action;
    const refusedCall = refusedAction.effects.find((e: { channel: string }) => e.channel === 'mcp');
    expect(refusedCall).toMatchObject({ server: 'files', tool: 'write_file', result: null });
    expect(refusedCall.refused).toMatch(/denied/);
    // Nothing reached the server: the folder is as the person left it.
    expect(snapshot(folder)).toEqual(before);
  }, 600_000);

  it('a create through the memory server carries its inverse; undo after the run calls it and the graph is as before', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const folder = dirs.workspace();
    const add = await runPosthoc(['mcp', 'add', 'memory', '--data-dir', dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-memory']);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain('api memory');
    const create = python(
      [
        'from posthoc_tools import memory',
        'print(memory.create_entities(entities=[{"name": "alice", "entityType": "person", "observations": ["likes tea"]}, {"name": "bob", "entityType": "person", "observations": []}]))',
      ].join('\n'),
    );
    const llm = await model([create, 'Alice and Bob are in the graph.']);
    const run = await runPosthoc(['run', 'remember alice and bob', '--mcp', 'memory', '--workspace', folder, '--data-dir', dataDir, '--json'], {
      OPENAI_BASE_URL: llm.baseUrl,
      POSTHOC_MODEL: 'scripted',
      POSTHOC_NPM_REGISTRY_URL: registry.url,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(llm.requests[0]!.messages[0]!.content).toMatch(/- create_entities: .*undo takes it back/);
    const action = jsonLines(run.stdout).find((l) => l.type === 'action')!.action;
    const call = action.effects.find((e: { channel: string }) => e.channel === 'mcp');
    expect(call).toMatchObject({ server: 'memory', tool: 'create_entities', mutating: true, refused: null, isError: false });
    expect(call.inverse).toMatchObject({ tool: 'delete_entities', arguments: { entityNames: ['alice', 'bob'] } });
    expect(action.confinement.level).toBe('compensable');
    // The server's graph, in its own state folder (DATA/mcp-state/memory, kept across tasks), holds them now.
    const [graph] = findFiles(join(dataDir, 'mcp-state', 'memory'), 'memory.jsonl');
    expect(graph, 'the memory server\'s graph file').toBeDefined();
    expect(readFileSync(graph!, 'utf8')).toContain('"alice"');

    const undo = await runPosthoc(['undo', action.id, '--data-dir', dataDir, '--json'], { POSTHOC_NPM_REGISTRY_URL: registry.url });
    expect(undo.code, undo.stderr + undo.stdout).toBe(0);
    expect(readFileSync(graph!, 'utf8')).not.toContain('alice');
    expect(readFileSync(graph!, 'utf8')).not.toContain('bob');
    // The container undo started for the inverse call is gone again.
    expect(serverContainers(action.taskId)).toEqual([]);
    const after = JSON.parse((await runPosthoc(['actions', '--json', '--data-dir', dataDir])).stdout)[0];
    expect(after.status).toBe('undone');
    expect(after.effects.find((e: { channel: string }) => e.channel === 'mcp').undone).toMatchObject({ error: null });
  }, 600_000);
});
