// What an action card says about an action: its changes, whether it can be undone or kept, and how an
// undo went. Pure; no React.
import type { Result } from '../../../shared/contract';
import { describeBlocker } from '../../../shared/undo/blocker-words';
import { foldGitPaths } from '../../../shared/undo/git-internals';
import { effectsOf } from '../../../shared/channels/registry';
import { assertNever, isApplied, type Action, type DbEffect, type Effect, type RestEffect, type UndoResult } from '../../../shared/domain';

export type ChangeMark = 'added' | 'modified' | 'deleted' | 'renamed';
/** `from` is the old name of a renamed path. */
export type Change = { mark: ChangeMark; channel: Effect['channel']; where: string; path: string; from?: string };

/** Every file an action changed, per folder, in the order the effects were recorded (the other channels are listed apart: calls, rows, downloads, notes, tool calls). */
export function listChanges(effects: readonly Effect[]): Change[] {
  return effectsOf(effects, 'fs').flatMap((effect) => {
    const where = effect.workspace;
    return [
      ...effect.added.map((path): Change => ({ mark: 'added', channel: 'fs', where, path })),
      ...effect.modified.map((path): Change => ({ mark: 'modified', channel: 'fs', where, path })),
      ...effect.deleted.map((path): Change => ({ mark: 'deleted', channel: 'fs', where, path })),
      ...(effect.renamed ?? []).map((r): Change => ({ mark: 'renamed', channel: 'fs', where, path: r.to, from: r.from })),
    ];
  });
}

export type ServiceCall = {
  service: string;
  method: string;
  path: string;
  status: number;
  refused: string | null;
  mutating: boolean;
  auth: string | null;
  inverse: RestEffect['inverse'] | null;
  hold: RestEffect['hold'] | null;
  undone: RestEffect['undone'] | null;
};

/** The calls an action made to services through the gateway, refused ones included. */
export function listCalls(effects: readonly Effect[]): ServiceCall[] {
  return effects.flatMap((e) =>
    e.channel === 'rest'
      ? [{ service: e.service, method: e.method, path: e.path, status: e.status, refused: e.refused, mutating: e.mutating, auth: e.auth ?? null, inverse: e.inverse ?? null, hold: e.hold ?? null, undone: e.undone ?? null }]
      : [],
  );
}

/** Calls undo would take back: sent, with a recorded inverse not yet sent. */
export function undoableCalls(effects: readonly Effect[]): ServiceCall[] {
  return listCalls(effects).filter((c) => c.inverse && c.refused === null && !(c.undone && c.undone.error === null));
}

export const changeMarker: Record<ChangeMark, string> = { added: '+', modified: '~', deleted: '\u2212', renamed: '\u2192' };

/** Undo makes sense for a finished action that changed something. */
export function canUndo(action: Action): boolean {
  return (
    isApplied(action.status) &&
    action.output.interrupted?.recorded !== false &&
    (listChanges(action.effects).length > 0 ||
      undoableDbEffects(action.effects).length > 0 ||
      undoableCalls(action.effects).length > 0 ||
      action.effects.some((e) => e.channel === 'memory' && e.refused === null))
  );
}

/** The database effects of an action, in the order they were recorded. */
export function listDbEffects(effects: readonly Effect[]): DbEffect[] {
  return effects.flatMap((e) => (e.channel === 'db' ? [e] : []));
}

/** Database effects undo has something to take back for. */
export function undoableDbEffects(effects: readonly Effect[]): DbEffect[] {
  return listDbEffects(effects).filter((e) => e.undo.kind !== 'none' && e.refused === null);
}

/** Keep marks a finished action final. */
export function canKeep(action: Action): boolean {
  return isApplied(action.status) && action.output.interrupted?.recorded !== false;
}

function joinPaths(paths: readonly string[]): string {
  return paths.join(', ');
}

/** The line shown under a card after Undo was pressed. */
export function describeUndo(result: Result<UndoResult>): { tone: 'ok' | 'warn' | 'error'; text: string; paths: string[] } {
  if (!result.ok) return { tone: 'error', text: result.error.message, paths: [] };
  const undo = result.value;
  switch (undo.outcome) {
    case 'undone': {
      const parts: string[] = [];
      if (undo.removed.length > 0) parts.push(`removed ${joinPaths(foldGitPaths(undo.removed))}`);
      if (undo.restored.length > 0) parts.push(`restored ${joinPaths(foldGitPaths(undo.restored))}`);
      if (undo.calls && undo.calls.length > 0) parts.push(`took back ${undo.calls.join('; ')}`);
      return { tone: 'ok', text: `Undone: ${parts.length > 0 ? parts.join('; ') : 'nothing needed changing'}`, paths: [] };
    }
    case 'conflict':
      // Each path with why it blocks (a later action, an edit made outside Posthoc), when main says.
      return { tone: 'warn', text: undo.message, paths: undo.blockers ? undo.blockers.map((b) => `${b.path} — ${describeBlocker(b)}`) : [...undo.paths] };
    case 'partial':
      // Some calls were taken back for good; the provider refused the next; files and rows were put back.
      return { tone: 'warn', text: undo.message, paths: [...undo.calls.map((c) => `taken back: ${c}`), `refused: ${undo.refused.what} — ${undo.refused.why}`] };
    default:
      return assertNever(undo, 'undo outcome');
  }
}

export function describeExit(action: Action): string | null {
  if (action.status === 'running' || action.status === 'awaiting-approval') return null;
  // The card's header already says "stopped", and the reason is shown beside it: only what it adds.
  if (action.output.interrupted) return action.output.interrupted.recorded ? null : 'changes not recorded yet';
  if (action.output.timedOut) return 'timed out';
  if (action.output.exitCode === null) return 'did not finish';
  return `exit code ${action.output.exitCode}`;
}
