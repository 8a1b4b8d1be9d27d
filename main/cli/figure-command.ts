// `posthoc figure ACTION_ID [N] > out.png`: writes figure N (from 1) of an action, as the PNG it is, to
// stdout. Refused when stdout is a terminal (binary bytes would only garble it) and when the action has no
// figure N (exit 2, naming how many it has).
import { InvalidArgumentError, type Command } from 'commander';
import { CliFailure, value } from './session';
import type { CliContext } from './undo-commands';

export function registerFigureCommand(program: Command, ctx: Pick<CliContext, 'withApi' | 'dataDirOption'>): void {
  program
    .command('figure')
    .description('write a figure an action drew (a PNG) to stdout: posthoc figure ACTION_ID [N] > figure.png')
    .argument('<action-id>')
    .argument('[n]', 'which figure, from 1', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('N must be a whole number of at least 1.');
      return n;
    }, 1)
    .addOption(ctx.dataDirOption())
    .action(async (actionId: string, n: number, opts: { dataDir?: string }) => {
      if (process.stdout.isTTY) {
        throw new CliFailure('invalid-input', `stdout is a terminal: send the PNG to a file, e.g. posthoc figure ${actionId} ${n} > figure-${n}.png`);
      }
      const { base64 } = await ctx.withApi(opts.dataDir, (api) => value(api.actionFigure({ actionId, n })));
      const bytes = Buffer.from(base64, 'base64');
      await new Promise<void>((resolve, reject) => process.stdout.write(bytes, (error) => (error ? reject(error) : resolve())));
    });
}
