// Docker engines a task may run on (issue 30): this machine's ("local") and remote ones the person added.
import { z } from 'zod';

export const EngineView = z.object({
  name: z.string(),
  kind: z.enum(['local', 'tcp', 'ssh', 'context']),
  /** tcp://HOST:PORT, ssh://USER@HOST:PORT or "context NAME"; never a key. */
  address: z.string(),
  /** Whether a tcp engine's client key is in the keychain. */
  keySet: z.boolean(),
});
export type EngineView = z.infer<typeof EngineView>;

/** What checking an engine found: it answers, its Docker, the ping's round trip, the sandbox image there. */
export const EngineCheck = z.object({
  name: z.string(),
  reachable: z.boolean(),
  version: z.string().nullable(),
  os: z.string().nullable(),
  architecture: z.string().nullable(),
  roundTripMs: z.number().nullable(),
  image: z.string(),
  imagePresent: z.boolean(),
  imageId: z.string().nullable(),
  /** What to do when the engine cannot run tasks yet; null when it can. */
  problem: z.string().nullable(),
});
export type EngineCheck = z.infer<typeof EngineCheck>;

export const EngineImageSent = z.object({ name: z.string(), image: z.string(), imageId: z.string(), sent: z.boolean(), bytes: z.number().int().nonnegative() });
export type EngineImageSent = z.infer<typeof EngineImageSent>;
