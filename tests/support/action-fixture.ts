// One recorded action for unit tests of what the renderer and the CLI show: a finished Python action that
// changed nothing, every field given; a test overrides what it is about (status, effects, output, …).
import type { Action } from '../../shared/domain';

export function actionFixture(over: Partial<Action> = {}): Action {
  return {
    id: 'a1',
    taskId: 't1',
    seq: 1,
    kind: 'code',
    language: 'python',
    source: 'x',
    status: 'done',
    output: { stdout: '', stderr: '', exitCode: 0, timedOut: false, truncated: false },
    effects: [],
    reverse: { state: 'ready', folders: 0, steps: [], irreversible: [], takenBack: [] },
    messageId: null,
    confinement: { level: 'reversible', reason: '' },
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: null,
    undoneAt: null,
    ...over,
  };
}

/** The output of an action still running (no exit code yet). */
export const RUNNING_OUTPUT: Action['output'] = { stdout: '', stderr: '', exitCode: null, timedOut: false, truncated: false };
