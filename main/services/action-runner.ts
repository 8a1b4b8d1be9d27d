// Runs one action through every channel: checkpoint the granted folders, run the code in the sandbox,
// checkpoint again, record what changed and derive the confinement level (the reverse plan is derived from
// the effects whenever the action is read).
// No checkpoint, no run: if the folders cannot be checkpointed the code is not executed.
import { randomUUID } from 'node:crypto';
import type { Action, ActionOutput, Effect, Task } from '../../shared/domain';
import type { CodeBlock } from '../agent/codeact-parser';
import type { Figures } from '../effects/figures/figures';
import type { WriteClaims } from '../effects/fs/attribution';
import type { FsChannel } from '../effects/fs/fs-channel';
import { kernelAccount } from '../effects/fs/watch-log';
import type { Gateway } from '../gateway/gateway';
import { SandboxError } from '../sandbox/docker-client';
import type { RunnerResult } from '../sandbox/action-channel';
import type { ActionClaims } from '../sandbox/claims';
import type { SandboxExecutor } from '../sandbox/executor';
import { mergeClaims, type McpClaimsSource } from '../sandbox/mcp-container';
import type { ActionRecord, TaskStore } from '../store/task-store';
import type { EventBus } from './event-bus';
import { changedAnything, INTERRUPTED, stopReason, withEffects } from './action-record';
import type { SqlActionRunner } from './sql-action-runner';

const LIVE_OUTPUT_LIMIT = 64 * 1024;
const LIVE_UPDATE_MS = 250;

/** What an ActionRunner hands parts of its work to, besides the sandbox and the files channel; all given at construction. */
export type ActionRunnerParts = {
  /** SQL blocks run on the granted databases in the main process, never in the sandbox. */
  sql?: SqlActionRunner;
  /** Checks and keeps the figures the code drew (effects/figures). */
  figures?: Figures;
  /** Closes actions left unrecorded or running by a crash before a new one starts (interrupted-actions.ts). */
  settleEarlier?: () => Promise<unknown>;
  /** The task's stdio MCP servers (sandbox/mcp-container.ts): what they wrote during the action is its own. */
  mcpClaims?: McpClaimsSource;
};

export class ActionRunner {
  /** SQL blocks run on the granted databases in the main process, never in the sandbox. */
  readonly sql: SqlActionRunner | null;
  private readonly figures: Figures | null;
  private readonly settleEarlier: (() => Promise<unknown>) | null;
  private readonly mcpClaims: McpClaimsSource | null;

  constructor(
    private readonly store: TaskStore,
    private readonly executor: SandboxExecutor,
    private readonly fs: FsChannel,
    private readonly events: EventBus,
    private readonly gateway: Gateway,
    parts: ActionRunnerParts = {},
  ) {
    this.sql = parts.sql ?? null;
    this.figures = parts.figures ?? null;
    this.settleEarlier = parts.settleEarlier ?? null;
    this.mcpClaims = parts.mcpClaims ?? null;
  }

