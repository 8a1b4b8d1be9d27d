// Which process owns a running task or action, and whether it is still alive. A pid alone can be reused
// after a crash, so the owner is the pid with its start time (from /proc on Linux): a live process with
// the same pid but another start time is not the owner.
import { readFileSync } from 'node:fs';

export type ProcessOwner = { pid: number | null; start: string | null };

let self: ProcessOwner | undefined;

/** This process, as recorded on the tasks and actions it runs. */
export function thisProcess(): ProcessOwner {
  self ??= { pid: process.pid, start: processStartTime(process.pid) };
  return self;
}

/** Whether a process with this pid exists (one of another user counts: signalling it is refused, not unknown). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the recorded owner has ended (or nothing was recorded: rows from before owners were kept). */
export function ownerGone(owner: ProcessOwner): boolean {
  if (owner.pid === null) return true;
  if (owner.pid === process.pid) return owner.start !== null && owner.start !== thisProcess().start;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return true;
  }
  const start = processStartTime(owner.pid);
  return owner.start !== null && start !== null && start !== owner.start;
}

/** Field 22 of /proc/PID/stat (clock ticks after boot); null where there is no /proc. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
