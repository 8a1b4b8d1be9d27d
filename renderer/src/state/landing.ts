// Where a window opens: a reopened window or tab lands on the task that is running (the newest one), or on
// the task a restart of Posthoc just interrupted when it is the last one touched, so Continue is one click
// away; otherwise on New task. Pure: the store calls it once, with the first task list.
import type { Task } from '../../../shared/domain';

export function landingTask(tasks: readonly Task[]): string | null {
  const newest = (list: readonly Task[]) => [...list].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0))[0];
  const running = newest(tasks.filter((t) => t.status === 'running'));
  if (running) return running.id;
  const last = newest(tasks);
  return last?.status === 'interrupted' ? last.id : null;
}
