// Issue 24: state that outlives a task. The reference memory server remembers across tasks: its graph, and
// npm's cache of its package, live in its own state folder (DATA/mcp-state/memory/UID, its HOME), not in the
// task's environment. An undo after later tasks acts on that same graph; `posthoc mcp list` shows the size,
// `posthoc mcp clear` empties it (refused, in words, while a task using it runs), and the next task finds an
// empty graph. Hostile: a link planted where the state folder goes is never followed.
// Real parts: the built CLI, Docker, the sandbox image, the real @modelcontextprotocol/server-memory installed
// by npx inside its confined container through the gateway's npm route from a local registry stand-in
// serving this repository's node_modules; only the model is scripted (a local OpenAI-compatible server).
import { existsSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNpmModulesRegistry, type NpmModulesRegistry } from '../support/npm-modules-registry';
import { cliTestbed, jsonLines, runPosthoc } from '../support/posthoc-cli';

const { dirs, model } = cliTestbed();
let registry: NpmModulesRegistry;

beforeAll(async () => {
  registry = await startNpmModulesRegistry(['@modelcontextprotocol/server-memory']);
});
afterAll(async () => {
  await registry?.close();
});

const python = (lines: string[]) => `\`\`\`python\n${lines.join('\n')}\n\`\`\``;

/** Every file named `name` below `dir` (links not followed). */
function findFiles(dir: string, name: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((p) => p.split('/').at(-1) === name)
    .map((p) => join(dir, p));
}

