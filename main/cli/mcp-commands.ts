// `posthoc mcp add | import | list | remove | clear | sign-in | rules`: MCP servers the way people already describe
// them — the command line a desktop agent's config holds (`-- npx -y @modelcontextprotocol/server-filesystem DIR`),
// a remote URL with a token by secret name, or that whole config imported. A client of the contract
// (mcp:add, mcp:import, mcp:list, mcp:remove, mcp:clear, mcp:signin, mcp:rules), like the app's Connections page.
import { readFileSync, statSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import type { CallInput } from '../../shared/contract';
import type { McpServerView, McpToolRule, McpToolView, McpTransport } from '../../shared/domain/mcp';
import { formatBytes } from '../gateway/byte-size';
import { CliFailure, EXIT, value } from './session';
import type { CliContext } from './undo-commands';

type Opts = { dataDir?: string; json?: boolean };
type AddOpts = Opts & {
  deny: string[];
  hold: string[];
  inverse: true | string;
  env: string[];
  api?: string;
  url?: string;
  auth?: string;
  secret?: string;
  replace?: boolean;
};
type RulesOpts = Opts & { deny: string[]; hold: string[]; allow: string[]; inverse: true | string };

const MAX_CONFIG_BYTES = 1024 * 1024;
const RULES: readonly McpToolRule[] = ['allow', 'hold', 'deny'];

const collect = (v: string, acc: string[]) => [...acc, v];
const envPair = (v: string, acc: string[]) => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) throw new InvalidArgumentError(`--env takes NAME=VALUE (got "${v.replace(/=.*/, '=…')}").`);
  return [...acc, v];
};

