// A small coloured dot for a task's status; the word itself is in its label.
import type { TaskStatus } from '../../../shared/domain';

export function StatusDot({ status }: { status: TaskStatus }) {
  return <span className={`status-dot status-dot-${status}`} role="img" aria-label={status} title={status} />;
}
