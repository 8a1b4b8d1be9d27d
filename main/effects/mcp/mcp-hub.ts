// The tools channel's connections: per task and per server, one connection opened lazily through the
// connector for the server's transport (stdio: the task's own MCP container; http: the remote server from the
// host), its tools listed once (every page) and kept with what Posthoc does with their calls (McpToolView).
// The task's run closes them (closeTask); an undo after the run opens one again for that task, and closes
// it after (releaseUndo), so no container outlives what needed it. Only a connection opened for an action's
// call may write the granted folders (McpTaskContext.writable): one opened to list tools as the run starts,
// or for an undo, sees them read-only, and an action's first call starts the server again, writable, inside
// its window — so whatever a server writes to a granted folder is an action's, recorded and undone.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServerDefinition, McpToolView } from '../../../shared/domain/mcp';
import type { McpConnection, McpConnector, McpTaskContext } from '../../ports/mcp-connection';
import { inverseToolOf } from './inverses';
import { toolRule } from './rules';

/** A hostile server could page forever: tools beyond these are not offered. */
export const MAX_TOOL_PAGES = 50;
export const MAX_TOOLS = 1000;
/** A call may run long (the action's own timeout aborts it through its signal). */
const CALL_TIMEOUT_MS = 30 * 60 * 1000;
const LIST_TIMEOUT_MS = 60 * 1000;

/** What a tool answered (CallToolResult, plus the older `toolResult` form some servers send). */
export type ToolResult = { content: unknown[]; structuredContent?: Record<string, unknown>; isError: boolean };

export type McpHubOptions = {
  connectors: { stdio: McpConnector; http: McpConnector };
  /** A server's definition as it is now; undefined once removed. */
  server(name: string): McpServerDefinition | undefined;
  /** What a connector must know of the task (its granted folders); undefined for a task that does not exist. */
  task(taskId: string): McpTaskContext | undefined;
};

type Entry = {
  server: McpServerDefinition;
  connection: Promise<McpConnection>;
  tools: Promise<McpToolView[]> | null;
  /** Opened by an undo after the task's run ended: closed again once that undo is done. */
  undoOnly: boolean;
  /** Opened for an action's call, with the granted folders writable (McpTaskContext.writable). */
  writable: boolean;
};

/** Why a connection is asked for: an action's call is the only one that may write the granted folders. */
type Purpose = 'list' | 'run' | 'undo';

export class McpHub {
  private readonly tasks = new Map<string, Map<string, Entry>>();

  constructor(private readonly options: McpHubOptions) {}

  /** The server's definition now (undefined once the person removed it). */
  definition(name: string): McpServerDefinition | undefined {
    return this.options.server(name);
  }

  /** The server's tools for the task, listed once per connection, with their rules and inverses. */
  async tools(taskId: string, server: string, signal?: AbortSignal): Promise<McpToolView[]> {
    const entry = await this.entry(taskId, server, 'list', signal);
    entry.tools ??= this.list(entry, signal);
    try {
      return await entry.tools;
    } catch (error) {
      entry.tools = null;
      throw error;
    }
  }

