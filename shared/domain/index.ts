// Domain schemas shared by every layer. zod schemas are the source of truth; types are inferred.
// This folder is a leaf: it imports nothing from main, preload, renderer, electron, node or the DOM.
import { z } from 'zod';
import { RestHold, RestInverse, ServiceAuth, ServiceRules } from './connections';
import { McpEffect } from './mcp';
import { DatabaseEngine, DatabaseMode, StatementClass, Task, Usage } from './task';

export const confinementLevels = ['reversible', 'compensable', 'confined', 'unconfined'] as const;
export const ConfinementLevel = z.enum(confinementLevels);
export type ConfinementLevel = z.infer<typeof ConfinementLevel>;

export const Confinement = z.object({
  level: ConfinementLevel,
  /** One line a person can read: why this level. */
  reason: z.string(),
});
export type Confinement = z.infer<typeof Confinement>;

export * from './task';

export const MessageRole = z.enum(['user', 'assistant', 'observation']);
export type MessageRole = z.infer<typeof MessageRole>;

export const Message = z.object({
  id: z.string(),
  taskId: z.string(),
  seq: z.number().int(),
  role: MessageRole,
  content: z.string(),
  createdAt: z.string(),
});
export type Message = z.infer<typeof Message>;

export const ActionLanguage = z.enum(['python', 'bash', 'sh', 'sql']);
export type ActionLanguage = z.infer<typeof ActionLanguage>;

/**
 * interrupted: the action was ended before it finished on its own — Stop or Cancel, Ctrl-C, a crash or kill of
 * Posthoc (closed at the next start), or a checkpoint that failed after it. Its changes so far are its effects,
 * undoable like those of a finished action; `output.interrupted` says why.
 */
export const ActionStatus = z.enum(['running', 'done', 'failed', 'awaiting-approval', 'undone', 'kept', 'interrupted']);
export type ActionStatus = z.infer<typeof ActionStatus>;

/** Statuses whose changes are in effect: undo, rewind and keep apply to them alike. */
export function isApplied(status: ActionStatus): boolean {
  return status === 'done' || status === 'failed' || status === 'interrupted';
}

