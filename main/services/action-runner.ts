// Runs one action through every channel: checkpoint the granted folders, run the code in the sandbox,
// checkpoint again, record what changed, write the reverse plan and derive the confinement level.
// No checkpoint, no run: if the folders cannot be checkpointed the code is not executed.
import { randomUUID } from 'node:crypto';
import type { Action, ActionOutput, Effect, ReversePlan, Task } from '../../shared/domain';
import type { CodeBlock } from '../agent/codeact-parser';
import type { FsChannel } from '../effects/fs/fs-channel';
import type { Gateway } from '../gateway/gateway';
import { confinementOf } from '../policy/confinement';
import { SandboxError } from '../sandbox/docker-client';
import type { SandboxExecutor } from '../sandbox/executor';
import type { TaskStore } from '../store/task-store';
import type { EventBus } from './event-bus';
import { reversePlanOf } from './rest-reverse-plan';
import { withDatabasePlan, type SqlActionRunner } from './sql-action-runner';

const LIVE_OUTPUT_LIMIT = 64 * 1024;
const LIVE_UPDATE_MS = 250;

export class ActionRunner {
  constructor(
    private readonly store: TaskStore,
    private readonly executor: SandboxExecutor,
    private readonly fs: FsChannel,
    private readonly events: EventBus,
    private readonly gateway: Gateway,
  ) {}

  /** SQL blocks run on the granted databases in the main process, never in the sandbox (app-services sets it). */
  sql: SqlActionRunner | null = null;

  async run(task: Task, block: CodeBlock, timeoutSeconds: number): Promise<Action> {
    if (block.language === 'sql') {
      if (!this.sql) throw new Error('ActionRunner was built without a SqlActionRunner (see app-services.ts).');
      return this.sql.run(task, block, timeoutSeconds);
    }
    const id = randomUUID();
    let action: Action = {
      id,
      taskId: task.id,
      seq: this.store.nextActionSeq(task.id),
      kind: 'code',
      language: block.language,
      source: block.source,
      status: 'running',
      output: { stdout: '', stderr: '', exitCode: null, timedOut: false, truncated: false },
      effects: [],
      reverse: { summary: 'Recording what this action changes…', steps: [], verified: false },
      confinement: { level: 'reversible', reason: 'Running in the sandbox: no network, granted folders checkpointed.' },
      startedAt: new Date().toISOString(),
      finishedAt: null,
      undoneAt: null,
    };
    this.publish(action);

    let befores;
    try {
      befores = await this.fs.before(id, task.workspaces, task.id);
    } catch (error) {
      return this.finishFailed(action, `Posthoc could not checkpoint the granted folders, so the code was not run: ${message(error)}`);
    }
    for (const b of befores) {
      this.store.recordCheckpoint({ commitId: b.commit, repoPath: b.store.gitdir, workspacePath: b.grant.hostPath, actionId: id, phase: 'before' });
    }

    const live = { stdout: '', stderr: '' };
    let lastPush = 0;
    let output: ActionOutput;
    // Nothing the code prints may hold a secret a service echoed (the gateway redacts, this is the second net).
    const redactor = this.gateway.redactor(task.id);
    const liveOutput = () => ({ ...action.output, stdout: redactor.text(live.stdout), stderr: redactor.text(live.stderr) });
    // Calls through the gateway while the code runs are this action's effects; a held call shows at once.
    let liveEffects: Effect[] = [];
    this.gateway.beginAction(task.id, id, (effects) => {
      liveEffects = effects;
      this.events.emit('action:updated', { ...action, output: liveOutput(), effects });
    });
    try {
      output = await this.executor.run({
        taskId: task.id,
        workspaces: task.workspaces,
        seq: action.seq,
        language: block.language,
        source: block.source,
        timeoutSeconds,
        onOutput: (stream, chunk) => {
          if (live[stream].length < LIVE_OUTPUT_LIMIT) live[stream] += chunk;
          const now = Date.now();
          if (now - lastPush >= LIVE_UPDATE_MS) {
            lastPush = now;
            this.events.emit('action:updated', { ...action, output: liveOutput(), effects: liveEffects });
          }
        },
      });
    } catch (error) {
      // The code may have run part-way before the sandbox failed: what it changed — files, and calls
      // through the gateway (services, databases) — is still this action's: recorded and undoable, never
      // lost and never left to look like an edit made outside Posthoc.
      const calls = this.gateway.endAction(task.id);
      const files = (await this.fs.after(id, befores).catch(() => [])).map((r) => r.effect);
      const partial = [...files, ...calls];
      const failed =
        calls.length > 0 || files.some((e) => e.added.length + e.modified.length + e.deleted.length + (e.renamed?.length ?? 0) > 0)
          ? this.publish({
              ...action,
              status: 'failed',
              output: { ...action.output, stderr: `${action.output.stderr}${message(error)}\n` },
              effects: partial,
              reverse: withDatabasePlan(reversePlanOf(this.fs.reversePlan(files, task.workspaces), calls), calls),
              confinement: confinementOf(
                { network: 'gateway-only', grantedServices: task.services, writableMountsCheckpointed: true, checkpointsTaken: true },
                partial,
              ),
              finishedAt: new Date().toISOString(),
            })
          : this.finishFailed(action, message(error));
      if (error instanceof SandboxError) throw error;
      return failed;
    }
    const calls = this.gateway.endAction(task.id);
    output = { ...output, stdout: redactor.text(output.stdout), stderr: redactor.text(output.stderr) };

    const recorded = await this.fs.after(id, befores);
    for (const r of recorded) {
      this.store.recordCheckpoint({ commitId: r.after.commit, repoPath: r.after.store.gitdir, workspacePath: r.after.grant.hostPath, actionId: id, phase: 'after' });
    }
    const effects = [...recorded.map((r) => r.effect), ...calls];
    action = {
      ...action,
      status: output.exitCode === 0 && !output.timedOut ? 'done' : 'failed',
      output,
      effects,
      reverse: withDatabasePlan(reversePlanOf(this.fs.reversePlan(recorded.map((r) => r.effect), task.workspaces), calls), calls),
      confinement: confinementOf(
        {
          network: 'gateway-only',
          grantedServices: task.services,
          writableMountsCheckpointed: recorded.length === task.workspaces.filter((w) => !w.readOnly).length,
          checkpointsTaken: true,
        },
        effects,
      ),
      finishedAt: new Date().toISOString(),
    };
    return this.publish(action);
  }

  private finishFailed(action: Action, reason: string): Action {
    return this.publish({
      ...action,
      status: 'failed',
      output: { ...action.output, stderr: `${action.output.stderr}${reason}\n` },
      reverse: { summary: 'Nothing to undo: the action did not run.', steps: [], verified: true },
      confinement: { level: 'reversible', reason: 'The code did not run, so nothing changed.' },
      finishedAt: new Date().toISOString(),
    });
  }

  private publish(action: Action): Action {
    const saved = this.store.saveAction(action);
    this.events.emit('action:updated', saved);
    return saved;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

