// The owner of a running task or action: alive only while the very process that started it runs.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ownerGone, thisProcess } from '../../main/platform/process-owner';

describe('process owners', () => {
  it('this process is alive; a process that ended, a reused pid and an unknown owner are gone', () => {
    const me = thisProcess();
    expect(me.pid).toBe(process.pid);
    expect(ownerGone(me)).toBe(false);
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    expect(ownerGone({ pid: Number(ended.stdout), start: null })).toBe(true);
    if (me.start !== null) {
      // Same pid, another start time: the pid was reused by a process that is not the owner.
      expect(ownerGone({ pid: process.pid, start: String(Number(me.start) - 1) })).toBe(true);
      expect(ownerGone({ pid: process.ppid, start: '1' })).toBe(true);
    }
    expect(ownerGone({ pid: null, start: null })).toBe(true);
  });
});
