// A task's budget as people write it (--budget, Settings → Spending): tokens or dollars, and the price of a
// model's tokens. Read by main (the meter) and by the settings declaration (shared/settings), which refuses a
// budget it cannot read and a price that is not one.
import { z } from 'zod';

/** A model's price, US dollars per million tokens, prompt and completion. */
export const ModelPrice = z.object({ promptPerMTok: z.number().nonnegative(), completionPerMTok: z.number().nonnegative() });
export type ModelPrice = z.infer<typeof ModelPrice>;

export type Budget = { tokens: number } | { usd: number };

/** Reads `50000`, `50k`, `1.5M` (tokens) or `$0.50`, `0.50$`, `0.5usd` (dollars); null when it is neither. */
export function parseBudget(text: string): Budget | null {
  const t = text.trim().toLowerCase().replace(/[_,]/g, '');
  const usd = /^\$\s*(\d+(?:\.\d+)?)$|^(\d+(?:\.\d+)?)\s*(?:\$|usd)$/.exec(t);
  if (usd) {
    const value = Number(usd[1] ?? usd[2]);
    return value > 0 ? { usd: value } : null;
  }
  const tokens = /^(\d+(?:\.\d+)?)\s*(k|m)?(?:\s*tokens?)?$/.exec(t);
  if (!tokens) return null;
  const value = Math.round(Number(tokens[1]) * (tokens[2] === 'k' ? 1_000 : tokens[2] === 'm' ? 1_000_000 : 1));
  return value > 0 ? { tokens: value } : null;
}
