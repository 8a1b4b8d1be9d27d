// Services, accounts, secrets by name and held calls: service:*, connection:*, secret:*, hold:*.
import type { ServiceRegistry } from '../../gateway/service-registry';
import type { approvalDoors } from '../approval-relay';
import type { ConnectionsService } from '../connections-service';
import type { HandlersOf } from './handlers';

type Names =
  | 'service:list'
  | 'service:add'
  | 'service:remove'
  | 'connection:list'
  | 'connection:configure'
  | 'connection:connect'
  | 'connection:disconnect'
  | 'connection:token'
  | 'secret:list'
  | 'secret:set'
  | 'secret:remove'
  | 'hold:cancel'
  | 'hold:approve';

export function connectionHandlers(deps: {
  services: ServiceRegistry;
  connections: ConnectionsService;
  approvals: ReturnType<typeof approvalDoors>;
}): HandlersOf<Names> {
  const { services, connections, approvals } = deps;
  return {
    'service:list': async () => services.list(),
    'service:add': async (input) => connections.addService(input),
    'service:remove': async ({ name }) => ({ removed: services.remove(name) }),
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
  };
}
