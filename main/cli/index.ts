// The command-line front end: a client of the contract (shared/contract), making the same calls and
// hearing the same events as the app and the web host, through main/ipc/local-client.ts. Exit codes
// (session.ts maps contract errors to them): 0 success; 1 the task or undo failed; 2 usage or
// configuration error; 3 undo refused (conflict); 4 undo partly done; 130 `run` stopped with Ctrl-C (the
// running action recorded as interrupted).
//
// What stays direct, because it is not part of the app's API:
// - createServices (the composition root) and resolveDataDir: building the services over a data folder is
//   what the app's main process does before any contract call; the CLI does it once per command.
// - `sandbox build` and `sandbox status`: Docker and the image, needed before any data folder exists
//   (building the image streams Docker's log, which no contract call carries).
// - `web`: starts the web host, a transport of the contract over the same services.
// - the error classes of that infrastructure (DataDirUnusable, SandboxError, VaultUnavailable) in reportError.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { fileURLToPath } from 'node:url';
import type { Action, Task } from '../../shared/domain';
import { formatUsage } from '../agent/usage';
import { createLocalClient } from '../ipc/local-client';
import { startWebHost } from '../ipc/web-host';
import { loadWebHostState, saveWebHostState } from '../ipc/web-host-state';
import { createDocker, SandboxError } from '../sandbox/docker-client';
import { formatBuildProgress, type BuildProgress } from '../sandbox/build-progress';
import { buildSandboxImage, SANDBOX_IMAGE, sandboxStatus } from '../sandbox/sandbox-image';
import { createServices } from '../services/app-services';
import { DataDirUnusable, resolveDataDir } from '../store/data-dir';
import { VaultUnavailable } from '../vault/vault';
import type { PosthocApi } from '../../shared/contract';
import { collect, databaseRequests, DB_OPTION_HELP, type DbFlags } from './db-options';
import { approvalPrompter, heldIn, registerApprovalCommands } from './approval-commands';
import { formatAction, formatActionLine, formatTaskLine } from './format';
import { registerConnectionCommands } from './connection-commands';
import { registerFigureCommand } from './figure-command';
import { registerMemoryCommands } from './memory-commands';
import { registerMcpCommands } from './mcp-commands';
import { registerContinueCommand } from './continue-command';
import { titleFilter } from './title-filter';
import { CliFailure, EXIT, exitCodeOf, value, type OpenSession } from './session';
import { registerUndoCommands } from './undo-commands';
import { EXIT_INTERRUPTED, stopOnSignals, stoppedSummary } from './stop-signals';

export { EXIT } from './session';

