// Undo for MCP tool calls, behind the undo saga's interface (shared/undo/channel.ts), as the 'tools'
// channel: each recorded inverse call is made, newest first, through the hub (the same server, opened again
// for the task if its run has ended). A server may refuse an inverse (the entity changed, the token lost its
// scope), so these calls are compensable, never exact: like service calls they are applied last
// (leavesMachine), a refusal makes the saga's partial (or refused) outcome, and what went through is marked
// on its effect (`undone`) and never made twice. A confined server's file changes are the files channel's.
import type { Action, UndoBlocker } from '../../../shared/domain';
import type { McpEffect } from '../../../shared/domain/mcp';
import type { ApplyResult, ChannelStep, UndoChannel, UndoJob } from '../../../shared/undo/channel';
import { callName, isMcpTakenBack, mcpWrites } from '../../../shared/undo/reverse-plan';
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

const inverseName = (e: McpEffect): string => callName({ channel: 'mcp', server: e.server, tool: e.inverse!.tool });

export class McpUndoChannel implements UndoChannel {
  readonly name = 'tools' as const;
  readonly leavesMachine = true;

  constructor(
    private readonly port: McpUndoPort | undefined,
    /** Saves the action's effects after the calls (what was taken back, what the server answered). */
    private readonly save: (action: Action) => void,
    private readonly callMs = UNDO_CALL_MS,
  ) {}

  async session<T>(job: UndoJob, body: (step: ChannelStep | null) => Promise<T>): Promise<T> {
    if (job.direction === 'redo') {
      const gone = job.actions.flatMap((a) => mcpWrites(a.effects).filter(isMcpTakenBack));
      return body(gone.length === 0 ? null : new RedoRefused(gone));
    }
    const actions = job.actions.filter((a) => pendingToolInverses(a).length > 0);
    if (actions.length === 0) return body(null);
    try {
      return await body(new CallInverses(this.port, this.save, job.taskId, actions, this.callMs));
    } finally {
      await this.port?.releaseUndo(job.taskId).catch(() => undefined);
    }
  }
}

class CallInverses implements ChannelStep {
  constructor(
    private readonly port: McpUndoPort | undefined,
    private readonly save: (action: Action) => void,
    private readonly taskId: string,
    private readonly actions: Action[],
    private readonly callMs: number,
  ) {}

  async check(): Promise<UndoBlocker[]> {
    const calls = this.actions.flatMap(pendingToolInverses);
    if (!this.port) return calls.map((c) => blocker(inverseName(c), 'this Posthoc was started without the tools channel, so its MCP tool calls cannot be taken back here'));
    const out: UndoBlocker[] = [];
    for (const c of calls) {
      if (!this.port.definition(c.server)) out.push(blocker(inverseName(c), `the MCP server "${c.server}" is no longer defined; add it again (posthoc mcp add ${c.server} …), then undo`));
    }
    return out;
  }

  async apply(): Promise<ApplyResult> {
    const items: string[] = [];
    const calls: string[] = [];
    const report = () => ({ items, restored: [], removed: [], notRestored: [], refs: [], calls });
    for (const action of this.actions) {
      for (const effect of pendingToolInverses(action)) {
        const inverse = effect.inverse!;
        const error = await this.send(effect);
        effect.undone = { at: new Date().toISOString(), error };
        this.save(action);
        if (error) return { ok: false, report: report(), refused: { what: `${inverseName(effect)} (${inverse.summary})`, why: error } };
        items.push(`${inverseName(effect)} called (${inverse.summary})`);
        calls.push(inverse.summary);
      }
    }
    return { ok: true, report: report() };
  }

  /** Makes one inverse call; the server's (or the connection's) refusal in words, or null when it went through. */
  private async send(effect: McpEffect): Promise<string | null> {
    const inverse = effect.inverse!;
    const signal = AbortSignal.timeout(this.callMs);
    try {
      const result = await this.port!.call(this.taskId, effect.server, inverse.tool, inverse.arguments, signal, 'undo');
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

  async compensate(): Promise<void> {
    // What the server did stays done; the saga never asks (leavesMachine).
  }
}

class RedoRefused implements ChannelStep {
  constructor(private readonly gone: McpEffect[]) {}

  async check(): Promise<UndoBlocker[]> {
    return this.gone.map((e) =>
      blocker(callName({ channel: 'mcp', server: e.server, tool: e.tool }), 'undo took this tool call back; redo cannot call tools again (ask the agent to do it again instead)'),
    );
  }

  async apply(): Promise<ApplyResult> {
    throw new Error('A redo of taken-back tool calls was applied although its check refused it.');
  }

  async compensate(): Promise<void> {}
}

function blocker(path: string, reason: string): UndoBlocker {
  return { path, by: 'content', actionId: null, actionSeq: null, taskTitle: null, channel: 'tools', reason };
}
