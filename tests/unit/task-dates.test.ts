// The sidebar's dates, groups and search (renderer/src/model/task-dates.ts), with a fixed clock in local time.
import { describe, expect, it } from 'vitest';
import { dateWords, dayGroup, filterTasks, groupTasks } from '../../renderer/src/model/task-dates';

// Wednesday 25 November 2026, 14:30 local time.
const now = new Date(2026, 10, 25, 14, 30);
const at = (y: number, m: number, d: number, h = 0, min = 0): string => new Date(y, m, d, h, min).toISOString();

describe('dayGroup', () => {
  it('splits by the local calendar day, midnight included', () => {
    expect(dayGroup(at(2026, 10, 25, 0, 0), now)).toBe('today');
    expect(dayGroup(at(2026, 10, 25, 14, 29), now)).toBe('today');
    expect(dayGroup(at(2026, 10, 24, 23, 59), now)).toBe('yesterday');
    expect(dayGroup(at(2026, 10, 24, 0, 0), now)).toBe('yesterday');
    expect(dayGroup(at(2026, 10, 23, 23, 59), now)).toBe('earlier');
  });

  it('yesterday across a month and a year boundary', () => {
    expect(dayGroup(at(2026, 10, 30, 9), new Date(2026, 11, 1, 8))).toBe('yesterday');
    expect(dayGroup(at(2025, 11, 31, 22), new Date(2026, 0, 1, 1))).toBe('yesterday');
    expect(dayGroup(at(2025, 11, 30, 22), new Date(2026, 0, 1, 1))).toBe('earlier');
  });

  it('a clock running behind (a task dated after now) counts as today', () => {
    expect(dayGroup(at(2026, 10, 25, 18), now)).toBe('today');
  });
});

describe('dateWords', () => {
  it('today the time, then "Yesterday", then the date, with the year only when it is not this one', () => {
    expect(dateWords(at(2026, 10, 25, 9, 5), now, 'en-GB')).toBe('9:05');
    expect(dateWords(at(2026, 10, 25, 9, 5), now, 'en-US')).toMatch(/^9:05\sAM$/);
    expect(dateWords(at(2026, 10, 24, 9, 5), now, 'en-GB')).toBe('Yesterday');
    expect(dateWords(at(2026, 2, 3, 9, 5), now, 'en-GB')).toBe('3 Mar');
    expect(dateWords(at(2024, 2, 3, 9, 5), now, 'en-GB')).toBe('3 Mar 2024');
    expect(dateWords(at(2026, 2, 3, 9, 5), now, 'en-US')).toBe('Mar 3');
  });

  it('an unreadable date is no words, not "Invalid Date"', () => {
    expect(dateWords('not a date', now, 'en-GB')).toBe('');
  });
});

describe('groupTasks', () => {
  it('keeps the order given, leaves out empty groups, Today before Yesterday before Earlier', () => {
    const tasks = [
      { id: 'a', createdAt: at(2026, 10, 25, 13) },
      { id: 'b', createdAt: at(2026, 10, 25, 8) },
      { id: 'c', createdAt: at(2026, 9, 1) },
      { id: 'd', createdAt: at(2025, 0, 1) },
    ];
    expect(groupTasks(tasks, now).map((g) => [g.label, g.tasks.map((t) => t.id)])).toEqual([
      ['Today', ['a', 'b']],
      ['Earlier', ['c', 'd']],
    ]);
    expect(groupTasks([{ id: 'y', createdAt: at(2026, 10, 24, 12) }], now).map((g) => g.label)).toEqual(['Yesterday']);
    expect(groupTasks([], now)).toEqual([]);
  });
});

describe('filterTasks', () => {
  const tasks = [
    { id: '1', title: 'Sum the sales by region', prompt: 'add up sales.csv per region' },
    { id: '2', title: 'Rename the photos', prompt: 'rename my holiday PICTURES by date' },
    { id: '3', title: 'Old task' },
  ];
  const ids = (query: string) => filterTasks(tasks, query).map((t) => t.id);

  it('matches the title or the first message, ignoring case', () => {
    expect(ids('SALES')).toEqual(['1']);
    expect(ids('pictures')).toEqual(['2']);
    expect(ids('holiday rename')).toEqual(['2']);
    expect(ids('task')).toEqual(['3']);
  });

  it('every word must match; a blank query keeps all; nothing matching gives none', () => {
    expect(ids('sales photos')).toEqual([]);
    expect(ids('   ')).toEqual(['1', '2', '3']);
    expect(ids('zebra')).toEqual([]);
  });

  it('hostile: regular-expression characters are plain text', () => {
    expect(ids('.*')).toEqual([]);
    expect(ids('(')).toEqual([]);
  });
});
