// The record alone: the database and the task store over a data folder, for a command that only reads it
// (`posthoc tasks`, `posthoc actions`). Nothing of Docker, the model clients, MCP, PostgreSQL or git objects is loaded, so the
// command answers at once (issue 28). It serves only while nothing an earlier run left open waits to be
// closed (left-open.ts); otherwise openRecord answers null and the caller opens the whole services
// (createServices), whose start closes it and says what it closed, as before.
import { callNames, type CallName } from '../../shared/contract';
import { openDatabase } from '../store/database';
import { TaskStore } from '../store/task-store';
import { UndoStore } from '../store/undo-store';
import type { Handlers } from './app-services';
import { EventBus } from './event-bus';
import { leftOpen } from './left-open';
import { requireTask } from './require-task';
import { ServiceError } from './service-error';

export type RecordServices = { handlers: Handlers; events: EventBus; close(): void };

export function openRecord(dataDir: string): RecordServices | null {
  const db = openDatabase(dataDir);
  const store = new TaskStore(db);
  if (leftOpen(store, new UndoStore(db))) {
    db.close();
    return null;
  }
  // The calls the record answers, as createServices's handlers answer them (tasks.list() is store.listTasks(),
  // action:list is store.listActions after the same not-found check).
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
  const handlers = Object.fromEntries(callNames.map((name) => [name, reads[name] ?? whole(name)])) as unknown as Handlers;
  return { handlers, events: new EventBus(), close: () => db.close() };
}
