// Tasks: start one, continue it, cancel it, undo or keep its actions. The agent runs in the background;
// every change reaches the front ends as contract events.
import { realpath, stat } from 'node:fs/promises';
import { basename, resolve, sep } from 'node:path';
import type { Action, Task, TaskDetail, UndoResult, Usage, WorkspaceGrant } from '../../shared/domain';
import { catalogModel } from '../../shared/providers/catalog';
import { runAgent, type AgentOutcome } from '../agent/agent-loop';
import { LlmClient, type ChatMessage } from '../agent/llm-client';
import { ContextBudget, DEFAULT_CONTEXT_WINDOW } from '../agent/context-budget';
import type { MemoryRoute } from '../effects/memory/memory-route';
import { corePrompt } from '../agent/system-prompt';
import { folderIdentity } from '../effects/fs/beneath';
import { readReply, withoutReasoning } from '../../shared/codeact/reply';
import { budgetReached, parseBudget, priceOf, priced, type Budget } from '../agent/usage';
import { currentGrantHost, grantRefusal } from '../policy/grant-rules';
import { mountPaths, writeRefusal } from '../sandbox/container-policy';
import { requireTask } from './require-task';
import type { SandboxExecutor } from '../sandbox/executor';
import { sandboxStatus } from '../sandbox/sandbox-image';
import { sumUsage, type TaskStore } from '../store/task-store';
import type { DatabaseGrantInput } from '../../shared/contract';
import type { ActionRunner } from './action-runner';
import { APP_STOPPING } from './action-record';
import { resumeNote } from './resume-note';
import type { DatabaseGrants } from './database-grants';
import type { EventBus } from './event-bus';
import type { PromptSource } from './prompt-sources';
import { ServiceError } from './service-error';
import type { SettingsService } from './settings-service';
import type { UndoService } from './undo-service';
import type Docker from 'dockerode';

export type RunOptions = {
  model?: string;
  maxSteps?: number;
  actionTimeoutSeconds?: number;
  contextWindow?: number;
  /** The task's budget for this run, as --budget takes it ("50000" tokens, "$0.50"); else Settings. */
  budget?: string;
  /** A saved model provider's id (Settings); else the default one. A task keeps its provider when continued. */
  provider?: string;
};

const APP_STOPPED_TASK = 'Posthoc stopped (a restart or a quit) while this task ran. Continue picks it up from the record of what ran.';

/** A run of the agent; inbox holds what the person sent while it worked, delivered at its next turn. */
type Running = { controller: AbortController; done: Promise<Task>; inbox: string[] };

/**
 * What a TaskService is built with (app-services.ts, the composition root): all of it given at construction,
 * none set after. The optional parts are absent in a Posthoc built without them (a test's services).
 */
export type TaskServiceDeps = {
  store: TaskStore;
  settings: SettingsService;
  runner: ActionRunner;
  executor: SandboxExecutor;
  docker: Docker;
  events: EventBus;
  /** Paths no grant may expose to the sandbox: Posthoc's own data (the undo history) and the Docker socket. */
  protectedPaths?: string[];
  serviceExists?: (name: string) => boolean;
  /** What this process closes at its start: a run starts after it, so its first checkpoint never takes a crashed action's changes for the person's. */
  startup?: Promise<unknown>;
  /** Undo, redo, rewind and keep (undo-service.ts). */
  undo?: UndoService;
  /** Database grants: checked at start, offered to the sandbox while a run lasts. */
  databases?: DatabaseGrants;
  /** The agent's memory as code writes it (the gateway's /memory), turned off for a task run without memory. */
  memoryRoute?: MemoryRoute;
  /** What the system prompt says besides its core, in order (prompt-sources.ts: databases, services, folder instructions, memory, MCP tools). */
  prompt?: PromptSource[];
  /** MCP servers: a task granted one that is not defined is refused; a run's end closes its connections. */
  mcp?: {
    servers: { require(names: readonly string[]): unknown };
    /** Closes the task's MCP connections when its run ends (a stdio server's container goes). */
    runEnded(taskId: string): Promise<void>;
  };
};

