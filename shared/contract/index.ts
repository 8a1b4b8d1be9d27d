// The one contract between the renderer and the main process, for every transport (Electron IPC and
// the web host's WebSocket). Every call and every pushed event is declared here, named `domain:verb`.
import { z } from 'zod';
import {
  Action,
  ActionFigure,
  DatabaseMode,
  LlmProvider,
  Message,
  ProviderCheck,
  ProviderSettings,
  SandboxStatus,
  ServiceDefinition,
  StatementClass,
  Task,
  TaskDetail,
  UndoResult,
  VaultStatus,
} from '../domain';
import { FileDiff, RedoResult, RewindResult, Timeline, UndoStorage } from '../domain/undo';
import { ConnectionView, ConnectStarted, RestHold, SecretEntry, ServiceAuth, ServiceRules } from '../domain/connections';
import { McpServerView, McpSignIn, McpToolRule, McpTransport } from '../domain/mcp';
import { EngineCheck, EngineImageSent, EngineView } from '../domain/engines';
import { SETTINGS, SETTINGS_INPUT } from '../settings';
import { recordCalls } from './record-calls';

const TaskRef = z.object({ taskId: z.string().min(1) });

/** Where a sandbox image build is: its phase, packages done of total where known, and its latest output line. */
export const SandboxBuildProgress = z.object({
  phase: z.enum(['starting', 'resolving', 'downloading', 'unpacking', 'configuring', 'installing', 'finishing', 'importing', 'done', 'failed']),
  done: z.number().int().min(0).optional(),
  total: z.number().int().min(0).optional(),
  elapsedMs: z.number().min(0),
  line: z.string().optional(),
});
export type SandboxBuildProgress = z.infer<typeof SandboxBuildProgress>;
/** A secret by name, and the origins (scheme://host[:port]) it may be sent to; never its value. */
const BoundSecret = SecretEntry.extend({ origins: z.array(z.string()).optional() });
const ActionRef = z.object({ actionId: z.string().min(1) });

/**
 * A file the action added or changed in a granted folder, read from the checkpoint after it: an image
 * (png, jpg, gif, webp, svg; shown only as <img src="data:…">, so an SVG's script never runs) or the first
 * rows of a CSV or XLSX; 'none' says why there is no preview (too large, not a kind previewed, gone).
 */
export const FilePreview = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('image'), mime: z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml']), bytes: z.number().int(), base64: z.string() }),
  z.object({ kind: z.literal('table'), rows: z.array(z.array(z.string())), truncated: z.boolean(), sheet: z.string().optional() }),
  z.object({ kind: z.literal('none'), reason: z.string() }),
]);
export type FilePreview = z.infer<typeof FilePreview>;

/** A database to grant a task. A password (in the URL or apart) goes to the vault and is stored nowhere else. */
export const DatabaseGrantInput = z.object({
  name: z.string().trim().min(1, 'Name the database (the agent writes it after ```sql).'),
  /** sqlite:PATH, or postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE */
  url: z.string().trim().min(1, 'Give the database: sqlite:PATH or postgres://…'),
  password: z.string().optional(),
  readOnly: z.boolean().optional(),
  statements: z.array(StatementClass).min(1).optional(),
  sampleRows: z.boolean().optional(),
  maxRowsAffected: z.number().int().min(1).max(1_000_000_000).optional(),
  mode: DatabaseMode.optional(),
  heldTimeoutSeconds: z.number().int().min(10).max(86_400).optional(),
});
export type DatabaseGrantInput = z.infer<typeof DatabaseGrantInput>;

/** The agent's memory as the person sees it: its text and where the file is. */
export const MemoryView = z.object({ text: z.string(), path: z.string() });
export type MemoryView = z.infer<typeof MemoryView>;

/** Rules as a call changes them: only those given change (no defaults filled in, so an absent one stays). */
const McpRulesChange = z.object({ deny: z.array(z.string()).optional(), hold: z.array(z.string()).optional(), noInverse: McpToolRule.optional() });

