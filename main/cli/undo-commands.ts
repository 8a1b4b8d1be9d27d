// `posthoc undo | redo | rewind | keep | timeline | diff | budget`: the undo engine from the command line.
// Exit codes as everywhere: 0 success; 1 failed; 2 usage or configuration; 3 refused (a later change
// would be overwritten) — the paths and why go to stderr, and --json prints the answer as it is; 4 partly
// done (some service calls taken back, then the provider refused one; files and databases put back).
// `undo|rewind ID --keep-copy` gets past the person's own edits: each file they changed is kept as a copy
// next to it ("notes (your edit).txt"), then the action's file goes back; a refusal that copies would get
// past prints that exact command, one they would not (a later action, a deleted file) says why (the
// engine's words, blocker.noCopy).
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { PosthocApi } from '../../shared/contract';
import type { UndoResult } from '../../shared/domain';
import type { DiffSide, RedoResult, RewindResult, TimelineEntry } from '../../shared/domain/undo';
import { describeBlocker } from '../../shared/undo/blocker-words';
import { CliFailure, EXIT, value } from './session';
import { foldGitPaths } from '../../shared/undo/git-internals';

export type CliContext = {
  /** Runs fn with the contract's API over the data folder (main/cli/index.ts opens and closes it). */
  withApi<T>(dataDir: string | undefined, fn: (api: PosthocApi) => Promise<T>): Promise<T>;
  dataDirOption(): Option;
  out(line: string): void;
  json(value: unknown): void;
  exitConflict: number;
};

type Opts = { dataDir?: string; json?: boolean };
/** undo and rewind: `--keep-copy` (redo refuses it in words, exit 2). */
type UndoOpts = Opts & { keepCopy?: boolean };
type Operation = 'undo' | 'redo' | 'rewind';

/** Undo or rewind partly done: service calls taken back, then one refused (the rest put back). */
export const EXIT_PARTIAL = EXIT.partial;

type Paths = { removed: string[]; restored: string[]; notRestored?: string[] };

/**
 * The one place an undo, redo or rewind answer is told: --json prints it as it is; a refusal (exit 3)
 * names each path and why on stderr; partly done (exit 4) says what stayed; done lists the paths.
 */
export function reportUndoResult(
  ctx: Pick<CliContext, 'out' | 'json' | 'exitConflict'>,
  id: string,
  result: UndoResult | RedoResult | RewindResult,
  opts: UndoOpts,
  operation: Operation,
): void {
  const { out, json } = ctx;
  const say = (line: string) => {
    if (!opts.json) process.stderr.write(`${line}\n`);
  };
  if (opts.json) json(result);
  switch (result.outcome) {
    case 'conflict':
      say(result.message);
      for (const b of result.blockers ?? []) say(`  ${b.path}: ${describeBlocker(b)}`);
      conflictWayOut(result, id, operation, opts).forEach(say);
      process.exitCode = ctx.exitConflict;
      return;
    // Some service calls were taken back for good, then the provider refused one: exit 4, never 0 or 3.
    case 'partial':
      say(result.message);
      process.exitCode = EXIT_PARTIAL;
      return;
    case 'undone':
      if (!opts.json) out(`Undid action ${result.action.seq}.`);
      break;
    case 'redone':
      if (!opts.json) out(`Redid action ${result.action.seq}.`);
      break;
    case 'rewound':
      if (!opts.json) out(`Rewound to before action ${result.action.seq}: undid ${result.undone.map((a) => a.seq).join(', ')}.`);
      break;
  }
  if (opts.json) return;
  // The person's edits kept before their files went back: said first, it is where their work now is.
  for (const c of ('copies' in result ? result.copies : undefined) ?? []) out(`  kept your edit of ${c.path} as ${c.copy}`);
  const paths: Paths = result;
  // A git repository's internals are one line each: "removed the git repository (41 files in .git)".
  foldGitPaths(paths.removed).forEach((p) => out(`  removed ${p}`));
  foldGitPaths(paths.restored).forEach((p) => out(`  restored ${p}`));
  foldGitPaths(paths.notRestored ?? []).forEach((p) => out(`  left as it is (not covered by undo): ${p}`));
}

/**
 * After a refusal's blockers, the next step as a command (the service's message says why in general words):
 * --keep-copy when keeping copies gets past every blocker, rewind when only later actions are in the way,
 * and for a path the person deleted (or made a folder) that no copy can keep, what is left to do.
 */