export class TaskService {
  private readonly running = new Map<string, Running>();
  private readonly store: TaskStore;
  private readonly settings: SettingsService;
  private readonly runner: ActionRunner;
  private readonly executor: SandboxExecutor;
  private readonly docker: Docker;
  private readonly events: EventBus;
  private readonly protectedPaths: string[];
  private readonly serviceExists: (name: string) => boolean;
  private readonly startup: Promise<unknown>;
  private readonly undoService: UndoService | null;
  /** Database grants (the gateway's /db route is reached through them; tests attach a task by hand). */
  readonly databases: DatabaseGrants | null;
  private readonly memoryRoute: MemoryRoute | null;
  private readonly prompt: PromptSource[];
  private readonly mcp: TaskServiceDeps['mcp'] | null;
  /** Tasks this process runs without memory (--no-memory): nothing read from it or written to it. */
  private readonly withoutMemory = new Set<string>();

  constructor(deps: TaskServiceDeps) {
    this.store = deps.store;
    this.settings = deps.settings;
    this.runner = deps.runner;
    this.executor = deps.executor;
    this.docker = deps.docker;
    this.events = deps.events;
    this.protectedPaths = deps.protectedPaths ?? [];
    this.serviceExists = deps.serviceExists ?? (() => false);
    this.startup = deps.startup ?? Promise.resolve();
    this.undoService = deps.undo ?? null;
    this.databases = deps.databases ?? null;
    this.memoryRoute = deps.memoryRoute ?? null;
    this.prompt = deps.prompt ?? [];
    this.mcp = deps.mcp ?? null;
  }

  list(): Task[] {
    return this.store.listTasks();
  }

  get(taskId: string): TaskDetail {
    const task = this.requireTask(taskId);
    return { task, messages: this.store.listMessages(taskId), actions: this.store.listActions(taskId) };
  }

  async start(
    input: { prompt: string; workspaces: string[]; services?: string[]; databases?: DatabaseGrantInput[]; memory?: boolean; mcp?: string[] },
    options: RunOptions = {},
  ): Promise<Task> {
    const grants = await this.grants(input.workspaces);
    const mcp = [...new Set(input.mcp ?? [])];
    if (mcp.length) {
      if (!this.mcp) throw new ServiceError('unavailable', 'This Posthoc was built without MCP support.');
      this.mcp.servers.require(mcp);
    }
    const services = [...new Set(input.services ?? [])];
    const unknown = services.filter((s) => !this.serviceExists(s));
    if (unknown.length > 0) {
      throw new ServiceError('invalid-input', `No service named ${unknown.join(', ')}. Define it first: posthoc service add NAME --base-url URL.`);
    }
    budgetOf(options);
    const llm = await this.settings.llmConfig({ model: options.model, provider: options.provider });
    await this.preflight();
    const databases = await this.grantDatabases(input.databases ?? []);
    const task = this.store.createTask({ title: titleOf(input.prompt), workspaces: grants, services, databases, model: llm.model, provider: options.provider ?? null, mcp });
    if (input.memory === false) this.withoutMemory.add(task.id);
    const message = this.store.addMessage(task.id, 'user', input.prompt);
    const created = this.store.getTask(task.id) ?? task;
    this.events.emit('task:updated', created);
    this.events.emit('message:added', message);
    this.launch(created, new LlmClient(llm), options, true);
    return created;
  }

  async send(taskId: string, prompt: string, options: RunOptions = {}): Promise<Task> {
    const task = this.requireTask(taskId);
    const run = this.running.get(taskId);
    if (run) {
      // Steering: the agent is working, so the message waits for its next turn (recorded when delivered).
      run.inbox.push(prompt);
      return task;
    }
    budgetOf(options);
    const llm = await this.settings.llmConfig({ model: options.model ?? task.model, provider: task.provider });
    await this.preflight();
    // A task a restart interrupted hears what happened before it hears the person's new words.
    if (task.status === 'interrupted') this.noteResume(taskId);
    this.events.emit('message:added', this.store.addMessage(taskId, 'user', prompt));
    const updated = this.setTask(taskId, { status: 'running', answer: null, error: null });
    this.launch(updated, new LlmClient(llm), options);
    return updated;
  }

