// A task by id, or the one not-found error every reader gives (the whole services and the record alone).
import type { Task } from '../../shared/domain';
import type { TaskStore } from '../store/task-store';
import { ServiceError } from './service-error';

export function requireTask(store: TaskStore, taskId: string): Task {
  const task = store.getTask(taskId);
  if (!task) throw new ServiceError('not-found', `No task ${taskId}. List tasks with "posthoc tasks".`);
  return task;
}
