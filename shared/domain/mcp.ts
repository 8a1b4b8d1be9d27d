// MCP servers: how the person describes them (a stdio command Posthoc runs confined, or a remote URL the
// gateway calls from the host), their rules per tool, the tools they offer, and each call an action made
// (McpEffect, on the action like any other effect). Only names of secrets appear here: never a value.
import { z } from 'zod';

/** A server's name: what the sandbox writes (posthoc_tools.NAME, $POSTHOC_GATEWAY/mcp/NAME/TOOL). */
export const McpServerName = z
  .string()
  .trim()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,39}$/, 'A server name starts with a letter and holds only letters, digits, - and _ (at most 40).');

/** The MCP tool annotations (all hints: a server may say anything, so they only ever make Posthoc more careful). */
export const McpToolAnnotations = z
  .object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .passthrough();
export type McpToolAnnotations = z.infer<typeof McpToolAnnotations>;

/** How Posthoc reaches a server. */
export const McpTransport = z.discriminatedUnion('kind', [
  /** A command run inside the task's own MCP container (no network, granted folders at the sandbox's paths). */
  z.object({
    kind: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()),
    /** Plain settings only: a value that looks like a secret is refused (it would reach the container). */
    env: z.record(z.string(), z.string()),
  }),
  /** A remote server over streamable HTTP, called by the gateway from the host; credentials by name from the vault. */
  z.object({
    kind: z.literal('http'),
    url: z.string().min(1),
    auth: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('none') }),
      z.object({ kind: z.literal('bearer'), secret: z.string().min(1) }),
      z.object({ kind: z.literal('oauth') }),
    ]),
  }),
]);
export type McpTransport = z.infer<typeof McpTransport>;

/** What happens to a call of a tool: sent, held for the person's approval, or refused before it reaches the server. */
export const McpToolRule = z.enum(['allow', 'hold', 'deny']);
export type McpToolRule = z.infer<typeof McpToolRule>;

export const McpRules = z.object({
  /** Tools refused: the call never reaches the server, and the agent reads why. */
  deny: z.array(z.string()).default([]),
  /** Tools whose every call waits for the person's approval. */
  hold: z.array(z.string()).default([]),
  /** What happens to a call that may change something and has no known inverse (and no checkpoint covers). */
  noInverse: McpToolRule.default('allow'),
});
export type McpRules = z.infer<typeof McpRules>;

export const McpServerDefinition = z.object({
  name: McpServerName,
  transport: McpTransport,
  rules: McpRules,
  /** Whose inverse data describes its tools ('memory' for @modelcontextprotocol/server-memory), if any. */
  api: z.string().nullable(),
  createdAt: z.string(),
});
export type McpServerDefinition = z.infer<typeof McpServerDefinition>;

/** One tool as the server listed it, with what Posthoc does with its calls. */
export const McpToolView = z.object({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  annotations: McpToolAnnotations.optional(),
  /** The rule that applies to its calls (the person's, else allow). */
  rule: McpToolRule,
  /** The tool undo calls to take a call back, when the server's inverse data knows one. */
  inverseTool: z.string().nullable(),
});
export type McpToolView = z.infer<typeof McpToolView>;

/** A server as the Connections page and `posthoc mcp list` show it; tools when they were listed. */
export const McpServerView = McpServerDefinition.extend({
  tools: z.array(McpToolView).nullable(),
  /** Why the tools could not be listed (the server did not start, refused the token, …), in plain words. */
  toolsError: z.string().nullable(),
  /**
   * Bytes a stdio server keeps between tasks in Posthoc's data folder (its data, and npm's cache of its
   * package): cleared with mcp:clear, removed with the server. null for a remote server (its data is its own).
   */
  stateBytes: z.number().int().nonnegative().nullable(),
});
export type McpServerView = z.infer<typeof McpServerView>;

/** Where signing in to a server that uses OAuth stands (mcp:signin): signed in with its tools listed, or the link to open. */
export const McpSignIn = z.object({
  signedIn: z.boolean(),
  /** The sign-in page to open in the browser, while one waits for the person. */
  url: z.string().nullable(),
  /** How many tools it offers, once signed in. */
  tools: z.number().int().nullable(),
  /** What happened, in words. */
  message: z.string(),
});
export type McpSignIn = z.infer<typeof McpSignIn>;

// An MCP call's effect and inverse are the tools channel's own records (shared/channels/tools/effect.ts).
export type { McpEffect, McpInverse } from '../channels/tools/effect';