export const ActionOutput = z.object({
  stdout: z.string(),
  stderr: z.string(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  truncated: z.boolean(),
  /**
   * Why the action was interrupted, in words a person can act on. `recorded` is false while its changes are
   * not on the record yet (the checkpoint after it failed): the next start of Posthoc records them.
   */
  interrupted: z.object({ reason: z.string(), recorded: z.boolean() }).optional(),
});
export type ActionOutput = z.infer<typeof ActionOutput>;

export const FsEffect = z.object({
  channel: z.literal('fs'),
  workspace: z.string(),
  added: z.array(z.string()),
  modified: z.array(z.string()),
  deleted: z.array(z.string()),
  checkpointBefore: z.string(),
  checkpointAfter: z.string(),
  /** Files (or whole folders, "a/" → "b/") moved with their content unchanged; not repeated in added/deleted. */
  renamed: z.array(z.object({ from: z.string(), to: z.string() })).optional(),
  /** Paths the checkpoints before or after this action could not hold ("not covered by undo"). */
  notCovered: z
    .array(
      z.object({
        path: z.string(),
        /**
         * budget: over the folder's storage budget; special: a socket, pipe or device; name: not valid UTF-8;
         * unreadable; disk-full: the disk of Posthoc's data folder was full when the checkpoint tried to keep it.
         */
        reason: z.enum(['budget', 'special', 'name', 'unreadable', 'disk-full']),
        size: z.number().nullable(),
        when: z.enum(['before', 'after', 'both']),
        /** The action changed or removed it, so undo cannot bring back what it held. */
        changed: z.boolean(),
      }),
    )
    .optional(),
  /**
   * Changes made in the folder while the action ran that were not its own (the person's, another
   * program's): recorded as edits made outside Posthoc, which no undo reverts. `ambiguous`: paths the
   * action wrote and someone else changed again after it, listed in both; undo refuses for them.
   */
  whileRunning: z
    .object({
      added: z.array(z.string()),
      modified: z.array(z.string()),
      deleted: z.array(z.string()),
      renamed: z.array(z.object({ from: z.string(), to: z.string() })),
      ambiguous: z.array(z.string()),
    })
    .optional(),
  /** Set when changes made by others while the action ran could not be told apart from its own (all were taken for its own): why. */
  unattributed: z.string().optional(),
  /**
   * Paths the action (root in its container, which may chown) left owned by someone else than the folder's
   * owner, given back to that owner after it (at most 50 named; `ownersRestoredCount` is the whole count).
   */
  ownersRestored: z.array(z.string()).optional(),
  ownersRestoredCount: z.number().int().nonnegative().optional(),
});
export type FsEffect = z.infer<typeof FsEffect>;

/** One HTTP call an action made through the gateway to a granted service. */
export const RestEffect = z.object({
  channel: z.literal('rest'),
  service: z.string(),
  method: z.string(),
  /** Path below the service's base URL, with the query string. */
  path: z.string(),
  status: z.number().int(),
  durationMs: z.number(),
  requestBytes: z.number().int(),
  responseBytes: z.number().int(),
  /** GET, HEAD and OPTIONS read; anything else may change the remote side. */
  mutating: z.boolean(),
  /** Set when the gateway refused the call (not granted, not allowed); nothing left the machine. */
  refused: z.string().nullable(),
  /** How the gateway added credentials: 'oauth:PROVIDER', 'bearer SECRET-NAME'; names only, null for none. */
  auth: z.string().nullable().optional(),
  /** Whose provider data described the call (its inverse rules), if any. */
  api: z.string().nullable().optional(),
  /** The request's body and the response's, cut short, with every secret redacted. */
  request: z.string().nullable().optional(),
  response: z.string().nullable().optional(),
  /** The exact call undo sends to take this one back; null when none is known (irreversible). */
  inverse: RestInverse.nullable().optional(),
  /** Set when the gateway kept the call back: a send's window or a wait for approval. */
  hold: RestHold.nullable().optional(),
  /** Set once undo sent the inverse: its HTTP status, and the error when the provider refused it. */
  undone: z.object({ status: z.number().int(), at: z.string(), error: z.string().nullable() }).nullable().optional(),
});
export type RestEffect = z.infer<typeof RestEffect>;

/** Rows a query answered: the first ones, each value as text (null for NULL), and how many there were. */
export const QueryResult = z.object({
  columns: z.array(z.string()),
  rows: z.array(z.array(z.string().nullable())),
  rowCount: z.number().int(),
  /** True when `rows` holds fewer than rowCount rows, or cut values. */
  truncated: z.boolean(),
});
export type QueryResult = z.infer<typeof QueryResult>;

export const DbStatement = z.object({
  sql: z.string(),
  kind: StatementClass,
  /** Rows the statement itself changed, as the database counts them; null for DDL and queries. */
  rowsAffected: z.number().int().nullable(),
  result: QueryResult.nullable(),
});
export type DbStatement = z.infer<typeof DbStatement>;

/** SQL an action ran on one granted database, and how undo takes it back. */
export const DbEffect = z.object({
  channel: z.literal('db'),
  database: z.string(),
  engine: DatabaseEngine,
  /** A ```sql block run by Posthoc, or a request from the sandbox through the gateway. */
  via: z.enum(['sql', 'gateway']),
  mode: DatabaseMode,
  statements: z.array(DbStatement),
  /** Rows changed, cascades and the database's own triggers included. */
  rowsAffected: z.number().int(),
  /** Tables whose rows or definitions changed. */
  tables: z.array(z.string()),
  undo: z.object({
    /** none: nothing changed; rows: compensating statements from before-images captured as the SQL ran (and, on PostgreSQL, exact schema steps); snapshot: a copy of the SQLite file; held: the open transaction. */
    kind: z.enum(['none', 'rows', 'snapshot', 'held']),
    /** The full undo log in Posthoc's data folder; null when there is none. */
    logId: z.string().nullable(),
    /** The first compensating statements, exactly as undo runs them. */
    statements: z.array(z.string()),
    statementCount: z.number().int(),
  }),
  /** Held mode: when the open transaction is rolled back unless kept. */
  heldUntil: z.string().nullable(),
  /** Set when the request was refused (not granted, not allowed); nothing ran. */
  refused: z.string().nullable(),
});
export type DbEffect = z.infer<typeof DbEffect>;

/**
 * A package file the sandbox's pip or npm fetched through the gateway's package routes. It lands in the
 * task's own environment (a volume removed with the task), never in a granted folder: no undo needed.
 */
export const PackagesEffect = z.object({
  channel: z.literal('packages'),
  manager: z.enum(['pip', 'npm', 'apt']),
  name: z.string(),
  /** From the file's name (pip) or the tarball's (npm); '' when it cannot be told. */
  version: z.string(),
  /** Where the file came from: the upstream URL, or 'cache' when the host's cache served it. */
  source: z.string(),
  file: z.string().optional(),
  sha256: z.string().optional(),
  bytes: z.number().int().optional(),
  /** Set when the gateway refused it (fetching off, not allowed, hash mismatch); nothing was served. */
  refused: z.string().nullable().optional(),
});
export type PackagesEffect = z.infer<typeof PackagesEffect>;

/**
 * A note the agent wrote to its memory (DATA/memory.md, main/effects/memory/), appended at the file's end.
 * Undo takes it off again only while the file is exactly as the write left it (its sha256): an edit by the
 * person since makes undo refuse, naming the memory.
 */
export const MemoryEffect = z.object({
  channel: z.literal('memory'),
  /** The note as the agent gave it. */
  note: z.string(),
  /** The exact text appended to the file (the note as a Markdown list item). */
  appended: z.string(),
  /** sha256 of the file's text before and after the write. */
  beforeSha256: z.string(),
  afterSha256: z.string(),
  /** Set when the write was refused (memory off for the task, over its bound); nothing was written. */
  refused: z.string().nullable(),
});
export type MemoryEffect = z.infer<typeof MemoryEffect>;

/** Discriminated on `channel`. */
export const Effect = z.discriminatedUnion('channel', [FsEffect, RestEffect, DbEffect, PackagesEffect, MemoryEffect, McpEffect]);
export type Effect = z.infer<typeof Effect>;

/** One step of an action's reverse plan, per channel; a new channel adds one member. */
export const ReverseStep = z.discriminatedUnion('channel', [
  z.object({
    channel: z.literal('fs'),
    workspace: z.string(),
    /** Paths the action created (or moved here): removed. */
    remove: z.array(z.string()),
    /** Paths it changed, deleted or moved away: brought back from the checkpoint before it. */
    restore: z.array(z.string()),
    /** Moves taken back (`to` goes back to `from`), also listed in remove and restore. */
    moveBack: z.array(z.object({ from: z.string(), to: z.string() })),
    /** Paths whose earlier content is not covered by undo: left as they are. */
    leave: z.array(z.string()),
    /** Paths someone else also changed while the action ran: undo refuses while they hold that edit. */
    ambiguous: z.array(z.string()),
  }),
  z.object({
    channel: z.literal('db'),
    database: z.string(),
    kind: z.enum(['rows', 'snapshot', 'held']),
    /** The first compensating statements, exactly as undo runs them. */
    statements: z.array(z.string()),
    statementCount: z.number().int(),
    tables: z.array(z.string()),
  }),
  z.object({
    channel: z.literal('rest'),
    /** The exact inverse call, sent through the gateway with the service's credentials. */
    service: z.string(),
    method: z.string(),
    path: z.string(),
    body: z.string().nullable(),
    summary: z.string(),
  }),
  z.object({
    channel: z.literal('memory'),
    /** The note taken off the memory. */
    note: z.string(),
  }),
  z.object({
    channel: z.literal('mcp'),
    /** The exact inverse tool call, made through the same server. */
    server: z.string(),
    tool: z.string(),
    arguments: z.string(),
    summary: z.string(),
  }),
]);
export type ReverseStep = z.infer<typeof ReverseStep>;

/**
 * What undo of an action does, computed from its effects by shared/undo/reverse-plan.ts each time the
 * action is read (never stored); its words come from describeReversePlan there.
 */
export const ReversePlan = z.object({
  /**
   * ready: the steps are what undo does. recording: the action runs. not-run: it failed before running.
   * awaiting-approval: rolled back, runs only if approved. unrecorded: its file changes are not recorded yet.
   */
  state: z.enum(['ready', 'recording', 'not-run', 'awaiting-approval', 'unrecorded']),
  /** How many granted folders were checkpointed (paths are named with their folder when several were). */
  folders: z.number().int(),
  /** Local steps first (files, databases), then the calls that leave the machine, newest first. */
  steps: z.array(ReverseStep),
  /** What nothing can take back: calls with no known inverse. */
  irreversible: z.array(
    z.discriminatedUnion('channel', [
      z.object({ channel: z.literal('rest'), service: z.string(), method: z.string(), path: z.string() }),
      z.object({ channel: z.literal('mcp'), server: z.string(), tool: z.string() }),
    ]),
  ),
  /**
   * Calls already taken back for good by an undo the provider then refused part of (a partial undo): they are
   * not sent again, and while the action stays applied the card says it is partly undone.
   */
  takenBack: z.array(
    z.discriminatedUnion('channel', [
      z.object({ channel: z.literal('rest'), service: z.string(), method: z.string(), path: z.string(), summary: z.string() }),
      z.object({ channel: z.literal('mcp'), server: z.string(), tool: z.string(), summary: z.string() }),
    ]),
  ),
});
export type ReversePlan = z.infer<typeof ReversePlan>;

/**
 * A figure the action's code drew (plt.show(), or a figure never saved to a file), a PNG checked and kept by
 * the host in the data folder (main/effects/figures/); `n` counts from 1 (`posthoc figure ACTION_ID N`).
 * Keep releases the file: the metadata stays and says so.
 */
export const ActionFigure = z.object({
  n: z.number().int().min(1),
  mime: z.literal('image/png'),
  bytes: z.number().int().nonnegative(),
  sha256: z.string(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  released: z.boolean(),
});
export type ActionFigure = z.infer<typeof ActionFigure>;

export const Action = z.object({
  id: z.string(),
  taskId: z.string(),
  seq: z.number().int(),
  kind: z.enum(['code', 'sql']),
  language: ActionLanguage,
  source: z.string(),
  status: ActionStatus,
  output: ActionOutput,
  effects: z.array(Effect),
  /** Derived from the rest on every read (shared/undo/reverse-plan.ts), never stored. */
  reverse: ReversePlan,
  confinement: Confinement,
  /** The assistant message whose code block this action is; null for actions from before it was recorded. */
  messageId: z.string().nullable(),
  /** Figures the code drew (ActionFigure); every stored action has the list, empty when it drew none. */
  figures: z.array(ActionFigure).optional(),
  /** The usage of the reply whose code this action is (shared by the actions of one reply); null when not reported. */
  usage: Usage.nullable().optional(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  undoneAt: z.string().nullable(),
});
export type Action = z.infer<typeof Action>;

export const UndoBlocker = z.object({
  path: z.string(),
  by: z.enum(['action', 'external', 'content']),
  /** The later action that changed the path (by: 'action'). */
  actionId: z.string().nullable(),
  actionSeq: z.number().int().nullable(),
  /** Set when that action belongs to another task. */
  taskTitle: z.string().nullable(),
  /** by: 'external' — the edit was made while this action ran (its number). */
  whileActionSeq: z.number().int().nullable().optional(),
  /** by: 'external' — the action being undone or redone also wrote the path then, so whose edit it holds is unknown. */
  ambiguous: z.boolean().optional(),
  /** The channel that found it; absent means files. */
  channel: z.enum(['files', 'databases', 'services', 'memory', 'tools']).optional(),
  /** A database's or a service's own words for why it blocks (files are described from `by`). */
  reason: z.string().optional(),
  /**
   * Files, by 'external' or 'content': the path holds a file the person changed, which an undo or rewind with
   * `keepCopies` keeps as a copy next to it ("NAME (your edit).ext") before it puts the action's file back.
   * Known when an operation checked the folder (absent on the timeline, which reads the history only).
   */
  copyable: z.boolean().optional(),
  /** With copyable false: why no copy gets past it, in words ("deleted since: there is nothing to keep a copy of"). */
  noCopy: z.string().optional(),
});
export type UndoBlocker = z.infer<typeof UndoBlocker>;

/** One channel's part of an undo, redo or rewind, as the result, the card and the timeline show it. */
export const UndoStep = z.object({
  channel: z.enum(['files', 'databases', 'services', 'memory', 'tools']),
  /**
   * done: applied; refused: its check (or, for service calls, the provider) refused; compensated: applied,
   * then put back because a later step was refused; not-run: never started because something else refused.
   */
  result: z.enum(['done', 'refused', 'compensated', 'not-run']),
  /** What it did or would have done, one line per item. */
  items: z.array(z.string()),
  /** Why it was refused or put back, in words. */
  detail: z.string().nullable(),
});
export type UndoStep = z.infer<typeof UndoStep>;

/** An edit made outside Posthoc that an undo with `keepCopies` kept as a copy: `path` (as named to the person) went back, `copy` holds the edit. */
export const KeptCopy = z.object({ path: z.string(), copy: z.string() });
export type KeptCopy = z.infer<typeof KeptCopy>;

/**
 * A provider refused one of the inverse calls after others were already sent: those cannot be taken back,
 * so the files and databases were put back and the action stays applied; undo again sends only the rest.
 */
export const PartialUndo = z.object({
  outcome: z.literal('partial'),
  action: Action,
  message: z.string(),
  /** Inverse calls that went through in this operation (taken back for good), in words. */
  calls: z.array(z.string()),
  /** The call the provider refused, and its words. */
  refused: z.object({ what: z.string(), why: z.string() }),
  steps: z.array(UndoStep),
});
export type PartialUndo = z.infer<typeof PartialUndo>;

export const UndoResult = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('undone'),
    action: Action,
    restored: z.array(z.string()),
    removed: z.array(z.string()),
    /** Paths whose earlier content was not covered by undo (over the storage budget): left as they are. */
    notRestored: z.array(z.string()).optional(),
    /** Service calls taken back by their inverse call, in words, in the order they were sent. */
    calls: z.array(z.string()).optional(),
    /** With `keepCopies`: the person's edits kept as copies before their files went back. */
    copies: z.array(KeptCopy).optional(),
    steps: z.array(UndoStep).optional(),
  }),
  z.object({
    outcome: z.literal('conflict'),
    action: Action,
    paths: z.array(z.string()),
    message: z.string(),
    /** Why each path blocks: a later action, an edit made outside Posthoc, or content that changed. */
    blockers: z.array(UndoBlocker).optional(),
    /** Rewinding (undoing the later actions too, newest first) would get past these blockers. */
    canRewind: z.boolean().optional(),
    /** Every blocker is a file the person changed: undo with `keepCopies` keeps each edit as a copy and goes through. */
    canKeepCopies: z.boolean().optional(),
    steps: z.array(UndoStep).optional(),
  }),
  PartialUndo,
]);
export type UndoResult = z.infer<typeof UndoResult>;

