// Ctrl-C and SIGTERM during `posthoc run`. The first stops the task the way Stop does in the app: the
// running action's processes are killed, its after-checkpoint taken and its changes recorded as an
// interrupted, undoable action, then the command exits 130. A second one exits at once; the next posthoc
// command closes what is left (see services/interrupted-actions.ts).
import type { Action } from '../../shared/domain';

export const EXIT_INTERRUPTED = 130;

/** Calls `stop` on the first SIGINT or SIGTERM; returns the function that removes the handlers. */
export function stopOnSignals(stop: () => void, say: (line: string) => void): { stopped(): boolean; release(): void } {
  let count = 0;
  const handler = () => {
    count++;
    if (count > 1) process.exit(EXIT_INTERRUPTED);
    say('\nStopping: ending the running action and recording what it changed… (press Ctrl-C again to quit at once; the next posthoc command will record it)');
    stop();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    stopped: () => count > 0,
    release() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

/** What the person reads after a stopped run: each interrupted action and how to take it back. */
export function stoppedSummary(actions: Action[]): string[] {
  const interrupted = actions.filter((a) => a.status === 'interrupted');
  if (interrupted.length === 0) return ['Stopped. No action was running.'];
  return interrupted.map((a) => {
    const changed = a.effects.some((e) => e.channel !== 'fs' || e.added.length + e.modified.length + e.deleted.length + (e.renamed?.length ?? 0) > 0);
    return changed
      ? `Stopped action ${a.seq}; what it changed is recorded. Undo it with: posthoc undo ${a.id}`
      : `Stopped action ${a.seq}; it changed nothing.`;
  });
}
