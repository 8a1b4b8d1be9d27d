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

  async run(task: Task, block: CodeBlock, timeoutSeconds: number): Promise<Action> {
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
      befores = await this.fs.before(id, task.workspaces);
    } catch (error) {
      return this.finishFailed(action, `Posthoc could not checkpoint the granted folders, so the code was not run: ${message(error)}`);
    }
    for (const b of befores) {
      this.store.recordCheckpoint({ commitId: b.commit, repoPath: b.store.gitdir, workspacePath: b.grant.hostPath, actionId: id, phase: 'before' });
    }

    const live = { stdout: '', stderr: '' };
    let lastPush = 0;
    let output: ActionOutput;
    // Calls through the gateway while the code runs are this action's effects.
    this.gateway.beginAction(task.id, id);
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
            this.events.emit('action:updated', { ...action, output: { ...action.output, ...live } });
          }
        },
      });
    } catch (error) {
      this.gateway.endAction(task.id);
      const failed = this.finishFailed(action, message(error));
      if (error instanceof SandboxError) throw error;
      return failed;
    }
    const calls = this.gateway.endAction(task.id);

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
      reverse: reversePlanOf(this.fs.reversePlan(recorded.map((r) => r.effect), task.workspaces), calls),
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

/** The files' reverse plan, plus a plain statement about service calls that nothing can take back yet. */
function reversePlanOf(files: ReversePlan, calls: Effect[]): ReversePlan {
  const writes = calls.filter((c) => c.channel === 'rest' && c.mutating && !c.refused);
  if (writes.length === 0) return files;
  const named = writes.map((c) => (c.channel === 'rest' ? `${c.method} svc/${c.service}${c.path}` : '')).join(', ');
  const summary = files.steps.length > 0 ? `${files.summary} ${named} cannot be undone (no known inverse).` : `${named} cannot be undone (no known inverse); nothing else to undo.`;
  return { ...files, summary };
}
