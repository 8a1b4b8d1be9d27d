// The shape of the contract's handlers: one function per call of shared/contract, its input parsed, its
// output what the contract says. Each file beside this one answers one domain's part; index.ts joins them.
import type { z } from 'zod';
import type { CallName, CallOutput, calls } from '../../../shared/contract';

export type Handlers = {
  [K in CallName]: (input: z.infer<(typeof calls)[K]['input']>) => Promise<CallOutput<K>>;
};

/** The handlers of the calls named N: what one domain's file exports. */
export type HandlersOf<N extends CallName> = Pick<Handlers, N>;
