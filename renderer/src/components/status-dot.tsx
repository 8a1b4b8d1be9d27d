// A small coloured dot for a task's status; the word itself is in its label.
import type { TaskStatus } from '../../../shared/domain';

/** 'rewound': a finished task whose latest actions were undone (model/task-state.ts): a quiet dot, not done's green. */
export function StatusDot({ status }: { status: TaskStatus | 'rewound' }) {
  return <span className={`status-dot status-dot-${status}`} role="img" aria-label={status} title={status} />;
}
