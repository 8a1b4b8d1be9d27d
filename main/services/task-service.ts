// Tasks: start one, continue it, cancel it, undo or keep its actions. The agent runs in the background;
// every change reaches the front ends as contract events.
import { realpath, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Action, FsEffect, Task, TaskDetail, UndoResult, WorkspaceGrant } from '../../shared/domain';
import { runAgent, type AgentOutcome } from '../agent/agent-loop';
import { LlmClient, type ChatMessage } from '../agent/llm-client';
import { systemPrompt } from '../agent/system-prompt';
import { CheckpointConflict } from '../effects/fs/checkpoint-store';
import type { FsChannel } from '../effects/fs/fs-channel';
import { isPathInside } from '../effects/fs/path-guard';
import { mountPaths } from '../sandbox/container-policy';
import type { SandboxExecutor } from '../sandbox/executor';
import { sandboxStatus } from '../sandbox/sandbox-image';
import type { TaskStore } from '../store/task-store';
import type { ActionRunner } from './action-runner';
import type { EventBus } from './event-bus';
import { ServiceError } from './service-error';
import type { SettingsService } from './settings-service';
import type Docker from 'dockerode';

export type RunOptions = { model?: string; maxSteps?: number; actionTimeoutSeconds?: number };

type Running = { controller: AbortController; done: Promise<Task> };

