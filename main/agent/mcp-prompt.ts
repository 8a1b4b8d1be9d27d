// The system prompt's part about the MCP servers granted to the task (main/effects/mcp): how code calls
// their tools (posthoc_tools in Python, the gateway's /mcp route from anything else), each tool's name and
// first line, where a local server sees the granted folders, and that a denied tool is refused. Bounded:
// past a budget, tools are named only, and past a second one they are counted (help() and
// GET $POSTHOC_GATEWAY/mcp list them all).
import type { WorkspaceGrant } from '../../shared/domain';
import type { McpServerDefinition, McpToolView } from '../../shared/domain/mcp';
import { estimateTokens } from './token-estimate';

/** Tools are described with their first line until the section reaches this. */
export const MCP_PROMPT_TOKENS = 1500;
/** Past this, tools are only counted. */
export const MCP_PROMPT_MAX_TOKENS = 2500;
const LINE_CHARS = 140;

export type McpPromptServer = {
  server: Pick<McpServerDefinition, 'name' | 'transport'>;
  /** null when they could not be listed (`error` says why). */
  tools: readonly McpToolView[] | null;
  error?: string | null;
};

/** What code writes for a server or tool name (posthoc_tools turns other characters into '_'). */
export function pythonName(name: string): string {
  let ident = name.replace(/\W/g, '_');
  if (ident === '' || /^\d/.test(ident)) ident = `_${ident}`;
  return ident;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0]!.trim();
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
}

function marks(tool: McpToolView): string {
  const out: string[] = [];
  if (tool.rule === 'deny') out.push('denied: refused');
  else if (tool.rule === 'hold') out.push('held for approval');
  if (tool.annotations?.readOnlyHint === true) out.push('read-only');
  else if (tool.inverseTool) out.push('undo takes it back');
  return out.length ? ` [${out.join(', ')}]` : '';
}

/** The section, as lines; empty when no server is granted. */
export function mcpSection(servers: readonly McpPromptServer[], workspaces: readonly WorkspaceGrant[]): string[] {
  if (servers.length === 0) return [];
  const first = servers[0]!;
  const example = first.tools?.find((t) => t.rule !== 'deny') ?? first.tools?.[0];
  const exampleArg = example ? (Object.keys((example.inputSchema.properties as Record<string, unknown> | undefined) ?? {})[0] ?? 'arg') : 'arg';
  const name = pythonName(first.server.name);
  const tool = example ? pythonName(example.name) : 'TOOL';
  const lines = [
    '',
    'MCP tools (servers the person granted to this task):',
    `- Call them from Python: \`from posthoc_tools import ${name}\`, then \`${name}.${tool}(${exampleArg}=…)\` (keyword arguments, checked against the tool's input schema). \`help(${name}.${tool})\` prints a tool's description and full schema.`,
    '- A call returns a Python value (the structured result, else the text); a tool that fails raises posthoc_tools.ToolError with the server\'s message, and a call Posthoc refused raises posthoc_tools.ToolRefused (a ToolError) saying why.',
    '- From other languages: POST $POSTHOC_GATEWAY/mcp/SERVER/TOOL with the arguments as a JSON object; GET $POSTHOC_GATEWAY/mcp lists the servers, tools and schemas.',
    '- Every call is recorded on the action. A tool the person denied is refused and never reaches the server; a held one waits for the person\'s approval. Use tools only for what the task needs.',
  ];
  if (servers.some((s) => s.server.transport.kind === 'stdio')) {
    const folders = workspaces.map((w) => (w.hostPath === w.mountPath ? w.mountPath : `${w.mountPath} (also at ${w.hostPath})`));
    lines.push(
      folders.length
        ? `- A local server runs confined, with no network; it sees the granted folders where your code does and at their paths on the person's machine: ${folders.join(', ')}. Its changes to them are undone with the action's files.`
        : '- A local server runs confined, with no network, and no folder is granted to this task.',
    );
  }
  let described = true;
  let counted = false;
  for (const { server, tools, error } of servers) {
    const kind = server.transport.kind === 'stdio' ? 'local' : 'remote';
    lines.push(`${pythonName(server.name)} (${kind}${server.name !== pythonName(server.name) ? `, "${server.name}"` : ''}):`);
    if (!tools) {
      lines.push(`  (its tools could not be listed: ${firstLine(error ?? 'unknown reason')})`);
      continue;
    }
    const names: string[] = [];
    for (let i = 0; i < tools.length; i++) {
      const t = tools[i]!;
      const size = estimateTokens(lines.join('\n')) + estimateTokens(names.join(', '));
      if (described && size > MCP_PROMPT_TOKENS) described = false;
      if (!described && size > MCP_PROMPT_MAX_TOKENS) {
        counted = true;
        names.push(`and ${tools.length - i} more`);
        break;
      }
      if (described) lines.push(`  - ${pythonName(t.name)}: ${firstLine(t.description) || '(no description)'}${marks(t)}`);
      else names.push(`${pythonName(t.name)}${t.rule === 'deny' ? ' (denied)' : ''}`);
    }
    if (names.length) lines.push(`  also: ${names.join(', ')}`);
    if (tools.length === 0) lines.push('  (no tools)');
  }
  if (!described || counted) lines.push(`(Not every tool is described here: help(SERVER) in Python, or GET $POSTHOC_GATEWAY/mcp, lists them all.)`);
  return lines;
}
