// The one interface every channel of effects implements for undo, redo and rewind: files, databases,
// memory, and service calls and MCP tool calls (one remote-inverses channel class, remote-inverses-channel.ts).
// The composition root hands the list to the saga (main/services/undo-channels.ts); package downloads are
// recorded but need no undo of their own (they land in the task's environment, removed with the task).
// Types only (no runtime code), so every layer of main/ that holds a channel can implement it.
//
// The undo saga (main/services/undo-service.ts), which names no channel, opens a session on every channel, checks every step
// first (a dry run that changes nothing and names every conflict), applies the local channels, then
// the ones whose effects leave the machine, and compensates the local steps when one of those is
// refused. A channel that leaves the machine cannot be compensated: what it sent is sent.

import type { Action, Task, UndoBlocker, UndoStep } from '../domain';

export type UndoDirection = 'undo' | 'redo';
export type UndoOperation = 'undo' | 'redo' | 'rewind';
export type ChannelName = UndoStep['channel'];

/** One undo, redo or rewind, as every channel sees it. */
export type UndoJob = {
  taskId: string;
  operation: UndoOperation;
  direction: UndoDirection;
  /** In the order they are reverted: undo and rewind newest applied first, redo oldest first. */
  actions: readonly Action[];
  /** The task's applied actions after those (a conflict they explain could be passed by a rewind). */
  later: readonly Action[];
  /** Undo and rewind: keep the person's edits in the way as copies ("NAME (your edit).ext"), then go on (files only). */
  keepCopies?: boolean;
  /**
   * The job's actions as last written, by id: a channel that writes an action's status (the files' restore,
   * in its own transaction) puts the written action here, and the saga reads statuses and publishes from it,
   * so each action's row is read once per undo. Absent: read from the store.
   */
  written?: Map<string, Action>;
  /** The task as the saga read it (once): channels name its folders and paths from it. Absent: read by id. */
  task?: Task;
};

/** What a step did, for the result, the card and the timeline. */
export type StepReport = {
  /** One line per thing done ("report.txt restored", "POST svc/slack/chat.delete sent"). */
  items: string[];
  /** File paths and database items put back, removed, or left as they are (not covered). */
  restored: string[];
  removed: string[];
  notRestored: string[];
  /** Records this step wrote elsewhere, for the timeline to link (the files' restore journal entries, as "journal:ID"). */
  refs: string[];
  /** Calls that left the machine and went through, each in its inverse's own words ("Delete the message 17.01 in C1"). */
  calls?: string[];
  /** Files: the person's edits kept as copies before their paths went back (as named to the person). */
  copies?: Array<{ path: string; copy: string }>;
};

/** Thrown by a local step's apply when it met a conflict half-way; it has put back what it did. */
export class StepRefused extends Error {
  constructor(readonly blockers: UndoBlocker[]) {
    super(`refused: ${blockers.map((b) => b.path).join(', ')}`);
    this.name = 'StepRefused';
  }
}

/** Thrown by a channel's keep when what it holds cannot be made final (a held transaction that can no longer commit): in the person's words. */
export class KeepRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeepRefused';
  }
}

export type ApplyResult =
  | { ok: true; report: StepReport }
  /** Only a channel that leaves the machine answers this way: the provider refused one of its calls. */
  | { ok: false; report: StepReport; refused: { what: string; why: string } };

export interface ChannelStep {
  /** A dry run: changes nothing anywhere and names every conflict (an empty list: it would go through). */
  check(): Promise<UndoBlocker[]>;
  /**
   * Does it. A local channel either completes or throws having changed nothing (it rolls itself back);
   * a channel that leaves the machine reports a refusal with what it already sent (in `report.items`).
   */
  apply(): Promise<ApplyResult>;
  /** Puts back what apply did (local channels only). */
  compensate(): Promise<void>;
}

export interface UndoChannel {
  readonly name: ChannelName;
  /** True when apply sends something off the machine, which nothing can take back: applied last. */
  readonly leavesMachine: boolean;
  /**
   * Runs `body` with this channel's step for the job (null: the job has nothing for this channel),
   * holding whatever must not change between the check and the apply (the files' folder locks).
   */
  session<T>(job: UndoJob, body: (step: ChannelStep | null) => Promise<T>): Promise<T>;
  /**
   * Keep: makes the action final on this channel, releasing what it holds (a held transaction commits).
   * Returns the ids of other actions that became final with it. Absent: keeping holds nothing here.
   */
  keep?(action: Action): Promise<string[]>;
  /**
   * A read-only look at what the job would meet: no checkpoint, no lock, nothing written anywhere, and cheap
   * (the timeline asks it on every read, before the click). Absent where the check is not read-only (files: it
   * takes a checkpoint; the timeline reads the files' record instead) or not cheap (databases: a dry run of the
   * whole undo).
   */
  preview?(job: UndoJob): Promise<UndoBlocker[]>;
}

/** A channel's preview when its check is already read-only and takes no lock: its session's check. */
export function previewByCheck(channel: UndoChannel, job: UndoJob): Promise<UndoBlocker[]> {
  return channel.session(job, async (step) => (step ? step.check() : []));
}
