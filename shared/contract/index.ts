// The one contract between the renderer and the main process, for every transport (Electron IPC and
// the web host's WebSocket). Every call and every pushed event is declared here, named `domain:verb`.
import { z } from 'zod';
import {
  Action,
  Message,
  ProviderSettings,
  SandboxStatus,
  ServiceDefinition,
  Task,
  TaskDetail,
  UndoResult,
  VaultStatus,
} from '../domain';

const TaskRef = z.object({ taskId: z.string().min(1) });
const ActionRef = z.object({ actionId: z.string().min(1) });

export const calls = {
  'task:list': { input: z.object({}), output: z.array(Task) },
  'task:get': { input: TaskRef, output: TaskDetail },
  'task:start': {
    input: z.object({
      prompt: z.string().trim().min(1, 'Say what the agent should do.'),
      workspaces: z.array(z.string().min(1)).max(16),
      /** Services the sandbox may call through the gateway. */
      services: z.array(z.string().min(1)).max(32).optional(),
    }),
    output: Task,
  },
  'task:send': {
    input: TaskRef.extend({ prompt: z.string().trim().min(1, 'Say what the agent should do.') }),
    output: Task,
  },
  'task:cancel': { input: TaskRef, output: Task },
  'action:undo': { input: ActionRef, output: UndoResult },
  'action:keep': { input: ActionRef, output: Action },
  'settings:get': { input: z.object({}), output: ProviderSettings },
  'settings:update': {
    input: z.object({
      model: z.string().trim().min(1).nullable().optional(),
      baseUrl: z.url().nullable().optional(),
      /** Written to the vault; never echoed back. Empty string removes it. */
      apiKey: z.string().optional(),
      maxSteps: z.number().int().min(1).max(200).optional(),
      actionTimeoutSeconds: z.number().int().min(1).max(3600).optional(),
    }),
    output: ProviderSettings,
  },
  'vault:status': { input: z.object({}), output: VaultStatus },
  'service:list': { input: z.object({}), output: z.array(ServiceDefinition) },
  'service:add': { input: z.object({ name: z.string().min(1), baseUrl: z.string().min(1) }), output: ServiceDefinition },
  'service:remove': { input: z.object({ name: z.string().min(1) }), output: z.object({ removed: z.boolean() }) },
  'sandbox:status': { input: z.object({}), output: SandboxStatus },
} as const;

export const events = {
  'task:updated': Task,
  'message:added': Message,
  'message:delta': z.object({ taskId: z.string(), streamId: z.string(), delta: z.string() }),
  'action:updated': Action,
} as const;

export type Calls = typeof calls;
export type CallName = keyof Calls;
export type CallInput<K extends CallName> = z.input<Calls[K]['input']>;
export type CallOutput<K extends CallName> = z.infer<Calls[K]['output']>;
export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<K extends EventName> = z.infer<Events[K]>;

export const callNames = Object.keys(calls) as CallName[];
export const eventNames = Object.keys(events) as EventName[];

/** What every call answers on the wire: only an error's message survives a transport. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ContractError };
export const ContractError = z.object({
  code: z.enum(['invalid-input', 'not-found', 'conflict', 'unavailable', 'forbidden', 'internal']),
  message: z.string(),
});
export type ContractError = z.infer<typeof ContractError>;

/** The API the renderer sees as window.posthoc, identical on both transports. */
export type PosthocApi = {
  [K in CallName as MethodName<K>]: (input: CallInput<K>) => Promise<Result<CallOutput<K>>>;
} & {
  on<K extends EventName>(event: K, listener: (payload: EventPayload<K>) => void): () => void;
};

/** `task:start` → `taskStart`: the method name preload and the web bridge expose. */
export type MethodName<K extends string> = K extends `${infer D}:${infer V}` ? `${D}${Capitalize<V>}` : never;
export function methodName<K extends CallName>(name: K): MethodName<K> {
  const [domain, verb] = name.split(':') as [string, string];
  return `${domain}${verb.charAt(0).toUpperCase()}${verb.slice(1)}` as MethodName<K>;
}

/** IPC channel names: calls and events live in separate namespaces so they can never collide. */
export const callChannel = (name: CallName): string => `posthoc:call:${name}`;
export const eventChannel = (name: EventName): string => `posthoc:event:${name}`;