  /**
   * Continue: a task Posthoc's restart (or crash) interrupted goes on with the record of what ran, and a note
   * to the model naming the restart and the action it cut short.
   */
  async resume(taskId: string): Promise<Task> {
    const task = this.requireTask(taskId);
    if (this.running.has(taskId) || task.status !== 'interrupted') {
      throw new ServiceError('conflict', `Task ${taskId} is ${this.running.has(taskId) ? 'running' : task.status}; only a task Posthoc's restart interrupted can be continued. Send it a message instead.`);
    }
    const llm = await this.settings.llmConfig({ model: task.model, provider: task.provider });
    await this.preflight();
    this.noteResume(taskId);
    const updated = this.setTask(taskId, { status: 'running', answer: null, error: null });
    this.launch(updated, new LlmClient(llm), {});
    return updated;
  }

  private noteResume(taskId: string): void {
    const note = resumeNote(this.store.listMessages(taskId), this.store.listActions(taskId));
    this.events.emit('message:added', this.store.addMessage(taskId, 'observation', note));
  }

  cancel(taskId: string): Task {
    const task = this.requireTask(taskId);
    this.running.get(taskId)?.controller.abort();
    this.runner.sql?.rejectPending(taskId);
    return task;
  }

  /** Resolves when the task's current run ends. */
  async wait(taskId: string): Promise<Task> {
    const run = this.running.get(taskId);
    return run ? run.done : this.requireTask(taskId);
  }

  isRunning(taskId: string): boolean {
    return this.running.has(taskId);
  }

  undo(actionId: string): Promise<UndoResult> {
    return this.requireUndo().undo(actionId);
  }

  keep(actionId: string): Promise<Action> {
    return this.requireUndo().keep(actionId);
  }

  private requireUndo(): UndoService {
    if (!this.undoService) throw new Error('TaskService was built without an UndoService (see app-services.ts).');
    return this.undoService;
  }

  async shutdown(): Promise<void> {
    // Not the person's Stop: the runs end "interrupted", to be continued at the next start.
    for (const run of this.running.values()) run.controller.abort(APP_STOPPING);
    this.runner.sql?.rejectPending();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
    await this.executor.stopAll();
  }

  /** `titling`: the task's first run, whose first reply with a <title> names the task (once; a follow-up never renames it). */
  private launch(task: Task, llm: LlmClient, options: RunOptions, titling = false): void {
    const controller = new AbortController();
    const inbox: string[] = [];
    const maxSteps = options.maxSteps ?? this.settings.maxSteps();
    const timeout = options.actionTimeoutSeconds ?? this.settings.actionTimeoutSeconds();
    const streamId = `${task.id}:${Date.now()}`;
    const done = (async (): Promise<Task> => {
      let outcome: AgentOutcome;
      const detachDatabases = this.databases?.attach(task, timeout * 1000);
      const detachMemory = this.withoutMemory.has(task.id) ? this.memoryRoute?.disable(task.id) : undefined;
      try {
        await this.startup;
        const meter = this.meter(task.id, llm, budgetOf(options) ?? this.settings.budget(), streamId);
        const window = options.contextWindow ?? this.settings.contextWindow(llm.config.model) ?? (await llm.contextWindow(controller.signal)) ?? catalogModel(llm.config.model)?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
        const budget = new ContextBudget(window, (messages, onDelta, signal) => llm.complete(messages, onDelta, signal));
        outcome = await runAgent({
          history: await this.history(task, maxSteps, controller.signal),
          maxSteps,
          signal: controller.signal,
          fit: (messages, signal) => budget.fit(messages, signal),
          hooks: {
            complete: (messages, onDelta, signal) => llm.reply(messages, { onDelta }, signal),
            onDelta: (delta) => this.events.emit('message:delta', { taskId: task.id, streamId, delta }),
            onAssistantMessage: (text) => {
              const message = this.store.addMessage(task.id, 'assistant', text);
              meter.attach(message.id);
              this.events.emit('message:added', message);
              const title = titling ? readReply(text).title : null;
              if (title !== null) {
                titling = false;
                this.setTask(task.id, { title });
              }
              return message.id;
            },
            runAction: (block, messageId) => this.runner.run(task, block, timeout, controller.signal, messageId),
            onObservation: (text) => this.events.emit('message:added', this.store.addMessage(task.id, 'observation', text)),
            onPlan: (plan) => this.events.emit('task:updated', this.store.setTaskPlan(task.id, plan)),
            takeMessages: () => inbox.splice(0).map((text) => this.deliver(task.id, text)),
          },
        });
      } catch (error) {
        outcome = { status: 'failed', error: error instanceof Error ? error.message : String(error) };
      }
      detachDatabases?.();
      detachMemory?.();
      await this.mcp?.runEnded(task.id).catch(() => undefined);
      this.running.delete(task.id);
      // What the person sent after the agent's last turn stays in the conversation, for the next run.
      for (const text of inbox.splice(0)) this.deliver(task.id, text);
      switch (outcome.status) {
        case 'done':
          return this.setTask(task.id, { status: 'done', answer: outcome.answer, error: null });
        case 'failed':
          return this.setTask(task.id, { status: 'failed', error: outcome.error });
        case 'cancelled':
          return controller.signal.reason === APP_STOPPING
            ? this.setTask(task.id, { status: 'interrupted', error: APP_STOPPED_TASK })
            : this.setTask(task.id, { status: 'cancelled', error: 'Cancelled by the person.' });
      }
    })();
    this.running.set(task.id, { controller, done, inbox });
  }

