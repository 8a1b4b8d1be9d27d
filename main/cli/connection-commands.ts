// `posthoc connect | disconnect | connections | secret | service`: connected services from the command
// line. Secret values are read from standard input only, never from an argument (arguments end up in
// shell history and process lists), and nothing here ever prints one.
import { spawn } from 'node:child_process';
import { InvalidArgumentError, type Command } from 'commander';
import type { CallInput } from '../../shared/contract';
import { readBodyRule, readCallPattern, type RuleRead } from '../../shared/connections/rule-lines';
import type { BodyRule, CallPattern, ConnectionView, ServiceRules } from '../../shared/domain/connections';
import { connectHint, connectWithToken } from './connect-paths';
import { CliFailure, value } from './session';
import type { CliContext } from './undo-commands';

type Opts = { dataDir?: string; json?: boolean };

/** A repeated option read with the shared rule lines (what the gateway's parsePattern and parseBodyRule read). */
const repeat = <T>(read: (v: string) => RuleRead<T>) => (value: string, acc: T[]) => {
  const rule = read(value);
  if (!rule.ok) throw new InvalidArgumentError(rule.error);
  return [...acc, rule.value];
};
const seconds = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 3600) throw new InvalidArgumentError('Give whole seconds between 0 and 3600.');
  return n;
};
const port = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1024 || n > 65535) throw new InvalidArgumentError('Give a port between 1024 and 65535.');
  return n;
};
const oneOf = (values: string[]) => (value: string) => {
  if (!values.includes(value)) throw new InvalidArgumentError(`Use one of ${values.join(', ')}.`);
  return value;
};

