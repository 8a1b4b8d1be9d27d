// Domain schemas shared by every layer. zod schemas are the source of truth; types are inferred.
// This folder is a leaf: it imports nothing from main, preload, renderer, electron, node or the DOM.
import { z } from 'zod';
import { SettingsValues } from '../settings';
import { ServiceAuth, ServiceRules } from './connections';
import { CHANNEL_IDS, CHANNELS, effectSchemas, stepSchemas } from '../channels/registry';

// Each channel's records live in its folder (shared/channels/NAME/effect.ts); the domain re-exports them.
export { DbEffect, DbStatement, QueryResult } from '../channels/databases/effect';
export { FsEffect } from '../channels/files/effect';
export { MemoryEffect } from '../channels/memory/effect';
export { PackagesEffect } from '../channels/packages/effect';
export { RestEffect } from '../channels/services/effect';
export { McpEffect } from '../channels/tools/effect';
import { Task, Usage } from './task';

/** A channel's one id, in effects, reverse steps, undo steps and blockers alike ('fs', 'db', 'rest', 'mcp', 'memory', 'packages'). */
export const ChannelId = z.enum(CHANNEL_IDS);
export type ChannelId = z.infer<typeof ChannelId>;

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





/** Discriminated on `channel`: one member per channel of the registry (shared/channels/registry.ts). */
export const Effect = z.discriminatedUnion('channel', effectSchemas(CHANNELS));
export type Effect = z.infer<typeof Effect>;

/** One step of an action's reverse plan: one member per channel that undo has something to do for. */
export const ReverseStep = z.discriminatedUnion('channel', stepSchemas(CHANNELS));
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
  /** What nothing can take back: calls with no known inverse, as the card and the CLI name them. */
  irreversible: z.array(z.object({ channel: ChannelId, name: z.string() })),
  /**
   * Calls already taken back for good by an undo the provider then refused part of (a partial undo): they are
   * not sent again, and while the action stays applied the card says it is partly undone.
   */
  takenBack: z.array(z.object({ channel: ChannelId, name: z.string(), summary: z.string() })),
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
  channel: ChannelId.optional(),
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
  channel: ChannelId,
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

export { ModelPrice } from './budget';

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
  /** Every declared setting (shared/settings), its value and where it came from: the agent's limits among them. */
  values: SettingsValues,
  /** Saved providers besides the default one, each chosen per task. */
  providers: z.array(LlmProvider).optional(),
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
