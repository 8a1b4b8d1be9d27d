// The packages channel's records: the effect an action leaves (stored with the action) and its step in the
// reverse plan. zod only, so shared/domain can build its unions from the registry without a cycle.
import { z } from 'zod';

/**
 * A package file the sandbox's pip or npm fetched through the gateway's package routes. It lands in the
 * task's own environment (a volume removed with the task), never in a granted folder: no undo needed.
 */
export const PackagesEffect = z.object({
  channel: z.literal('packages'),
  manager: z.enum(['pip', 'npm', 'apt']),
  name: z.string(),
  /** From the file's name (pip) or the tarball's (npm); '' when it cannot be told. */
  version: z.string(),
  /** Where the file came from: the upstream URL, or 'cache' when the host's cache served it. */
  source: z.string(),
  file: z.string().optional(),
  sha256: z.string().optional(),
  bytes: z.number().int().optional(),
  /** Set when the gateway refused it (fetching off, not allowed, hash mismatch); nothing was served. */
  refused: z.string().nullable().optional(),
});
export type PackagesEffect = z.infer<typeof PackagesEffect>;
