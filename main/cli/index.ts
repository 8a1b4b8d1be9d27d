// The command-line front end. It calls the same services as the app and the web host.
// Exit codes: 0 success; 1 the task or undo failed; 2 usage or configuration error; 3 undo refused (conflict);
// 130 `run` stopped with Ctrl-C (the running action recorded as interrupted).
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { fileURLToPath } from 'node:url';
import type { Action } from '../../shared/domain';
import { startWebHost } from '../ipc/web-host';
import { createDocker, SandboxError } from '../sandbox/docker-client';
import { buildSandboxImage, SANDBOX_IMAGE, sandboxStatus } from '../sandbox/sandbox-image';
import { createServices, type AppServices } from '../services/app-services';
import { ServiceError } from '../services/service-error';
import { DataDirUnusable, resolveDataDir } from '../store/data-dir';
import { VaultUnavailable } from '../vault/vault';
import { answerApproval, collect, databaseRequests, DB_OPTION_HELP, type DbFlags } from './db-options';
import { formatAction, formatActionLine, formatTaskLine } from './format';
import { registerConnectionCommands } from './connection-commands';
import { registerUndoCommands } from './undo-commands';
import { EXIT_INTERRUPTED, stopOnSignals, stoppedSummary } from './stop-signals';

export const EXIT = { ok: 0, failed: 1, usage: 2, conflict: 3 } as const;

