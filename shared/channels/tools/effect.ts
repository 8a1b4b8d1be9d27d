// The tools (MCP) channel's records: the effect an action leaves (stored with the action) and its step in the
// reverse plan. zod only, so shared/domain can build its unions from the registry without a cycle.
import { z } from 'zod';
import { RestHold } from '../../domain/connections';
import { McpToolAnnotations } from '../../domain/mcp';

/** The exact call undo makes to take one back: derived from the real arguments and result by the inverse data. */
export const McpInverse = z.object({
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  /** In words, for the card and the CLI ("delete entity alice"). */
  summary: z.string(),
});
export type McpInverse = z.infer<typeof McpInverse>;

/** One MCP tool call an action made, through the gateway (`POST $POSTHOC_GATEWAY/mcp/SERVER/TOOL`). */
export const McpEffect = z.object({
  channel: z.literal('mcp'),
  server: z.string(),
  transport: z.enum(['stdio', 'http']),
  tool: z.string(),
  /** The arguments as JSON text, secrets redacted, cut short. */
  arguments: z.string(),
  annotations: McpToolAnnotations.optional(),
  /** What the tool answered, as text, secrets redacted, cut short; null when it never ran. */
  result: z.string().nullable(),
  /** The server answered with an error (its message is the result). */
  isError: z.boolean(),
  durationMs: z.number(),
  /**
   * May it have changed anything? false for readOnlyHint tools. A confined stdio server's changes to the granted
   * folders are in the action's checkpoint whatever this says.
   */
  mutating: z.boolean(),
  /**
   * A confined stdio server whose inverse data says it keeps no state but the granted folders (the filesystem
   * server): what the call changed is in the action's checkpoint, and undo restores it with the files.
   */
  folderOnly: z.boolean().optional(),
  /** Set when the call was refused (denied, not granted, schema, the person cancelled it); it never reached the server. */
  refused: z.string().nullable(),
  /** The call undo makes to take this one back; null when none is known. */
  inverse: McpInverse.nullable(),
  /** Set when the gateway kept the call back for the person's approval. */
  hold: RestHold.nullable().optional(),
  /** Set once undo made the inverse call: when, and the server's error if it refused. */
  undone: z.object({ at: z.string(), error: z.string().nullable() }).nullable().optional(),
});
export type McpEffect = z.infer<typeof McpEffect>;

/** Its step in a reverse plan: the exact inverse tool call, made through the same server. */
export const ToolsStep = z.object({
  channel: z.literal('mcp'),
  server: z.string(),
  tool: z.string(),
  arguments: z.string(),
  summary: z.string(),
});
export type ToolsStep = z.infer<typeof ToolsStep>;
