// The composition root: builds every service over one data directory. The Electron app, the web host
// and the CLI all start here, so they share one application API.
import type Docker from 'dockerode';
import { join } from 'node:path';
import type { CallName, CallOutput } from '../../shared/contract';
import type { calls } from '../../shared/contract';
import type { z } from 'zod';
import type { CheckpointOptions } from '../effects/fs/checkpoint-store';
import { DbChannel } from '../effects/db/db-channel';
import { DbGatewayRoute } from '../effects/db/db-gateway-route';
import { MemoryFile } from '../effects/memory/memory-file';
import { MemoryRoute } from '../effects/memory/memory-route';
import { makeDbEngines } from '../effects/db/engines';
import { FsChannel } from '../effects/fs/fs-channel';
import { namesByHandle } from '../effects/fs/beneath';
import { Gateway } from '../gateway/gateway';
import { ServiceRegistry } from '../gateway/service-registry';
import { serviceRoute } from '../gateway/service-route';
import { apiSpec } from '../oauth/providers';
import { createDocker, dockerSocketPath } from '../sandbox/docker-client';
import { SandboxExecutor } from '../sandbox/executor';
import { imageBuilds, SANDBOX_IMAGE, sandboxStatus } from '../sandbox/sandbox-image';
import { openDatabase, type AppDatabase } from '../store/database';
import { TaskStore } from '../store/task-store';
import { UndoOperations } from '../store/undo-operations';
import { UndoStore } from '../store/undo-store';
import { Vault } from '../vault/vault';
import { LlmClient } from '../agent/llm-client';
import { ActionRunner } from './action-runner';
import { approvalDoors } from './approval-relay';
import { npmRoute } from '../gateway/packages/npm-route';
import { APT_ENV, aptRoute, debianArch, DEFAULT_APT_KEYRING, DEFAULT_APT_MIRROR, DEFAULT_APT_SUITE } from '../gateway/packages/apt-route';
import { PackageCache } from '../gateway/packages/package-cache';
import { pipRoute } from '../gateway/packages/pip-route';
import { FilePreviews } from './file-previews';
import { Figures } from '../effects/figures/figures';
import { FigureStore } from '../store/figure-store';
import { McpServerStore } from '../store/mcp-servers';
import { actionsOnly, HubToolSource, isListing, ListingHub, listingTask, mcpPrompt, mcpServerInUse, McpService, OWN_WINDOW } from './mcp-service';
import { McpCredentials } from './mcp-credentials';
import { detectApi } from '../effects/mcp/inverses';
import { HttpMcpConnector } from '../effects/mcp/http-connector';
import { McpRoute } from '../effects/mcp/mcp-route';
import { MCP_SERVER_LABEL, McpContainers } from '../sandbox/mcp-container';
import { McpStateFolders } from '../sandbox/mcp-state';
import { ownerGone } from '../platform/process-owner';
import { ConnectionsService, type ConnectionsOptions } from './connections-service';
import { DatabaseGrants } from './database-grants';
import { EventBus } from './event-bus';
import { InterruptedActions } from './interrupted-actions';
import { ServiceError } from './service-error';
import { completeFolder } from './folder-completion';
import { SettingsService } from './settings-service';
import { SqlActionRunner } from './sql-action-runner';
import { TaskService } from './task-service';
import { watchStore } from './store-watch';
import { undoChannels, filesReverter } from './undo-channels';
import { UndoService } from './undo-service';
import { storageBudget, UndoViews } from './undo-views';

export type Handlers = {
  [K in CallName]: (input: z.infer<(typeof calls)[K]['input']>) => Promise<CallOutput<K>>;
};

export type AppServices = {
  dataDir: string;
  db: AppDatabase;
  store: TaskStore;
  events: EventBus;
  vault: Vault;
  docker: Docker;
  executor: SandboxExecutor;
  gateway: Gateway;
  services: ServiceRegistry;
  settings: SettingsService;
  tasks: TaskService;
  /** The databases channel: SQL actions, the gateway's /db route, database undo. */
  databases: DbChannel;
  /** SQL actions, and the approvals of those held over their grant's rows-affected limit. */
  sqlActions: SqlActionRunner;
  undo: UndoService;
  undoViews: UndoViews;
  /** OAuth connections, services' credentials and rules, secrets by name, held calls. */
  connections: ConnectionsService;
  /** MCP servers as the person defined them, with their tools. */
  mcp: McpService;
  handlers: Handlers;
  /**
   * What this start closed — actions a crashed or killed Posthoc left open, one line each — once orphan
   * containers are removed and interrupted restores finished. Every handler waits for it; the CLI prints it.
   */
  ready: Promise<string[]>;
  close(): Promise<void>;
};

