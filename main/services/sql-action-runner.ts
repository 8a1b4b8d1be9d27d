// Runs a ```sql block as an action: finds the granted database it names, runs it through the databases
// channel (never in the sandbox), and records it like any other action — output, the DbEffect with the
// exact compensating SQL (its reverse plan is derived from it), its confinement. Over the grant's
// rows-affected limit everything is rolled back and the action waits for the person: approve runs it,
// reject declines it.
import { randomUUID } from 'node:crypto';
import type { Action, DatabaseGrant, Task } from '../../shared/domain';
import type { DbChannel } from '../effects/db/db-channel';
import { confinementOf } from '../policy/confinement';
import type { ActionRecord, TaskStore } from '../store/task-store';
import type { EventBus } from './event-bus';
import { ServiceError } from './service-error';

type Pending = { taskId: string; decide(approved: boolean): void };

export class SqlActionRunner {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly store: TaskStore,
    private readonly db: DbChannel,
    private readonly events: EventBus,
  ) {}

  async run(task: Task, block: { source: string; database: string | null }, timeoutSeconds: number, messageId: string | null = null): Promise<Action> {
    let action = this.publish({
      id: randomUUID(),
      taskId: task.id,
      seq: this.store.nextActionSeq(task.id),
      kind: 'sql',
      language: 'sql',
      source: block.source,
      status: 'running',
      output: { stdout: '', stderr: '', exitCode: null, timedOut: false, truncated: false },
      effects: [],
      confinement: { level: 'reversible', reason: 'Running on a granted database, with change capture.' },
      startedAt: new Date().toISOString(),
      finishedAt: null,
      undoneAt: null,
      messageId,
    });
    const grant = pickGrant(task.databases ?? [], block.database);
    if (typeof grant === 'string') return this.finish(action, 'failed', '', `${grant}\n`, []);

    const request = { taskId: task.id, actionId: action.id, grant, sql: block.source, params: null, via: 'sql' as const, approved: false, timeoutMs: timeoutSeconds * 1000 };
    let result = await this.db.run(request);
    if (result.status === 'awaiting-approval') {
      // Waiting starts before the card says so, so an approval that comes at once is not lost.
      const decision = new Promise<boolean>((resolve) => this.pending.set(action.id, { taskId: task.id, decide: resolve }));
      action = this.publish({
        ...action,
        status: 'awaiting-approval',
        output: { ...action.output, stdout: result.stdout, stderr: result.stderr },
        effects: [result.effect],
        confinement: { level: 'confined', reason: `Over the rows-affected limit of "${grant.name}" (${grant.maxRowsAffected}): rolled back, held for approval.` },
      });
      const approved = await decision;
      this.pending.delete(action.id);
      if (!approved) {
        return this.finish(action, 'failed', result.stdout, `${result.stderr}The person declined this action; nothing was changed. Change fewer rows per action, or ask the person how to proceed.\n`, []);
      }
      result = await this.db.run({ ...request, approved: true });
    }
    return this.finish(action, result.status === 'done' ? 'done' : 'failed', result.stdout, result.stderr, [result.effect]);
  }

  approve(actionId: string): Action {
    return this.decide(actionId, true);
  }

  reject(actionId: string): Action {
    return this.decide(actionId, false);
  }

  /** The actions an agent of this process waits on for the person's decision. */
  waitingIds(): string[] {
    return [...this.pending.keys()];
  }

  /** A cancelled or shut-down task declines what waits for approval. */
  rejectPending(taskId?: string): void {
    for (const p of this.pending.values()) if (taskId === undefined || p.taskId === taskId) p.decide(false);
  }

  private decide(actionId: string, approved: boolean): Action {
    const action = this.store.getAction(actionId);
    if (!action) throw new ServiceError('not-found', `No action ${actionId}. List actions with "posthoc actions".`);
    const pending = this.pending.get(actionId);
    if (action.status !== 'awaiting-approval' || !pending) {
      throw new ServiceError('conflict', `Action ${action.seq} is ${action.status}${action.status === 'awaiting-approval' ? ' but no agent waits on it any more (Posthoc restarted); ask the agent to run it again' : ''}, so there is nothing to ${approved ? 'approve' : 'reject'}.`);
    }
    pending.decide(approved);
    return action;
  }

  private finish(action: Action, status: 'done' | 'failed', stdout: string, stderr: string, effects: Action['effects']): Action {
    return this.publish({
      ...action,
      status,
      output: { stdout, stderr, exitCode: status === 'done' ? 0 : 1, timedOut: false, truncated: false },
      effects,
      confinement: confinementOf({ network: 'none', writableMountsCheckpointed: true, checkpointsTaken: true }, effects),
      finishedAt: new Date().toISOString(),
    });
  }

  private publish(action: ActionRecord): Action {
    const saved = this.store.saveAction(action);
    this.events.emit('action:updated', saved);
    return saved;
  }
}

/** The grant a block names, or why there is none (said so the agent can fix its block). */
export function pickGrant(grants: DatabaseGrant[], name: string | null): DatabaseGrant | string {
  if (grants.length === 0) return 'No database is granted to this task, so SQL blocks cannot run. Ask the person to grant one (posthoc run --db NAME=sqlite:PATH, or in the new-task form).';
  if (name === null) {
    if (grants.length === 1) return grants[0]!;
    return `Several databases are granted (${grants.map((g) => g.name).join(', ')}): name one after the tag, as \`\`\`sql ${grants[0]!.name}.`;
  }
  return grants.find((g) => g.name === name) ?? `The database "${name}" is not granted to this task. Granted: ${grants.map((g) => g.name).join(', ')}.`;
}
