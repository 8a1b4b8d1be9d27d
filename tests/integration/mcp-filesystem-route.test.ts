// The REAL @modelcontextprotocol/server-filesystem (spawned on the host over stdio, its allowed folder the
// task's granted folder) through the gateway's /mcp route, inside the undo harness: a write through it is an
// effect marked folderOnly (the checkpoint covers it: not confined even under a strict noInverse rule), the
// files channel records the change, and undo restores the folder; a tool the person denied is refused and
// never reaches the server (the file it would have moved stays where it is).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Effect } from '../../shared/domain';
import type { McpEffect, McpServerDefinition } from '../../shared/domain/mcp';
import { Gateway } from '../../main/gateway/gateway';
import { detectApi } from '../../main/effects/mcp/inverses';
import { McpHub } from '../../main/effects/mcp/mcp-hub';
import { McpRoute } from '../../main/effects/mcp/mcp-route';
import { callDoor } from '../support/gateway-client';
import { hostStdioConnector } from '../support/mcp-test-connectors';
import { tempDirs } from '../support/temp-dir';
import { startUndoHarness } from '../support/undo-harness';

const FILESYSTEM_SERVER = join(process.cwd(), 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const dirs = tempDirs();
let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
  dirs.cleanup();
});

describe('the real filesystem server through the /mcp route', () => {
  it('writes into the granted folder as a folderOnly call the files channel undoes; a denied tool never reaches the server', async () => {
    const connector = hostStdioConnector();
    const defined: { files?: McpServerDefinition } = {};
    const hub = new McpHub({ connectors: { stdio: connector, http: connector }, server: () => defined.files, task: (id) => ({ taskId: id, workspaces: [] }) });
    const harness = await startUndoHarness({ channels: { tools: hub } });
    const transport = { kind: 'stdio' as const, command: process.execPath, args: [FILESYSTEM_SERVER, harness.workspace], env: {} };
    const server: McpServerDefinition = { name: 'files', transport, rules: { deny: ['move_file'], hold: [], noInverse: 'deny' }, api: detectApi({ ...transport, args: ['@modelcontextprotocol/server-filesystem'] }), createdAt: '2026-01-01T00:00:00.000Z' };
    defined.files = server;
    expect(server.api).toBe('filesystem');
    const gateway = new Gateway(dirs.make('posthoc-gw-'), (id) => harness.store.getTask(id) ?? undefined);
    gateway.route('mcp', new McpRoute(hub, { granted: () => ['files'], wait: (...a) => gateway.holds.wait(...a) }).route);
    cleanup.push(async () => {
      await gateway.closeAll();
      await hub.close();
      await harness.close();
    });
    const door = await gateway.open(harness.task.id);
    const socket = join(door.dir!, 'gateway.sock');
    writeFileSync(join(harness.workspace, 'keep.txt'), 'the person wrote this');

    const answers: Array<{ status: number; body: unknown }> = [];
    let effects: Effect[] = [];
    const action = await harness.act(
      async () => {
        gateway.beginAction(harness.task.id, 'running');
        for (const [tool, args] of [
          ['write_file', { path: join(harness.workspace, 'report.txt'), content: 'written by the tool' }],
          ['move_file', { source: join(harness.workspace, 'keep.txt'), destination: join(harness.workspace, 'moved.txt') }],
          ['list_directory', { path: harness.workspace }],
        ] as const) {
          const answer = await callDoor(socket, 'POST', `/mcp/files/${tool}`, args);
          answers.push({ status: answer.status, body: answer.json() });
        }
        effects = gateway.endAction(harness.task.id);
      },
      { effects: () => effects },
    );
    await hub.closeTask(harness.task.id);

    expect(answers.map((a) => a.status)).toEqual([200, 403, 200]);
    expect(answers[1]!.body).toMatchObject({ refused: true, error: expect.stringContaining('The person denied the tool files.move_file') });
    expect(JSON.stringify(answers[2]!.body)).toContain('[FILE] keep.txt');
    expect(JSON.stringify(answers[2]!.body)).not.toContain('moved.txt');
    expect(readFileSync(join(harness.workspace, 'report.txt'), 'utf8')).toBe('written by the tool');
    expect(existsSync(join(harness.workspace, 'moved.txt'))).toBe(false);

    const calls = action.effects.filter((e): e is McpEffect => e.channel === 'mcp');
    expect(calls.map((c) => [c.tool, c.mutating, c.folderOnly ?? false, c.refused === null, c.inverse])).toEqual([
      ['write_file', true, true, true, null],
      ['move_file', true, true, false, null],
      ['list_directory', false, true, true, null],
    ]);
    expect(calls[0]!.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    // The write is the checkpoint's: on the card as a file change, reversible, and nothing is irreversible.
    expect(action.effects.find((e) => e.channel === 'fs')).toMatchObject({ added: ['report.txt'] });
    expect(action.reverse.irreversible).toEqual([]);
    expect(action.confinement.level).toBe('reversible');

    const undone = await harness.undo.undo(action.id);
    expect(undone.outcome).toBe('undone');
    expect(existsSync(join(harness.workspace, 'report.txt'))).toBe(false);
    expect(readFileSync(join(harness.workspace, 'keep.txt'), 'utf8')).toBe('the person wrote this');
  });
});
