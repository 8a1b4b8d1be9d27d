// The contract's API over the record alone (main/services/record-services.ts), for a command that only reads
// it. `taskList` is dispatched with the task list's own schemas (shared/contract/record-calls.ts), so
// `posthoc tasks` builds no other call's, action's or effect's schema (issue 28); any other method loads the
// contract and the local client when first called, and answers as createLocalClient does. No events: the
// record emits none.
import type { PosthocApi } from '../../shared/contract';
import { recordCalls } from '../../shared/contract/record-calls';
import type { RecordServices } from '../services/record-services';
import { ServiceError } from '../services/service-error';
import { dispatchCall } from './dispatch-call';

export function createRecordClient(record: RecordServices): PosthocApi {
  let whole: Promise<Record<string, (input: unknown) => unknown>> | undefined;
  const rest = () =>
    (whole ??= Promise.all([import('./local-client'), import('../services/event-bus'), record.handlers()]).then(
      ([{ createLocalClient }, { EventBus }, handlers]) => createLocalClient(handlers, new EventBus()) as unknown as Record<string, (input: unknown) => unknown>,
    ));
  const own: Record<string | symbol, unknown> = {
    taskList: (input: unknown) =>
      dispatchCall('task:list', recordCalls['task:list'], async () => record.listTasks(), input, (error) =>
        error instanceof ServiceError ? { code: error.code, message: error.message } : { code: 'internal', message: error instanceof Error ? error.message : String(error) },
      ),
    on: () => () => undefined,
  };
  return new Proxy(own, {
    get: (target, key) => {
      if (key in target) return target[key];
      if (typeof key !== 'string' || key === 'then') return undefined;
      return async (input: unknown) => (await rest())[key]!(input);
    },
  }) as unknown as PosthocApi;
}