const positiveInt = (what: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${what} must be a whole number of at least 1.`);
  return n;
};

const dataDirOption = () => new Option('--data-dir <dir>', 'where Posthoc keeps its data (default: POSTHOC_HOME or the app\'s folder)');

/** The services over the data folder, and the contract's API over them: what the app's main process builds. */
export const openServices: OpenSession = (dataDir) => {
  const services = createServices({ dataDir: resolveDataDir(dataDir) });
  return { api: createLocalClient(services.handlers, services.events), ready: services.ready, close: () => services.close() };
};

function reportClosed(lines: string[]): void {
  for (const line of lines) process.stderr.write(`posthoc: ${line}\n`);
}

const out = (line: string) => process.stdout.write(`${line}\n`);
const json = (value: unknown) => out(JSON.stringify(value));

const FINISHED: ReadonlySet<Task['status']> = new Set(['done', 'failed', 'cancelled', 'interrupted']);

export function buildProgram(options: { open?: OpenSession } = {}): Command {
  const open = options.open ?? openServices;
  async function withApi<T>(dataDir: string | undefined, fn: (api: PosthocApi) => Promise<T>): Promise<T> {
    const session = open(dataDir);
    try {
      // Before the command answers: what an earlier, crashed or killed run left open is closed and said.
      reportClosed(await session.ready);
      return await fn(session.api);
    } finally {
      await session.close();
    }
  }
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
    .option('--mcp <name>', "let the agent call this MCP server's tools from its code (posthoc mcp list; repeat for several)", (v: string, acc: string[]) => [...acc, v], [] as string[])
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
    .option('--context-window <tokens>', 'the model\'s context window: no request exceeds it (default: Settings, the provider\'s model list, else 8192)', positiveInt('--context-window'))
    .option('--provider <id>', 'a model provider saved in Settings (default: OPENAI_BASE_URL or the one set in Settings)')
    .option('--budget <tokens|$usd>', 'stop the task once it used this many tokens (50000, 50k) or dollars ($0.50) (default: Settings)')
    .option('--no-memory', 'run this task without the agent\'s memory: nothing read from it or written to it')
    .option('--json', 'print one JSON object per line')
    .action(async (prompt: string, opts: { workspace: string[]; service: string[]; mcp: string[]; dataDir?: string; model?: string; maxSteps?: number; actionTimeout?: number; contextWindow?: number; memory: boolean; budget?: string; provider?: string; json?: boolean } & DbFlags) => {
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
    });

  program
    .command('tasks')
    .description('list tasks, newest first')
    .addOption(dataDirOption())
    .option('--json', 'print JSON')
    .action(async (opts: { dataDir?: string; json?: boolean }) => {
      await withApi(opts.dataDir, async (api) => {
        const tasks = await value(api.taskList({}));
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
      await withApi(opts.dataDir, async (api) => {
        const actions = await value(api.actionList({ taskId: opts.task }));
        if (opts.json) json(actions);
        else actions.forEach((a) => out(formatActionLine(a)));
      });
    });

  registerUndoCommands(program, { withApi, dataDirOption, out, json, exitConflict: EXIT.conflict });
  registerApprovalCommands(program, { withApi, dataDirOption, out, json, exitConflict: EXIT.conflict });

  registerConnectionCommands(program, { withApi, dataDirOption, out, json, exitConflict: EXIT.conflict });
  registerFigureCommand(program, { withApi, dataDirOption });
  registerMemoryCommands(program, { withApi, dataDirOption, out, json });
  registerMcpCommands(program, { withApi, dataDirOption, out, json });
  registerContinueCommand(program, { withApi, dataDirOption, out, json });

  const sandbox = program.command('sandbox').description('the Docker sandbox');
  sandbox
    .command('build')
    .description(`build the sandbox image ${SANDBOX_IMAGE}`)
    .option('--image <tag>', `build under another tag (default ${SANDBOX_IMAGE})`)
    .action(async (opts: { image?: string }) => {
      await buildSandboxImage(createDocker(), printBuildProgress(), opts.image ?? SANDBOX_IMAGE);
    });
  sandbox
    .command('status')
    .description('say whether Docker answers and the image exists')
    .option('--json', 'print JSON')
    .option('--image <tag>', `check another tag (default ${SANDBOX_IMAGE})`)
    .action(async (opts: { json?: boolean; image?: string }) => {
      const status = await sandboxStatus(createDocker(), opts.image ?? SANDBOX_IMAGE);
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
    .description('serve the app to a browser on 127.0.0.1 (prints the URL with its token; the token and the port are kept for the data folder, so open tabs reconnect after a restart)')
    .option('--port <n>', 'port (default: the last one, else a free one)', positiveInt('--port'))
    .option('--new-token', 'rotate the token: addresses handed out before stop working')
    .addOption(dataDirOption())
    .action(async (opts: { port?: number; dataDir?: string; newToken?: boolean }) => {
      const dataDir = resolveDataDir(opts.dataDir);
      const services = createServices({ dataDir });
      reportClosed(await services.ready);
      const rendererDir = fileURLToPath(new URL('../renderer', import.meta.url));
      const state = loadWebHostState(dataDir, { rotate: opts.newToken === true });
      const host = await startWebHost(services, { port: opts.port, preferredPort: state.port ?? undefined, token: state.token, rendererDir });
      saveWebHostState(dataDir, { token: host.token, port: host.port });
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

export async function main(argv: string[], options: { open?: OpenSession } = {}): Promise<number> {
  const program = buildProgram(options);
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
/**
 * Prints an image build's progress on stderr: each phase once and then at most every few seconds; on a terminal
 * one line kept up to date in place.
 */
function printBuildProgress(): (progress: BuildProgress) => void {
  const tty = process.stderr.isTTY === true;
  let lastPhase = '';
  let lastAt = -Infinity;
  return (progress) => {
    const changed = progress.phase !== lastPhase;
    const final = progress.phase === 'done' || progress.phase === 'failed';
    if (!changed && !final && progress.elapsedMs - lastAt < (tty ? 100 : 5000)) return;
    // The reason of a failure is printed once, as the command's error.
    const text = formatBuildProgress(progress.phase === 'failed' ? { ...progress, line: undefined } : progress);
    if (tty) {
      const width = Math.max(20, (process.stderr.columns ?? 100) - 1);
      process.stderr.write(`\r\x1b[K${final || changed ? text : text.slice(0, width)}${final || changed ? '\n' : ''}`);
    } else process.stderr.write(`${text}\n`);
    lastPhase = progress.phase;
    lastAt = progress.elapsedMs;
  };
}

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
  if (error instanceof CliFailure) return exitCodeOf(error.code);
  // Infrastructure the CLI uses directly (the data folder, Docker for `sandbox`, the keychain).
  if (error instanceof SandboxError || error instanceof VaultUnavailable || error instanceof DataDirUnusable) return EXIT.usage;
  return EXIT.failed;
}
