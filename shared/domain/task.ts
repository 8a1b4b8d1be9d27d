// A task and what it is granted: its folders, databases, usage and plan. Apart from the rest of the domain
// (re-exported by index.ts) so that what only lists tasks (`posthoc tasks`) builds these schemas alone, not
// every action's and effect's (issue 28). A leaf like the rest of shared/: zod only.
import { z } from 'zod';
import { DATABASE_ENGINE_IDS } from './database-engines';

/**
 * interrupted: Posthoc stopped (a restart, a quit, a crash) while the task ran; not the person's Stop
 * (cancelled). `task:continue` resumes it with the record of what ran.
 */
export const TaskStatus = z.enum(['running', 'done', 'failed', 'cancelled', 'interrupted']);
export type TaskStatus = z.infer<typeof TaskStatus>;

export const WorkspaceGrant = z.object({
  /** The folder's name in the sandbox: it is mounted at /workspace/NAME (tasks recorded before kept a lone folder at /workspace). */
  name: z.string(),
  hostPath: z.string(),
  /** Where the sandbox sees it. */
  mountPath: z.string(),
  readOnly: z.boolean(),
  /**
   * What was granted: the folder's device and inode (decimal), read when it was granted with no link followed
   * on the way. The host checks it again before every read, write and container start: a folder since
   * replaced (by a link, or another folder) is refused. Absent on grants made before it was recorded.
   */
  identity: z.object({ dev: z.string(), ino: z.string() }).optional(),
});
export type WorkspaceGrant = z.infer<typeof WorkspaceGrant>;

/** The engines of database-engines.ts (one entry each). */
export const DatabaseEngine = z.enum(DATABASE_ENGINE_IDS);
export type DatabaseEngine = z.infer<typeof DatabaseEngine>;

/** What a statement does, as the database reports it: reads, changes rows, or changes the schema. */
export const StatementClass = z.enum(['query', 'dml', 'ddl']);
export type StatementClass = z.infer<typeof StatementClass>;

/** How a grant makes its actions undoable: captured before-images (each action commits), or a transaction held open until keep or undo. */
export const DatabaseMode = z.enum(['capture', 'held']);
export type DatabaseMode = z.infer<typeof DatabaseMode>;

export const DatabaseGrant = z.object({
  /** How the agent names it: a ```sql NAME block, $POSTHOC_GATEWAY/db/NAME/query. */
  name: z.string(),
  engine: DatabaseEngine,
  /** SQLite: the file's absolute path. PostgreSQL: the connection URL without its password. */
  location: z.string(),
  /** Enforced by the database: a read-only connection or transaction. */
  readOnly: z.boolean(),
  /** The statement classes the grant allows. */
  statements: z.array(StatementClass),
  /** Whether the prompt may show a few rows of each table (never otherwise). */
  sampleRows: z.boolean(),
  /** Rows one action may change; above it the action is rolled back and waits for approval. */
  maxRowsAffected: z.number().int().positive(),
  mode: DatabaseMode,
  /** Held mode: seconds before a transaction nobody kept is rolled back. */
  heldTimeoutSeconds: z.number().int().positive(),
  /** The vault entry holding the connection's password, if it has one; never the password itself. */
  passwordSecret: z.string().nullable(),
});
export type DatabaseGrant = z.infer<typeof DatabaseGrant>;

/**
 * Tokens the provider counted (its own usage report) over `calls` model calls, and their price in US dollars
 * when the model's price is known (Settings, prices), else null.
 */
export const Usage = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative().nullable(),
  /** Some of these tokens are Posthoc's estimate (main/agent/token-estimate.ts): the provider reported no usage for a call. */
  estimated: z.boolean().optional(),
});
export type Usage = z.infer<typeof Usage>;

/** One item of the agent's plan: a short step, done or not. */
export const PlanItem = z.object({ text: z.string(), done: z.boolean() });
export type PlanItem = z.infer<typeof PlanItem>;

export const Task = z.object({
  id: z.string(),
  title: z.string(),
  status: TaskStatus,
  workspaces: z.array(WorkspaceGrant),
  /** Names of the services the sandbox may call through the gateway. */
  services: z.array(z.string()),
  /** Databases granted to the task (absent on tasks from before database grants). */
  databases: z.array(DatabaseGrant).optional(),
  model: z.string(),
  /** The saved model provider the task runs on (its id), or null for the default one (Settings' base URL and key). */
  provider: z.string().nullable().optional(),
  answer: z.string().nullable(),
  error: z.string().nullable(),
  /** Every model call of the task, totalled (absent on tasks from before usage was recorded). */
  usage: Usage.optional(),
  /** The agent's checklist, as its last <plan> said (shared/codeact/reply.ts); absent until it keeps one. */
  plan: z.array(PlanItem).optional(),
  /** Names of the MCP servers whose tools the agent may call (absent on tasks from before MCP). */
  mcp: z.array(z.string()).optional(),
  /** The person's first message, its first 2,000 characters (the sidebar's search reads it); absent until it is recorded. */
  prompt: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Task = z.infer<typeof Task>;
