// The sidebar's dates and search, as pure functions of a clock: a task's date in plain words (today the time,
// "Yesterday", else the date), its group (Today / Yesterday / Earlier) and the filter the search box applies.
import type { Task } from '../../../shared/domain';

export type DayGroup = 'today' | 'yesterday' | 'earlier';

export const GROUP_LABELS: Record<DayGroup, string> = { today: 'Today', yesterday: 'Yesterday', earlier: 'Earlier' };

/** Midnight (local time) of the day `at` falls on. */
function dayStart(at: Date): number {
  return new Date(at.getFullYear(), at.getMonth(), at.getDate()).getTime();
}

/** Which group a moment falls in, by the local calendar day (a moment after now counts as today). */
export function dayGroup(iso: string, now: Date): DayGroup {
  const at = new Date(iso);
  const today = dayStart(now);
  if (at.getTime() >= today) return 'today';
  const yesterday = dayStart(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1));
  return at.getTime() >= yesterday ? 'yesterday' : 'earlier';
}

/** A task's date in plain words: today the time ("14:05"), "Yesterday", this year "3 Mar", before "3 Mar 2024". */
export function dateWords(iso: string, now: Date, locale?: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  switch (dayGroup(iso, now)) {
    case 'today':
      return new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit' }).format(at);
    case 'yesterday':
      return 'Yesterday';
    case 'earlier':
      return new Intl.DateTimeFormat(locale, {
        day: 'numeric',
        month: 'short',
        ...(at.getFullYear() === now.getFullYear() ? {} : { year: 'numeric' }),
      }).format(at);
  }
}

/** The full date and time, for a tooltip and the screen reader's datetime. */
export function fullDate(iso: string, locale?: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? '' : new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(at);
}

/** The tasks in groups, in the order given (newest first), empty groups left out. */
export function groupTasks<T extends Pick<Task, 'createdAt'>>(tasks: readonly T[], now: Date): { group: DayGroup; label: string; tasks: T[] }[] {
  const groups = new Map<DayGroup, T[]>();
  for (const task of tasks) {
    const group = dayGroup(task.createdAt, now);
    groups.set(group, [...(groups.get(group) ?? []), task]);
  }
  return (['today', 'yesterday', 'earlier'] as const).flatMap((group) => {
    const inGroup = groups.get(group);
    return inGroup ? [{ group, label: GROUP_LABELS[group], tasks: inGroup }] : [];
  });
}

/** The tasks whose title or first message holds every word of the query, ignoring case; all of them for a blank query. */
export function filterTasks<T extends Pick<Task, 'title'> & { prompt?: string }>(tasks: readonly T[], query: string): T[] {
  const words = query.toLocaleLowerCase().split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return [...tasks];
  return tasks.filter((task) => {
    const text = `${task.title}\n${task.prompt ?? ''}`.toLocaleLowerCase();
    return words.every((w) => text.includes(w));
  });
}