function conflictWayOut(result: Extract<UndoResult | RedoResult | RewindResult, { outcome: 'conflict' }>, id: string, operation: Operation, opts: UndoOpts): string[] {
  const lines: string[] = [];
  if (operation === 'redo') return lines;
  if ('canKeepCopies' in result && result.canKeepCopies && !opts.keepCopy) lines.push(`Keep a copy of your edit and ${operation} anyway: posthoc ${operation} ${id} --keep-copy`);
  if ('canRewind' in result && result.canRewind) lines.push(`Rewind instead: posthoc rewind ${id}`);
  // Paths no copy gets past (other than a later action's, which the rewind line covers), each with why.
  const stuck = (result.blockers ?? []).filter((b) => (b.channel ?? 'fs') === 'fs' && b.by !== 'action' && b.copyable === false);
  for (const b of stuck) lines.push(`No copy gets past ${b.path}: ${b.noCopy ?? 'it is not a file you changed since'}.`);
  return lines;
}

export function registerUndoCommands(program: Command, ctx: CliContext): void {
  const { out, json } = ctx;
  const withRun = (fn: (api: PosthocApi, id: string, opts: UndoOpts) => Promise<void>) => (id: string, opts: UndoOpts) =>
    ctx.withApi(opts.dataDir, (api) => fn(api, id, opts));
  const command = (name: string, description: string) =>
    program.command(name).description(description).argument('<action-id>').addOption(ctx.dataDirOption()).option('--json', 'print JSON');
  const keepCopyHelp = (what: string) =>
    `if you changed a file since, keep your version as a copy next to it ("notes (your edit).txt") and ${what} anyway (not for a deleted file or a later action)`;

  command('undo', 'undo an action (refused, exit 3, if a later change touched the same paths)')
    .option('--keep-copy', keepCopyHelp('undo'))
    .action(
      withRun(async (api, id, opts) =>
        reportUndoResult(ctx, id, await value(api.actionUndo({ actionId: id, ...(opts.keepCopy ? { keepCopies: true } : {}) })), opts, 'undo'),
      ),
    );

  const redo = withRun(async (api, id, opts) => reportUndoResult(ctx, id, await value(api.actionRedo({ actionId: id })), opts, 'redo'));
  command('redo', 'redo an undone action (refused, exit 3, if something touched its paths since)')
    // Not an option of redo: accepted only to say so in words (commander's "unknown option" says neither why nor what to do).
    .addOption(new Option('--keep-copy').hideHelp())
    .action((id: string, opts: UndoOpts) => {
      if (opts.keepCopy) {
        throw new CliFailure(
          'invalid-input',
          `redo has no --keep-copy: only undo and rewind keep copies of your edits. If redo is refused because you changed a file since, copy or move your version aside yourself, then run posthoc redo ${id} again.`,
        );
      }
      return redo(id, opts);
    });

  command('rewind', 'undo an action and every later action of its task, newest first (all or nothing)')
    .option('--keep-copy', keepCopyHelp('rewind'))
    .action(
      withRun(async (api, id, opts) =>
        reportUndoResult(ctx, id, await value(api.actionRewind({ actionId: id, ...(opts.keepCopy ? { keepCopies: true } : {}) })), opts, 'rewind'),
      ),
    );

  command('keep', 'mark an action final (it can no longer be undone) and release its checkpoints').action(
    withRun(async (api, id, opts) => {
      const action = await value(api.actionKeep({ actionId: id }));
      if (opts.json) json(action);
      else out(`Kept action ${action.seq}.`);
    }),
  );

  program
    .command('timeline')
    .description("a task's undo timeline: its actions, outside edits and undo operations")
    .argument('<task-id>')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action((taskId: string, opts: Opts) =>
      ctx.withApi(opts.dataDir, async (api) => {
        const timeline = await value(api.taskTimeline({ taskId }));
        if (opts.json) return json(timeline);
        timeline.entries.forEach((e) => out(timelineLine(e)));
        // The rewind order once: a rewind to before #N undoes the actions of it from #N on, in this order.
        if (timeline.rewindOrder.length > 1) out(`rewind order, newest applied first: ${timeline.rewindOrder.map((s) => `#${s}`).join(', ')}`);
      }),
    );

  program
    .command('diff')
    .description("what an action changed in one file (or every file it changed)")
    .argument('<action-id>')
    .argument('[path]')
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action(async (actionId: string, path: string | undefined, opts: Opts) => {
      // The line diff (the diff package) is loaded when this command runs.
      const { unifiedDiff } = await import('../../shared/diff/line-diff');
      await ctx.withApi(opts.dataDir, async (api) => {
        const paths =
          path !== undefined
            ? [path]
            : (await value(api.actionGet({ actionId }))).effects.flatMap((e) => (e.channel === 'fs' ? [...e.added, ...e.modified, ...e.deleted, ...(e.renamed ?? []).map((r) => r.to)] : []));
        for (const p of paths) {
          const diff = await value(api.actionDiff({ actionId, path: p }));
          if (opts.json) json(diff);
          else out(unifiedDiff(sideText(diff.before), sideText(diff.after), diff.before ? `a/${diff.oldPath ?? diff.path}` : '/dev/null', diff.after ? `b/${diff.path}` : '/dev/null'));
        }
      });
    });

  program
    .command('budget')
    .description('how much large-file content checkpoints may keep, per folder (sizes like 500MB, 2GB)')
    .argument('[folder]', 'a granted folder (default: every folder)')
    .option('--set <size>', 'set the budget', (v: string) => {
      try {
        return parseSize(v);
      } catch (error) {
        throw new InvalidArgumentError((error as Error).message);
      }
    })
    .option('--reset', "remove the folder's own budget (use the default)")
    .addOption(ctx.dataDirOption())
    .option('--json', 'print JSON')
    .action((folder: string | undefined, opts: Opts & { set?: number; reset?: boolean }) =>
      ctx.withApi(opts.dataDir, async (api) => {
        const storage = await value(
          opts.set !== undefined || opts.reset
            ? api.budgetSet({ folder: folder ?? null, bytes: opts.reset ? null : opts.set! })
            : api.budgetGet({}),
        );
        if (opts.json) return json(storage);
        out(`default budget: ${formatSize(storage.defaultBudgetBytes)} (files of ${formatSize(storage.largeFileBytes)} or more count against it)`);
        for (const f of storage.folders) {
          out(`${f.folder}: ${formatSize(f.usedBytes)} of ${formatSize(f.budgetBytes)}${f.custom ? '' : ' (default)'}`);
        }
      }),
    );
}

function timelineLine(e: TimelineEntry): string {
  switch (e.kind) {
    case 'action': {
      const fs = e.action.effects.flatMap((x) => (x.channel === 'fs' ? [x] : []));
      const n = fs.reduce((sum, x) => sum + x.added.length + x.modified.length + x.deleted.length + (x.renamed?.length ?? 0), 0);
      const rewind = e.rewind.count > 1 ? `rewind (${e.rewind.count} actions)` : 'rewind';
      const can = [e.undo.possible && 'undo', e.redo.possible && 'redo', e.rewind.possible && rewind].filter(Boolean).join(', ');
      return `#${e.action.seq}  ${e.action.status.padEnd(7)}  ${e.action.confinement.level.padEnd(11)}  ${n} file change(s)  [${can || 'nothing to do'}]  ${e.action.id}`;
    }
    case 'external': {
      const c = e.changes;
      const paths = [...c.added, ...c.modified, ...c.deleted, ...c.renamed.map((r) => r.to)];
      return `    edited outside Posthoc in ${e.workspace}: ${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ', …' : ''}`;
    }
    case 'operation':
      return `    ${e.operation} of ${e.actionSeqs.map((s) => `#${s}`).join(', ')}: ${e.state}${e.note ? ` — ${e.note}` : ''}`;
  }
}

function sideText(side: DiffSide | null): string {
  if (side === null) return '';
  switch (side.kind) {
    case 'text':
      return side.text;
    case 'binary':
      return `(${side.reason === 'binary' ? 'binary' : 'too large to show'}: ${side.size} bytes, sha256 ${side.sha256})\n`;
    case 'link':
      return `(symbolic link to ${side.target})\n`;
    case 'folder':
      return '(folder)\n';
    case 'not-covered':
      return '(not covered by undo)\n';
  }
}

export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|k|mb|m|gb|g|tb|t)?\s*$/i.exec(text);
  if (!m) throw new Error(`"${text}" is not a size; write it like 500MB or 2GB.`);
  const unit = (m[2] ?? 'b').toLowerCase()[0]!;
  const factor = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 }[unit as 'b' | 'k' | 'm' | 'g' | 't'];
  return Math.round(Number(m[1]) * factor);
}

export function formatSize(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
