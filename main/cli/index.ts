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
//
// A command loads what it needs when it runs (issue 28): this file imports only commander and the
// commands' definitions, so `posthoc --help` parses and answers without the services. Each action
// import()s its code; the services (Docker, the model clients, MCP, PostgreSQL, git objects) are loaded
// by openServices, and `posthoc tasks` reads the record alone (openRecordOrServices) unless an earlier
// run left something open. tests/integration/cli-lazy.test.ts checks which packages each command loads.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { fileURLToPath } from 'node:url';
import type { PosthocApi } from '../../shared/contract';
import { SandboxError } from '../sandbox/sandbox-error';
import { SANDBOX_IMAGE } from '../sandbox/sandbox-image-name';
import { DataDirUnusable, resolveDataDir } from '../store/data-dir';
import { VaultUnavailable } from '../vault/vault';
import { collect, DB_OPTION_HELP } from './db-options';
import { registerApprovalCommands } from './approval-commands';
import { registerConnectionCommands } from './connection-commands';
import { registerFigureCommand } from './figure-command';
import { registerMemoryCommands } from './memory-commands';
import { registerMcpCommands } from './mcp-commands';
import { registerContinueCommand } from './continue-command';
import type { RunOpts } from './run-command';
import { CliFailure, EXIT, exitCodeOf, value, type OpenSession, type Session } from './session';
import { registerUndoCommands } from './undo-commands';

export { EXIT } from './session';