export function createServices(options: {
  dataDir: string;
  docker?: Docker;
  vault?: Vault;
  image?: string;
  env?: NodeJS.ProcessEnv;
  /** Checkpoint tuning (large-file threshold, restore hooks); tests use it. */
  checkpoints?: CheckpointOptions;
  /** Connections: how to open the system browser, and HTTP to OAuth servers and services (tests). */
  connections?: ConnectionsOptions;
  /** The desktop app's native folder picker; absent in the web host and the CLI, which answer 'unavailable'. */
  pickFolder?: () => Promise<string | null>;
}): AppServices {
  const db = openDatabase(options.dataDir);
  const store = new TaskStore(db);
  const events = new EventBus();
  // What the CLI (another process) changes in the data folder reaches this process's windows at once.
  const stopWatch = watchStore(db, () => events.emit('store:changed', {}));
  const vault = options.vault ?? new Vault();
  const docker = options.docker ?? createDocker();
  const services = new ServiceRegistry(db);
  // The gateway reads its caps at each call (settings is made below; the closure runs later).
  const gateway = new Gateway(join(options.dataDir, 'gateway'), (taskId) => (isListing(taskId) ? listingTask(taskId) : store.getTask(taskId)), () => settings.gatewayLimits());
  const connections = new ConnectionsService(db, vault, services, gateway, events, options.connections);
  gateway.route('svc', actionsOnly(serviceRoute(services, { caller: connections.caller, holds: gateway.holds, apiOf: apiSpec })));
  // One folder per database engine (effects/db/sqlite, effects/db/postgres), each made by its line in
  // effects/db/engines.ts. Passwords of granted databases are read from the vault in the main process only.
  const engines = makeDbEngines({ secrets: (name) => vault.get(name) });
  const databases = new DbChannel(options.dataDir, engines);
  const dbRoute = new DbGatewayRoute();
  gateway.route('db', actionsOnly(dbRoute.route));
  // The agent's memory (DATA/memory.md): written by code through /memory, each note an effect undo takes back.
  const memory = new MemoryFile(options.dataDir);
  const memoryRoute = new MemoryRoute(memory);
  gateway.route('memory', actionsOnly(memoryRoute.route));
  // Packages through the one door: pip's simple API and npm's registry, verified and cached on the host
  // (settings is made below; the policy is read at each request).
  const packageCache = new PackageCache(join(options.dataDir, 'packages'));
  gateway.route('pip', pipRoute(packageCache, () => settings.packagePolicy()));
  gateway.route('npm', npmRoute(packageCache, () => settings.packagePolicy()));
  // Debian's archive for the sandbox's apt-get (the image's release), its signature checked against the keyring.
  const env = options.env ?? process.env;
  gateway.route(
    'apt',
    aptRoute(packageCache, () => settings.packagePolicy(), () => ({
      mirrorUrl: env[APT_ENV.mirrorUrl] || DEFAULT_APT_MIRROR,
      keyring: env[APT_ENV.keyring] || DEFAULT_APT_KEYRING,
      suite: DEFAULT_APT_SUITE,
      components: ['main'],
      arch: debianArch(),
    })),
  );
  // How what an action changes is recorded: the kernel's account where the host can name paths by file handle
  // (the beneath addon), else (or with POSTHOC_ATTRIBUTION=library) the claim library's log.
  const kernelWatch = namesByHandle() && (options.env ?? process.env).POSTHOC_ATTRIBUTION !== 'library';
  const executor = new SandboxExecutor(docker, options.image ?? SANDBOX_IMAGE, {
    controlDir: join(options.dataDir, 'sandbox'),
    doors: { open: async (taskId) => (await gateway.open(taskId)).dir, close: (taskId) => gateway.close(taskId) },
    // Each task's own environment (pip and npm installs), kept while the task exists.
    envDir: join(options.dataDir, 'task-env'),
    watch: kernelWatch,
  });
  // MCP servers (issue 16): stdio servers in the task's own confined containers, remote ones over streamable
  // HTTP from here with their token from the vault; every tool call through the gateway's /mcp route.
  const mcpServers = new McpServerStore(db);
  // A remote server's OAuth sign-in opens in the person's browser where the front end can (the app).
  const mcpCredentials = new McpCredentials(vault, services, { openExternal: options.connections?.openExternal });
  // What each stdio server keeps between tasks (its HOME: its data, npm's cache of its package), per server.
  const mcpState = new McpStateFolders(join(options.dataDir, 'mcp-state'));
  const mcpContainers = new McpContainers(docker, {
    image: executor.image,
    controlDir: join(options.dataDir, 'sandbox'),
    envDir: join(options.dataDir, 'task-env'),
    state: mcpState,
    doors: { open: async (taskId) => (await gateway.open(taskId)).dir },
    watch: kernelWatch,
  });
  const mcpHub = new ListingHub({
    connectors: {
      stdio: mcpContainers,
      http: new HttpMcpConnector({ credentials: mcpCredentials, onSecret: (taskId, secret) => gateway.redactor(taskId).add(secret) }),
    },
    server: (name) => mcpServers.get(name),
    task: (taskId) => {
      if (isListing(taskId)) return { taskId, workspaces: [] };
      const task = store.getTask(taskId);
      return task && { taskId, workspaces: task.workspaces };
    },
  });
  gateway.route('mcp', actionsOnly(new McpRoute(mcpHub, { granted: (task) => task.mcp ?? [], wait: (...args) => gateway.holds.wait(...args) }).route));
  const mcp = new McpService(mcpServers, events, {
    // Listing outside a task: a door of its own for npx's install, closed with the listing's environment.
    tools: new HubToolSource(mcpHub, {
      open: (taskId) => gateway.beginAction(taskId, `${OWN_WINDOW}list`),
      close: async (taskId) => {
        gateway.endAction(taskId);
        await gateway.close(taskId);
        await executor.removeEnv(taskId);
      },
    }),
    detectApi,
    bindCredential: (server, secret, url) => mcpCredentials.bind(server, secret, url),
    forgetSignIn: (server) => mcpCredentials.signIns.forget(server),
    signIns: mcpCredentials.signIns,
    state: mcpState,
    inUse: mcpServerInUse({
      runningTasks: () => store.runningTasks(),
      ownerGone,
      containers: async (name) => (await docker.listContainers({ all: true, filters: { label: [`${MCP_SERVER_LABEL}=${name}`] } })).length,
    }),
  });
  const fsChannel = new FsChannel(join(options.dataDir, 'checkpoints'), new UndoStore(db), {
    ...options.checkpoints,
    budgetFor: (folder) => storageBudget(store, folder),
  });
  const settings = new SettingsService(store, vault, options.env);
  const runner = new ActionRunner(store, executor, fsChannel, events, gateway);
  const previews = new FilePreviews(store, fsChannel, new Figures(join(options.dataDir, 'figures'), new FigureStore(db)));
  runner.figures = previews.figures;
  // What a task's stdio MCP servers write to its folders during an action is the action's (undo restores it).
  runner.mcpClaims = mcpContainers;
  const sqlRunner = new SqlActionRunner(store, databases, events);
  runner.sql = sqlRunner;
  const tasks = new TaskService(store, settings, runner, executor, docker, events, [options.dataDir, dockerSocketPath()], (name) =>
    Boolean(services.get(name)),
  );
  const operations = new UndoOperations(db);
  // The undo saga's channels, built here and handed to it: it names none of them.
  const reverter = filesReverter(store, fsChannel);
  const undoChannelList = undoChannels({
    store,
    fs: fsChannel,
    reverter,
    db: databases,
    memory,
    rest: connections.restUndo,
    tools: {
      definition: (server) => mcpHub.definition(server),
      // Undo after the run may start a stdio server again, its package from the task's npx cache; npx asks
      // the registry through the gateway, which answers a task only while one of its actions runs.
      call: async (taskId, server, tool, args, signal, purpose) => {
        const hold = !tasks.isRunning(taskId);
        if (hold) gateway.beginAction(taskId, `${OWN_WINDOW}undo`);
        try {
          return await mcpHub.call(taskId, server, tool, args, signal, purpose);
        } finally {
          if (hold) gateway.endAction(taskId);
        }
      },
      releaseUndo: (taskId) => mcpHub.releaseUndo(taskId),
    },
  });
  const undo = new UndoService(store, fsChannel, events, {
    isRunning: (taskId) => tasks.isRunning(taskId),
    channels: undoChannelList,
    reverter,
    operations,
    release: (actionId) => previews.figures.release(actionId),
  });
  // A held transaction nobody kept in time was rolled back: its actions are undone.
  databases.held.onExpired = (actionIds) => {
    for (const id of actionIds) if (store.getAction(id)) events.emit('action:updated', store.setActionStatus(id, 'undone'));
  };
  const undoViews = new UndoViews(store, fsChannel, undo, (taskId) => tasks.isRunning(taskId), operations);
  // Approve and reject from another process (posthoc approve|reject ID in a second terminal).
  const approvals = approvalDoors(join(options.dataDir, 'approvals'), { sql: sqlRunner, holds: gateway.holds, connections, store });
  approvals.relay.start();
  tasks.undoService = undo;
  tasks.serviceInfo = (name) => connections.promptInfo(name);
  tasks.databases = new DatabaseGrants(databases, vault, engines, dbRoute);
  tasks.memory = { file: memory, route: memoryRoute };
  tasks.mcpServers = mcp;
  mcpHub.onChanged = (name) => mcp.toolsChanged(name);
  tasks.mcpPrompt = (task, signal) =>
    mcpPrompt(task, { hub: mcpHub, open: (taskId) => gateway.beginAction(taskId, `${OWN_WINDOW}start`), close: (taskId) => gateway.endAction(taskId) }, signal);
  tasks.mcpRunEnded = (taskId) => mcpHub.closeTask(taskId);
  // Before anything answers: containers left by a Posthoc process that crashed are removed (found by their
  // labels), restores a crash interrupted are finished or rolled back, then the actions it left running are
  // closed and recorded. A new action first closes what is still open (a failed checkpoint in this process).
  const interrupted = new InterruptedActions(store, fsChannel, executor, events);
  runner.settleEarlier = () => interrupted.settle();
  const ready = interrupted
    .start(() => undo.recover())
    .catch((error: unknown) => [`could not close what an earlier run left open: ${error instanceof Error ? error.message : String(error)}`]);
  tasks.startup = ready;
  // Environments of tasks that are gone (no task is deleted yet; a data folder copied without them).
  void ready.then(() => executor.pruneEnvs((id) => Boolean(store.getTask(id)))).catch(() => undefined);

  const handlers: Handlers = afterStartup(ready, {
    'task:list': async () => tasks.list(),
    'task:get': async ({ taskId }) => tasks.get(taskId),
    'task:start': ({ model, maxSteps, actionTimeoutSeconds, contextWindow, budget, provider, ...input }) =>
      tasks.start(input, { model, maxSteps, actionTimeoutSeconds, contextWindow, budget, provider }),
    'task:send': ({ taskId, prompt, budget }) => tasks.send(taskId, prompt, { budget }),
    'task:cancel': async ({ taskId }) => tasks.cancel(taskId),
    'task:continue': ({ taskId }) => tasks.resume(taskId),
    'action:list': async ({ taskId }) => {
      if (taskId !== undefined) tasks.requireTask(taskId);
      return store.listActions(taskId);
    },
    'action:get': async ({ actionId }) => {
      const action = store.getAction(actionId);
      if (!action) throw new ServiceError('not-found', `No action ${actionId}. List actions with "posthoc actions".`);
      return action;
    },
    'action:undo': ({ actionId, keepCopies }) => undo.undo(actionId, { keepCopies }),
    'action:keep': ({ actionId }) => undo.keep(actionId),
    'action:figure': async (input) => {
      const { figure, bytes } = await previews.figure(input);
      return { figure, base64: bytes.toString('base64') };
    },
    'action:preview': (input) => previews.preview(input),
    'settings:get': () => settings.get(),
    'settings:update': (input) => settings.update(input),
    'provider:save': (input) => settings.saveProvider(input),
    'provider:remove': ({ id }) => settings.removeProvider(id),
    'provider:test': async ({ provider, model, reach }) => new LlmClient(await settings.llmConfig({ provider, model, requireModel: false })).check(undefined, { reachOnly: reach === true }),
    'memory:get': async () => ({ text: memory.read(), path: memory.path }),
    'memory:update': async ({ text }) => (memory.write(text), { text: memory.read(), path: memory.path }),
    'memory:clear': async () => (memory.write(''), { text: '', path: memory.path }),
    'vault:status': () => vault.status(),
    'sandbox:status': () => sandboxStatus(docker, executor.image),
    'sandbox:build': async () => {
      if (!imageBuilds.start(docker, executor.image, (progress) => events.emit('sandbox:progress', progress))) {
        throw new ServiceError('conflict', 'A sandbox image build is already running; wait for it to finish (its progress is shown).');
      }
      return { image: executor.image };
    },
    'service:list': async () => services.list(),
    'service:add': async (input) => connections.addService(input),
    'service:remove': async ({ name }) => ({ removed: services.remove(name) }),
    'action:redo': ({ actionId }) => undo.redo(actionId),
    'action:rewind': ({ actionId, keepCopies }) => undo.rewind(actionId, { keepCopies }),
    'action:diff': (input) => undoViews.diff(input),
    'task:timeline': async ({ taskId }) => undoViews.timeline(taskId),
    'budget:get': () => undoViews.storage(),
    'budget:set': (input) => undoViews.setBudget(input),
    'action:approve': ({ actionId }) => approvals.action(actionId, true),
    'action:reject': ({ actionId }) => approvals.action(actionId, false),
    'connection:list': () => connections.list(),
    'connection:configure': (input) => connections.configure(input),
    'connection:connect': async ({ provider, port, timeoutSeconds, flow }) => {
      const wait = port !== undefined || timeoutSeconds !== undefined || flow !== undefined ? { port, flow, timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000 } : undefined;
      const { done: _done, ...started } = await connections.connect(provider, wait);
      return started;
    },
    'connection:disconnect': ({ provider }) => connections.disconnect(provider),
    'connection:token': ({ provider, token }) => connections.useToken(provider, token),
    'secret:list': () => connections.secrets(),
    'secret:set': ({ name, value, origins }) => connections.setSecret(name, value, origins),
    'secret:remove': ({ name }) => connections.removeSecret(name),
    'hold:cancel': ({ holdId }) => approvals.hold(holdId, false),
    'hold:approve': ({ holdId }) => approvals.hold(holdId, true),
    'mcp:list': ({ refresh }) => mcp.list(refresh),
    'mcp:add': (input) => mcp.add(input),
    'mcp:remove': ({ name }) => mcp.remove(name),
    'mcp:clear': ({ name }) => mcp.clear(name),
    'mcp:signin': ({ name, wait }) => mcp.signIn(name, wait ?? false),
    'mcp:rules': ({ name, rules }) => mcp.setRules(name, rules),
    'mcp:import': ({ json, only }) => mcp.import(json, only),
    'folder:pick': async () => {
      if (!options.pickFolder) throw new ServiceError('unavailable', 'A folder picker is only in the desktop app: type the folder’s full path instead.');
      const path = await options.pickFolder();
      return path === null ? null : { path };
    },
    'folder:complete': ({ prefix }) => completeFolder(prefix, [options.dataDir]),
  });

  return {
    dataDir: options.dataDir,
    db,
    store,
    events,
    vault,
    docker,
    executor,
    gateway,
    services,
    settings,
    tasks,
    databases,
    sqlActions: sqlRunner,
    undo,
    undoViews,
    connections,
    mcp,
    handlers,
    ready,
    async close() {
      stopWatch();
      await ready;
      approvals.relay.stop();
      connections.close();
      await tasks.shutdown();
      await mcpHub.close();
      mcpCredentials.signIns.close();
      await mcpContainers.closeAll();
      await gateway.closeAll();
      await databases.shutdown();
      await undo.settle();
      await fsChannel.close();
      db.close();
    },
  };
}

/** Every handler answers only once the start has closed what an earlier run left open. */
function afterStartup(ready: Promise<unknown>, handlers: Handlers): Handlers {
  const gated: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const [name, handler] of Object.entries(handlers) as Array<[string, (input: unknown) => Promise<unknown>]>) {
    gated[name] = async (input) => {
      await ready;
      return handler(input);
    };
  }
  return gated as Handlers;
}
