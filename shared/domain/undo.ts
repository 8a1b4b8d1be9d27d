// Schemas of the undo engine: redo and rewind answers, the undo timeline of a task, one file's diff, and
// the storage budgets of checkpoints. A leaf like the rest of shared/: zod only.
import { z } from 'zod';
import { Action, KeptCopy, PartialUndo, UndoBlocker, UndoStep } from './index';

const Paths = z.array(z.string());

export const RedoResult = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('redone'), action: Action, restored: Paths, removed: Paths, notRestored: Paths, steps: z.array(UndoStep).optional() }),
  z.object({ outcome: z.literal('conflict'), action: Action, paths: Paths, message: z.string(), blockers: z.array(UndoBlocker), steps: z.array(UndoStep).optional() }),
]);
export type RedoResult = z.infer<typeof RedoResult>;

export const RewindResult = z.discriminatedUnion('outcome', [
  z.object({
    outcome: z.literal('rewound'),
    action: Action,
    /** Every action the rewind undid, newest first (the chosen one last). */
    undone: z.array(Action),
    restored: Paths,
    removed: Paths,
    notRestored: Paths,
    /** With `keepCopies`: the person's edits kept as copies before their files went back. */
    copies: z.array(KeptCopy).optional(),
    steps: z.array(UndoStep).optional(),
  }),
  z.object({
    outcome: z.literal('conflict'),
    action: Action,
    paths: Paths,
    message: z.string(),
    blockers: z.array(UndoBlocker),
    /** Every blocker is a file the person changed: rewind with `keepCopies` keeps each edit as a copy and goes through. */
    canKeepCopies: z.boolean().optional(),
    steps: z.array(UndoStep).optional(),
  }),
  PartialUndo,
]);
export type RewindResult = z.infer<typeof RewindResult>;

/** Whether an operation is possible from what the history says (the folder is checked again when it runs). */
export const Availability = z.object({
  possible: z.boolean(),
  /** Why not, in words. */
  reason: z.string().nullable(),
  blockers: z.array(UndoBlocker),
});
export type Availability = z.infer<typeof Availability>;

export const ChangeLists = z.object({
  added: Paths,
  modified: Paths,
  deleted: Paths,
  renamed: z.array(z.object({ from: z.string(), to: z.string() })),
});
export type ChangeLists = z.infer<typeof ChangeLists>;

export const TimelineEntry = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('action'),
    at: z.string(),
    action: Action,
    undo: Availability,
    redo: Availability,
    /**
     * Rewind to before this action. `count`: how many actions it would undo — those of the timeline's
     * `rewindOrder` whose seq is at least this action's, in that order (`rewindSeqsOf`); 0 when the action
     * is not applied (no rewind starts here). The list itself is the timeline's, given once (issue 27).
     */
    rewind: Availability.extend({ count: z.number().int().nonnegative() }),
  }),
  /** Edits made outside Posthoc, found by the checkpoint taken before an action or an undo. Never undone. */
  z.object({ kind: z.literal('external'), at: z.string(), workspace: z.string(), changes: ChangeLists }),
  z.object({
    kind: z.literal('operation'),
    at: z.string(),
    operation: z.enum(['undo', 'redo', 'rewind']),
    actionSeqs: z.array(z.number().int()),
    state: z.enum(['pending', 'completed', 'rolled-back']),
    /** Finished by crash recovery when Posthoc next started. */
    recovered: z.boolean(),
    note: z.string().nullable(),
    /** done, refused (nothing changed), or partial (some service calls taken back, the rest refused). */
    outcome: z.enum(['done', 'refused', 'partial']),
    /** Each channel's part, with its result (empty for an operation recorded before channels were). */
    steps: z.array(UndoStep),
  }),
]);
export type TimelineEntry = z.infer<typeof TimelineEntry>;

export const Timeline = z.object({
  taskId: z.string(),
  /**
   * The seqs of every action of the task that is not undone, in the order a rewind undoes them: newest
   * applied first (an action is applied when it finished or was last redone). A rewind to before action N
   * undoes the ones that are N or later, in this order. Once per timeline, not once per row: each row's
   * list would make the answer grow with the square of the actions (issue 27).
   */
  rewindOrder: z.array(z.number().int()),
  entries: z.array(TimelineEntry),
});
export type Timeline = z.infer<typeof Timeline>;

/**
 * The seqs a rewind to before this row's action undoes, newest applied first: the timeline's rewind order
 * from the action's seq on. Empty when no rewind starts here (`rewind.count` 0). Without redos the order is
 * newest first and the answer is its first `count` seqs; after a redo it is filtered.
 */
export function rewindSeqsOf(rewindOrder: readonly number[], entry: { action: { seq: number }; rewind: { count: number } }): number[] {
  const { count } = entry.rewind;
  if (count === 0) return [];
  const from = entry.action.seq;
  const prefix = rewindOrder.slice(0, count);
  return prefix.every((s) => s >= from) ? prefix : rewindOrder.filter((s) => s >= from);
}

export const DiffSide = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string(), size: z.number().int(), executable: z.boolean() }),
  z.object({
    kind: z.literal('binary'),
    /** binary: not text; too-large: text, but too long to show. */
    reason: z.enum(['binary', 'too-large']),
    size: z.number().int(),
    sha256: z.string(),
    executable: z.boolean(),
  }),
  z.object({ kind: z.literal('link'), target: z.string() }),
  z.object({ kind: z.literal('folder') }),
  z.object({ kind: z.literal('not-covered') }),
]);
export type DiffSide = z.infer<typeof DiffSide>;

export const FileDiff = z.object({
  actionId: z.string(),
  workspace: z.string(),
  path: z.string(),
  /** The name before a rename. */
  oldPath: z.string().nullable(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  before: DiffSide.nullable(),
  after: DiffSide.nullable(),
});
export type FileDiff = z.infer<typeof FileDiff>;

export const UndoStorage = z.object({
  /** Bytes of large files each folder's checkpoints may hold unless the folder has its own budget. */
  defaultBudgetBytes: z.number().int().nonnegative(),
  /** Files at least this large count against the budget; smaller files are always covered. */
  largeFileBytes: z.number().int().positive(),
  folders: z.array(
    z.object({
      folder: z.string(),
      budgetBytes: z.number().int().nonnegative(),
      custom: z.boolean(),
      /** Bytes of large files its checkpoints hold now. */
      usedBytes: z.number().int().nonnegative(),
    }),
  ),
});
export type UndoStorage = z.infer<typeof UndoStorage>;