const positiveInt = (what: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${what} must be a whole number of at least 1.`);
  return n;
};

const dataDirOption = () => new Option('--data-dir <dir>', 'where Posthoc keeps its data (default: POSTHOC_HOME or the app\'s folder)');

async function withServices<T>(dataDir: string | undefined, fn: (s: AppServices) => Promise<T>): Promise<T> {
  const services = createServices({ dataDir: resolveDataDir(dataDir) });
  try {
    // Before the command answers: what an earlier, crashed or killed run left open is closed and said.
    reportClosed(await services.ready);
    return await fn(services);
  } finally {
    await services.close();
  }
}

function reportClosed(lines: string[]): void {
  for (const line of lines) process.stderr.write(`posthoc: ${line}\n`);
}

const out = (line: string) => process.stdout.write(`${line}\n`);
const json = (value: unknown) => out(JSON.stringify(value));

export function buildProgram(): Command {
  const program = new Command()
    .name('posthoc')
    .description('Delegate tasks to an agent whose every action is undoable or confined.')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('run')
    .description('run a task to its end')
    .argument('<task>', 'what the agent should do')
    .option('--workspace <dir>', 'grant a folder (repeat for several)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--service <name>', 'let the sandbox call this service through the gateway (repeat for several)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--db <name=url>', DB_OPTION_HELP.db, collect, [] as string[])
    .option('--db-read-only <name>', DB_OPTION_HELP.readOnly, collect, [] as string[])
    .option('--db-allow <name=classes>', DB_OPTION_HELP.allow, collect, [] as string[])
    .option('--db-sample-rows <name>', DB_OPTION_HELP.sampleRows, collect, [] as string[])
    .option('--db-max-rows <name=n>', DB_OPTION_HELP.maxRows, collect, [] as string[])
    .option('--db-held <name[=seconds]>', DB_OPTION_HELP.held, collect, [] as string[])
    .addOption(dataDirOption())
    .option('--model <name>', 'the model to use (default: POSTHOC_MODEL or Settings)')
    .option('--max-steps <n>', 'the most replies the agent may take', positiveInt('--max-steps'))
    .option('--action-timeout <seconds>', 'stop an action after this many seconds', positiveInt('--action-timeout'))
    .option('--json', 'print one JSON object per line')
    .action(async (prompt: string, opts: { workspace: string[]; service: string[]; dataDir?: string; model?: string; maxSteps?: number; actionTimeout?: number; json?: boolean } & DbFlags) => {
      const databases = databaseRequests(opts);
      let stop = () => {};
      const signals = stopOnSignals(() => stop(), (line) => process.stderr.write(`${line}\n`));
      await withServices(opts.dataDir, async (s) => {
        const printed = new Set<string>();
        const unsubscribe = s.events.subscribe((event, payload) => {
          if (event === 'action:updated') {
            const action = payload as Action;
            if (action.status === 'awaiting-approval') {
              if (opts.json) json({ type: 'action', action });
              else out(formatAction(action));
              void answerApproval(s, action, (line) => process.stderr.write(`${line}\n`));
              return;
            }
            if (action.status === 'running' || printed.has(action.id)) return;
            printed.add(action.id);
            if (opts.json) json({ type: 'action', action });
            else out(formatAction(action));
          } else if (event === 'message:delta' && !opts.json) {
            // The model's text streams to stderr so stdout stays the actions and the answer.
            process.stderr.write((payload as { delta: string }).delta);
          } else if (event === 'message:added' && !opts.json && (payload as { role: string }).role === 'assistant') {
            process.stderr.write('\n\n');
          }
        });
        const started = await s.tasks.start(
          { prompt, workspaces: opts.workspace, services: opts.service, databases },
          { model: opts.model, maxSteps: opts.maxSteps, actionTimeoutSeconds: opts.actionTimeout },
        );
        stop = () => s.tasks.cancel(started.id);
        if (signals.stopped()) stop();
        const task = await s.tasks.wait(started.id);
        unsubscribe();
        await s.executor.stop(task.id);
        if (opts.json) json({ type: 'task', task: { id: task.id, status: task.status, answer: task.answer, error: task.error } });
        else {
          process.stderr.write('\n');
          out(task.status === 'done' ? `\n${task.answer ?? ''}` : `\nTask ${task.status}: ${task.error ?? ''}`);
          out(`task ${task.id}`);
        }
        if (task.status !== 'done') process.exitCode = EXIT.failed;
        if (signals.stopped()) {
          for (const line of stoppedSummary(s.tasks.get(task.id).actions)) process.stderr.write(`${line}\n`);
          process.exitCode = EXIT_INTERRUPTED;
        }
      }).finally(() => signals.release());
    });

  program
    .command('tasks')
    .description('list tasks, newest first')
    .addOption(dataDirOption())
    .option('--json', 'print JSON')
    .action(async (opts: { dataDir?: string; json?: boolean }) => {
      await withServices(opts.dataDir, async (s) => {
        const tasks = s.tasks.list();
        if (opts.json) json(tasks);
        else tasks.forEach((t) => out(formatTaskLine(t)));
      });
    });

  program
    .command('actions')
    .description('list actions (of one task with --task)')
    .option('--task <id>', 'only this task')
    .addOption(dataDirOption())
    .option('--json', 'print JSON')
    .action(async (opts: { task?: string; dataDir?: string; json?: boolean }) => {
      await withServices(opts.dataDir, async (s) => {
        const actions = opts.task ? s.tasks.get(opts.task).actions : s.store.listActions();
        if (opts.json) json(actions);
        else actions.forEach((a) => out(formatActionLine(a)));
      });
    });

  registerUndoCommands(program, { withServices, dataDirOption, out, json, exitConflict: EXIT.conflict });

  registerConnectionCommands(program, { withServices, dataDirOption, out, json, exitConflict: EXIT.conflict });

  const sandbox = program.command('sandbox').description('the Docker sandbox');
  sandbox
    .command('build')
    .description(`build the sandbox image ${SANDBOX_IMAGE}`)
    .action(async () => {
      await buildSandboxImage(createDocker(), (line) => process.stderr.write(`${line}\n`));
    });
  sandbox
    .command('status')
    .description('say whether Docker answers and the image exists')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const status = await sandboxStatus(createDocker());
      if (opts.json) json(status);
      else {
        out(`docker: ${status.dockerAvailable ? `running (${status.dockerVersion})` : 'not reachable'}`);
        out(`image:  ${status.image} ${status.imagePresent ? 'present' : 'missing'}`);
        if (status.message) out(status.message);
      }
      if (!status.dockerAvailable || !status.imagePresent) process.exitCode = EXIT.usage;
    });

  program
    .command('web')
    .description('serve the app to a browser on 127.0.0.1 (prints the URL with its token)')
    .option('--port <n>', 'port (default: a free one)', positiveInt('--port'))
    .addOption(dataDirOption())
    .action(async (opts: { port?: number; dataDir?: string }) => {
      const services = createServices({ dataDir: resolveDataDir(opts.dataDir) });
      reportClosed(await services.ready);
      const rendererDir = fileURLToPath(new URL('../renderer', import.meta.url));
      const host = await startWebHost(services, { port: opts.port, rendererDir });
      out(host.url);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await host.close();
      await services.close();
    });

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  let code: number;
  try {
    await program.parseAsync(argv, { from: 'user' });
    code = typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    code = reportError(error);
  }
  // bin/posthoc.js calls process.exit with this code; a pipe is written asynchronously, so whatever is
  // still queued (all but the first 64 KiB of a large --json answer) would be lost without this wait.
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  return code;
}

/** Resolves once everything written to the stream so far has left the process (or the reader went away). */
export function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || !stream.writable || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => resolve();
    // A closed pipe (`posthoc actions --json | head`) ends the wait too: nothing more can be delivered. The
    // listener stays, because the EPIPE is emitted after the write callback and would otherwise be thrown.
    stream.on('error', done);
    stream.once('close', done);
    // Write callbacks run in order, so this one runs after every earlier chunk was handed to the OS.
    stream.write('', done);
  });
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`posthoc: ${message}\n`);
  if (error instanceof SandboxError || error instanceof VaultUnavailable || error instanceof DataDirUnusable) return EXIT.usage;
  if (error instanceof ServiceError) {
    // A missing model, Docker, image or folder is configuration; anything else (already undone, kept) is a failure.
    return error.code === 'unavailable' || error.code === 'invalid-input' || error.code === 'not-found' ? EXIT.usage : EXIT.failed;
  }
  return EXIT.failed;
}
