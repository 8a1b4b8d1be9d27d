// `posthoc run`: one task to its end, its actions and plan printed as they come, the model's text streamed
// to stderr, approvals asked on a terminal. Loaded by main/cli/index.ts only when `run` is the command.
import type { PosthocApi } from '../../shared/contract';
import type { Action, Task } from '../../shared/domain';
import { formatUsage } from '../agent/usage';
import { approvalPrompter, heldIn } from './approval-commands';
import { databaseRequests, type DbFlags } from './db-options';
import { formatAction } from './format';
import { EXIT, value } from './session';
import { EXIT_INTERRUPTED, stopOnSignals, stoppedSummary } from './stop-signals';
import { titleFilter } from './title-filter';

export type RunOpts = {
  workspace: string[];
  service: string[];
  mcp: string[];
  dataDir?: string;
  model?: string;
  maxSteps?: number;
  actionTimeout?: number;
  contextWindow?: number;
  memory: boolean;
  budget?: string;
  provider?: string;
  json?: boolean;
} & DbFlags;

type RunContext = {
  withApi<T>(dataDir: string | undefined, fn: (api: PosthocApi) => Promise<T>): Promise<T>;
  out(line: string): void;
  json(value: unknown): void;
};

const FINISHED: ReadonlySet<Task['status']> = new Set(['done', 'failed', 'cancelled', 'interrupted']);

export async function runTask(prompt: string, opts: RunOpts, { withApi, out, json }: RunContext): Promise<void> {
  const databases = databaseRequests(opts);
  let stop = () => {};
  const signals = stopOnSignals(() => stop(), (line) => process.stderr.write(`${line}\n`));
  await withApi(opts.dataDir, async (api) => {
    const printed = new Set<string>();
    // What waits for the person: asked on a terminal; otherwise the approve/reject commands are printed.
    const askPerson = approvalPrompter(api, { dataDir: opts.dataDir, interactive: process.stdin.isTTY === true, write: (line) => process.stderr.write(`${line}\n`) });
    const streamed = titleFilter();
    const unsubscribe = [
      api.on('action:updated', (action: Action) => {
        if (action.status === 'awaiting-approval') {
          if (opts.json) json({ type: 'action', action });
          else out(formatAction(action));
          askPerson(action);
          return;
        }
        if (heldIn(action).length > 0) askPerson(action);
        if (action.status === 'running' || printed.has(action.id)) return;
        printed.add(action.id);
        if (opts.json) json({ type: 'action', action });
        else out(formatAction(action));
      }),
      // The model's text streams to stderr so stdout stays the actions and the answer (its <title> apart).
      api.on('message:delta', ({ delta }) => {
        if (!opts.json) process.stderr.write(streamed.push(delta));
      }),
      api.on('message:added', ({ role }) => {
        if (!opts.json && role === 'assistant') process.stderr.write(`${streamed.flush()}\n\n`);
      }),
    ];
    // The run ends with the task's last task:updated (done, failed or cancelled).
    const ended = new Map<string, Task>();
    let waiting: { id: string; resolve: (task: Task) => void } | null = null;
    let shownPlan = '';
    unsubscribe.push(
      api.on('task:updated', (task) => {
        // The agent's plan, printed each time it changes (a "plan" line in --json).
        const plan = task.plan ? task.plan.map((item) => `  [${item.done ? 'x' : ' '}] ${item.text}`).join('\n') : '';
        if (plan !== shownPlan) {
          shownPlan = plan;
          if (opts.json) json({ type: 'plan', taskId: task.id, plan: task.plan });
          else out(`plan:\n${plan}`);
        }
        if (!FINISHED.has(task.status)) return;
        ended.set(task.id, task);
        if (waiting?.id === task.id) waiting.resolve(task);
      }),
    );
    const started = await value(
      api.taskStart({
        prompt,
        workspaces: opts.workspace,
        services: opts.service,
        ...(opts.mcp.length ? { mcp: opts.mcp } : {}),
        databases,
        model: opts.model,
        maxSteps: opts.maxSteps,
        contextWindow: opts.contextWindow,
        memory: opts.memory,
        budget: opts.budget,
        provider: opts.provider,
        actionTimeoutSeconds: opts.actionTimeout,
      }),
    );
    stop = () => void api.taskCancel({ taskId: started.id });
    if (signals.stopped()) stop();
    // The run lives until its task ends, even while only a decision from another terminal is awaited.
    const alive = setInterval(() => undefined, 60_000);
    const task = ended.get(started.id) ?? (await new Promise<Task>((resolve) => (waiting = { id: started.id, resolve })).finally(() => clearInterval(alive)));
    clearInterval(alive);
    for (const off of unsubscribe) off();
    const usage = task.usage ?? { promptTokens: 0, completionTokens: 0, calls: 0, costUsd: null };
    if (opts.json) json({ type: 'task', task: { id: task.id, status: task.status, answer: task.answer, error: task.error, usage } });
    else {
      process.stderr.write('\n');
      out(task.status === 'done' ? `\n${task.answer ?? ''}` : `\nTask ${task.status}: ${task.error ?? ''}`);
      out(`task ${task.id} · ${formatUsage(usage)}`);
    }
    if (task.status !== 'done') process.exitCode = EXIT.failed;
    if (signals.stopped()) {
      const detail = await value(api.taskGet({ taskId: task.id }));
      for (const line of stoppedSummary(detail.actions)) process.stderr.write(`${line}\n`);
      process.exitCode = EXIT_INTERRUPTED;
    }
  }).finally(() => signals.release());
}
