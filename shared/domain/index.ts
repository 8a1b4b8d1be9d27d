// Domain schemas shared by every layer. zod schemas are the source of truth; types are inferred.
// This folder is a leaf: it imports nothing from main, preload, renderer, electron, node or the DOM.
import { z } from 'zod';

export const confinementLevels = ['reversible', 'compensable', 'confined', 'unconfined'] as const;
export const ConfinementLevel = z.enum(confinementLevels);
export type ConfinementLevel = z.infer<typeof ConfinementLevel>;

export const Confinement = z.object({
  level: ConfinementLevel,
  /** One line a person can read: why this level. */
  reason: z.string(),
});
export type Confinement = z.infer<typeof Confinement>;

export const TaskStatus = z.enum(['running', 'done', 'failed', 'cancelled']);
export type TaskStatus = z.infer<typeof TaskStatus>;

export const WorkspaceGrant = z.object({
  /** Name under /workspace when several folders are granted; unused when one is. */
  name: z.string(),
  hostPath: z.string(),
  /** Where the sandbox sees it. */
  mountPath: z.string(),
  readOnly: z.boolean(),
});
export type WorkspaceGrant = z.infer<typeof WorkspaceGrant>;

export const Task = z.object({
  id: z.string(),
  title: z.string(),
  status: TaskStatus,
  workspaces: z.array(WorkspaceGrant),
  /** Names of the services the sandbox may call through the gateway. */
  services: z.array(z.string()),
  model: z.string(),
  answer: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Task = z.infer<typeof Task>;

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

export const ActionLanguage = z.enum(['python', 'bash', 'sh']);
export type ActionLanguage = z.infer<typeof ActionLanguage>;

export const ActionStatus = z.enum(['running', 'done', 'failed', 'awaiting-approval', 'undone', 'kept']);
export type ActionStatus = z.infer<typeof ActionStatus>;

export const ActionOutput = z.object({
  stdout: z.string(),
  stderr: z.string(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  truncated: z.boolean(),
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
});
export type RestEffect = z.infer<typeof RestEffect>;

/** Discriminated on `channel`; the db channel joins this union in its issue. */
export const Effect = z.discriminatedUnion('channel', [FsEffect, RestEffect]);
export type Effect = z.infer<typeof Effect>;

export const ReversePlan = z.object({
  /** What undo will do, in words. */
  summary: z.string(),
  /** Machine form: one step per effect. */
  steps: z.array(
    z.object({
      channel: z.literal('fs'),
      workspace: z.string(),
      restoreCheckpoint: z.string(),
      remove: z.array(z.string()),
      restore: z.array(z.string()),
    }),
  ),
  /** True when the plan was checked against the recorded state (checkpoints exist and are readable). */
  verified: z.boolean(),
});
export type ReversePlan = z.infer<typeof ReversePlan>;

export const Action = z.object({
  id: z.string(),
  taskId: z.string(),
  seq: z.number().int(),
  kind: z.literal('code'),
  language: ActionLanguage,
  source: z.string(),
  status: ActionStatus,
  output: ActionOutput,
  effects: z.array(Effect),
  reverse: ReversePlan,
  confinement: Confinement,
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  undoneAt: z.string().nullable(),
});
export type Action = z.infer<typeof Action>;

export const UndoResult = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('undone'), action: Action, restored: z.array(z.string()), removed: z.array(z.string()) }),
  z.object({ outcome: z.literal('conflict'), action: Action, paths: z.array(z.string()), message: z.string() }),
]);
export type UndoResult = z.infer<typeof UndoResult>;

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
export const ServiceDefinition = z.object({ name: z.string(), baseUrl: z.string(), createdAt: z.string() });
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
