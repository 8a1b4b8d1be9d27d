// The rule of one MCP tool call, decided before anything reaches the server: a tool the person denied is
// refused (never sent), a tool they hold waits for their approval, and a call that may change something with
// no known inverse and no checkpoint covering it follows the person's rule for such calls (`noInverse`).
// Annotations are hints a server may lie with, so they only ever make Posthoc more careful: readOnlyHint is
// the one thing that makes a call not mutating, and destructiveHint: false counts only for a confined
// (stdio) server, whose changes stay on the machine (as main/policy/confinement.ts grades it).
import type { RestHold } from '../../../shared/domain/connections';
import type { McpServerDefinition, McpToolAnnotations, McpToolRule } from '../../../shared/domain/mcp';
import { inverseToolOf, isFolderOnly } from './inverses';

export type ToolFacts = { name: string; annotations?: McpToolAnnotations };

export type Verdict =
  | { kind: 'refuse'; message: string; mutating: boolean }
  | { kind: 'hold'; reason: string; mutating: boolean }
  | { kind: 'send'; mutating: boolean };

/** The shape of the gateway's Holds.wait (main/gateway/holds.ts), injected: effects do not import the gateway. */
export type HoldWait = (
  taskId: string,
  spec: { kind: 'approval'; reason: string },
  onChange: (hold: RestHold) => void,
  signal?: AbortSignal,
) => Promise<'release' | 'cancel' | 'abandon'>;

/** A call of the tool may change something (only readOnlyHint: true says it cannot). */
export function isMutating(tool: ToolFacts): boolean {
  return tool.annotations?.readOnlyHint !== true;
}

/** A call of the tool that changes something is taken back by undo: by a known inverse, or by the checkpoint. */
export function isCovered(server: Pick<McpServerDefinition, 'api' | 'transport'>, tool: ToolFacts): boolean {
  if (inverseToolOf(server.api, tool.name)) return true;
  if (isFolderOnly(server.api, server.transport.kind)) return true;
  return server.transport.kind === 'stdio' && tool.annotations?.destructiveHint === false;
}

/** What happens to a call of the tool. */
export function judgeToolCall(server: Pick<McpServerDefinition, 'name' | 'rules' | 'api' | 'transport'>, tool: ToolFacts): Verdict {
  const mutating = isMutating(tool);
  const name = `${server.name}.${tool.name}`;
  if (server.rules.deny.includes(tool.name)) {
    return { kind: 'refuse', mutating, message: `The person denied the tool ${name}, so the call was refused and never reached the server. Do it another way, or ask the person to allow ${tool.name}.` };
  }
  if (server.rules.hold.includes(tool.name)) return { kind: 'hold', mutating, reason: `The person approves every call of ${name} before it is sent.` };
  if (!mutating || isCovered(server, tool)) return { kind: 'send', mutating };
  switch (server.rules.noInverse) {
    case 'allow':
      return { kind: 'send', mutating };
    case 'hold':
      return { kind: 'hold', mutating, reason: `${name} may change the server's state and undo cannot take it back, so the person approves it before it is sent.` };
    case 'deny':
      return {
        kind: 'refuse',
        mutating,
        message: `${name} may change the server's state and undo cannot take it back; the person's rule refuses such calls, so it never reached the server. Use a read-only tool, or ask the person to allow it.`,
      };
  }
}

/** The rule shown for a tool (Connections page, `posthoc mcp list`, GET $POSTHOC_GATEWAY/mcp). */
export function toolRule(server: Pick<McpServerDefinition, 'name' | 'rules' | 'api' | 'transport'>, tool: ToolFacts): McpToolRule {
  const verdict = judgeToolCall(server, tool);
  return verdict.kind === 'refuse' ? 'deny' : verdict.kind === 'hold' ? 'hold' : 'allow';
}

/** Waits for the person's decision on a held call; returns why it must not be sent, or null when it may. */
export async function keepBack(
  wait: HoldWait,
  taskId: string,
  call: string,
  reason: string,
  onChange: (hold: RestHold) => void,
  signal?: AbortSignal,
): Promise<string | null> {
  const outcome = await wait(taskId, { kind: 'approval', reason }, onChange, signal);
  switch (outcome) {
    case 'release':
      return null;
    case 'cancel':
      return `The person did not approve ${call}; it was not sent. Do not call it again unless the person asks.`;
    case 'abandon':
      return `${call} was still waiting for the person's approval when the action ended, so it was not sent.`;
  }
}
