// `posthoc continue TASK`: the app's Continue for a task a restart or a crash of Posthoc interrupted
// (task:continue). The conversation goes on with the record of what ran; the command follows the run to its
// end as `posthoc run` does: each action as it ends, the model's text on stderr, the answer on stdout, and
// Ctrl-C stops it the way Stop does.
import type { Command } from 'commander';
import type { Task } from '../../shared/domain';
import { EXIT, value } from './session';
import { EXIT_INTERRUPTED, stopOnSignals, stoppedSummary } from './stop-signals';
import type { CliContext } from './undo-commands';

const ENDED: ReadonlySet<Task['status']> = new Set(['done', 'failed', 'cancelled', 'interrupted']);

export function registerContinueCommand(program: Command, ctx: Pick<CliContext, 'withApi' | 'dataDirOption' | 'out' | 'json'>): void {
  program
    .command('continue')
    .description('continue a task a restart or a crash of Posthoc interrupted, with the record of what ran')
    .argument('<task>', 'the task id (posthoc tasks)')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print one JSON object per line')
    .action(async (taskId: string, opts: { dataDir?: string; json?: boolean }) => {
      // The words for actions and usage are loaded when the command runs (not for `posthoc --help`).
      const [{ formatAction }, { formatUsage }] = await Promise.all([import('./format'), import('../agent/usage')]);
      let stop = () => {};
      const signals = stopOnSignals(() => stop(), (line) => process.stderr.write(`${line}\n`));
      await ctx
        .withApi(opts.dataDir, async (api) => {
          const printed = new Set<string>();
          let finish: (task: Task) => void = () => {};
          const ended = new Promise<Task>((resolve) => (finish = resolve));
          const offs = [
            api.on('action:updated', (action) => {
              if (action.taskId !== taskId || action.status === 'running' || printed.has(action.id)) return;
              printed.add(action.id);
              if (opts.json) ctx.json({ type: 'action', action });
              else ctx.out(formatAction(action));
            }),
            api.on('message:delta', ({ taskId: id, delta }) => {
              if (!opts.json && id === taskId) process.stderr.write(delta);
            }),
            api.on('task:updated', (task) => {
              if (task.id === taskId && ENDED.has(task.status)) finish(task);
            }),
          ];
          await value(api.taskContinue({ taskId }));
          stop = () => void api.taskCancel({ taskId });
          if (signals.stopped()) stop();
          const alive = setInterval(() => undefined, 60_000);
          const task = await ended.finally(() => clearInterval(alive));
          for (const off of offs) off();
          const usage = task.usage ?? { promptTokens: 0, completionTokens: 0, calls: 0, costUsd: null };
          if (opts.json) ctx.json({ type: 'task', task: { id: task.id, status: task.status, answer: task.answer, error: task.error, usage } });
          else {
            ctx.out(task.status === 'done' ? `\n${task.answer ?? ''}` : `\nTask ${task.status}: ${task.error ?? ''}`);
            ctx.out(`task ${task.id} · ${formatUsage(usage)}`);
          }
          if (task.status !== 'done') process.exitCode = EXIT.failed;
          if (signals.stopped()) {
            const detail = await value(api.taskGet({ taskId }));
            for (const line of stoppedSummary(detail.actions)) process.stderr.write(`${line}\n`);
            process.exitCode = EXIT_INTERRUPTED;
          }
        })
        .finally(() => signals.release());
    });
}
