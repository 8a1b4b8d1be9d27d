// The record alone: the database over a data folder, for a command that only reads it (`posthoc tasks`,
// `posthoc actions`). Nothing of Docker, the model clients, MCP, PostgreSQL or git objects is loaded, so the
// command answers at once (issue 28). It serves only while nothing an earlier run left open waits to be
// closed (left-open.ts); otherwise openRecord answers null and the caller opens the whole services
// (createServices), whose start closes it and says what it closed, as before.
//
// `posthoc tasks` needs the tasks alone: listTasks reads them with the task's schema alone (store/task-rows.ts),
// and the question whether anything was left open reads owners' columns, no action parsed. Any other call
// (action:list) loads the task store and the contract's handlers when it is first made.
import type { Task } from '../../shared/domain/task';
import { openDatabase } from '../store/database';
import { listTaskRows } from '../store/task-rows';
import { UndoStore } from '../store/undo-store';
import type { Handlers } from './app-services';
import { leftOpenInRecord } from './left-open';

export type RecordServices = {
  /** task:list, as createServices's handler answers it (tasks.list() is store.listTasks()). */
  listTasks(): Task[];
  /** Every call as the record answers it (action:list; the rest need the whole services), loaded on first use. */
  handlers(): Promise<Handlers>;
  close(): void;
};

export function openRecord(dataDir: string): RecordServices | null {
  const db = openDatabase(dataDir);
  if (leftOpenInRecord(db, new UndoStore(db))) {
    db.close();
    return null;
  }
  let handlers: Promise<Handlers> | undefined;
  return {
    listTasks: () => listTaskRows(db),
    handlers: () => (handlers ??= import('./record-handlers').then(({ recordHandlers }) => recordHandlers(db))),
    close: () => db.close(),
  };
}