export function registerMcpCommands(program: Command, ctx: Pick<CliContext, 'withApi' | 'dataDirOption' | 'out' | 'json'>): void {
  const { out, json } = ctx;
  const mcp = program
    .command('mcp')
    .description("MCP servers whose tools the agent calls from its code (posthoc run --mcp NAME): stdio servers run confined in the task's own container");
  mcp
    .command('add')
    .description('define a server: a stdio command after --, or a remote (streamable HTTP) server with --url')
    .argument('<name>', 'how the agent reaches it: from posthoc_tools import NAME')
    .argument('[command...]', 'after --: the command that starts the server, as in a desktop agent\'s config (npx -y PACKAGE ARGS…)')
    .option('--deny <tool>', 'refuse every call of this tool: it never reaches the server (repeat)', collect, [] as string[])
    .option('--hold <tool>', 'wait for your approval before each call of this tool (repeat)', collect, [] as string[])
    .option('--no-inverse <rule>', 'calls that may change something undo cannot take back: allow (default), hold or deny')
    .option('--env <name=value>', 'a plain setting for a stdio server (never a token: those go to the vault) (repeat)', envPair, [] as string[])
    .option('--api <id>', 'whose inverse data describes its tools (memory, filesystem), or none (default: recognised from the command)')
    .option('--url <url>', 'a remote server over streamable HTTP, called by Posthoc from this machine')
    .option('--auth <how>', 'for --url: bearer (with --secret) or oauth (default: none)')
    .option('--secret <name>', 'for --auth bearer: the vault entry holding the token (posthoc secret set NAME)')
    .option('--replace', 'replace the server of that name')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action(async (name: string, command: string[], opts: AddOpts) => {
      const input: CallInput<'mcp:add'> = {
        name,
        transport: transportOf(command, opts),
        rules: { deny: opts.deny, hold: opts.hold, ...(opts.inverse === true ? {} : { noInverse: ruleOf(opts.inverse, '--no-inverse') }) },
        ...(opts.api === undefined ? {} : { api: opts.api === 'none' ? null : opts.api }),
        ...(opts.replace ? { replace: true } : {}),
      };
      await ctx.withApi(opts.dataDir, async (api) => {
        const view = await value(api.mcpAdd(input));
        if (opts.json) json(view);
        else {
          out(describeServer(view));
          out(`Use it in a task with: posthoc run --mcp ${view.name} --workspace DIR "…"`);
        }
      });
    });
  mcp
    .command('import')
    .description("add the servers of a desktop agent's config: Claude Desktop's claude_desktop_config.json, Cursor's or VS Code's mcp.json")
    .argument('<file>')
    .option('--only <name>', 'import only this server (repeat)', collect, [] as string[])
    .addOption(ctx.dataDirOption())
    .option('--json', 'print {added, skipped}')
    .action(async (file: string, opts: Opts & { only: string[] }) => {
      const text = readConfig(file);
      await ctx.withApi(opts.dataDir, async (api) => {
        const result = await value(api.mcpImport({ json: text, ...(opts.only.length ? { only: opts.only } : {}) }));
        if (opts.json) json(result);
        else {
          for (const view of result.added) out(`added   ${describeServer(view)}`);
          for (const s of result.skipped) out(`skipped ${s.name}: ${s.reason}`);
          if (result.added.length === 0 && result.skipped.length === 0) out('The file lists no servers.');
        }
        if (result.skipped.length > 0) process.exitCode = result.added.length > 0 ? EXIT.partial : EXIT.usage;
      });
    });
  mcp
    .command('list')
    .description('list the servers, their rules, what each keeps between tasks, and (with --tools) their tools, starting each server to ask')
    .option('--tools', "start each server and list its tools with their annotations and rules")
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action(async (opts: Opts & { tools?: boolean }) => {
      await ctx.withApi(opts.dataDir, async (api) => {
        const list = await value(api.mcpList(opts.tools ? { refresh: true } : {}));
        if (opts.json) return json(list);
        if (list.length === 0) out('No MCP servers. Add one with: posthoc mcp add NAME -- COMMAND ARGS…  (or posthoc mcp import FILE)');
        for (const view of list) {
          out(describeServer(view));
          if (!opts.tools) continue;
          if (view.tools) view.tools.forEach((t) => out(describeTool(t)));
          else out(`  tools not listed: ${view.toolsError ?? 'unknown reason'}`);
        }
      });
    });
  mcp
    .command('remove')
    .description('remove a server definition, and what it kept between tasks')
    .argument('<name>')
    .addOption(ctx.dataDirOption())
    .action(async (name: string, opts: Opts) => {
      await ctx.withApi(opts.dataDir, async (api) => {
        const result = await value(api.mcpRemove({ name }));
        if (!result.removed) throw new CliFailure('not-found', `No MCP server named ${name}. List them with: posthoc mcp list`);
        out(result.freedBytes > 0 ? `Removed ${name} and the ${formatBytes(result.freedBytes)} it kept between tasks.` : `Removed ${name}.`);
      });
    });
  mcp
    .command('clear')
    .description("clear what a stdio server keeps between tasks (its data, and npm's cache of its package): the next task starts it empty")
    .argument('<name>')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action(async (name: string, opts: Opts) => {
      await ctx.withApi(opts.dataDir, async (api) => {
        const result = await value(api.mcpClear({ name }));
        if (opts.json) json(result);
        else out(result.freedBytes > 0 ? `Cleared what ${name} kept between tasks (${formatBytes(result.freedBytes)}).` : `${name} kept nothing between tasks: nothing to clear.`);
      });
    });
  mcp
    .command('sign-in')
    .description('sign in to a server added with --auth oauth: prints the sign-in link and waits (up to 5 minutes) for you to finish it in the browser')
    .argument('<name>')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action(async (name: string, opts: Opts) => {
      await ctx.withApi(opts.dataDir, async (api) => {
        // The sign-in's loopback listener lives in this process: it waits here, not in a later command.
        const started = await value(api.mcpSignin({ name }));
        if (started.signedIn) {
          if (opts.json) json(started);
          else out(`Already signed in. ${started.message}`);
          return;
        }
        if (!opts.json) {
          out(`Open this link to sign in to ${name}:`);
          out(`  ${started.url}`);
          out('Waiting for you to finish in the browser (up to 5 minutes; Ctrl-C stops)…');
        }
        const done = await value(api.mcpSignin({ name, wait: true }));
        if (opts.json) json(done);
        else out(done.message);
        if (!done.signedIn) process.exitCode = EXIT.failed;
      });
    });
  mcp
    .command('rules')
    .description("change a server's rules: deny, hold or allow tools by name (the others stay as they are)")
    .argument('<name>')
    .option('--deny <tool>', 'refuse every call of this tool (repeat)', collect, [] as string[])
    .option('--hold <tool>', 'wait for your approval before each call (repeat)', collect, [] as string[])
    .option('--allow <tool>', 'neither denied nor held any more (repeat)', collect, [] as string[])
    .option('--no-inverse <rule>', 'calls undo cannot take back: allow, hold or deny')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action(async (name: string, opts: RulesOpts) => {
      await ctx.withApi(opts.dataDir, async (api) => {
        const current = (await value(api.mcpList({}))).find((s) => s.name === name);
        if (!current) throw new CliFailure('not-found', `No MCP server named ${name}. List them with: posthoc mcp list`);
        const changed = new Set([...opts.deny, ...opts.hold, ...opts.allow]);
        const keep = (tools: string[]) => tools.filter((t) => !changed.has(t));
        const rules = {
          deny: [...keep(current.rules.deny), ...opts.deny],
          hold: [...keep(current.rules.hold), ...opts.hold],
          ...(opts.inverse === true ? {} : { noInverse: ruleOf(opts.inverse, '--no-inverse') }),
        };
        const view = await value(api.mcpRules({ name, rules }));
        if (opts.json) json(view);
        else out(describeServer(view));
      });
    });
}

