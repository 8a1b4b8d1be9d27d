// task:* — start, continue, send to, cancel and read tasks.
import type { TaskService } from '../task-service';
import type { HandlersOf } from './handlers';

export function taskHandlers(tasks: TaskService): HandlersOf<'task:list' | 'task:get' | 'task:start' | 'task:send' | 'task:cancel' | 'task:continue'> {
  return {
    'task:list': async () => tasks.list(),
    'task:get': async ({ taskId }) => tasks.get(taskId),
    'task:start': ({ model, maxSteps, actionTimeoutSeconds, contextWindow, budget, provider, ...input }) =>
      tasks.start(input, { model, maxSteps, actionTimeoutSeconds, contextWindow, budget, provider }),
    'task:send': ({ taskId, prompt, budget }) => tasks.send(taskId, prompt, { budget }),
    'task:cancel': async ({ taskId }) => tasks.cancel(taskId),
    'task:continue': ({ taskId }) => tasks.resume(taskId),
  };
}