export const calls = {
  'task:list': recordCalls['task:list'],
  'task:get': { input: TaskRef, output: TaskDetail },
  'task:start': {
    input: z.object({
      prompt: z.string().trim().min(1, 'Say what the agent should do.'),
      workspaces: z.array(z.string().min(1)).max(16),
      /** Services the sandbox may call through the gateway. */
      services: z.array(z.string().min(1)).max(32).optional(),
      /** Databases the agent may query and change (```sql blocks, $POSTHOC_GATEWAY/db/NAME/query). */
      databases: z.array(DatabaseGrantInput).max(8).optional(),
      /** This run only, instead of Settings: the model, the most replies, and an action's time limit (the settings' own bounds). */
      model: z.string().trim().min(1).optional(),
      maxSteps: SETTINGS.maxSteps.schema.optional(),
      actionTimeoutSeconds: SETTINGS.actionTimeoutSeconds.schema.optional(),
      /** The model's context window in tokens (instead of Settings or the provider's model list): no request exceeds it. */
      contextWindow: z.number().int().min(2048).max(10_000_000).optional(),
      /** false: this task runs without the agent's memory (nothing read from it or written to it). */
      memory: z.boolean().optional(),
      /** The task's budget (instead of Settings): tokens ("50000", "50k") or dollars ("$0.50"); reached, the task stops saying so. */
      budget: z.string().trim().min(1).max(40).optional(),
      /** A saved provider's id (settings providers) instead of the default one; the task keeps it. */
      provider: z.string().trim().min(1).optional(),
      /** MCP servers (their names, `posthoc mcp list`) whose tools the agent may call from its code. */
      mcp: z.array(z.string().min(1)).max(16).optional(),
    }),
    output: Task,
  },
  'task:send': {
    input: TaskRef.extend({
      prompt: z.string().trim().min(1, 'Say what the agent should do.'),
      /** The task's budget from now on (a larger one continues a task its budget stopped). */
      budget: z.string().trim().min(1).max(40).optional(),
    }),
    output: Task,
  },
  'task:cancel': { input: TaskRef, output: Task },
  /** Continue a task a restart of Posthoc interrupted (status "interrupted"), with the record of what ran. */
  'task:continue': { input: TaskRef, output: Task },
  /** Every action, or one task's, oldest first. */
  'action:list': { input: z.object({ taskId: z.string().min(1).optional() }), output: z.array(Action) },
  'action:get': { input: ActionRef, output: Action },
  'action:undo': {
    input: ActionRef.extend({
      /**
       * Edits made outside Posthoc to files the action changed are kept as copies next to them ("NAME (your
       * edit).ext"), then those files go back too. Edits that are not a file's content (a deleted file, a
       * folder) and later actions still refuse.
       */
      keepCopies: z.boolean().optional(),
    }),
    output: UndoResult,
  },
  'action:keep': { input: ActionRef, output: Action },
  /** Figure N (from 1) of an action, as PNG bytes in base64 (shown as a data: URL). */
  'action:figure': { input: ActionRef.extend({ n: z.number().int().min(1) }), output: z.object({ figure: ActionFigure, base64: z.string() }) },
  /** A preview of a file the action added or changed (FilePreview). */
  'action:preview': { input: ActionRef.extend({ path: z.string().min(1), workspace: z.string().min(1).optional() }), output: FilePreview },
  'settings:get': { input: z.object({}), output: ProviderSettings },
  /** Docker engines a task may run on (issue 30): "local" first, then the remote ones added by name. */
  'engine:list': { input: z.object({}), output: z.array(EngineView) },
  /** Adds a remote engine: tcp://HOST:PORT with TLS (PEM text; the key goes to the keychain), ssh://USER@HOST, or a Docker context. */
  'engine:add': {
    input: z.object({
      name: z.string().min(1),
      url: z.string().min(1).optional(),
      context: z.string().min(1).optional(),
      tls: z.object({ ca: z.string().optional(), cert: z.string().optional(), key: z.string().optional() }).optional(),
    }),
    output: z.array(EngineView),
  },
  'engine:remove': { input: z.object({ name: z.string().min(1) }), output: z.array(EngineView) },
  /** Whether the engine answers: its Docker, OS and architecture, the round trip, the sandbox image there. */
  'engine:check': { input: z.object({ name: z.string().min(1) }), output: EngineCheck },
  /** Sends the sandbox image from this machine's Docker (docker save streamed into the engine's load), unless the same image is there. */
  'engine:send': { input: z.object({ name: z.string().min(1) }), output: EngineImageSent },
  /** The agent's memory (DATA/memory.md): read, replaced by the person's edit, or cleared. */
  'memory:get': { input: z.object({}), output: MemoryView },
  'memory:update': { input: z.object({ text: z.string().max(32 * 1024, 'The memory holds at most 32 KiB.') }), output: MemoryView },
  'memory:clear': { input: z.object({}), output: MemoryView },
  /** Adds a model provider (any OpenAI-compatible URL; null: the OpenAI API), or changes one by id; the key goes to the vault ("" removes it). */
  'provider:save': {
    input: z.object({
      id: z.string().min(1).optional(),
      name: z.string().trim().min(1).max(60),
      baseUrl: z.url().nullable(),
      model: z.string().trim().min(1).nullable().optional(),
      apiKey: z.string().optional(),
      /** Its entry in the provider gallery (anthropic, gemini, ollama, …): how Posthoc talks to it and where its key comes from. */
      catalog: z.string().trim().min(1).max(40).nullable().optional(),
    }),
    output: z.array(LlmProvider),
  },
  'provider:remove': { input: z.object({ id: z.string().min(1) }), output: z.array(LlmProvider) },
  /** Test connection: lists the provider's models and asks the model for one token; answers in plain words (never an error for the provider's fault). */
  'provider:test': {
    /** reach: only whether the server answers (its model list), no model call and no tokens spent (the new-task screen). */
    input: z.object({ provider: z.string().min(1).optional(), model: z.string().trim().min(1).optional(), reach: z.boolean().optional() }),
    output: ProviderCheck,
  },
  'settings:update': {
    input: z.object({
      /** Written to the vault; never echoed back. Empty string removes it. */
      apiKey: z.string().optional(),
      /**
       * Every declared setting (shared/settings: model, baseUrl, the agent's limits, the gateway's caps, packages,
       * protocol, budget; prices and context windows per model, entry by entry, null removing the person's entry), by name.
       */
      ...SETTINGS_INPUT,
    }),
    output: ProviderSettings,
  },
  'vault:status': { input: z.object({}), output: VaultStatus },
  'service:list': { input: z.object({}), output: z.array(ServiceDefinition) },
  'service:add': {
    input: z.object({
      name: z.string().min(1),
      baseUrl: z.string().min(1),
      /** How the gateway adds credentials: secret names or an OAuth provider, never a value. */
      auth: ServiceAuth.optional(),
      rules: ServiceRules.partial().optional(),
      /** Whose provider data says how its calls are taken back (slack, github, gmail, …). */
      api: z.string().min(1).nullable().optional(),
      /**
       * The person confirmed sending the service's credential to its base URL's origin, which the
       * credential is not bound to yet. Without it such a definition is refused ('forbidden').
       */
      allowSecretOrigin: z.boolean().optional(),
    }),
    output: ServiceDefinition,
  },
  'service:remove': { input: z.object({ name: z.string().min(1) }), output: z.object({ removed: z.boolean() }) },
  'sandbox:status': { input: z.object({}), output: SandboxStatus },
  /** Starts building the sandbox image (refused while a build runs); its progress comes as sandbox:progress. */
  'sandbox:build': { input: z.object({}), output: z.object({ image: z.string() }) },
  'action:redo': { input: ActionRef, output: RedoResult },
  'action:rewind': {
    input: ActionRef.extend({
      /**
       * Edits made outside Posthoc to files the action changed are kept as copies next to them ("NAME (your
       * edit).ext"), then those files go back too. Edits that are not a file's content (a deleted file, a
       * folder) and later actions still refuse.
       */
      keepCopies: z.boolean().optional(),
    }),
    output: RewindResult,
  },
  'action:diff': {
    /** since: the path as last checkpointed against what the action left there (the edits made since it). */
    input: ActionRef.extend({ path: z.string().min(1), workspace: z.string().min(1).optional(), since: z.boolean().optional() }),
    output: FileDiff,
  },
  'task:timeline': { input: TaskRef, output: Timeline },
  'budget:get': { input: z.object({}), output: UndoStorage },
  'budget:set': {
    input: z.object({
      /** A granted folder's host path; null sets the default of every folder. */
      folder: z.string().min(1).nullable(),
      /** Bytes of large files its checkpoints may hold; null removes the folder's own budget. */
      bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable(),
    }),
    output: UndoStorage,
  },
  /** An action held over its grant's rows-affected limit: run it anyway, or decline it. */
  'action:approve': { input: ActionRef, output: Action },
  'action:reject': { input: ActionRef, output: Action },
  'connection:list': { input: z.object({}), output: z.array(ConnectionView) },
  'connection:configure': {
    input: z.object({
      provider: z.string().min(1),
      clientId: z.string().trim().min(1).optional(),
      /** Written to the vault; never echoed back. Empty string removes it. */
      clientSecret: z.string().optional(),
      scopes: z.array(z.string().min(1)).optional(),
      /** Your own provider: its issuer (OpenID discovery), or its endpoints. */
      displayName: z.string().trim().min(1).optional(),
      issuer: z.string().min(1).optional(),
      authorizationUrl: z.string().min(1).optional(),
      tokenUrl: z.string().min(1).optional(),
      revocationUrl: z.string().min(1).optional(),
      userinfoUrl: z.string().min(1).optional(),
      clientSecretRequired: z.boolean().optional(),
    }),
    output: ConnectionView,
  },
  /**
   * Starts the browser sign-in; its end arrives as connection:updated. A port for the loopback answer (when
   * the provider needs an exact redirect URI) and how long to wait for the browser, else the defaults.
   */
  'connection:connect': {
    input: z.object({
      provider: z.string().min(1),
      port: z.number().int().min(1024).max(65535).optional(),
      timeoutSeconds: z.number().int().min(0).max(3600).optional(),
      /** device: a code entered on the provider's page (RFC 8628); browser: the loopback redirect. Default: device where offered. */
      flow: z.enum(['browser', 'device']).optional(),
    }),
    output: ConnectStarted,
  },
  'connection:disconnect': { input: z.object({ provider: z.string().min(1) }), output: ConnectionView },
  /**
   * The path beside OAuth: a personal access token (or bot token) of a provider that issues them, written to the
   * vault bound to the provider's API origins (never echoed back), and the provider's services defined to send it.
   */
  'connection:token': { input: z.object({ provider: z.string().min(1), token: z.string().trim().min(1) }), output: ConnectionView },
  'secret:list': { input: z.object({}), output: z.array(BoundSecret) },
  /**
   * The value goes to the OS keychain and never comes back across the contract. With origins, the
   * secret may be sent only there (they replace those it had); without, it is bound to the first service.
   */
  'secret:set': {
    input: z.object({
      name: z.string().min(1),
      value: z.string().min(1, 'A secret cannot be empty.'),
      origins: z.array(z.string().min(1)).max(32).optional(),
    }),
    output: BoundSecret,
  },
  'secret:remove': { input: z.object({ name: z.string().min(1) }), output: z.object({ removed: z.boolean() }) },
  /** A service call the gateway keeps back: cancel it (it never leaves), or approve it (it leaves now). */
  'hold:cancel': { input: z.object({ holdId: z.string().min(1) }), output: RestHold },
  'hold:approve': { input: z.object({ holdId: z.string().min(1) }), output: RestHold },
  /** MCP servers as defined, with their tools as last listed; refresh lists them again (starting each server). */
  'mcp:list': { input: z.object({ refresh: z.boolean().optional() }), output: z.array(McpServerView) },
  /** Defines a server (a stdio command run confined, or a remote URL); replace: instead of one of that name. */
  'mcp:add': {
    input: z.object({
      name: z.string().min(1),
      transport: McpTransport,
      rules: McpRulesChange.optional(),
      /** Whose inverse data describes its tools; absent: recognised from the command where known. */
      api: z.string().min(1).nullable().optional(),
      replace: z.boolean().optional(),
    }),
    output: McpServerView,
  },
  /**
   * Removes a server's definition and what it kept between tasks (freedBytes: its state folder's size). Refused
   * while a task using it runs or Posthoc runs it (listing its tools, undoing a call).
   */
  'mcp:remove': { input: z.object({ name: z.string().min(1) }), output: z.object({ removed: z.boolean(), freedBytes: z.number().int().nonnegative() }) },
  /**
   * Clears what a stdio server keeps between tasks (its data and npm's cache of its package: the next task starts it
   * empty); refused, in words, while a task using it runs or Posthoc runs it.
   */
  'mcp:clear': { input: z.object({ name: z.string().min(1) }), output: z.object({ server: McpServerView, freedBytes: z.number().int().nonnegative() }) },
  /**
   * Signs in to a server added with OAuth: lists its tools when its token works, else starts a sign-in and
   * answers its link. wait: first waits for the sign-in already started (up to 5 minutes), in this process.
   */
  'mcp:signin': { input: z.object({ name: z.string().min(1), wait: z.boolean().optional() }), output: McpSignIn },
  /** Changes a server's rules (those given replace its own; the others stay). */
  'mcp:rules': { input: z.object({ name: z.string().min(1), rules: McpRulesChange }), output: McpServerView },
  /** Reads a desktop agent's config (Claude Desktop, Cursor, VS Code): each server added or skipped with the reason. */
  /** The desktop app's native folder picker; null when the person closed it. The web host and the CLI answer 'unavailable'. */
  'folder:pick': { input: z.object({}), output: z.object({ path: z.string() }).nullable() },
  /**
   * Folder names under a typed path's folder (the web host's completion): directories only, at most 50, hidden
   * ones only when the typed name starts with a dot, never Posthoc's own data folder.
   */
  'folder:complete': {
    input: z.object({ prefix: z.string().min(1).max(4096) }),
    output: z.object({ folder: z.string(), entries: z.array(z.string()).max(50), truncated: z.boolean() }),
  },
  'mcp:import': {
    input: z.object({
      json: z.string().max(1024 * 1024, 'The config file is over 1 MiB; give the file that lists your MCP servers (claude_desktop_config.json, mcp.json).'),
      only: z.array(z.string().min(1)).max(64).optional(),
    }),
    output: z.object({ added: z.array(McpServerView), skipped: z.array(z.object({ name: z.string(), reason: z.string() })) }),
  },
} as const;

export const events = {
  'task:updated': Task,
  'message:added': Message,
  /** `retrying`: the provider failed and the call is tried again: what was streamed so far is dropped, and the line says so. */
  'message:delta': z.object({ taskId: z.string(), streamId: z.string(), delta: z.string(), retrying: z.string().optional() }),
  'action:updated': Action,
  'connection:updated': ConnectionView,
  /** The task's undo timeline changed without an action changing (a refused undo found outside edits). */
  'timeline:updated': z.object({ taskId: z.string() }),
  /** A sandbox image build moved on; the last event has phase 'done' or 'failed' (with the reason as its line). */
  'sandbox:progress': SandboxBuildProgress,
  /** An MCP server's definition or its listed tools changed. */
  'mcp:updated': McpServerView,
  /**
   * Another process (the CLI) changed the data folder: a task, an MCP server, a service, a grant. Front ends
   * read again what they show. The web bridge also raises it itself when its socket reconnects.
   */
  'store:changed': z.object({}),
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
