// A stdio MCP server that writes to the granted folder when it starts and whenever it lists its tools (issue 23:
// such writes landed before the first action's checkpoint, on no card, recorded as the person's edits and
// never undone). Outside an action's call a server sees every granted folder read-only, so its start-up and the
// run's tool listing write nothing; the action's first call starts it again, writable, inside its window, and
// what it writes then is on the action's card and undone with it. As root and as the person (uid 1000).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FsEffect } from '../../shared/domain';
import { OWNERS, own } from '../support/claims';
import { folderContents } from '../support/folder-contents';
import { startHarness, type Harness } from '../support/services-harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The server: notes in the folder above its own when it starts, when it lists, when it is called. */
const SERVER = `import readline from 'node:readline';
import fs from 'node:fs';
import path from 'node:path';
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const note = (name) => {
  try {
    fs.appendFileSync(path.join(root, name), 'written by the server\\n');
  } catch (e) {
    console.error('could not write ' + name + ': ' + e.code);
  }
};
note('started.txt');
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') {
    send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'scribbler', version: '1' } } });
  } else if (msg.method === 'tools/list') {
    note('listed.txt');
    send({ jsonrpc: '2.0', id: msg.id, result: { tools: [{ name: 'touch', description: 'Writes called.txt', inputSchema: { type: 'object' } }] } });
  } else if (msg.method === 'tools/call') {
    note('called.txt');
    send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'touched' }] } });
  } else if (msg.id !== undefined) {
    send({ jsonrpc: '2.0', id: msg.id, result: {} });
  }
});
`;

const CALL = '```python\nfrom posthoc_tools import scribbler\nprint(scribbler.touch())\n```';

describe.each(OWNERS)('an MCP server that writes at start-up and when listing ($who)', ({ uid }) => {
  it("writes nothing outside an action's call; what it writes in the call is on the card and undone", async () => {
    harness = await startHarness([CALL, 'Done.']);
    const { services, workspace } = harness;
    mkdirSync(join(workspace, 'tools'));
    writeFileSync(join(workspace, 'tools', 'server.mjs'), SERVER);
    writeFileSync(join(workspace, 'notes.txt'), 'the person\n');
    own(workspace, uid);
    const before = folderContents(workspace);
    await services.handlers['mcp:add']({ name: 'scribbler', transport: { kind: 'stdio', command: 'node', args: [join(workspace, 'tools', 'server.mjs')], env: {} } });

    const started = await services.handlers['task:start']({ prompt: 'touch it', workspaces: [workspace], mcp: ['scribbler'] });
    const task = await services.tasks.wait(started.id);
    expect(task.status, task.error ?? '').toBe('done');
    // The run listed the server's tools for its prompt: through a read-only mount, so nothing was written.
    expect(harness.llm.requests[0]!.messages[0]!.content).toContain('touch');
    expect(existsSync(join(workspace, 'listed.txt'))).toBe(false);

    const [action] = services.tasks.get(task.id).actions;
    expect(action!.output.stdout).toContain('touched');
    const effect = action!.effects.find((e): e is FsEffect => e.channel === 'fs')!;
    // The start that could write happened inside the action's window: both notes are the action's.
    expect(effect.added).toEqual(['called.txt', 'started.txt']);
    expect(effect.whileRunning).toBeUndefined();
    expect(readFileSync(join(workspace, 'started.txt'), 'utf8')).toBe('written by the server\n');
    // And no edit "made outside Posthoc" was found before the action (the start-up at the run's start wrote nothing).
    const timeline = await services.handlers['task:timeline']({ taskId: task.id });
    expect(JSON.stringify(timeline)).not.toMatch(/"kind":"external"/);

    expect(await services.undo.undo(action!.id)).toMatchObject({ outcome: 'undone' });
    expect(folderContents(workspace)).toEqual(before);
    expect(readdirSync(workspace).sort()).toEqual(['notes.txt', 'tools']);
  });
});