describe('an MCP server that keeps state across tasks (the real memory server)', () => {
  it('remembers an entity in the next task; undo after later tasks acts on the same graph; the size is listed; clearing empties it and is refused while a task uses it', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const folder = dirs.workspace();
    const env = (baseUrl: string) => ({ OPENAI_BASE_URL: baseUrl, POSTHOC_MODEL: 'scripted', POSTHOC_NPM_REGISTRY_URL: registry.url });
    const run = async (prompt: string, code: string[], answer: string) => {
      const llm = await model([python(code), answer]);
      const result = await runPosthoc(['run', prompt, '--mcp', 'memory', '--workspace', folder, '--data-dir', dataDir, '--json'], env(llm.baseUrl));
      expect(result.code, result.stderr).toBe(0);
      const action = jsonLines(result.stdout).find((l) => l.type === 'action')!.action as Record<string, any>;
      // What the action's code printed, as the model read it next.
      return { action, observation: llm.requests[1]!.messages.at(-1)!.content };
    };
    const listed = async () => {
      const list = await runPosthoc(['mcp', 'list', '--json', '--data-dir', dataDir]);
      expect(list.code, list.stderr).toBe(0);
      return (JSON.parse(list.stdout) as Array<{ name: string; stateBytes: number | null }>)[0]!;
    };

    const add = await runPosthoc(['mcp', 'add', 'memory', '--data-dir', dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-memory']);
    expect(add.code, add.stderr).toBe(0);
    expect((await listed()).stateBytes).toBe(0);

    // Task 1 remembers alice.
    const first = await run(
      'remember that alice likes tea',
      ['from posthoc_tools import memory', 'print(memory.create_entities(entities=[{"name": "alice", "entityType": "person", "observations": ["likes tea"]}]))'],
      'Alice is in the graph.',
    );
    const call = first.action.effects.find((e: { channel: string }) => e.channel === 'mcp');
    expect(call.inverse).toMatchObject({ tool: 'delete_entities', arguments: { entityNames: ['alice'] } });
    // The graph is in the server's state folder, not in the task's environment; so is npx's install of it.
    const state = join(dataDir, 'mcp-state', 'memory');
    const [graph] = findFiles(state, 'memory.jsonl');
    expect(graph, "the memory server's graph in DATA/mcp-state/memory").toBeDefined();
    expect(readFileSync(graph!, 'utf8')).toContain('"alice"');
    expect(findFiles(join(dataDir, 'task-env'), 'memory.jsonl')).toEqual([]);
    expect(findFiles(state, 'package.json').some((p) => p.includes('/.npm/_npx/') && p.endsWith('server-memory/package.json'))).toBe(true);
    expect(findFiles(join(dataDir, 'task-env'), 'package.json').filter((p) => p.includes('server-memory'))).toEqual([]);

    // The size is listed, in the CLI's words too.
    const size = (await listed()).stateBytes!;
    expect(size).toBeGreaterThan(1024 * 1024);
    const text = await runPosthoc(['mcp', 'list', '--data-dir', dataDir]);
    expect(text.stdout).toMatch(/memory {2}stdio: npx -y @modelcontextprotocol\/server-memory .*keeps \d+(\.\d)? MiB between tasks/);

    // Task 2, a new task with its own environment, finds alice.
    const second = await run('what do you know about alice?', ['from posthoc_tools import memory', 'print(memory.open_nodes(names=["alice"]))'], 'Alice likes tea.');
    expect(second.action.taskId).not.toBe(first.action.taskId);
    expect(second.observation).toContain('likes tea');

    // Undo of task 1's action, after task 2: the inverse call acts on the same graph.
    const undo = await runPosthoc(['undo', first.action.id, '--data-dir', dataDir, '--json'], { POSTHOC_NPM_REGISTRY_URL: registry.url });
    expect(undo.code, undo.stderr + undo.stdout).toBe(0);
    expect(readFileSync(graph!, 'utf8')).not.toContain('alice');

    // Task 3 remembers bob, and holds its action open until the test says go: meanwhile clearing is refused.
    const llm = await model([
      python([
        'import os, time',
        'from posthoc_tools import memory',
        'print(memory.create_entities(entities=[{"name": "bob", "entityType": "person", "observations": ["plays chess"]}]))',
        "open('started', 'w').write('1')",
        "while not os.path.exists('go'):",
        '    time.sleep(0.2)',
      ]),
      'Bob is in the graph.',
    ]);
    const third = runPosthoc(['run', 'remember bob', '--mcp', 'memory', '--workspace', folder, '--data-dir', dataDir, '--json'], env(llm.baseUrl));
    let ended = false;
    void third.finally(() => (ended = true));
    while (!existsSync(join(folder, 'started')) && !ended) await sleep(200);
    expect(existsSync(join(folder, 'started')), 'the third task ended before its action started').toBe(true);
    const refused = await runPosthoc(['mcp', 'clear', 'memory', '--data-dir', dataDir]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Posthoc cannot clear the data of memory now: the task "remember bob" \(.+\) uses memory and is still running\. Clear it once that has ended\./);
    const removeRefused = await runPosthoc(['mcp', 'remove', 'memory', '--data-dir', dataDir]);
    expect(removeRefused.stderr).toMatch(/Posthoc cannot remove memory now: the task "remember bob"/);
    expect(readFileSync(graph!, 'utf8')).toContain('"bob"');
    writeFileSync(join(folder, 'go'), '');
    const thirdDone = await third;
    expect(thirdDone.code, thirdDone.stderr).toBe(0);

    // Cleared: the folder is gone, the size is 0, and the next task finds an empty graph.
    const before = (await listed()).stateBytes!;
    const cleared = await runPosthoc(['mcp', 'clear', 'memory', '--json', '--data-dir', dataDir]);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout)).toMatchObject({ freedBytes: before, server: { name: 'memory', stateBytes: 0 } });
    expect(existsSync(state)).toBe(false);
    const fourth = await run('who is in the graph?', ['from posthoc_tools import memory', 'print(memory.read_graph())'], 'Nobody.');
    expect(fourth.observation).not.toContain('bob');
    expect(fourth.observation).toMatch(/'entities': \[\]/);
    const again = await runPosthoc(['mcp', 'clear', 'memory', '--data-dir', dataDir]);
    expect(again.stdout).toMatch(/^Cleared what memory kept between tasks \(\d+(\.\d)? (MiB|KiB)\)\.\n$/);
  }, 900_000);

  it('a link planted where the state folder goes is refused, never followed; clearing removes the link, not what it points at', async () => {
    const dataDir = dirs.make('posthoc-data-');
    const elsewhere = dirs.make('posthoc-elsewhere-');
    writeFileSync(join(elsewhere, 'precious.txt'), 'mine');
    const add = await runPosthoc(['mcp', 'add', 'memory', '--data-dir', dataDir, '--', 'npx', '-y', '@modelcontextprotocol/server-memory']);
    expect(add.code, add.stderr).toBe(0);
    mkdirSync(join(dataDir, 'mcp-state'), { mode: 0o700 });
    symlinkSync(elsewhere, join(dataDir, 'mcp-state', 'memory'));

    // Starting it (to list its tools) is refused before any container, saying what to do.
    const list = await runPosthoc(['mcp', 'list', '--tools', '--json', '--data-dir', dataDir], { POSTHOC_NPM_REGISTRY_URL: registry.url });
    expect(list.code, list.stderr).toBe(0);
    const [view] = JSON.parse(list.stdout) as Array<{ toolsError: string; stateBytes: number }>;
    expect(view!.toolsError).toMatch(/The data folder of the MCP server memory \(.*mcp-state\/memory\) is a link, which Posthoc does not follow: remove the link/);
    expect(readdirSync(elsewhere)).toEqual(['precious.txt']);
    // Sized as the link itself, not what it points at.
    expect(view!.stateBytes).toBeLessThan(4096 + 1);

    const cleared = await runPosthoc(['mcp', 'clear', 'memory', '--data-dir', dataDir]);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(existsSync(join(dataDir, 'mcp-state', 'memory'))).toBe(false);
    expect(lstatSync(elsewhere).isDirectory()).toBe(true);
    expect(readFileSync(join(elsewhere, 'precious.txt'), 'utf8')).toBe('mine');
  }, 300_000);
});
