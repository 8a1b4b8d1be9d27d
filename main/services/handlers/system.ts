// What the machine offers: the keychain (vault:status), Docker and the sandbox image (sandbox:*).
import type Docker from 'dockerode';
import type { SandboxExecutor } from '../../sandbox/executor';
import { imageBuilds, sandboxStatus } from '../../sandbox/sandbox-image';
import type { Vault } from '../../vault/vault';
import type { EventBus } from '../event-bus';
import { ServiceError } from '../service-error';
import type { HandlersOf } from './handlers';

export function systemHandlers(deps: {
  vault: Vault;
  docker: Docker;
  executor: SandboxExecutor;
  events: EventBus;
}): HandlersOf<'vault:status' | 'sandbox:status' | 'sandbox:build'> {
  const { vault, docker, executor, events } = deps;
  return {
    'vault:status': () => vault.status(),
    'sandbox:status': () => sandboxStatus(docker, executor.image),
    'sandbox:build': async () => {
      if (!imageBuilds.start(docker, executor.image, (progress) => events.emit('sandbox:progress', progress))) {
        throw new ServiceError('conflict', 'A sandbox image build is already running; wait for it to finish (its progress is shown).');
      }
      return { image: executor.image };
    },
  };
}
