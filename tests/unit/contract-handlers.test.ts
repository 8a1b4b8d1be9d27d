// The contract's handlers, one file per domain (main/services/handlers): together they answer every call of
// shared/contract, and no two domains answer the same call (a spread would silently let the later one win).
import { describe, expect, it } from 'vitest';
import { callNames } from '../../shared/contract';
import { actionHandlers } from '../../main/services/handlers/actions';
import { connectionHandlers } from '../../main/services/handlers/connections';
import { engineHandlers } from '../../main/services/handlers/engines';
import { folderHandlers } from '../../main/services/handlers/folders';
import { mcpHandlers } from '../../main/services/handlers/mcp';
import { memoryHandlers } from '../../main/services/handlers/memory';
import { settingsHandlers } from '../../main/services/handlers/settings';
import { systemHandlers } from '../../main/services/handlers/system';
import { taskHandlers } from '../../main/services/handlers/tasks';
import { undoHandlers } from '../../main/services/handlers/undo';

// Building a domain's handlers calls no service: each is a closure until a call comes.
const none = {} as never;
const domains = {
  tasks: taskHandlers(none),
  actions: actionHandlers(none),
  undo: undoHandlers(none, none),
  settings: settingsHandlers(none),
  engines: engineHandlers(none),
  memory: memoryHandlers(none),
  system: systemHandlers(none),
  connections: connectionHandlers(none),
  mcp: mcpHandlers(none),
  folders: folderHandlers({ dataDir: '/nowhere' }),
};

describe('the contract handlers, one file per domain', () => {
  it('answer every call of the contract, each in exactly one domain', () => {
    const answered = Object.values(domains).flatMap((handlers) => Object.keys(handlers));
    expect(new Set(answered).size).toBe(answered.length);
    expect([...answered].sort()).toEqual([...callNames].sort());
  });

  it('keep a domain to its own calls where its name says which (task:*, mcp:*, memory:*, folder:*, engine:*)', () => {
    for (const [domain, prefix] of [['mcp', 'mcp:'], ['memory', 'memory:'], ['folders', 'folder:'], ['engines', 'engine:']] as const) {
      expect(Object.keys(domains[domain]).every((name) => name.startsWith(prefix))).toBe(true);
    }
  });
});
