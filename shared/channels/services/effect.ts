// The services channel's records: the effect an action leaves (stored with the action) and its step in the
// reverse plan. zod only, so shared/domain can build its unions from the registry without a cycle.
import { z } from 'zod';
import { RestHold, RestInverse } from '../../domain/connections';

/** One HTTP call an action made through the gateway to a granted service. */
export const RestEffect = z.object({
  channel: z.literal('rest'),
  service: z.string(),
  method: z.string(),
  /** Path below the service's base URL, with the query string. */
  path: z.string(),
  status: z.number().int(),
  durationMs: z.number(),
  requestBytes: z.number().int(),
  responseBytes: z.number().int(),
  /** GET, HEAD and OPTIONS read; anything else may change the remote side. */
  mutating: z.boolean(),
  /** Set when the gateway refused the call (not granted, not allowed); nothing left the machine. */
  refused: z.string().nullable(),
  /** How the gateway added credentials: 'oauth:PROVIDER', 'bearer SECRET-NAME'; names only, null for none. */
  auth: z.string().nullable().optional(),
  /** Whose provider data described the call (its inverse rules), if any. */
  api: z.string().nullable().optional(),
  /** The request's body and the response's, cut short, with every secret redacted. */
  request: z.string().nullable().optional(),
  response: z.string().nullable().optional(),
  /** The exact call undo sends to take this one back; null when none is known (irreversible). */
  inverse: RestInverse.nullable().optional(),
  /** Set when the gateway kept the call back: a send's window or a wait for approval. */
  hold: RestHold.nullable().optional(),
  /** Set once undo sent the inverse: its HTTP status, and the error when the provider refused it. */
  undone: z.object({ status: z.number().int(), at: z.string(), error: z.string().nullable() }).nullable().optional(),
});
export type RestEffect = z.infer<typeof RestEffect>;

/** Its step in a reverse plan: the exact inverse call, sent through the gateway with the service's credentials. */
export const ServicesStep = z.object({
  channel: z.literal('rest'),
  service: z.string(),
  method: z.string(),
  path: z.string(),
  body: z.string().nullable(),
  summary: z.string(),
});
export type ServicesStep = z.infer<typeof ServicesStep>;
