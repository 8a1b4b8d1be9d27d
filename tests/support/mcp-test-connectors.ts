// Test connectors for the tools channel (main/effects/mcp/connection.ts): the real SDK client, connected to
// an in-process SDK server over the SDK's InMemoryTransport, or to a real reference server spawned on the
// host over stdio (StdioClientTransport). Each counts what it opened and closed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpConnection, McpConnector } from '../../main/ports/mcp-connection';
import type { McpServerDefinition } from '../../shared/domain/mcp';

export type CountingConnector = McpConnector & { opened: string[]; closed: number };

/** A connection that runs one use at a time over an initialized client. */
async function open(transport: Transport, onClose: () => Promise<void> | void): Promise<McpConnection> {
  const client = new Client({ name: 'posthoc-test', version: '1.0.0' });
  await client.connect(transport);
  let queue: Promise<unknown> = Promise.resolve();
  return {
    use<T>(fn: (c: Client) => Promise<T>): Promise<T> {
      const run = queue.then(() => fn(client));
      queue = run.catch(() => undefined);
      return run;
    },
    async close() {
      await client.close();
      await onClose();
    },
  };
}

/** Connects to a fresh in-process server per connection (`make` builds it). */
export function inMemoryConnector(make: (server: McpServerDefinition) => McpServer): CountingConnector {
  const self: CountingConnector = {
    opened: [],
    closed: 0,
    async connect(server) {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const mcp = make(server);
      await mcp.connect(serverSide);
      self.opened.push(server.name);
      return open(clientSide, async () => {
        self.closed++;
        await mcp.close();
      });
    },
  };
  return self;
}

export const MEMORY_SERVER = join(process.cwd(), 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
export const EVERYTHING_SERVER = join(process.cwd(), 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** Spawns the server's stdio command on the host (a reference server from node_modules), its env added. */
export function hostStdioConnector(env: Record<string, string> = {}): CountingConnector {
  const self: CountingConnector = {
    opened: [],
    closed: 0,
    async connect(server) {
      if (server.transport.kind !== 'stdio') throw new Error('hostStdioConnector runs stdio servers only');
      const transport = new StdioClientTransport({
        command: server.transport.command,
        args: server.transport.args,
        env: { PATH: process.env.PATH ?? '', ...server.transport.env, ...env },
        stderr: 'ignore',
      });
      self.opened.push(server.name);
      return open(transport, () => {
        self.closed++;
      });
    },
  };
  return self;
}

/** A memory file in a fresh temp folder, for the real memory server. */
export function memoryFilePath(): string {
  return join(mkdtempSync(join(tmpdir(), 'posthoc-mcp-memory-')), 'memory.jsonl');
}