  /**
   * Tokens and cost (agent/usage.ts): each reply's usage, priced, goes into the task's totals at once, and to
   * the assistant message it becomes (its actions carry it); the budget is checked before every model call
   * (the loop's and a summary's alike); a retry tells the front ends to drop the streamed text.
   */
  private meter(taskId: string, llm: LlmClient, budget: Budget | null, streamId: string): { attach(messageId: string): void } {
    const price = priceOf(llm.config.model, this.settings.prices());
    let pending: Usage | null = null;
    llm.meter = {
      beforeCall: () => {
        const usage = this.store.getTask(taskId)?.usage;
        return usage ? budgetReached(usage, budget) : null;
      },
      onUsage: (usage) => {
        const cost = priced(usage, price);
        pending = sumUsage(pending, cost);
        this.events.emit('task:updated', this.store.addTaskUsage(taskId, cost));
      },
      onRetry: (info) =>
        this.events.emit('message:delta', {
          taskId,
          streamId,
          delta: '',
          retrying: `The model provider failed (${info.reason}); retrying in ${Math.ceil(info.delayMs / 1000)} s (retry ${info.attempt} of ${info.maxRetries}).`,
        }),
    };
    return {
      attach: (messageId) => {
        if (pending) this.store.setMessageUsage(messageId, pending);
        pending = null;
      },
    };
  }

  /** A message the person sent while the agent worked, recorded as theirs when it reaches the model. */
  private deliver(taskId: string, text: string): string {
    this.events.emit('message:added', this.store.addMessage(taskId, 'user', text));
    return text;
  }

  private async history(task: Task, maxSteps: number, signal: AbortSignal): Promise<ChatMessage[]> {
    const run = { task, signal, memory: !this.withoutMemory.has(task.id) };
    const parts = await Promise.all(this.prompt.map((source) => source(run)));
    const messages: ChatMessage[] = [{ role: 'system', content: [...corePrompt(task.workspaces, maxSteps), ...parts.flat()].join('\n') }];
    for (const m of this.store.listMessages(task.id)) {
      messages.push(m.role === 'assistant' ? { role: 'assistant', content: withoutReasoning(m.content) } : { role: 'user', content: m.content });
    }
    return messages;
  }

  private async grantDatabases(requests: DatabaseGrantInput[]): Promise<NonNullable<Task['databases']>> {
    if (requests.length === 0) return [];
    if (!this.databases) throw new ServiceError('unavailable', 'This Posthoc was built without database support.');
    return this.databases.grant(requests, this.protectedPaths);
  }

  /** Docker must answer and the image must exist before a task starts: never a silent run on the host. */
  private async preflight(): Promise<void> {
    const status = await sandboxStatus(this.docker, this.executor.image);
    if (!status.dockerAvailable || !status.imagePresent) throw new ServiceError('unavailable', status.message ?? 'The sandbox is not ready.');
  }

