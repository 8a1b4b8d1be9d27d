// Every call as the record alone answers it (record-services.ts): task:list and action:list as
// createServices's handlers answer them (tasks.list() is store.listTasks(), action:list is store.listActions
// after the same not-found check); any other call needs the whole services and says so.
import { callNames, type CallName } from '../../shared/contract';
import type { AppDatabase } from '../store/database';
import { TaskStore } from '../store/task-store';
import type { Handlers } from './app-services';
import { requireTask } from './require-task';
import { ServiceError } from './service-error';

export function recordHandlers(db: AppDatabase): Handlers {
  const store = new TaskStore(db);
  const reads: Partial<Record<CallName, (input: unknown) => Promise<unknown>>> = {
    'task:list': async () => store.listTasks(),
    'action:list': async (input) => {
      const { taskId } = input as { taskId?: string };
      if (taskId !== undefined) requireTask(store, taskId);
      return store.listActions(taskId);
    },
  };
  const whole = (name: CallName) => async () => {
    throw new ServiceError('internal', `${name} needs Posthoc's whole services, not the record alone.`);
  };
  return Object.fromEntries(callNames.map((name) => [name, reads[name] ?? whole(name)])) as unknown as Handlers;
}
