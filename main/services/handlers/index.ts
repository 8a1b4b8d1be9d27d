// Every contract handler, collected: one file per domain exports its part of the contract (shared/contract),
// and the type below makes the compiler check that together they answer every call, once. Every handler
// answers only once the start has closed what an earlier run left open.
import type { ConnectionsService } from '../connections-service';
import type { EnginesService } from '../engines-service';
import type { EventBus } from '../event-bus';
import type { FilePreviews } from '../file-previews';
import type { McpService } from '../mcp-service';
import type { SettingsService } from '../settings-service';
import type { TaskService } from '../task-service';
import type { UndoService } from '../undo-service';
import type { UndoViews } from '../undo-views';
import type { approvalDoors } from '../approval-relay';
import type { MemoryFile } from '../../effects/memory/memory-file';
import type { ServiceRegistry } from '../../gateway/service-registry';
import type { SandboxExecutor } from '../../sandbox/executor';
import type { TaskStore } from '../../store/task-store';
import type { Vault } from '../../vault/vault';
import type Docker from 'dockerode';
import { actionHandlers } from './actions';
import { connectionHandlers } from './connections';
import { engineHandlers } from './engines';
import { folderHandlers } from './folders';
import type { Handlers } from './handlers';
import { mcpHandlers } from './mcp';
import { memoryHandlers } from './memory';
import { settingsHandlers } from './settings';
import { systemHandlers } from './system';
import { taskHandlers } from './tasks';
import { undoHandlers } from './undo';

export type { Handlers, HandlersOf } from './handlers';

/** The services the handlers call: the composition root's, by name. */
export type HandlerServices = {
  dataDir: string;
  store: TaskStore;
  events: EventBus;
  vault: Vault;
  docker: Docker;
  executor: SandboxExecutor;
  services: ServiceRegistry;
  settings: SettingsService;
  engines: EnginesService;
  tasks: TaskService;
  undo: UndoService;
  undoViews: UndoViews;
  previews: FilePreviews;
  approvals: ReturnType<typeof approvalDoors>;
  connections: ConnectionsService;
  mcp: McpService;
  memory: MemoryFile;
  pickFolder?: () => Promise<string | null>;
};

export function contractHandlers(s: HandlerServices, ready: Promise<unknown>): Handlers {
  const all = {
    ...taskHandlers(s.tasks),
    ...actionHandlers(s),
    ...undoHandlers(s.undo, s.undoViews),
    ...settingsHandlers(s.settings),
    ...engineHandlers(s.engines),
    ...memoryHandlers(s.memory),
    ...systemHandlers(s),
    ...connectionHandlers(s),
    ...mcpHandlers(s.mcp),
    ...folderHandlers(s),
  } satisfies Handlers;
  return afterStartup(ready, all);
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
