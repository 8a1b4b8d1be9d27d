// How the tools channel (main/effects/mcp) reaches one MCP server for one task: an open, initialized SDK
// client, used one call at a time. A port: declared once here, below the layers that implement and use it,
// since neither may import the other. Two kinds implement it, both wired by the composition root (main/services):
// - stdio: the server runs in the task's own MCP container (main/sandbox/mcp-container.ts), frozen between
//   calls like the sandbox between actions, so whatever it writes to a granted folder happens inside a call
//   (inside the action that made it) and is claimed like the action's own writes;
// - http: a remote server over streamable HTTP called from the host (main/effects/mcp/http-connector.ts), credentials added
//   by name from the vault, never seen by the sandbox.
// Types only.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { WorkspaceGrant } from '../../shared/domain';
import type { McpServerDefinition } from '../../shared/domain/mcp';

export interface McpConnection {
  /**
   * Runs `fn` with the server able to run (a stdio server's container thawed for exactly this call, frozen
   * again after). Calls are serialized per connection.
   */
  use<T>(fn: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Ends the connection (a stdio server's container is removed). */
  close(): Promise<void>;
}

/** What a connector knows of the task it opens a connection for. */
export type McpTaskContext = {
  taskId: string;
  /** The task's granted folders: a stdio server sees them at the same paths as the sandbox (/workspace/NAME). */
  workspaces: readonly WorkspaceGrant[];
  /**
   * Whether the server may write the granted folders. Only a connection opened for an action's call is (its
   * writes then happen inside that action's window, where they are recorded and undone); one opened to list
   * tools as a run starts, or for an undo, sees every folder read-only: nothing of the server changes a
   * granted folder outside an action. Absent: writable as granted.
   */
  writable?: boolean;
};

export interface McpConnector {
  /** Starts (stdio) or reaches (http) the server and initializes the session; throws an Error in plain words. */
  connect(server: McpServerDefinition, task: McpTaskContext, signal?: AbortSignal): Promise<McpConnection>;
}