  /** Calls a tool; resolves with what the server answered (isError included), rejects when it could not be asked. */
  async call(taskId: string, server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal, purpose: 'run' | 'undo' = 'run'): Promise<ToolResult> {
    const entry = await this.entry(taskId, server, purpose, signal);
    const connection = await entry.connection;
    try {
      const raw = await connection.use(
        (client: Client) => client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: CALL_TIMEOUT_MS, resetTimeoutOnProgress: true }),
        signal,
      );
      return normalize(raw);
    } catch (error) {
      // A protocol error (an unknown tool, bad arguments) leaves the session usable; anything else drops it.
      if (!isProtocolError(error) && !signal?.aborted) await this.drop(taskId, server, entry);
      throw error;
    }
  }

  /** Closes the task's connections (its run ended). */
  async closeTask(taskId: string): Promise<void> {
    const entries = this.tasks.get(taskId);
    this.tasks.delete(taskId);
    await Promise.all([...(entries?.values() ?? [])].map(closeEntry));
  }

  /** Closes the connections an undo opened for a task that is not running. */
  async releaseUndo(taskId: string): Promise<void> {
    const entries = this.tasks.get(taskId);
    if (!entries) return;
    const closing: Entry[] = [];
    for (const [name, entry] of entries) {
      if (!entry.undoOnly) continue;
      entries.delete(name);
      closing.push(entry);
    }
    if (entries.size === 0) this.tasks.delete(taskId);
    await Promise.all(closing.map(closeEntry));
  }

  async close(): Promise<void> {
    await Promise.all([...this.tasks.keys()].map((id) => this.closeTask(id)));
  }

  private async entry(taskId: string, name: string, purpose: Purpose, signal?: AbortSignal): Promise<Entry> {
    let entries = this.tasks.get(taskId);
    const existing = entries?.get(name);
    if (existing && (purpose !== 'run' || existing.writable)) {
      if (purpose !== 'undo') existing.undoOnly = false;
      return existing;
    }
    // Listed read-only as the run began: an action's first call starts it again, able to write, inside the
    // action's window.
    if (existing) await this.drop(taskId, name, existing);
    const server = this.options.server(name);
    if (!server) throw new Error(`The MCP server "${name}" is no longer defined; ask the person to add it again (posthoc mcp add ${name} …).`);
    const task = this.options.task(taskId);
    if (!task) throw new Error(`The task ${taskId} does not exist, so its MCP server "${name}" cannot be started.`);
    const connector = this.options.connectors[server.transport.kind];
    const writable = purpose === 'run';
    const entry: Entry = { server, connection: connector.connect(server, { ...task, writable }, signal), tools: null, undoOnly: purpose === 'undo', writable };
    if (!entries) {
      entries = new Map();
      this.tasks.set(taskId, entries);
    }
    entries.set(name, entry);
    try {
      await entry.connection;
    } catch (error) {
      if (this.tasks.get(taskId)?.get(name) === entry) this.tasks.get(taskId)!.delete(name);
      throw error;
    }
    return entry;
  }

  private async drop(taskId: string, name: string, entry: Entry): Promise<void> {
    const entries = this.tasks.get(taskId);
    if (entries?.get(name) === entry) entries.delete(name);
    await closeEntry(entry);
  }

  private async list(entry: Entry, signal?: AbortSignal): Promise<McpToolView[]> {
    const connection = await entry.connection;
    const out: McpToolView[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES && out.length < MAX_TOOLS; page++) {
      const answer = await connection.use((client: Client) => client.listTools(cursor === undefined ? undefined : { cursor }, { signal, timeout: LIST_TIMEOUT_MS }), signal);
      for (const tool of answer.tools) {
        if (out.length >= MAX_TOOLS) break;
        if (out.some((t) => t.name === tool.name)) continue;
        const facts = { name: tool.name, annotations: tool.annotations };
        out.push({
          name: tool.name,
          description: cutDescription(tool.description ?? tool.annotations?.title ?? tool.title ?? ''),
          inputSchema: tool.inputSchema as Record<string, unknown>,
          annotations: tool.annotations,
          rule: toolRule(entry.server, facts),
          inverseTool: inverseToolOf(entry.server.api, tool.name),
        });
      }
      if (!answer.nextCursor || answer.nextCursor === cursor) break;
      cursor = answer.nextCursor;
    }
    return out;
  }
}

/** A description longer than this is cut (a hostile server could send megabytes into every listing). */
export const MAX_DESCRIPTION_CHARS = 8192;

function cutDescription(text: string): string {
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}… (cut: ${text.length} characters)` : text;
}

async function closeEntry(entry: Entry): Promise<void> {
  try {
    await (await entry.connection).close();
  } catch {
    // It never opened, or is gone already: nothing is left to close.
  }
}

function isProtocolError(error: unknown): boolean {
  // McpError carries a JSON-RPC code; a timeout or a closed transport is not an answer of the server.
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && code !== -32001 && code !== -32000;
}

function normalize(raw: Record<string, unknown>): ToolResult {
  if (Array.isArray(raw.content)) {
    const structured = raw.structuredContent;
    return {
      content: raw.content,
      structuredContent: typeof structured === 'object' && structured !== null && !Array.isArray(structured) ? (structured as Record<string, unknown>) : undefined,
      isError: raw.isError === true,
    };
  }
  // The older form: { toolResult }.
  return { content: [{ type: 'text', text: JSON.stringify(raw.toolResult ?? null) }], isError: false };
}
