// Undo for MCP tool calls, behind the undo saga's interface as the tools ('mcp') remote-inverses channel
// (shared/undo/remote-inverses-channel.ts, shared with the services channel): each recorded inverse call
// is made, newest first, through the hub (the same server, opened again for the task if its run has ended). A server may refuse an inverse (the entity changed, the token lost its
// scope), so these calls are compensable, never exact: like service calls they are applied last
// (leavesMachine), a refusal makes the saga's partial (or refused) outcome, and what went through is marked
// on its effect (`undone`) and never made twice. A confined server's file changes are the files channel's.
import type { Action } from '../../../shared/domain';
import type { McpEffect } from '../../../shared/domain/mcp';
import { RemoteInversesChannel, type InverseDoor, type RemoteCalls } from '../../../shared/undo/remote-inverses-channel';
import { isMcpTakenBack, mcpWrites, toolCallName } from '../../../shared/channels/tools/spec';
import type { ToolResult } from './mcp-hub';

/** How long undo waits for one inverse call (a server that hangs must not hold the undo for ever). */
export const UNDO_CALL_MS = 120_000;

/** What the channel needs of the hub (McpHub implements it). */
export type McpUndoPort = {
  definition(server: string): unknown;
  call(taskId: string, server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal | undefined, purpose: 'undo'): Promise<ToolResult>;
  /** Closes what the undo opened for a task whose run has ended. */
  releaseUndo(taskId: string): Promise<void>;
};

/** The calls of an action undo must take back, newest first: made, may have changed something, with an inverse, not yet taken back. */
export function pendingToolInverses(action: Action): McpEffect[] {
  return mcpWrites(action.effects)
    .filter((e) => e.inverse !== null && !isMcpTakenBack(e))
    .reverse();
}

const inverseName = (e: McpEffect): string => toolCallName({ server: e.server, tool: e.inverse!.tool });

/** How the tools channel finds and names its calls (the inverse of each is a recorded tool call). */
const TOOL_CALLS: RemoteCalls<McpEffect> = {
  channel: 'mcp',
  pending: pendingToolInverses,
  takenBack: (action) => mcpWrites(action.effects).filter(isMcpTakenBack),
  callName: toolCallName,
  inverseName,
  summary: (e) => e.inverse!.summary,
  words: {
    noDoor: 'this Posthoc was started without the tools channel, so its MCP tool calls cannot be taken back here',
    noRedo: 'undo took this tool call back; redo cannot call tools again (ask the agent to do it again instead)',
    made: 'called',
    redoApplied: 'A redo of taken-back tool calls was applied although its check refused it.',
  },
};

/** The tools channel: each MCP call's recorded inverse, made last through the hub (it cannot be put back). */
export class McpUndoChannel extends RemoteInversesChannel<McpEffect> {
  constructor(port: McpUndoPort | undefined, save: (action: Action) => void, callMs = UNDO_CALL_MS) {
    super(TOOL_CALLS, port && new HubDoor(port, callMs), save);
  }
}

/** The hub as the remote-inverses channel makes its calls: one at a time, each marked and saved as it ends. */
class HubDoor implements InverseDoor<McpEffect> {
  constructor(
    private readonly port: McpUndoPort,
    private readonly callMs: number,
  ) {}

  async check(effect: McpEffect): Promise<string | null> {
    return this.port.definition(effect.server) ? null : `the MCP server "${effect.server}" is no longer defined; add it again (posthoc mcp add ${effect.server} …), then undo`;
  }

  async takeBack(taskId: string, action: Action, save: () => void): Promise<{ made: McpEffect[]; refused: { effect: McpEffect; why: string } | null }> {
    const made: McpEffect[] = [];
    for (const effect of pendingToolInverses(action)) {
      const error = await this.send(taskId, effect);
      effect.undone = { at: new Date().toISOString(), error };
      save();
      if (error) return { made, refused: { effect, why: error } };
      made.push(effect);
    }
    return { made, refused: null };
  }

  release(taskId: string): Promise<void> {
    return this.port.releaseUndo(taskId);
  }

  /** Makes one inverse call; the server's (or the connection's) refusal in words, or null when it went through. */
  private async send(taskId: string, effect: McpEffect): Promise<string | null> {
    const inverse = effect.inverse!;
    const signal = AbortSignal.timeout(this.callMs);
    try {
      const result = await this.port.call(taskId, effect.server, inverse.tool, inverse.arguments, signal, 'undo');
      if (!result.isError) return null;
      const text = result.content
        .map((c) => ((c as { type?: string }).type === 'text' ? String((c as { text?: unknown }).text) : ''))
        .join(' ')
        .trim();
      return `${effect.server} refused ${inverse.tool}: ${(text || 'it answered with an error').slice(0, 500)}`;
    } catch (error) {
      if (signal.aborted) return `${effect.server} did not answer ${inverse.tool} within ${this.callMs >= 1000 ? `${Math.round(this.callMs / 1000)} seconds` : `${this.callMs} ms`}; it may or may not have taken ${effect.tool} back. Check the server, then undo again.`;
      return `${effect.server} could not take ${effect.tool} back (${inverse.tool}): ${error instanceof Error ? error.message : String(error)}`.slice(0, 800);
    }
  }
}