/** A saved model provider besides the default: any OpenAI-compatible URL (null: the OpenAI API); its key lives in the vault. */
export const LlmProvider = z.object({
  id: z.string(),
  name: z.string(),
  baseUrl: z.string().nullable(),
  /** The model tasks on it use unless they name one. */
  model: z.string().nullable(),
  apiKeySet: z.boolean(),
  /** Its entry in the provider gallery (shared/providers/catalog.ts: anthropic, ollama, …); absent: any OpenAI-compatible URL. */
  catalog: z.string().nullable().optional(),
});
export type LlmProvider = z.infer<typeof LlmProvider>;

/** What Test connection found, in plain words, with the provider's models when it lists them. */
export const ProviderCheck = z.object({
  ok: z.boolean(),
  message: z.string(),
  models: z.array(z.string()),
});
export type ProviderCheck = z.infer<typeof ProviderCheck>;

export const ModelPrice = z.object({ promptPerMTok: z.number().nonnegative(), completionPerMTok: z.number().nonnegative() });

export const ProviderSettings = z.object({
  model: z.string().nullable(),
  baseUrl: z.string().nullable(),
  apiKeySet: z.boolean(),
  /** Where each value comes from, so the settings page can explain what wins. */
  sources: z.object({
    model: z.enum(['env', 'settings', 'none']),
    baseUrl: z.enum(['env', 'settings', 'none']),
    apiKey: z.enum(['env', 'vault', 'none']),
  }),
  configured: z.boolean(),
  maxSteps: z.number().int(),
  actionTimeoutSeconds: z.number().int(),
  /** The gateway's caps in MiB (the environment's POSTHOC_GATEWAY_* win over saved values). */
  gateway: z.object({ maxResponseMiB: z.number(), taskMiB: z.number() }).optional(),
  /** What the sandbox's pip and npm may fetch through the gateway, and from where (the environment wins). */
  packages: z
    .object({
      fetching: z.enum(['on', 'off', 'allowed']),
      allowed: z.array(z.string()),
      pipIndexUrl: z.string(),
      npmRegistryUrl: z.string(),
      sources: z.object({ pipIndexUrl: z.enum(['env', 'settings', 'default']), npmRegistryUrl: z.enum(['env', 'settings', 'default']) }),
    })
    .optional(),
  /** Saved providers besides the default one, each chosen per task. */
  providers: z.array(LlmProvider).optional(),
  /** How the model acts (fenced code, the run_code tool, or auto), the default per-task budget, and prices per model (USD per 1M tokens). */
  agent: z
    .object({
      protocol: z.enum(['fenced', 'tools', 'auto']),
      budget: z.string().nullable(),
      prices: z.record(z.string(), ModelPrice),
    })
    .optional(),
});
export type ProviderSettings = z.infer<typeof ProviderSettings>;