export class TaskService {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly store: TaskStore,
    private readonly settings: SettingsService,
    private readonly runner: ActionRunner,
    private readonly fs: FsChannel,
    private readonly executor: SandboxExecutor,
    private readonly docker: Docker,
    private readonly events: EventBus,
    /** Paths no grant may expose to the sandbox: Posthoc's own data (the undo history) and the Docker socket. */
    private readonly protectedPaths: string[] = [],
    private readonly serviceExists: (name: string) => boolean = () => false,
  ) {}

  list(): Task[] {
    return this.store.listTasks();
  }

  get(taskId: string): TaskDetail {
    const task = this.requireTask(taskId);
    return { task, messages: this.store.listMessages(taskId), actions: this.store.listActions(taskId) };
  }

  async start(input: { prompt: string; workspaces: string[]; services?: string[] }, options: RunOptions = {}): Promise<Task> {
    const grants = await this.grants(input.workspaces);
    const services = [...new Set(input.services ?? [])];
    const unknown = services.filter((s) => !this.serviceExists(s));
    if (unknown.length > 0) {
      throw new ServiceError('invalid-input', `No service named ${unknown.join(', ')}. Define it first: posthoc service add NAME --base-url URL.`);
    }
    const llm = await this.settings.llmConfig({ model: options.model });
    await this.preflight();
    const task = this.store.createTask({ title: titleOf(input.prompt), workspaces: grants, services, model: llm.model });
    this.events.emit('task:updated', task);
    this.events.emit('message:added', this.store.addMessage(task.id, 'user', input.prompt));
    this.launch(task, new LlmClient(llm), options);
    return task;
  }

  async send(taskId: string, prompt: string, options: RunOptions = {}): Promise<Task> {
    const task = this.requireTask(taskId);
    if (this.running.has(taskId)) throw new ServiceError('conflict', 'The agent is still working on this task; wait for it or cancel it first.');
    const llm = await this.settings.llmConfig({ model: options.model ?? task.model });
    await this.preflight();
    this.events.emit('message:added', this.store.addMessage(taskId, 'user', prompt));
    const updated = this.setTask(taskId, { status: 'running', answer: null, error: null });
    this.launch(updated, new LlmClient(llm), options);
    return updated;
  }

  cancel(taskId: string): Task {
    const task = this.requireTask(taskId);
    this.running.get(taskId)?.controller.abort();
    return task;
  }

  /** Resolves when the task's current run ends. */
  async wait(taskId: string): Promise<Task> {
    const run = this.running.get(taskId);
    return run ? run.done : this.requireTask(taskId);
  }

  async undo(actionId: string): Promise<UndoResult> {
    const action = this.requireAction(actionId);
    if (action.status === 'undone') throw new ServiceError('conflict', `Action ${action.seq} is already undone.`);
    if (action.status === 'kept') throw new ServiceError('conflict', `Action ${action.seq} was kept; kept actions are final.`);
    if (action.status === 'running') throw new ServiceError('conflict', `Action ${action.seq} is still running.`);
    if (this.running.has(action.taskId)) {
      throw new ServiceError('conflict', 'The agent is still working on this task; cancel it or wait for it to finish before undoing.');
    }
    const task = this.requireTask(action.taskId);
    try {
      const result = await this.fs.undo(action.effects.filter((e): e is FsEffect => e.channel === 'fs'), task.workspaces);
      const undone = this.store.setActionStatus(actionId, 'undone');
      this.events.emit('action:updated', undone);
      return { outcome: 'undone', action: undone, ...result };
    } catch (error) {
      if (error instanceof CheckpointConflict) {
        return { outcome: 'conflict', action, paths: error.paths, message: error.message };
      }
      throw error;
    }
  }

  keep(actionId: string): Action {
    const action = this.requireAction(actionId);
    if (action.status !== 'done' && action.status !== 'failed') {
      throw new ServiceError('conflict', `Action ${action.seq} is ${action.status}; only finished actions can be kept.`);
    }
    const kept = this.store.setActionStatus(actionId, 'kept');
    this.events.emit('action:updated', kept);
    return kept;
  }

  async shutdown(): Promise<void> {
    for (const run of this.running.values()) run.controller.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
    await this.executor.stopAll();
  }

  private launch(task: Task, llm: LlmClient, options: RunOptions): void {
    const controller = new AbortController();
    const maxSteps = options.maxSteps ?? this.settings.maxSteps();
    const timeout = options.actionTimeoutSeconds ?? this.settings.actionTimeoutSeconds();
    const streamId = `${task.id}:${Date.now()}`;
    const done = (async (): Promise<Task> => {
      let outcome: AgentOutcome;
      try {
        outcome = await runAgent({
          history: this.history(task, maxSteps),
          maxSteps,
          signal: controller.signal,
          hooks: {
            complete: (messages, onDelta, signal) => llm.complete(messages, onDelta, signal),
            onDelta: (delta) => this.events.emit('message:delta', { taskId: task.id, streamId, delta }),
            onAssistantMessage: (text) => this.events.emit('message:added', this.store.addMessage(task.id, 'assistant', text)),
            runAction: (block) => this.runner.run(task, block, timeout),
            onObservation: (text) => this.events.emit('message:added', this.store.addMessage(task.id, 'observation', text)),
          },
        });
      } catch (error) {
        outcome = { status: 'failed', error: error instanceof Error ? error.message : String(error) };
      }
      this.running.delete(task.id);
      switch (outcome.status) {
        case 'done':
          return this.setTask(task.id, { status: 'done', answer: outcome.answer, error: null });
        case 'failed':
          return this.setTask(task.id, { status: 'failed', error: outcome.error });
        case 'cancelled':
          return this.setTask(task.id, { status: 'cancelled', error: 'Cancelled by the person.' });
      }
    })();
    this.running.set(task.id, { controller, done });
  }

  private history(task: Task, maxSteps: number): ChatMessage[] {
    const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt(task.workspaces, maxSteps) }];
    for (const m of this.store.listMessages(task.id)) {
      messages.push({ role: m.role === 'assistant' ? 'assistant' : 'user', content: m.content });
    }
    return messages;
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
      if (real === '/') throw new ServiceError('invalid-input', 'Granting the whole file system is not allowed; grant a project folder.');
      for (const guarded of await Promise.all(this.protectedPaths.map((g) => realpath(g).catch(() => g)))) {
        if (isPathInside(real, guarded) || isPathInside(guarded, real)) {
          throw new ServiceError(
            'invalid-input',
            `${p} contains ${guarded}, which the sandbox must never reach (Posthoc's own data or the Docker socket). Grant a folder that does not include it.`,
          );
        }
      }
      if (!resolved.includes(real)) resolved.push(real);
    }
    const names = uniqueNames(resolved.map((p) => basename(p) || 'folder'));
    const mounts = mountPaths(resolved, names);
    return resolved.map((hostPath, i) => ({ name: names[i]!, hostPath, mountPath: mounts[i]!, readOnly: false }));
  }

  private setTask(taskId: string, patch: Parameters<TaskStore['updateTask']>[1]): Task {
    const task = this.store.updateTask(taskId, patch);
    this.events.emit('task:updated', task);
    return task;
  }

  private requireTask(taskId: string): Task {
    const task = this.store.getTask(taskId);
    if (!task) throw new ServiceError('not-found', `No task ${taskId}. List tasks with "posthoc tasks".`);
    return task;
  }

  private requireAction(actionId: string): Action {
    const action = this.store.getAction(actionId);
    if (!action) throw new ServiceError('not-found', `No action ${actionId}. List actions with "posthoc actions".`);
    return action;
  }
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
