// The memory channel's records: the effect an action leaves (stored with the action) and its step in the
// reverse plan. zod only, so shared/domain can build its unions from the registry without a cycle.
import { z } from 'zod';

/**
 * A note the agent wrote to its memory (DATA/memory.md, main/effects/memory/), appended at the file's end.
 * Undo takes it off again only while the file is exactly as the write left it (its sha256): an edit by the
 * person since makes undo refuse, naming the memory.
 */
export const MemoryEffect = z.object({
  channel: z.literal('memory'),
  /** The note as the agent gave it. */
  note: z.string(),
  /** The exact text appended to the file (the note as a Markdown list item). */
  appended: z.string(),
  /** sha256 of the file's text before and after the write. */
  beforeSha256: z.string(),
  afterSha256: z.string(),
  /** Set when the write was refused (memory off for the task, over its bound); nothing was written. */
  refused: z.string().nullable(),
});
export type MemoryEffect = z.infer<typeof MemoryEffect>;

/** Its step in a reverse plan: the note taken off the memory. */
export const MemoryStep = z.object({ channel: z.literal('memory'), note: z.string() });
export type MemoryStep = z.infer<typeof MemoryStep>;
