// The calls a command that only lists the record answers without the whole contract (issue 28): their
// schemas are built from the task's alone (shared/domain/task.ts), so `posthoc tasks` does not build every
// call's, action's and effect's schema to list tasks. The contract (index.ts) declares these same objects.
import { z } from 'zod';
import { Task } from '../domain/task';

export const recordCalls = {
  'task:list': { input: z.object({}), output: z.array(Task) },
} as const;
export type RecordCallName = keyof typeof recordCalls;
