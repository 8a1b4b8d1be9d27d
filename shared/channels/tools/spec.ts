// The tools channel: MCP tool calls an action made through the gateway (main/effects/mcp). Undo makes each
// call's recorded inverse through the same server, newest first, last of all (it may leave the machine).
import type { ChannelSpec } from '../channel-spec';
import { McpEffect, ToolsStep } from './effect';

/** MCP tool calls that may have changed something: not read-only, not refused, not answered with an error. */
export function mcpWrites(effects: readonly { channel: string }[]): McpEffect[] {
  return effects.filter((c): c is McpEffect => c.channel === 'mcp' && (c as McpEffect).mutating && (c as McpEffect).refused === null && !(c as McpEffect).isError);
}

/** An MCP call whose inverse a partial undo already made. */
export function isMcpTakenBack(c: McpEffect): boolean {
  return c.undone !== null && c.undone !== undefined && c.undone.error === null;
}

/** A tool call as the card and the CLI name it: `memory.delete_entities`. */
export const toolCallName = (c: { server: string; tool: string }): string => `${c.server}.${c.tool}`;

export const tools: ChannelSpec<typeof McpEffect, typeof ToolsStep> = {
  id: 'mcp',
  label: 'tools',
  heading: 'Tool calls',
  effect: McpEffect,
  step: ToolsStep,
  undo: 'remote',
  checkpointed: false,
  plan(effects) {
    const writes = mcpWrites(effects);
    return {
      steps: writes
        .filter((c) => c.inverse && !isMcpTakenBack(c))
        .reverse()
        .map((c): ToolsStep => ({ channel: 'mcp', server: c.server, tool: c.inverse!.tool, arguments: JSON.stringify(c.inverse!.arguments), summary: c.inverse!.summary })),
      // A stdio server's calls with no inverse are covered by the action's checkpoint only as far as the granted
      // folders go; a remote one's are not covered at all. Both are named as what undo cannot take back, except a
      // confined server that keeps nothing but the granted folders (folderOnly): the checkpoint covers its calls.
      irreversible: writes.filter((c) => !c.inverse && !(c.transport === 'stdio' && c.folderOnly)).map((c) => ({ channel: 'mcp', name: toolCallName(c) })),
      takenBack: writes.filter(isMcpTakenBack).map((c) => ({ channel: 'mcp', name: toolCallName(c), summary: c.inverse?.summary ?? '' })),
    };
  },
  words: () => [],
  call: (step) => ({ name: toolCallName(step), summary: step.summary }),
  observe: (effect) =>
    effect.refused ? `tool ${effect.server}.${effect.tool} refused: ${effect.refused}` : `called tool ${effect.server}.${effect.tool}${effect.isError ? ' (it answered with an error)' : ''}`,
  lines: (effect) => [
    `  ⚙ ${effect.server}.${effect.tool}  ${effect.refused ? `refused: ${effect.refused}` : effect.isError ? 'error' : effect.mutating ? 'changed' : 'read'}`,
    ...(effect.hold ? [`    held (approval): ${effect.hold.state}`] : []),
    ...(effect.inverse ? [`    ↶ ${effect.server}.${effect.inverse.tool} — ${effect.inverse.summary}`] : []),
    ...(effect.undone ? [`    ↶ ${effect.undone.error ? `failed: ${effect.undone.error}` : 'taken back'}`] : []),
  ],
  level(effect, facts) {
    if (effect.transport === 'stdio' && !effect.refused && effect.mutating && !effect.inverse) facts.stdioToolWrites = true;
    if (effect.refused !== null) return; // refused at the gateway: it never reached the server
    const name = toolCallName(effect);
    if (!effect.mutating) facts.reads.add(`the ${effect.server} tools`);
    else if (effect.inverse) facts.compensable.push(name);
    // A confined server that keeps nothing but the granted folders: its changes are the checkpoint's.
    else if (effect.transport === 'stdio' && effect.folderOnly) return;
    else if (effect.transport === 'stdio' && effect.annotations?.destructiveHint === false) return;
    else facts.toolWrites.push(name);
  },
  tally: null,
};
