// The files channel's records: the effect an action leaves (stored with the action) and its step in the
// reverse plan. zod only, so shared/domain can build its unions from the registry without a cycle.
import { z } from 'zod';

export const FsEffect = z.object({
  channel: z.literal('fs'),
  workspace: z.string(),
  added: z.array(z.string()),
  modified: z.array(z.string()),
  deleted: z.array(z.string()),
  checkpointBefore: z.string(),
  checkpointAfter: z.string(),
  /** Files (or whole folders, "a/" → "b/") moved with their content unchanged; not repeated in added/deleted. */
  renamed: z.array(z.object({ from: z.string(), to: z.string() })).optional(),
  /** Paths the checkpoints before or after this action could not hold ("not covered by undo"). */
  notCovered: z
    .array(
      z.object({
        path: z.string(),
        /**
         * budget: over the folder's storage budget; special: a socket, pipe or device; name: not valid UTF-8;
         * unreadable; disk-full: the disk of Posthoc's data folder was full when the checkpoint tried to keep it.
         */
        reason: z.enum(['budget', 'special', 'name', 'unreadable', 'disk-full']),
        size: z.number().nullable(),
        when: z.enum(['before', 'after', 'both']),
        /** The action changed or removed it, so undo cannot bring back what it held. */
        changed: z.boolean(),
      }),
    )
    .optional(),
  /**
   * Changes made in the folder while the action ran that were not its own (the person's, another
   * program's): recorded as edits made outside Posthoc, which no undo reverts. `ambiguous`: paths the
   * action wrote and someone else changed again after it, listed in both; undo refuses for them.
   */
  whileRunning: z
    .object({
      added: z.array(z.string()),
      modified: z.array(z.string()),
      deleted: z.array(z.string()),
      renamed: z.array(z.object({ from: z.string(), to: z.string() })),
      ambiguous: z.array(z.string()),
    })
    .optional(),
  /** Set when changes made by others while the action ran could not be told apart from its own (all were taken for its own): why. */
  unattributed: z.string().optional(),
  /**
   * Paths the action (root in its container, which may chown) left owned by someone else than the folder's
   * owner, given back to that owner after it (at most 50 named; `ownersRestoredCount` is the whole count).
   */
  ownersRestored: z.array(z.string()).optional(),
  ownersRestoredCount: z.number().int().nonnegative().optional(),
});
export type FsEffect = z.infer<typeof FsEffect>;

/** Its step in a reverse plan: what undo removes, restores and moves back in one folder. */
export const FilesStep = z.object({
  channel: z.literal('fs'),
  workspace: z.string(),
  /** Paths the action created (or moved here): removed. */
  remove: z.array(z.string()),
  /** Paths it changed, deleted or moved away: brought back from the checkpoint before it. */
  restore: z.array(z.string()),
  /** Moves taken back (`to` goes back to `from`), also listed in remove and restore. */
  moveBack: z.array(z.object({ from: z.string(), to: z.string() })),
  /** Paths whose earlier content is not covered by undo: left as they are. */
  leave: z.array(z.string()),
  /** Paths someone else also changed while the action ran: undo refuses while they hold that edit. */
  ambiguous: z.array(z.string()),
});
export type FilesStep = z.infer<typeof FilesStep>;
