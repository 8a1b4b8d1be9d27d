// At most one running action per granted folder, across tasks and processes: an action holds the folder's
// lease from its checkpoint before to the end of its checkpoint after, so the difference between the two
// is one action's window and no other action's writes (docs/ARCHITECTURE.md, "Attribution"). The lease is
// a file in the folder's shadow repository naming the process, task and action; in this process a map
// says which of its actions hold which folders. A lease whose process is gone is stale and taken over.
//
// Take and check a lease only while holding the folder's lock (folder-lock.ts): a second action, or an
// undo, checks under the same lock, so it sees either no lease or one whose action is still running.
//
// A folder's lease also covers every folder inside it and every folder it lies inside (two tasks granted
// ~/project and ~/project/app): an action in the outer folder changes the inner one's files, so the two may
// not share a window either. The folders hold different locks, so the lease is written first and the other
// leases checked after: of two overlapping leases written at once, the later one (by the time it was
// written) gives way, and each sees the other.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { processAlive, processStartTime } from '../../platform/process-owner';

export type LeaseHolder = {
  pid: number;
  /** The process's start time (Linux: /proc/PID/stat), so a pid reused after a crash is not taken for the holder. */
  started: string | null;
  taskId: string | null;
  actionId: string;
  taskTitle: string | null;
  actionSeq: number | null;
  since: string;
  /** The folder leased (absent in leases of earlier versions: they cover their own folder only). */
  folder?: string;
  /** When it was written, in nanoseconds since the epoch: which of two overlapping leases gives way. */
  sinceNs?: string;
};

export type LeaseLabel = { taskTitle?: string | null; actionSeq?: number | null };

export class FolderBusy extends Error {
  constructor(
    message: string,
    readonly folder: string,
    readonly holder: LeaseHolder,
  ) {
    super(message);
  }
}

const LEASE_FILE = 'posthoc.lease';

/**
 * gitdir → the lease an action of this process holds there. One map for the whole process, as the lease
 * file names only the pid: two sets of services in one process must see each other's leases as live.
 */
const mine = new Map<string, LeaseHolder>();

export class FolderLeases {
  /** `root`: the folder holding every folder's shadow repository (where overlapping leases are found). */
  constructor(private readonly root: string | null = null) {}

  /**
   * The live holder of a lease on this folder, or on a folder it lies inside or that lies inside it; null
   * when none (stale lease files are removed).
   */
  holderCovering(gitdir: string, folder: string): LeaseHolder | null {
    return this.holder(gitdir) ?? this.overlapping(gitdir, folder);
  }

  /** The live holder of a folder's lease, or null (a stale lease file is removed). */
  holder(gitdir: string): LeaseHolder | null {
    const path = join(gitdir, LEASE_FILE);
    let held: LeaseHolder;
    try {
      held = JSON.parse(readFileSync(path, 'utf8')) as LeaseHolder;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      // Half-written or foreign content: no process can be holding it.
      rmSync(path, { force: true });
      return null;
    }
    if (this.live(gitdir, held)) return held;
    rmSync(path, { force: true });
    return null;
  }

  /**
   * Takes the lease for an action on `folder` (its shadow repository `gitdir`), or returns who holds it or
   * an overlapping one. Idempotent for the same action.
   */
  take(gitdir: string, holder: Omit<LeaseHolder, 'pid' | 'started' | 'since' | 'folder' | 'sinceNs'>, folder?: string): LeaseHolder | null {
    const current = this.holder(gitdir);
    if (current) return current.actionId === holder.actionId && current.pid === process.pid ? null : current;
    const lease: LeaseHolder = {
      ...holder,
      pid: process.pid,
      started: processStartTime(process.pid),
      since: new Date().toISOString(),
      ...(folder ? { folder, sinceNs: nowNs() } : {}),
    };
    try {
      writeFileSync(join(gitdir, LEASE_FILE), `${JSON.stringify(lease)}\n`, { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // Another process wrote it between our look and our write; it holds the lease.
      return this.holder(gitdir) ?? lease;
    }
    mine.set(gitdir, lease);
    if (folder) {
      const other = this.overlapping(gitdir, folder);
      if (other && precedes(other, lease)) {
        this.release(gitdir, holder.actionId);
        return other;
      }
    }
    return null;
  }

  /** Ends an action's lease on a folder (nothing when it holds none there). */
  release(gitdir: string, actionId: string): void {
    const held = mine.get(gitdir);
    if (!held || held.actionId !== actionId) return;
    mine.delete(gitdir);
    try {
      const onDisk = JSON.parse(readFileSync(join(gitdir, LEASE_FILE), 'utf8')) as LeaseHolder;
      if (onDisk.pid === process.pid && onDisk.actionId === actionId) rmSync(join(gitdir, LEASE_FILE), { force: true });
    } catch {
      // Already gone.
    }
  }

  /** Folders (gitdirs) whose lease this action holds. */
  heldBy(actionId: string): string[] {
    return [...mine].filter(([, h]) => h.actionId === actionId).map(([g]) => g);
  }

  /** A live lease on another folder that contains this one or lies inside it. */
  private overlapping(gitdir: string, folder: string): LeaseHolder | null {
    if (!this.root) return null;
    let names: string[];
    try {
      names = readdirSync(this.root);
    } catch {
      return null;
    }
    for (const name of names) {
      const other = join(this.root, name);
      if (!name.endsWith('.git') || other === gitdir) continue;
      let held: LeaseHolder;
      try {
        held = JSON.parse(readFileSync(join(other, LEASE_FILE), 'utf8')) as LeaseHolder;
      } catch {
        continue;
      }
      if (typeof held.folder !== 'string' || !overlaps(held.folder, folder)) continue;
      // holder() checks it is live, and removes it when it is not.
      const live = this.holder(other);
      if (live) return live;
    }
    return null;
  }

  private live(gitdir: string, held: LeaseHolder): boolean {
    if (!Number.isInteger(held.pid) || typeof held.actionId !== 'string') return false;
    // This process: live only while one of its actions holds it (else an earlier life of this pid left it).
    if (held.pid === process.pid) return mine.get(gitdir)?.actionId === held.actionId;
    if (!processAlive(held.pid)) return false;
    const started = processStartTime(held.pid);
    return held.started === null || started === null || started === held.started;
  }
}

/** In words: who holds a lease ("action 3 of task "Tidy up" (Posthoc process 4121)"). */
export function describeHolder(h: LeaseHolder): string {
  const action = h.actionSeq !== null ? `action ${h.actionSeq}` : `action ${h.actionId.slice(0, 8)}`;
  const task = h.taskTitle !== null ? ` of task "${h.taskTitle}"` : h.taskId !== null ? ` of task ${h.taskId.slice(0, 8)}` : '';
  const where = h.pid === process.pid ? 'in this Posthoc process' : `Posthoc process ${h.pid}`;
  return `${action}${task} (${where}, running since ${h.since})`;
}

/** Whether one folder is the other or lies inside it. */
export function overlaps(a: string, b: string): boolean {
  const inside = (x: string, y: string) => x === y || x.startsWith(y.endsWith(sep) ? y : y + sep);
  return inside(a, b) || inside(b, a);
}

/** Of two overlapping leases, the one written first keeps it (ties: the lower pid, then action id). */
function precedes(a: LeaseHolder, b: LeaseHolder): boolean {
  const an = BigInt(a.sinceNs ?? '0');
  const bn = BigInt(b.sinceNs ?? '0');
  if (an !== bn) return an < bn;
  return a.pid !== b.pid ? a.pid < b.pid : a.actionId < b.actionId;
}

function nowNs(): string {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)).toString();
}
