// `posthoc memory show|edit|clear`: the agent's memory (DATA/memory.md), notes it keeps across tasks,
// as the person reads and changes it. `edit` opens $VISUAL or $EDITOR (else vi) on a copy and saves what
// the editor leaves (unchanged: nothing saved); `edit --text TEXT` replaces it without an editor. Every
// change goes through the contract (memory:get, memory:update, memory:clear), as the app's Settings does.
// An undo of a note the agent wrote refuses once the person changed the memory here.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { CliFailure, value } from './session';
import type { CliContext } from './undo-commands';

type Opts = { dataDir?: string; json?: boolean };

export function registerMemoryCommands(program: Command, ctx: Pick<CliContext, 'withApi' | 'dataDirOption' | 'out' | 'json'>): void {
  const memory = program.command('memory').description('the notes the agent keeps across tasks (a Markdown file in the data folder)');
  memory
    .command('show')
    .description('print the memory')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print {text, path}')
    .action(async (opts: Opts) => {
      const view = await ctx.withApi(opts.dataDir, (api) => value(api.memoryGet({})));
      if (opts.json) ctx.json(view);
      else if (view.text === '') ctx.out(`The memory is empty (${view.path}).`);
      else process.stdout.write(view.text.endsWith('\n') ? view.text : `${view.text}\n`);
    });
  memory
    .command('edit')
    .description('edit the memory in $VISUAL or $EDITOR (or replace it with --text)')
    .addOption(ctx.dataDirOption())
    .option('--text <text>', 'the new memory, instead of opening an editor')
    .action(async (opts: Opts & { text?: string }) => {
      await ctx.withApi(opts.dataDir, async (api) => {
        const before = await value(api.memoryGet({}));
        const text = opts.text ?? editInEditor(before.text);
        if (text === before.text) {
          ctx.out('The memory is unchanged.');
          return;
        }
        await value(api.memoryUpdate({ text }));
        ctx.out(`Saved the memory (${before.path}).`);
      });
    });
  memory
    .command('clear')
    .description('empty the memory')
    .addOption(ctx.dataDirOption())
    .action(async (opts: Opts) => {
      const view = await ctx.withApi(opts.dataDir, (api) => value(api.memoryClear({})));
      ctx.out(`Cleared the memory (${view.path}).`);
    });
}

function editInEditor(text: string): string {
  const editor = process.env.VISUAL || process.env.EDITOR || 'vi';
  const dir = mkdtempSync(join(tmpdir(), 'posthoc-memory-'));
  const file = join(dir, 'memory.md');
  try {
    writeFileSync(file, text, { mode: 0o600 });
    // Through the shell, as git runs $EDITOR: it may carry arguments ("code --wait").
    const run = spawnSync('sh', ['-c', `${editor} "$1"`, 'editor', file], { stdio: 'inherit' });
    if (run.error || run.status !== 0) {
      throw new CliFailure('invalid-input', `The editor (${editor}) ${run.error ? `could not start: ${run.error.message}` : `exited with ${run.status ?? run.signal}`}; nothing was saved. Set EDITOR, or use --text.`);
    }
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
