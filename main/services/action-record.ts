// What goes on an action's record once its effects are known: the effects themselves, the reverse plan
// (files, then service calls, then databases) and the confinement level. One place, so an action that
// finished, failed, was stopped or was closed after a crash is recorded the same way.
import type { Action, Effect, FsEffect, Task } from '../../shared/domain';
import type { FsChannel } from '../effects/fs/fs-channel';
import { confinementOf } from '../policy/confinement';
import { reversePlanOf } from './rest-reverse-plan';
import { withDatabasePlan } from './sql-action-runner';

/** The reasons a person reads on an interrupted action: what happened and what to do. */
export const INTERRUPTED = {
  stopped: 'Stopped by you before it finished: its processes were ended. What it changed until then is recorded and can be undone.',
  crashed:
    'Posthoc stopped while this action ran (crash or kill). Its processes were ended and what it changed until then was recorded at the next start; it can be undone.',
  crashedWaiting: 'Posthoc stopped while this action waited for approval; it never ran and changed nothing.',
  afterFailed: (error: string) =>
    `Posthoc could not take the checkpoint after this action (${error}), so what it changed is not recorded yet and cannot be undone yet. ` +
    'Free space on the disk of Posthoc\'s data folder (or fix the cause above), then run any posthoc command or start the app: it records the changes and makes them undoable.',
} as const;

/** The action with these effects, its reverse plan and its level. */
export function withEffects(action: Action, task: Task, fs: FsChannel, files: FsEffect[], calls: Effect[], allFoldersRecorded = true): Action {
  const effects = [...files, ...calls];
  return {
    ...action,
    effects,
    reverse: withDatabasePlan(reversePlanOf(fs.reversePlan(files, task.workspaces), calls), calls),
    confinement: confinementOf(
      { network: 'gateway-only', grantedServices: task.services, writableMountsCheckpointed: allFoldersRecorded, checkpointsTaken: true },
      effects,
    ),
  };
}

/** True when the action changed a file or made a call. */
export function changedAnything(files: FsEffect[], calls: Effect[]): boolean {
  return calls.length > 0 || files.some((e) => e.added.length + e.modified.length + e.deleted.length + (e.renamed?.length ?? 0) > 0);
}
