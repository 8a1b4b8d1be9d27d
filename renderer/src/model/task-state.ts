// What a task's state reads on screen. The store keeps a finished task "done"; once its actions were
// undone from the newest back (a rewind, or undos in that order) the person's folder is as before them, so
// the header says "rewound", the plan says its steps were undone, and the answer says what it describes was
// taken back: no sentence on screen contradicts the record. Pure; no React.
import type { Action, Task } from '../../../shared/domain';
import { isApplied } from '../../../shared/domain';
import { canUndo } from './action-summary';

export type TaskStateView = {
  /** The word the header shows: the task's status, or "rewound". */
  word: string;
  /** all: every action that changed something is undone; partly: the latest ones are; null: not rewound. */
  rewound: 'all' | 'partly' | null;
  /** The actions undone from the newest back (ascending seq). */
  undoneSeqs: number[];
  /** "rewound to before action 3", for a title and the plan. */
  detail: string | null;
};

/** An action that changed something, or did before it was undone. */
function changedSomething(action: Action): boolean {
  return action.status === 'undone' || canUndo(action);
}

export function taskState(task: Pick<Task, 'status'>, actions: readonly Action[]): TaskStateView {
  const plain: TaskStateView = { word: task.status, rewound: null, undoneSeqs: [], detail: null };
  if (task.status === 'running') return plain;
  const changing = actions.filter(changedSomething).sort((a, b) => a.seq - b.seq);
  const undone = changing.filter((a) => a.status === 'undone');
  if (undone.length === 0) return plain;
  // Rewound only when the undone ones are the latest: an undo of an early action alone is not a rewind.
  const firstUndone = undone[0]!.seq;
  if (changing.some((a) => a.seq > firstUndone && isApplied(a.status))) return plain;
  const undoneSeqs = undone.map((a) => a.seq);
  const all = undone.length === changing.length;
  return {
    word: 'rewound',
    rewound: all ? 'all' : 'partly',
    undoneSeqs,
    detail: `rewound to before action ${firstUndone}`,
  };
}

function seqList(seqs: readonly number[]): string {
  return seqs.length === 1 ? String(seqs[0]) : `${seqs.slice(0, -1).join(', ')} and ${seqs[seqs.length - 1]}`;
}

/** The plan's heading once the task was rewound: "Plan · rewound: its 5 done steps were undone". */
export function planRewoundWords(state: TaskStateView, plan: readonly { done: boolean }[]): string | null {
  if (state.rewound === null) return null;
  const done = plan.filter((p) => p.done).length;
  if (state.rewound === 'all') return done === 0 ? 'rewound: nothing of it is in effect' : `rewound: ${done === 1 ? 'its done step was' : `its ${done} done steps were`} undone`;
  return `${done} of ${plan.length} done, then ${state.detail!}`;
}

/** The note above the answer once the task was rewound. */
export function answerRewoundWords(state: TaskStateView): string | null {
  if (state.rewound === null) return null;
  return state.rewound === 'all'
    ? 'Rewound since: what this answer describes was undone; the folders, databases and services are as before the task.'
    : `Rewound since: ${state.undoneSeqs.length === 1 ? 'action' : 'actions'} ${seqList(state.undoneSeqs)} ${state.undoneSeqs.length === 1 ? 'was' : 'were'} undone, so part of what this answer describes no longer holds.`;
}
