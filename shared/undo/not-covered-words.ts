// Why a path is not covered by undo, in the person's words: one wording for the card's list, the level's
// reason and the CLI. Pure; a leaf like the rest of shared/.
import type { FsEffect } from '../domain';

export type NotCoveredReason = NonNullable<FsEffect['notCovered']>[number]['reason'];

export const NOT_COVERED_WHY: Record<NotCoveredReason, string> = {
  budget: 'over the folder’s undo storage budget',
  'disk-full': 'the disk was full when Posthoc tried to keep a copy',
  unreadable: 'could not be read',
  special: 'a special file (socket, pipe or device)',
  name: 'its name is not valid UTF-8',
};
