// Per-step timings of database actions, for `npm run bench:db` only: off (a no-op) unless the bench turns
// it on. Steps are named by the code that runs them; each mark closes the step begun by the previous one.
let current: Map<string, number> | null = null;
let last = 0;

export const stepTimer = {
  /** Starts recording (the bench, once per measured run); returns the map that fills. */
  start(): Map<string, number> {
    current = new Map();
    last = performance.now();
    return current;
  },
  stop(): void {
    current = null;
  },
  /** Begins timing from now, without charging the time since the last mark to any step. */
  reset(): void {
    if (current) last = performance.now();
  },
  /** The time since the last mark (or reset) is charged to `step`. */
  mark(step: string): void {
    if (!current) return;
    const now = performance.now();
    current.set(step, (current.get(step) ?? 0) + now - last);
    last = now;
  },
};