  private async grants(paths: string[]): Promise<WorkspaceGrant[]> {
    const resolved: string[] = [];
    for (const p of paths) {
      const st = await stat(p).catch(() => undefined);
      if (!st) throw new ServiceError('invalid-input', `The folder ${p} does not exist. Grant an existing folder.`);
      if (!st.isDirectory()) throw new ServiceError('invalid-input', `${p} is not a folder. Grant a folder, not a file.`);
      const real = await realpath(p);
      // Posthoc's own folders as named and as resolved: a data folder reached through a link inside a grant
      // would be reachable by the sandbox once the link is swapped.
      const guarded = (await Promise.all(this.protectedPaths.map(async (g) => [resolve(g), await realpath(g).catch(() => resolve(g))]))).flat();
      const refusal = grantRefusal({ requested: p, real }, currentGrantHost(), [...new Set(guarded)]);
      if (refusal) throw new ServiceError('invalid-input', refusal);
      if (!resolved.includes(real)) resolved.push(real);
    }
    // Folders granted one inside the other: the inner one is reachable through the outer's mount, where the
    // sandbox can swap it for a link. One folder, one grant: grant the outer one alone.
    const nested = nestedGrant(resolved);
    if (nested) {
      throw new ServiceError(
        'invalid-input',
        `${nested.inner} lies inside ${nested.outer}, which is granted too. Grant ${nested.outer} alone: the sandbox sees ${nested.inner} inside it.`,
      );
    }
    // What each folder is, read now with no link followed on its path: every later read, write and container
    // start checks it again.
    const identities = resolved.map((path) => {
      try {
        return folderIdentity(path);
      } catch (error) {
        throw new ServiceError('invalid-input', error instanceof Error ? error.message : String(error));
      }
    });
    // Who actions run as must be able to write every folder, or the task is refused before its first action.
    const owners = await Promise.all(resolved.map(async (path) => ({ path, ...(await stat(path)) })));
    // (Linux: Docker Desktop's file sharing on macOS and Windows maps owners itself.)
    const cannot = process.platform === 'linux' ? writeRefusal(process.getuid!(), process.getgid!(), owners) : null;
    if (cannot) throw new ServiceError('invalid-input', cannot);
    const names = uniqueNames(resolved.map((p) => basename(p) || 'folder'));
    const mounts = mountPaths(names);
    return resolved.map((hostPath, i) => ({ name: names[i]!, hostPath, mountPath: mounts[i]!, readOnly: false, identity: identities[i]! }));
  }

  private setTask(taskId: string, patch: Parameters<TaskStore['updateTask']>[1]): Task {
    const task = this.store.updateTask(taskId, patch);
    this.events.emit('task:updated', task);
    return task;
  }

  /** The task, or the not-found error: for a reader that needs no more of it. */
  requireTask(taskId: string): Task {
    return requireTask(this.store, taskId);
  }
}

/** Two folders of which one lies inside the other, or null. */
export function nestedGrant(paths: readonly string[]): { outer: string; inner: string } | null {
  for (const outer of paths) {
    for (const inner of paths) {
      if (outer !== inner && inner.startsWith(outer.endsWith(sep) ? outer : outer + sep)) return { outer, inner };
    }
  }
  return null;
}

function titleOf(prompt: string): string {
  const first = prompt.trim().split('\n')[0] ?? '';
  return first.length > 80 ? `${first.slice(0, 77)}…` : first;
}

function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((n) => {
    const safe = n.replace(/[^A-Za-z0-9._-]/g, '_');
    const count = seen.get(safe) ?? 0;
    seen.set(safe, count + 1);
    return count === 0 ? safe : `${safe}-${count + 1}`;
  });
}

/** The run's --budget, read; an unreadable one is refused before the task starts. */
function budgetOf(options: RunOptions): Budget | null {
  if (options.budget === undefined) return null;
  const budget = parseBudget(options.budget);
  if (!budget) throw new ServiceError('invalid-input', `--budget ${options.budget} is neither tokens (50000, 50k) nor dollars ($0.50).`);
  return budget;
}
