// One running action per folder, across tasks and processes: a second action waits for the first one's
// lease and is refused, naming the folder and the task, when it does not end in time; an undo waits for
// a running action or is refused the same way; a lease whose process is gone is taken over.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../../main/effects/fs/checkpoint-store';
import { FolderBusy } from '../../main/effects/fs/folder-lease';
import type { Task } from '../../shared/domain';
import { OWNERS, own } from '../support/claims';
import { startUndoHarness, type UndoHarness } from '../support/undo-harness';

const open: UndoHarness[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await new Promise((r) => c.once('exit', r));
    }
  }
  for (const h of open.splice(0).reverse()) await h.close();
});

const read = (ws: string, p: string) => (existsSync(join(ws, p)) ? readFileSync(join(ws, p), 'utf8') : null);

/** Starts an action of `task` on `h` and stops it at "running": leased and checkpointed before. */
async function startAction(h: UndoHarness, task: Task, seq: number) {
  const id = randomUUID();
  await h.fs.lease(id, task.id, task.workspaces, { taskTitle: task.title, actionSeq: seq });
  const befores = await h.fs.before(id, task.workspaces, task.id);
  return { id, finish: () => h.fs.after(id, befores, { complete: true, folders: [] }) };
}

describe('a lease file', () => {
  it('is stale when its process is gone, when the pid now belongs to another process, or when it is not a lease', async () => {
    const h = await startUndoHarness({ checkpoints: { leaseWaitMs: 300 } });
    open.push(h);
    const gitdir = (await h.fs.storeFor(h.workspace)).gitdir;
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    children.push(other);
    const started = readFileSync(`/proc/${other.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
    const lease = (fields: object) => writeFileSync(join(gitdir, 'posthoc.lease'), JSON.stringify({ taskId: 't', actionId: 'a', taskTitle: 'Old', actionSeq: 1, since: 'then', ...fields }));
    const task = h.newTask('Mine');
    const attempt = async () => {
      const id = randomUUID();
      await h.fs.lease(id, task.id, task.workspaces);
      h.fs.endLease(id);
    };

    lease({ pid: other.pid, started });
    await expect(attempt()).rejects.toThrow(`action 1 of task "Old" (Posthoc process ${other.pid}`);
    // The same pid, started at another time: a process that reused the pid of a crashed Posthoc.
    lease({ pid: other.pid, started: String(Number(started) + 1) });
    await attempt();
    lease({ pid: 2 ** 22 + 1, started: null });
    await attempt();
    writeFileSync(join(gitdir, 'posthoc.lease'), 'half-writ');
    await attempt();
    expect(existsSync(join(gitdir, 'posthoc.lease'))).toBe(false);
  });
});

describe.each(OWNERS)('one running action per folder ($who)', ({ uid }) => {
  async function harness(): Promise<UndoHarness> {
    const h = await startUndoHarness({ checkpoints: { leaseWaitMs: 300, idleWaitMs: 300 } });
    open.push(h);
    own(h.workspace, uid);
    return h;
  }

  it("refuses a second task's action while the first runs, naming the folder and the task, and lets it run after", async () => {
    const h = await harness();
    // A second set of services on the same data folder, as the app and a CLI command would be.
    const other = await h.reopen({ checkpoints: { leaseWaitMs: 300 } });
    open.push(other);
    const taskA = h.newTask('Tidy the notes');
    const taskB = other.newTask('Write the report');
    const first = await startAction(h, taskA, 3);

    const refused = other.fs.lease(randomUUID(), taskB.id, taskB.workspaces, { taskTitle: taskB.title, actionSeq: 1 });
    await expect(refused).rejects.toThrow(FolderBusy);
    await expect(refused).rejects.toThrow(`${h.workspace} is in use by action 3 of task "Tidy the notes" (in this Posthoc process`);

    await first.finish();
    const second = await startAction(other, taskB, 1);
    await second.finish();
  });

  it('makes a second action wait for the first and run once it ends', async () => {
    const h = await harness();
    const waiting = await h.reopen({ checkpoints: { leaseWaitMs: 120_000 } });
    open.push(waiting);
    const taskA = h.newTask('First');
    const taskB = waiting.newTask('Second');
    const first = await startAction(h, taskA, 1);
    let leased = false;
    const second = waiting.fs.lease(randomUUID(), taskB.id, taskB.workspaces, { taskTitle: taskB.title, actionSeq: 1 }).then((release) => {
      leased = true;
      return release;
    });
    // The first action writes, and ends; the second cannot have its lease before that.
    writeFileSync(join(h.workspace, 'first.txt'), 'first\n');
    expect(leased).toBe(false);
    const [effect] = (await first.finish()).map((r) => r.effect);
    (await second)();
    expect(leased).toBe(true);
    expect(effect).toMatchObject({ added: [], whileRunning: { added: ['first.txt'] } });
  });

  it('refuses an action while another Posthoc process runs one on the folder, and takes over once that process is gone', async () => {
    const h = await harness();
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/lease-holder-child.ts', h.dataDir, h.workspace], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d) => String(d).includes('leased') && resolve());
      child.once('exit', () => reject(new Error(`the lease holder exited: ${stderr}`)));
    });
    const task = h.newTask('Mine');
    const refused = h.fs.lease(randomUUID(), task.id, task.workspaces, { taskTitle: task.title, actionSeq: 1 });
    await expect(refused).rejects.toThrow(`action 7 of task "Other task" (Posthoc process ${child.pid}`);
    const lease = JSON.parse(readFileSync(join(CheckpointStore.gitdirFor(h.workspace, join(h.dataDir, 'checkpoints')), 'posthoc.lease'), 'utf8'));
    expect(lease).toMatchObject({ pid: child.pid, taskTitle: 'Other task', actionSeq: 7 });

    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const mine = await startAction(h, task, 1);
    await mine.finish();
  });

  it('refuses an undo while an action of another task runs on the folder, saying which', async () => {
    const h = await harness();
    writeFileSync(join(h.workspace, 'a.txt'), 'a0\n');
    own(h.workspace, uid);
    const done = await h.act(() => writeFileSync(join(h.workspace, 'a.txt'), 'a1\n'));
    const taskB = h.newTask('Busy task');
    const running = await startAction(h, taskB, 2);

    await expect(h.undo.undo(done.id)).rejects.toThrow(/Cannot undo now: action 2 of task "Busy task" .* is running on/);
    expect(read(h.workspace, 'a.txt')).toBe('a1\n');
    expect(h.store.getAction(done.id)!.status).toBe('done');
    await running.finish();
    expect(await h.undo.undo(done.id)).toMatchObject({ outcome: 'undone', restored: ['a.txt'] });
  });

  it('makes an undo wait for a running action, then undoes without taking its writes for outside edits', async () => {
    const h = await startUndoHarness({ checkpoints: { idleWaitMs: 120_000 } });
    open.push(h);
    own(h.workspace, uid);
    writeFileSync(join(h.workspace, 'a.txt'), 'a0\n');
    own(h.workspace, uid);
    const done = await h.act(() => writeFileSync(join(h.workspace, 'a.txt'), 'a1\n'));
    const taskB = h.newTask('Busy task');
    const running = await startAction(h, taskB, 1);
    let settled = false;
    const undo = h.undo.undo(done.id).finally(() => (settled = true));
    writeFileSync(join(h.workspace, 'b.txt'), 'the running action\n');
    expect(settled).toBe(false);
    await running.finish();
    expect(await undo).toMatchObject({ outcome: 'undone', restored: ['a.txt'] });
    expect([read(h.workspace, 'a.txt'), read(h.workspace, 'b.txt')]).toEqual(['a0\n', 'the running action\n']);
  });
});

describe('a lease covers the folders inside and around its own (tasks granted ~/project and ~/project/app)', () => {
  const grant = (hostPath: string) => [{ name: 'w', hostPath, mountPath: '/workspace', readOnly: false }];

  it('refuses an action on the inner folder while one runs on the outer, and the other way round, naming the other folder', async () => {
    const h = await startUndoHarness({ checkpoints: { leaseWaitMs: 300, idleWaitMs: 300 } });
    open.push(h);
    const outer = h.workspace;
    const inner = join(outer, 'app');
    const sibling = `${outer}-sibling`;
    mkdirSync(inner);
    mkdirSync(sibling);

    await h.fs.lease('outer-1', 'task-outer', grant(outer), { taskTitle: 'Outer', actionSeq: 1 });
    await expect(h.fs.lease('inner-1', 'task-inner', grant(inner), { taskTitle: 'Inner', actionSeq: 1 })).rejects.toThrow(
      `${inner} is in use by action 1 of task "Outer" (in this Posthoc process`,
    );
    await expect(h.fs.lease('inner-1', 'task-inner', grant(inner))).rejects.toThrow(`(on ${outer}, which contains it)`);
    // An undo in the inner folder waits for the outer folder's action too.
    await expect(h.fs.withIdleFolders([inner], 'undo', async () => 'undone')).rejects.toThrow(FolderBusy);
    // A folder beside it (a common prefix of the name is not "inside") is not covered.
    await h.fs.lease('sibling-1', 'task-sibling', grant(sibling));
    h.fs.endLease('sibling-1');
    h.fs.endLease('outer-1');

    await h.fs.lease('inner-2', 'task-inner', grant(inner), { taskTitle: 'Inner', actionSeq: 2 });
    await expect(h.fs.lease('outer-2', 'task-outer', grant(outer))).rejects.toThrow(`(on ${inner}, which lies inside it)`);
    h.fs.endLease('inner-2');
    await h.fs.lease('outer-2', 'task-outer', grant(outer));
    expect(await h.fs.withIdleFolders([sibling], 'undo', async () => 'undone')).toBe('undone');
    h.fs.endLease('outer-2');
    expect(await h.fs.withIdleFolders([inner], 'undo', async () => 'undone')).toBe('undone');
    rmSync(sibling, { recursive: true, force: true });
  });

  it('takes over an overlapping lease whose process is gone', async () => {
    const h = await startUndoHarness({ checkpoints: { leaseWaitMs: 300 } });
    open.push(h);
    const inner = join(h.workspace, 'app');
    mkdirSync(inner);
    const outerGitdir = (await h.fs.storeFor(h.workspace)).gitdir;
    writeFileSync(
      join(outerGitdir, 'posthoc.lease'),
      JSON.stringify({ pid: 2 ** 22 + 3, started: null, taskId: 't', actionId: 'gone', taskTitle: 'Crashed', actionSeq: 1, since: 'then', folder: h.workspace, sinceNs: '1' }),
    );
    await h.fs.lease('inner-1', 'task-inner', grant(inner));
    h.fs.endLease('inner-1');
  });
});
