// `posthoc tasks`: one line per task whose columns stay in line whatever the status, 'interrupted' (the widest) too.
import { describe, expect, it } from 'vitest';
import { formatTaskLine } from '../../main/cli/format';
import { TaskStatus, type Task } from '../../shared/domain';

const task = (status: TaskStatus): Task => ({
  id: 't-1',
  title: 'tidy the folder',
  status,
  workspaces: [],
  services: [],
  model: 'scripted',
  answer: null,
  error: null,
  createdAt: '2026-11-28T12:00:00.000Z',
  updatedAt: '2026-11-28T12:00:00.000Z',
});

describe('posthoc tasks', () => {
  it('puts the date and the title in the same column for every status', () => {
    const lines = TaskStatus.options.map((s) => formatTaskLine(task(s)));
    const at = lines.map((l) => l.indexOf('2026-11-28 12:00:00'));
    expect(new Set(at).size).toBe(1);
    expect(lines.find((l) => l.includes('interrupted'))).toBe('t-1  interrupted  2026-11-28 12:00:00  tidy the folder');
  });
});
