// What goes on an action's record once its effects are known: the effects themselves and the confinement
// level (the reverse plan is derived from the effects whenever the action is read: shared/undo/reverse-plan.ts).
// One place, so an action that finished, failed, was stopped or was closed after a crash is recorded the same way.
import type { Effect, FsEffect, Task } from '../../shared/domain';
import { confinementOf } from '../policy/confinement';
import type { ActionRecord } from '../store/task-store';

/** The reasons a person reads on an interrupted action: what happened and what to do. */
export const INTERRUPTED = {
  stopped: 'Stopped by you before it finished: its processes were ended. What it changed until then is recorded and can be undone.',
  crashed:
    'Posthoc stopped while this action ran (crash or kill). Its processes were ended and what it changed until then was recorded at the next start; it can be undone.',
  appStopped:
    'Posthoc stopped (a restart or a quit) before this action finished: its processes were ended. What it changed until then is recorded and can be undone.',
  crashedWaiting: 'Posthoc stopped while this action waited for approval; it never ran and changed nothing.',
  afterFailed: (error: string) =>
    `Posthoc could not take the checkpoint after this action (${error}), so what it changed is not recorded yet and cannot be undone yet. ` +
    'Free space on the disk of Posthoc\'s data folder (or fix the cause above), then run any posthoc command or start the app: it records the changes and makes them undoable.',
} as const;

/** The abort reason of a run ended because Posthoc itself stops (not the person's Stop): its task ends "interrupted". */
export const APP_STOPPING = Symbol('posthoc-stopping');

/** Why a run's signal was aborted, in the words an interrupted action carries. */
export function stopReason(signal: AbortSignal | undefined): string {
  return signal?.reason === APP_STOPPING ? INTERRUPTED.appStopped : INTERRUPTED.stopped;
}

/** The action with these effects and its level. */
export function withEffects<A extends ActionRecord>(action: A, task: Task, files: FsEffect[], calls: Effect[], allFoldersRecorded = true): A {
  const effects = [...files, ...calls];
  return {
    ...action,
    effects,
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