  /** `messageId`: the assistant message whose code block this is (the card is shown under it). */
  async run(task: Task, block: CodeBlock, timeoutSeconds: number, signal?: AbortSignal, messageId: string | null = null): Promise<Action> {
    if (block.language === 'sql') {
      if (!this.sql) throw new Error('ActionRunner was built without a SqlActionRunner (see app-services.ts).');
      return this.sql.run(task, block, timeoutSeconds, messageId);
    }
    // An earlier action whose changes are not on the record yet is recorded first, or this action's
    // checkpoint would take them for edits made outside Posthoc.
    await this.settleEarlier?.();
    const id = randomUUID();
    let action = this.publish({
      id,
      taskId: task.id,
      seq: this.store.nextActionSeq(task.id),
      kind: 'code',
      language: block.language,
      source: block.source,
      status: 'running',
      output: { stdout: '', stderr: '', exitCode: null, timedOut: false, truncated: false },
      effects: [],
      confinement: { level: 'reversible', reason: 'Running in the sandbox: no network, granted folders checkpointed.' },
      startedAt: new Date().toISOString(),
      finishedAt: null,
      undoneAt: null,
      messageId,
    });

    // One running action per folder, across tasks and processes (folder-lease.ts); after() ends the lease.
    const busy = await this.fs.lease(id, task.id, task.workspaces, { taskTitle: task.title, actionSeq: action.seq }).then(() => null, (error: unknown) => message(error));
    if (busy !== null) return this.finishFailed(action, busy);
    let befores;
    try {
      befores = await this.fs.before(id, task.workspaces, task.id);
    } catch (error) {
      return this.finishFailed(action, `Posthoc could not checkpoint the granted folders, so the code was not run: ${message(error)}`);
    }

    const live = { stdout: '', stderr: '' };
    let lastPush = 0;
    // Nothing the code prints may hold a secret a service echoed (the gateway redacts, this is the second net).
    const redactor = this.gateway.redactor(task.id);
    const liveOutput = () => ({ ...action.output, stdout: redactor.text(live.stdout), stderr: redactor.text(live.stderr) });
    // Calls through the gateway while the code runs are this action's effects; a held call shows at once.
    let liveEffects: Effect[] = [];
    this.gateway.beginAction(task.id, id, (effects) => {
      liveEffects = effects;
      this.events.emit('action:updated', { ...action, output: liveOutput(), effects });
    });
    let output: ActionOutput | null = null;
    let failure: unknown = null;
    // What the action's processes said they wrote: how its changes are told from edits made meanwhile.
    let claims: ActionClaims | null = null;
    const mcpMark = this.mcpClaims?.mark(task.id);
    let drawn: RunnerResult['figures'] | null = null;
    try {
      output = await this.executor.run({
        taskId: task.id,
        workspaces: task.workspaces,
        seq: action.seq,
        language: block.language,
        source: block.source,
        timeoutSeconds,
        // Stop, Cancel and Ctrl-C: the executor kills the action's processes at once and returns.
        signal,
        onClaims: (c) => {
          claims = c;
        },
        onFigures: (f) => {
          drawn = f;
        },
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
      failure = error;
    }
    const calls = this.gateway.endAction(task.id);
    // A tool call's writes (a confined stdio MCP server, frozen outside calls) are this action's too.
    if (this.mcpClaims && mcpMark !== undefined) claims = mergeClaims(claims, this.mcpClaims.claimsSince(task.id, mcpMark, task.workspaces));
    const stopped = signal?.aborted === true;

    let recorded: Awaited<ReturnType<FsChannel['after']>>;
    try {
      recorded = await this.fs.after(id, befores, writeClaims(claims));
    } catch (error) {
      const saved = this.finishUnrecorded(action, task, output ?? { ...action.output, exitCode: null }, calls, error, redactor);
      if (failure instanceof SandboxError) throw failure;
      return saved;
    }
    const files = recorded.map((r) => r.effect);
    const finishedAt = new Date().toISOString();
    if (output === null) {
      const failed = changedAnything(files, calls)
        ? this.publish({
            ...withEffects(action, task, files, calls),
            status: stopped ? 'interrupted' : 'failed',
            output: { ...action.output, stderr: `${action.output.stderr}${message(failure)}\n`, ...(stopped ? { interrupted: { reason: stopReason(signal), recorded: true } } : {}) },
            finishedAt,
          })
        : this.finishFailed(action, message(failure));
      if (failure instanceof SandboxError) throw failure;
      return failed;
    }
    output = { ...output, stdout: redactor.text(output.stdout), stderr: redactor.text(output.stderr) };
    const figureNotes = await this.takeFigures(id, drawn);
    if (figureNotes) output = { ...output, stderr: `${output.stderr}${output.stderr === '' || output.stderr.endsWith('\n') ? '' : '\n'}${figureNotes}` };
    if (stopped) output = { ...output, interrupted: { reason: stopReason(signal), recorded: true } };
    action = {
      ...withEffects(action, task, files, calls, recorded.length === task.workspaces.filter((w) => !w.readOnly).length),
      status: stopped ? 'interrupted' : output.exitCode === 0 && !output.timedOut ? 'done' : 'failed',
      output,
      finishedAt,
    };
    return this.publish(action);
  }

  /**
   * The checkpoint after the action failed (disk full): never "running" for ever. The action ends
   * interrupted and unrecorded, its before-checkpoints stay pinned, and the next start of Posthoc (or the
   * next action here, settleEarlier) records its changes against them.
   */
  private finishUnrecorded(action: Action, task: Task, output: ActionOutput, calls: Effect[], error: unknown, redactor: { text(s: string): string }): Action {
    this.fs.endLease(action.id);
    // Its file changes are not known yet (output.interrupted.recorded is false): undo waits for them to be
    // recorded, and its plan says so.
    return this.publish({
      ...withEffects(action, task, [], calls, false),
      status: 'interrupted',
      output: {
        ...output,
        stdout: redactor.text(output.stdout),
        stderr: redactor.text(output.stderr),
        interrupted: { reason: INTERRUPTED.afterFailed(message(error)), recorded: false },
      },
      finishedAt: new Date().toISOString(),
    });
  }

  /** Stores the figures the code drew with the action; returns a line for its output when some were not kept. */
  private async takeFigures(actionId: string, drawn: RunnerResult['figures'] | null): Promise<string | null> {
    if (!this.figures || !drawn || drawn.files.length + drawn.refused.length === 0) return null;
    try {
      const { notes } = await this.figures.take(actionId, drawn);
      return notes.length > 0 ? `[posthoc] figures not kept: ${notes.join('; ')}.\n` : null;
    } catch (error) {
      return `[posthoc] the figures could not be stored: ${message(error)}\n`;
    }
  }

  private finishFailed(action: Action, reason: string): Action {
    return this.publish({
      ...action,
      status: 'failed',
      output: { ...action.output, stderr: `${action.output.stderr}${reason}\n` },
      confinement: { level: 'reversible', reason: 'The code did not run, so nothing changed.' },
      finishedAt: new Date().toISOString(),
    });
  }

  private publish(action: ActionRecord): Action {
    const saved = this.store.saveAction(action);
    this.events.emit('action:updated', saved);
    return saved;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The sandbox's record of what the action changed, as the files channel reads it (the kernel's account parsed). */
function writeClaims(claims: ActionClaims | null): WriteClaims | null {
  if (!claims || claims.kind !== 'kernel') return claims;
  return { kind: 'kernel', log: kernelAccount(claims.logs, claims.servers, claims.lost) };
}