const positiveInt = (what: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${what} must be a whole number of at least 1.`);
  return n;
};

const dataDirOption = () => new Option('--data-dir <dir>', 'where Posthoc keeps its data (default: POSTHOC_HOME or the app\'s folder)');

/** The services over the data folder, and the contract's API over them: what the app's main process builds. */
export const openServices: OpenSession = async (dataDir) => {
  const [{ createServices }, { createLocalClient }] = await Promise.all([import('../services/app-services'), import('../ipc/local-client')]);
  const services = createServices({ dataDir: resolveDataDir(dataDir) });
  return { api: createLocalClient(services.handlers, services.events), ready: services.ready, close: () => services.close() };
};

/**
 * For a command that only reads the record (`tasks`, `actions`): the API over the task store alone, unless an earlier
 * run left something open; then the whole services, whose start closes it and says so, as for any command.
 */
export const openRecordOrServices: OpenSession = async (dataDir): Promise<Session> => {
  const [{ openRecord }, { createRecordClient }] = await Promise.all([import('../services/record-services'), import('../ipc/record-client')]);
  const record = openRecord(resolveDataDir(dataDir));
  if (!record) return openServices(dataDir);
  return { api: createRecordClient(record), ready: Promise.resolve([]), close: async () => record.close() };
};

function reportClosed(lines: string[]): void {
  for (const line of lines) process.stderr.write(`posthoc: ${line}\n`);
}

const out = (line: string) => process.stdout.write(`${line}\n`);
const json = (value: unknown) => out(JSON.stringify(value));

export function buildProgram(options: { open?: OpenSession } = {}): Command {
  const open = options.open ?? openServices;
  const openForReading = options.open ?? openRecordOrServices;
  async function withApi<T>(dataDir: string | undefined, fn: (api: PosthocApi) => Promise<T>, opener: OpenSession = open): Promise<T> {
    const session = await opener(dataDir);
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
    .action(async (prompt: string, opts: RunOpts) => {
      const { runTask } = await import('./run-command');
      await runTask(prompt, opts, { withApi, out, json });
    });

  program
    .command('tasks')
    .description('list tasks, newest first')
    .addOption(dataDirOption())
    .option('--json', 'print JSON')
    .action(async (opts: { dataDir?: string; json?: boolean }) => {
      const { formatTaskLine } = await import('./task-line');
      await withApi(
        opts.dataDir,
        async (api) => {
          const tasks = await value(api.taskList({}));
          if (opts.json) json(tasks);
          else tasks.forEach((t) => out(formatTaskLine(t)));
        },
        openForReading,
      );
    });

  program
    .command('actions')
    .description('list actions (of one task with --task)')
    .option('--task <id>', 'only this task')
    .addOption(dataDirOption())
    .option('--json', 'print JSON')
    .action(async (opts: { task?: string; dataDir?: string; json?: boolean }) => {
      const { formatActionLine } = await import('./format');
      await withApi(
        opts.dataDir,
        async (api) => {
          const actions = await value(api.actionList({ taskId: opts.task }));
          if (opts.json) json(actions);
          else actions.forEach((a) => out(formatActionLine(a)));
        },
        openForReading,
      );
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
      const { buildImage } = await import('./sandbox-commands');
      await buildImage(opts.image ?? SANDBOX_IMAGE);
    });
  sandbox
    .command('status')
    .description('say whether Docker answers and the image exists')
    .option('--json', 'print JSON')
    .option('--image <tag>', `check another tag (default ${SANDBOX_IMAGE})`)
    .action(async (opts: { json?: boolean; image?: string }) => {
      const { printSandboxStatus } = await import('./sandbox-commands');
      await printSandboxStatus(opts.image ?? SANDBOX_IMAGE, opts, out);
    });

  // Engines (issue 30): engine:* calls of the contract, like every command with an app equivalent.
  const engines = program.command('engines').description('the Docker engines tasks may run on (this machine\'s is "local")');
  engines
    .command('add <name> [address]')
    .description('add a remote engine: tcp://HOST:PORT with --tls-ca, --tls-cert, --tls-key (the key goes to the keychain), ssh://USER@HOST, or --context NAME')
    .option('--context <name>', 'an existing Docker context (docker context ls)')
    .option('--tls-ca <file>', "the CA that signed the daemon's certificate (PEM)")
    .option('--tls-cert <file>', 'the client certificate (PEM)')
    .option('--tls-key <file>', 'the client key (PEM); kept in the keychain, not in the data folder')
    .option('--json', 'print JSON')
    .addOption(dataDirOption())
    .action(async (name: string, address: string | undefined, opts: { context?: string; tlsCa?: string; tlsCert?: string; tlsKey?: string; json?: boolean; dataDir?: string }) => {
      const { addEngine } = await import('./engine-commands');
      await withApi(opts.dataDir, (api) => addEngine(api, name, address, opts, out));
    });
  engines
    .command('list')
    .description('list the engines')
    .option('--json', 'print JSON')
    .addOption(dataDirOption())
    .action(async (opts: { json?: boolean; dataDir?: string }) => {
      const { listEngines } = await import('./engine-commands');
      await withApi(opts.dataDir, (api) => listEngines(api, opts, out));
    });
  engines
    .command('check <name>')
    .description('say whether the engine answers: Docker version, architecture, round-trip time, the sandbox image')
    .option('--json', 'print JSON')
    .addOption(dataDirOption())
    .action(async (name: string, opts: { json?: boolean; dataDir?: string }) => {
      const { checkEngineCommand } = await import('./engine-commands');
      await withApi(opts.dataDir, (api) => checkEngineCommand(api, name, opts, out));
    });
  engines
    .command('send-image <name>')
    .description("send the sandbox image from this machine's Docker to the engine (docker save streamed into its load)")
    .option('--json', 'print JSON')
    .addOption(dataDirOption())
    .action(async (name: string, opts: { json?: boolean; dataDir?: string }) => {
      const { sendImageCommand } = await import('./engine-commands');
      await withApi(opts.dataDir, (api) => sendImageCommand(api, name, opts, out));
    });
  engines
    .command('remove <name>')
    .description('remove an engine and its client key from the keychain')
    .option('--json', 'print JSON')
    .addOption(dataDirOption())
    .action(async (name: string, opts: { json?: boolean; dataDir?: string }) => {
      const { removeEngine } = await import('./engine-commands');
      await withApi(opts.dataDir, (api) => removeEngine(api, name, opts, out));
    });

  program
    .command('web')
    .description('serve the app to a browser on 127.0.0.1 (prints the URL with its token; the token and the port are kept for the data folder, so open tabs reconnect after a restart)')
    .option('--port <n>', 'port (default: the last one, else a free one)', positiveInt('--port'))
    .option('--new-token', 'rotate the token: addresses handed out before stop working')
    .addOption(dataDirOption())
    .action(async (opts: { port?: number; dataDir?: string; newToken?: boolean }) => {
      const [{ createServices }, { startWebHost }, { loadWebHostState, saveWebHostState }] = await Promise.all([
        import('../services/app-services'),
        import('../ipc/web-host'),
        import('../ipc/web-host-state'),
      ]);
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
