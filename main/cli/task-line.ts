// One task as `posthoc tasks` prints it. Apart from format.ts so that listing tasks loads the task's schema
// alone (shared/domain/task.ts), not the whole domain's (issue 28).
import { TaskStatus, type Task } from '../../shared/domain/task';

/** The widest status ('interrupted'), so every line of `posthoc tasks` keeps its columns. */
const STATUS_WIDTH = Math.max(...TaskStatus.options.map((s) => s.length));

export function formatTaskLine(task: Task): string {
  return `${task.id}  ${task.status.padEnd(STATUS_WIDTH)}  ${task.createdAt.slice(0, 19).replace('T', ' ')}  ${task.title}`;
}

