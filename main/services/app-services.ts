// The composition root: builds every service over one data directory. The Electron app, the web host
// and the CLI all start here, so they share one application API.
import type Docker from 'dockerode';
import { join } from 'node:path';
import type { CallName, CallOutput } from '../../shared/contract';
import type { calls } from '../../shared/contract';
import type { z } from 'zod';
import { FsChannel } from '../effects/fs/fs-channel';
import { Gateway } from '../gateway/gateway';
import { ServiceDefinitionError, ServiceRegistry } from '../gateway/service-registry';
import { serviceRoute } from '../gateway/service-route';
import { createDocker, dockerSocketPath } from '../sandbox/docker-client';
import { SandboxExecutor } from '../sandbox/executor';
import { SANDBOX_IMAGE, sandboxStatus } from '../sandbox/sandbox-image';
import { openDatabase, type AppDatabase } from '../store/database';
import { TaskStore } from '../store/task-store';
import { Vault } from '../vault/vault';
import { ActionRunner } from './action-runner';
import { EventBus } from './event-bus';
import { ServiceError } from './service-error';
import { SettingsService } from './settings-service';
import { TaskService } from './task-service';

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
  handlers: Handlers;
  close(): Promise<void>;
};

export function createServices(options: {
  dataDir: string;
  docker?: Docker;
  vault?: Vault;
  image?: string;
  env?: NodeJS.ProcessEnv;
}): AppServices {
  const db = openDatabase(options.dataDir);
  const store = new TaskStore(db);
  const events = new EventBus();
  const vault = options.vault ?? new Vault();
  const docker = options.docker ?? createDocker();
  const services = new ServiceRegistry(db);
  const gateway = new Gateway(join(options.dataDir, 'gateway'), (taskId) => store.getTask(taskId));
  gateway.route('svc', serviceRoute(services));
  const executor = new SandboxExecutor(docker, options.image ?? SANDBOX_IMAGE, {
    controlDir: join(options.dataDir, 'sandbox'),
    doors: { open: async (taskId) => (await gateway.open(taskId)).dir, close: (taskId) => gateway.close(taskId) },
  });
  const fsChannel = new FsChannel(join(options.dataDir, 'checkpoints'));
  const settings = new SettingsService(store, vault, options.env);
  const runner = new ActionRunner(store, executor, fsChannel, events, gateway);
  const tasks = new TaskService(store, settings, runner, fsChannel, executor, docker, events, [options.dataDir, dockerSocketPath()], (name) =>
    Boolean(services.get(name)),
  );
  // Containers left by a Posthoc process that crashed are found by their labels and removed.
  executor.removeOrphans().catch(() => undefined);

  const handlers: Handlers = {
    'task:list': async () => tasks.list(),
    'task:get': async ({ taskId }) => tasks.get(taskId),
    'task:start': (input) => tasks.start(input),
    'task:send': ({ taskId, prompt }) => tasks.send(taskId, prompt),
    'task:cancel': async ({ taskId }) => tasks.cancel(taskId),
    'action:undo': ({ actionId }) => tasks.undo(actionId),
    'action:keep': async ({ actionId }) => tasks.keep(actionId),
    'settings:get': () => settings.get(),
    'settings:update': (input) => settings.update(input),
    'vault:status': () => vault.status(),
    'sandbox:status': () => sandboxStatus(docker, executor.image),
    'service:list': async () => services.list(),
    'service:add': async ({ name, baseUrl }) => {
      try {
        return services.add(name, baseUrl);
      } catch (error) {
        if (error instanceof ServiceDefinitionError) throw new ServiceError('invalid-input', error.message);
        throw error;
      }
    },
    'service:remove': async ({ name }) => ({ removed: services.remove(name) }),
  };

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
    handlers,
    async close() {
      await tasks.shutdown();
      await gateway.closeAll();
      db.close();
    },
  };
}
