// The composition root: builds every service over one data directory. The Electron app, the web host
// and the CLI all start here, so they share one application API.
//
// By construction: each service is given what it needs when it is built, and nothing is assigned to it
// after. Where two services need each other, the one built first gets a late-bound callback (a closure
// over a name bound below, called only once both exist); each such place says so:
//   - the MCP hub tells McpService when a server's tools changed, and McpService lists tools through the hub;
//   - the undo saga asks TaskService whether a task runs, and TaskService starts runs after the start's
//     recovery, which the saga does.
// The contract's handlers live one file per domain in ./handlers.
import type Docker from 'dockerode';
import { join } from 'node:path';
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
import { SANDBOX_IMAGE } from '../sandbox/sandbox-image';
import { openDatabase, type AppDatabase } from '../store/database';
import { TaskStore } from '../store/task-store';
import { UndoOperations } from '../store/undo-operations';
import { UndoStore } from '../store/undo-store';
import { Vault } from '../vault/vault';
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
import { contractHandlers, type Handlers } from './handlers';
import { InterruptedActions } from './interrupted-actions';
import { promptSources } from './prompt-sources';
import { SettingsService } from './settings-service';
import { EnginesService } from './engines-service';
import { SqlActionRunner } from './sql-action-runner';
import { TaskService } from './task-service';
import { watchStore } from './store-watch';
import { undoChannels, filesReverter } from './undo-channels';
import { UndoService } from './undo-service';
import { storageBudget, UndoViews } from './undo-views';

export type { Handlers } from './handlers';

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
  const env = options.env ?? process.env;
  const services = new ServiceRegistry(db);
  const settings = new SettingsService(store, vault, options.env);
  const dockerEngines = new EnginesService(store, vault, { env, local: docker, image: options.image ?? SANDBOX_IMAGE });
  // The gateway reads its caps at each call, so a change in Settings holds for the next one.
  const gateway = new Gateway(join(options.dataDir, 'gateway'), (taskId) => (isListing(taskId) ? listingTask(taskId) : store.getTask(taskId)), () => settings.gatewayLimits());
  const connections = new ConnectionsService(db, vault, services, gateway, events, options.connections);
  gateway.route('svc', actionsOnly(serviceRoute(services, { caller: connections.caller, holds: gateway.holds, apiOf: apiSpec })));
  // One folder per database engine (effects/db/sqlite, effects/db/postgres), each made by its line in
  // effects/db/engines.ts. Passwords of granted databases are read from the vault in the main process only.
  const engines = makeDbEngines({ secrets: (name) => vault.get(name) });
  // A held transaction nobody kept in time was rolled back: its actions are undone.
  const databases = new DbChannel(options.dataDir, engines, (actionIds) => {
    for (const id of actionIds) if (store.getAction(id)) events.emit('action:updated', store.setActionStatus(id, 'undone'));
  });
  const dbRoute = new DbGatewayRoute();
  gateway.route('db', actionsOnly(dbRoute.route));
  // The agent's memory (DATA/memory.md): written by code through /memory, each note an effect undo takes back.
  const memory = new MemoryFile(options.dataDir);
  const memoryRoute = new MemoryRoute(memory);
  gateway.route('memory', actionsOnly(memoryRoute.route));
  // Packages through the one door: pip's simple API and npm's registry, verified and cached on the host
  // (the policy is read at each request).
  const packageCache = new PackageCache(join(options.dataDir, 'packages'));
  gateway.route('pip', pipRoute(packageCache, () => settings.packagePolicy()));
  gateway.route('npm', npmRoute(packageCache, () => settings.packagePolicy()));
  // Debian's archive for the sandbox's apt-get (the image's release), its signature checked against the keyring.
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
  const kernelWatch = namesByHandle() && env.POSTHOC_ATTRIBUTION !== 'library';
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
  const mcpHub = new ListingHub(
    {
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
    },
    // Late-bound: McpService (below) lists its tools through this hub, and hears from it when they change.
    (name) => mcp.toolsChanged(name),
  );
  gateway.route('mcp', actionsOnly(new McpRoute(mcpHub, { granted: (task) => task.mcp ?? [], wait: (...args) => gateway.holds.wait(...args) }).route));
  const mcp: McpService = new McpService(mcpServers, events, {
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
  const previews = new FilePreviews(store, fsChannel, new Figures(join(options.dataDir, 'figures'), new FigureStore(db)));
  const sqlRunner = new SqlActionRunner(store, databases, events);
  // Before anything answers: containers left by a Posthoc process that crashed are removed (found by their
  // labels), restores a crash interrupted are finished or rolled back, then the actions it left running are
  // closed and recorded. A new action first closes what is still open (a failed checkpoint in this process).
  const interrupted = new InterruptedActions(store, fsChannel, executor, events);
  const runner = new ActionRunner(store, executor, fsChannel, events, gateway, {
    sql: sqlRunner,
    figures: previews.figures,
    settleEarlier: () => interrupted.settle(),
    // What a task's stdio MCP servers write to its folders during an action is the action's (undo restores it).
    mcpClaims: mcpContainers,
  });
  // (`tasks.isRunning` in the undo saga's block below is late-bound: TaskService, built after the saga, starts
  // its runs after the saga's recovery at this start.)
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
  const ready = interrupted
    .start(() => undo.recover())
    .catch((error: unknown) => [`could not close what an earlier run left open: ${error instanceof Error ? error.message : String(error)}`]);
  const databaseGrants = new DatabaseGrants(databases, vault, engines, dbRoute);
  const tasks: TaskService = new TaskService({
    store,
    settings,
    runner,
    executor,
    docker,
    events,
    protectedPaths: [options.dataDir, dockerSocketPath()],
    serviceExists: (name) => Boolean(services.get(name)),
    startup: ready,
    undo,
    databases: databaseGrants,
    memoryRoute,
    // What the system prompt says besides its core, in order: databases, services, folder instructions, memory, MCP tools.
    prompt: promptSources({
      databases: databaseGrants,
      serviceInfo: (name) => connections.promptInfo(name),
      memory,
      mcp: (task, signal) =>
        mcpPrompt(task, { hub: mcpHub, open: (taskId) => gateway.beginAction(taskId, `${OWN_WINDOW}start`), close: (taskId) => gateway.endAction(taskId) }, signal),
    }),
    mcp: { servers: mcp, runEnded: (taskId) => mcpHub.closeTask(taskId) },
  });
  const undoViews = new UndoViews(store, fsChannel, undo, (taskId) => tasks.isRunning(taskId), operations);
  // Approve and reject from another process (posthoc approve|reject ID in a second terminal).
  const approvals = approvalDoors(join(options.dataDir, 'approvals'), { sql: sqlRunner, holds: gateway.holds, connections, store });
  approvals.relay.start();
  // Environments of tasks that are gone (no task is deleted yet; a data folder copied without them).
  void ready.then(() => executor.pruneEnvs((id) => Boolean(store.getTask(id)))).catch(() => undefined);

  const handlers = contractHandlers(
    { dataDir: options.dataDir, store, events, vault, docker, executor, services, settings, engines: dockerEngines, tasks, undo, undoViews, previews, approvals, connections, mcp, memory, pickFolder: options.pickFolder },
    ready,
  );

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