/** Reads a secret from standard input (a pipe, or typed and ended with Ctrl-D), without its final newline. */
export async function readSecretFromStdin(what: string): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write(`Type or paste ${what}, then press Enter and Ctrl-D:\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const secret = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (!secret) throw new CliFailure('invalid-input', `No ${what} on standard input. Example: printf %s "$TOKEN" | posthoc secret set NAME`);
  return secret;
}

/** Opens a URL in the person's browser where the system can; false when it cannot (the URL is printed anyway). */
function openBrowser(url: string): boolean {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

export function registerConnectionCommands(program: Command, ctx: CliContext): void {
  const { out, json } = ctx;

  program
    .command('connect')
    .description('connect an OAuth provider in the browser (slack, github, google, spotify, dropbox, discord, or your own with --issuer)')
    .argument('<provider>')
    .option('--client-id <id>', 'the client id of the app you registered with the provider')
    .option('--client-secret-stdin', 'read the app\'s client secret from standard input (for providers that insist on one)')
    .option('--scope <scope>', 'ask for this scope instead of the defaults (repeat for several)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--issuer <url>', 'your own provider: its issuer URL (OpenID Connect discovery)')
    .option('--authorization-url <url>', 'your own provider: its authorization endpoint')
    .option('--token-url <url>', 'your own provider: its token endpoint')
    .option('--revocation-url <url>', 'your own provider: its revocation endpoint (RFC 7009)')
    .option('--userinfo-url <url>', 'your own provider: its userinfo endpoint (for the account name)')
    .option('--name <text>', 'your own provider: the name to show')
    .option('--port <n>', 'listen for the answer on this 127.0.0.1 port (when the provider needs an exact redirect URI)', port)
    .option('--timeout <seconds>', 'give up waiting for the browser after this long (default 300)', seconds)
    .option('--no-open', 'print the sign-in URL without opening a browser')
    .option('--browser', 'sign in through the browser with a redirect to 127.0.0.1, even where the provider offers the device sign-in (a code you enter on its page)')
    .option('--device', 'sign in with a code entered on the provider\'s page (RFC 8628); refused where the provider does not offer it')
    .option('--token-stdin', 'instead of OAuth, use a personal access token (or bot token) read from standard input: stored in the keychain, and the provider\'s services defined to send it')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action(
      async (
        provider: string,
        opts: Opts & {
          clientId?: string; clientSecretStdin?: boolean; scope: string[]; issuer?: string; authorizationUrl?: string; tokenUrl?: string;
          revocationUrl?: string; userinfoUrl?: string; name?: string; port?: number; timeout?: number; open: boolean; browser?: boolean; device?: boolean;
          tokenStdin?: boolean;
        },
      ) => {
        if (opts.tokenStdin) {
          if (opts.clientSecretStdin) throw new CliFailure('invalid-input', 'Choose one of --token-stdin and --client-secret-stdin: both read standard input.');
          const token = await readSecretFromStdin(`the token for ${provider}`);
          return ctx.withApi(opts.dataDir, async (api) => out(await connectWithToken(api, provider, token)));
        }
        const clientSecret = opts.clientSecretStdin ? await readSecretFromStdin(`the client secret of ${provider}`) : undefined;
        await ctx.withApi(opts.dataDir, async (api) => {
          const configure: CallInput<'connection:configure'> = {
            provider,
            clientId: opts.clientId,
            clientSecret,
            scopes: opts.scope.length ? opts.scope : undefined,
            issuer: opts.issuer,
            authorizationUrl: opts.authorizationUrl,
            tokenUrl: opts.tokenUrl,
            revocationUrl: opts.revocationUrl,
            userinfoUrl: opts.userinfoUrl,
            displayName: opts.name,
          };
          if (Object.entries(configure).some(([k, v]) => k !== 'provider' && v !== undefined)) await value(api.connectionConfigure(configure));
          // The sign-in ends with the provider's connection:updated after 'connecting': connected, or not (and why).
          const finished = new Promise<ConnectionView>((resolve) => {
            let connecting = false;
            const off = api.on('connection:updated', (view) => {
              if (view.provider !== provider) return;
              if (view.status === 'connecting') connecting = true;
              else if (connecting) {
                off();
                resolve(view);
              }
            });
          });
          if (opts.browser && opts.device) throw new CliFailure('invalid-input', 'Choose one of --browser and --device.');
          const flow = opts.browser ? 'browser' : opts.device ? 'device' : undefined;
          const started = await value(api.connectionConnect({ provider, port: opts.port, timeoutSeconds: opts.timeout, flow })).catch(async (error: unknown) => {
            // The contract's words name no front end: add the flags that give what is missing here.
            if (!(error instanceof CliFailure) || error.code !== 'invalid-input') throw error;
            const view = (await value(api.connectionList({}))).find((c) => c.provider === provider);
            const hint = view ? connectHint(view, flow, error.message) : '';
            throw hint ? new CliFailure(error.code, `${error.message} ${hint}`) : error;
          });
          if (started.userCode) {
            process.stderr.write(`Sign in to ${provider}: open ${started.verificationUri} and enter the code\n  ${started.userCode}\n(or open the address below, which has the code in it). Waiting until ${started.expiresAt?.slice(11, 16) ?? 'it expires'} UTC.\n`);
          } else {
            process.stderr.write(`Sign in to ${provider} in your browser:\n`);
          }
          out(started.authorizationUrl);
          if (opts.open && !openBrowser(started.authorizationUrl)) process.stderr.write('(Could not open a browser; open the URL above yourself.)\n');
          const view = await finished;
          if (view.status !== 'connected') throw new CliFailure('conflict', view.error ?? `Connecting to ${view.displayName} did not finish.`);
          if (opts.json) json(view);
          else out(`Connected ${view.displayName}${view.account ? ` as ${view.account}` : ''}${view.scopes.length ? ` (${view.scopes.join(' ')})` : ''}.${view.services.length ? ` Services: ${view.services.join(', ')}.` : ` Use it with: posthoc service add NAME --base-url URL --auth oauth:${provider}`}`);
        });
      },
    );

  program
    .command('disconnect')
    .description('forget a connection\'s tokens, revoking them where the provider allows')
    .argument('<provider>')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action(async (provider: string, opts: Opts) => {
      await ctx.withApi(opts.dataDir, async (api) => {
        const view = await value(api.connectionDisconnect({ provider }));
        if (opts.json) json(view);
        else out(`Disconnected ${view.displayName}.${view.error ? ` ${view.error}` : ' Its tokens were revoked and removed from the keychain.'}`);
      });
    });

  program
    .command('connections')
    .description('list OAuth providers and their connections (never a token)')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action(async (opts: Opts) => {
      await ctx.withApi(opts.dataDir, async (api) => {
        const list = await value(api.connectionList({}));
        if (opts.json) return json(list);
        for (const c of list) {
          const who = c.account ? ` as ${c.account}` : '';
          const until = c.expiresAt ? `, token until ${c.expiresAt}` : '';
          out(`${c.provider.padEnd(10)} ${c.status}${who}${until}${c.setup.client === 'shipped' ? '  (connects in one click)' : c.setup.missing.length ? `  (needs ${c.setup.missing.map((m) => (m === 'clientId' ? '--client-id' : '--client-secret-stdin')).join(' and ')}${c.personalToken ? ', or --token-stdin' : ''})` : ''}${c.services.length ? `  services: ${c.services.join(', ')}` : ''}`);
        }
      });
    });

  const secret = program.command('secret').description('secrets in the OS keychain (values never leave it, never printed)');
  secret
    .command('set')
    .description('store a secret; the value is read from standard input')
    .argument('<name>')
    .option(
      '--origin <url>',
      'where it may be sent: scheme://host[:port] (repeat; replaces the origins it had). Without: the first service that uses it binds it to its origin',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .addOption(ctx.dataDirOption())
    .action(async (name: string, opts: Opts & { origin: string[] }) => {
      const secret = await readSecretFromStdin(`the value of ${name}`);
      // The value crosses only the in-process contract (main/ipc/local-client.ts) on its way to the keychain.
      await ctx.withApi(opts.dataDir, async (api) => {
        const entry = await value(api.secretSet({ name, value: secret, origins: opts.origin.length ? opts.origin : undefined }));
        const where = entry.origins?.length ? ` It may be sent only to ${entry.origins.join(', ')}.` : ' The first service that uses it binds it to that service\'s origin.';
        out(`Stored ${entry.name} in the keychain.${where} Use it with: posthoc service add NAME --base-url URL --auth bearer --secret ${entry.name}`);
      });
    });
  secret
    .command('list')
    .description('list secret names and kinds')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action(async (opts: Opts) => {
      await ctx.withApi(opts.dataDir, async (api) => {
        const list = await value(api.secretList({}));
        if (opts.json) json(list);
        else list.forEach((e) => out(`${e.name}  ${e.kind}${e.origins?.length ? `  may go to ${e.origins.join(', ')}` : ''}`));
      });
    });
  secret
    .command('remove')
    .description('remove a secret from the keychain')
    .argument('<name>')
    .addOption(ctx.dataDirOption())
    .action(async (name: string, opts: Opts) => {
      await ctx.withApi(opts.dataDir, async (api) => {
        if (!(await value(api.secretRemove({ name }))).removed) throw new CliFailure('not-found', `No secret named ${name}. List them with: posthoc secret list`);
        out(`Removed ${name}.`);
      });
    });

  registerServiceCommands(program, ctx);
}

type ServiceOpts = Opts & {
  baseUrl: string; auth?: string; secret?: string; api?: string; allow: CallPattern[]; bodyRule: BodyRule[]; hold: CallPattern[];
  send: CallPattern[]; outside?: string; holdSeconds?: number; allowSecretOrigin?: boolean;
};

function registerServiceCommands(program: Command, ctx: CliContext): void {
  const { out, json } = ctx;
  const service = program.command('service').description('REST services the sandbox may call through the gateway');
  service
    .command('add')
    .description('define (or redefine) a service: the sandbox reaches it at $POSTHOC_GATEWAY/svc/NAME/PATH')
    .argument('<name>')
    .requiredOption('--base-url <url>', 'where NAME/PATH is forwarded to')
    .option('--auth <how>', 'bearer | header:NAME | query:NAME | oauth:PROVIDER (default: none)')
    .option('--secret <name>', 'the vault entry holding the key, for bearer, header and query (posthoc secret set NAME)')
    .option('--api <id>', 'whose provider data says how calls are taken back: slack, github, gmail, spotify, dropbox, discord, or none')
    .option('--allow <call>', "allow only these calls: 'METHOD /path/glob' (repeat; default: every call)", repeat(readCallPattern), [] as CallPattern[])
    .option('--body-rule <rule>', "a rule on the JSON body: 'POST /chat.postMessage channel=C1,C2' or 'POST /send to@=example.com' (repeat)", repeat(readBodyRule), [] as BodyRule[])
    .option('--hold <call>', "always wait for the person's approval: 'METHOD /path/glob' (repeat)", repeat(readCallPattern), [] as CallPattern[])
    .option('--send <call>', "a send that can never be taken back: held --hold-seconds before it leaves (repeat)", repeat(readCallPattern), [] as CallPattern[])
    .option('--outside <what>', 'calls outside --allow or breaking a body rule: refuse (default) or hold', oneOf(['refuse', 'hold']))
    .option('--irreversible <what>', 'mutating calls with no known inverse: allow (default; the level says confined), hold, or refuse', oneOf(['allow', 'hold', 'refuse']))
    .option('--hold-seconds <n>', 'how long sends wait before they leave (default 30)', seconds)
    .option('--allow-secret-origin', "send the secret (or the connection's token) to this base URL's origin although it is bound elsewhere: you trust that server with it")
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action(async (name: string, opts: ServiceOpts & { irreversible?: string }) => {
      // Service definitions (their auth read with its schema) are loaded when a service command runs.
      const [{ parseAuth, ServiceDefinitionError }, { describeService }] = await Promise.all([import('../gateway/service-registry'), import('./service-lines')]);
      await ctx.withApi(opts.dataDir, async (api) => {
        let auth;
        try {
          auth = opts.auth ? parseAuth(opts.auth, opts.secret) : undefined;
        } catch (error) {
          if (error instanceof ServiceDefinitionError) throw new CliFailure('invalid-input', error.message);
          throw error;
        }
        const rules: Partial<ServiceRules> = { allow: opts.allow, body: opts.bodyRule, hold: opts.hold, sends: opts.send };
        if (opts.outside) rules.outside = opts.outside as ServiceRules['outside'];
        if (opts.irreversible) rules.noInverse = opts.irreversible as ServiceRules['noInverse'];
        if (opts.holdSeconds !== undefined) rules.holdSeconds = opts.holdSeconds;
        const defined = await value(api.serviceAdd({
          name,
          baseUrl: opts.baseUrl,
          auth,
          rules,
          api: opts.api === undefined ? undefined : opts.api === 'none' ? null : opts.api,
          allowSecretOrigin: opts.allowSecretOrigin,
        }));
        if (opts.json) json(defined);
        else {
          out(describeService(defined));
          out(`Grant it to a task with: posthoc run --service ${defined.name} "…"`);
        }
      });
    });
  service
    .command('list')
    .description('list the defined services, their credentials (names only) and rules')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action(async (opts: Opts) => {
      const { describeService } = await import('./service-lines');
      await ctx.withApi(opts.dataDir, async (api) => {
        const list = await value(api.serviceList({}));
        if (opts.json) json(list);
        else list.forEach((d) => out(describeService(d)));
      });
    });
  service
    .command('remove')
    .description('remove a service definition')
    .argument('<name>')
    .addOption(ctx.dataDirOption())
    .action(async (name: string, opts: Opts) => {
      await ctx.withApi(opts.dataDir, async (api) => {
        if (!(await value(api.serviceRemove({ name }))).removed) throw new CliFailure('not-found', `No service named ${name}. List them with: posthoc service list`);
        out(`Removed ${name}.`);
      });
    });
}