export const VaultStatus = z.object({
  available: z.boolean(),
  /** When unavailable: what is wrong and how to fix it. */
  message: z.string().nullable(),
  secrets: z.array(z.object({ name: z.string(), kind: z.string() })),
});
export type VaultStatus = z.infer<typeof VaultStatus>;

export const SandboxStatus = z.object({
  dockerAvailable: z.boolean(),
  dockerVersion: z.string().nullable(),
  image: z.string(),
  imagePresent: z.boolean(),
  /** What to do when something is missing. */
  message: z.string().nullable(),
});
export type SandboxStatus = z.infer<typeof SandboxStatus>;

/** A REST service the gateway forwards to, as $POSTHOC_GATEWAY/svc/NAME/… in the sandbox. */
export const ServiceDefinition = z.object({
  name: z.string(),
  baseUrl: z.string(),
  createdAt: z.string(),
  /** How the gateway adds credentials (absent: none). */
  auth: ServiceAuth.optional(),
  /** The person's rules for its calls. */
  rules: ServiceRules.optional(),
  /** Whose provider data says how its calls are taken back (slack, github, …), if any. */
  api: z.string().nullable().optional(),
});
export type ServiceDefinition = z.infer<typeof ServiceDefinition>;

export const TaskDetail = z.object({
  task: Task,
  messages: z.array(Message),
  actions: z.array(Action),
});
export type TaskDetail = z.infer<typeof TaskDetail>;

/** Exhaustiveness guard for switches over discriminated unions. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