function transportOf(command: string[], opts: AddOpts): McpTransport {
  if (opts.url !== undefined) {
    if (command.length > 0) throw new CliFailure('invalid-input', 'Give either a command after -- (a stdio server) or --url (a remote server), not both.');
    if (opts.env.length > 0) throw new CliFailure('invalid-input', '--env is for stdio servers; a remote server takes none.');
    const how = opts.auth ?? (opts.secret ? 'bearer' : 'none');
    if (how === 'bearer') {
      if (!opts.secret) throw new CliFailure('invalid-input', '--auth bearer needs --secret NAME: the vault entry holding the token (store it with: posthoc secret set NAME).');
      return { kind: 'http', url: opts.url, auth: { kind: 'bearer', secret: opts.secret } };
    }
    if (opts.secret) throw new CliFailure('invalid-input', `--secret goes with --auth bearer, not --auth ${how}.`);
    if (how === 'oauth') return { kind: 'http', url: opts.url, auth: { kind: 'oauth' } };
    if (how === 'none') return { kind: 'http', url: opts.url, auth: { kind: 'none' } };
    throw new CliFailure('invalid-input', `--auth takes bearer or oauth, not "${how}".`);
  }
  if (opts.auth || opts.secret) throw new CliFailure('invalid-input', '--auth and --secret are for a remote server (--url). A stdio server reaches an API through a service: posthoc service add NAME --base-url URL --auth bearer --secret NAME.');
  const [cmd, ...args] = command;
  if (!cmd) {
    throw new CliFailure(
      'invalid-input',
      'Give the command that starts the server after --, for example: posthoc mcp add files -- npx -y @modelcontextprotocol/server-filesystem /path/to/folder (or --url URL for a remote server).',
    );
  }
  const env: Record<string, string> = {};
  for (const pair of opts.env) {
    const i = pair.indexOf('=');
    env[pair.slice(0, i)] = pair.slice(i + 1);
  }
  return { kind: 'stdio', command: cmd, args, env };
}

function ruleOf(value: string, flag: string): McpToolRule {
  if (!(RULES as readonly string[]).includes(value)) throw new CliFailure('invalid-input', `${flag} takes allow, hold or deny, not "${value}".`);
  return value as McpToolRule;
}

/** The config file's text, refused before it is read when it is too large to be one. */
function readConfig(file: string): string {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new CliFailure('invalid-input', `${file} is not a file. Give the config that lists your MCP servers (claude_desktop_config.json, mcp.json).`);
    size = st.size;
  } catch (error) {
    if (error instanceof CliFailure) throw error;
    throw new CliFailure('invalid-input', `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no such file' : (error as Error).message}.`);
  }
  if (size > MAX_CONFIG_BYTES) {
    throw new CliFailure('invalid-input', `${file} is ${(size / 1024 / 1024).toFixed(1)} MiB, over the 1 MiB a config may be: give the file that lists your MCP servers (claude_desktop_config.json, mcp.json).`);
  }
  return readFileSync(file, 'utf8');
}

export function describeServer(view: McpServerView): string {
  const t = view.transport;
  const how =
    t.kind === 'stdio'
      ? `stdio: ${[t.command, ...t.args].join(' ')}${Object.keys(t.env).length ? `  env ${Object.keys(t.env).join(', ')}` : ''}`
      : `http: ${t.url}${t.auth.kind === 'bearer' ? `  auth bearer (secret ${t.auth.secret})` : t.auth.kind === 'oauth' ? '  auth oauth' : ''}`;
  const rules = [
    view.rules.deny.length ? `deny ${view.rules.deny.join(', ')}` : '',
    view.rules.hold.length ? `hold ${view.rules.hold.join(', ')}` : '',
    `no inverse: ${view.rules.noInverse}`,
  ].filter(Boolean);
  const tools = view.tools ? `${view.tools.length} tool${view.tools.length === 1 ? '' : 's'}` : '';
  const kept = view.stateBytes ? `keeps ${formatBytes(view.stateBytes)} between tasks` : '';
  return [`${view.name}  ${how}`, view.api ? `api ${view.api}` : '', rules.join('; '), tools, kept].filter(Boolean).join('  ·  ');
}

function describeTool(tool: McpToolView): string {
  const a = tool.annotations ?? {};
  const hints = [a.readOnlyHint ? 'read-only' : '', a.destructiveHint ? 'destructive' : '', a.idempotentHint ? 'idempotent' : '', a.openWorldHint ? 'open world' : ''].filter(Boolean);
  const line = tool.description.split('\n')[0]!.trim();
  return `  ${tool.name} [${tool.rule}]${hints.length ? ` (${hints.join(', ')})` : ''}${tool.inverseTool ? ` undo: ${tool.inverseTool}` : ''}${line ? ` — ${line.length > 100 ? `${line.slice(0, 99)}…` : line}` : ''}`;
}
