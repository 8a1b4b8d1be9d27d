// What waits for the person during `posthoc run` — an action over its database grant's rows-affected limit,
// a service call the rules hold for approval — and `posthoc approve ID` / `posthoc reject ID`, which decide
// one from another terminal (ID: the action's, or the held call's). On a terminal, `run` asks
// ("Approve? [y/N]"); without one it prints the two commands and keeps waiting for the answer.
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import type { PosthocApi } from '../../shared/contract';
import type { Action } from '../../shared/domain';
import type { CliContext } from './undo-commands';
import { CliFailure, value } from './session';

/** Something held for the person: an action, or one call of a running action. */
export type Held = { kind: 'action'; id: string; what: string; reason: string } | { kind: 'call'; id: string; what: string; reason: string };

/** What in this action update waits for the person now (a held action, or its calls held for approval). */
export function heldIn(action: Action): Held[] {
  if (action.status === 'awaiting-approval') {
    return [{ kind: 'action', id: action.id, what: `action ${action.seq}`, reason: action.output.stderr.trim() || action.confinement.reason }];
  }
  if (action.status !== 'running') return [];
  // Service calls and MCP tool calls the rules keep back for approval (one Holds in the gateway).
  return action.effects.flatMap((e): Held[] => {
    if ((e.channel !== 'rest' && e.channel !== 'mcp') || e.hold?.state !== 'waiting' || e.hold.kind !== 'approval') return [];
    const what = e.channel === 'rest' ? `${e.method} ${e.path} to ${e.service}` : `the tool call ${e.server}.${e.tool}`;
    return [{ kind: 'call', id: e.hold.id, what: `${what} (action ${action.seq})`, reason: e.hold.reason }];
  });
}

/** The commands that decide it from another terminal, with the data folder when one was given. */
export function decideCommands(id: string, dataDir: string | undefined): { approve: string; reject: string } {
  const where = dataDir === undefined ? '' : ` --data-dir ${quote(dataDir)}`;
  return { approve: `posthoc approve ${id}${where}`, reject: `posthoc reject ${id}${where}` };
}

function quote(text: string): string {
  return /^[A-Za-z0-9_./:=@-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * `posthoc run`'s side: each held thing is asked about once, one question at a time, on a terminal; without
 * one, the commands are printed and the run waits for another process to answer.
 */
export function approvalPrompter(api: PosthocApi, options: { dataDir?: string; interactive: boolean; write(line: string): void }) {
  const seen = new Set<string>();
  let queue: Promise<void> = Promise.resolve();
  return (action: Action): void => {
    for (const held of heldIn(action)) {
      if (seen.has(held.id)) continue;
      seen.add(held.id);
      if (!options.interactive) {
        const { approve, reject } = decideCommands(held.id, options.dataDir);
        options.write(`\n${capital(held.what)} waits for your approval: ${held.reason}\nNo one can answer here. From another terminal, approve it with:\n  ${approve}\nor decline it with:\n  ${reject}`);
        continue;
      }
      queue = queue
        .then(() => ask(api, held, options.write))
        .catch((error: Error) => options.write(`posthoc: ${error.message}`));
    }
  };
}

async function ask(api: PosthocApi, held: Held, write: (line: string) => void): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  let answer: string;
  try {
    answer = await rl.question(`\n${capital(held.what)} waits for your approval: ${held.reason}\nApprove? [y/N] `);
  } finally {
    rl.close();
  }
  const yes = /^y(es)?$/i.test(answer.trim());
  try {
    if (held.kind === 'action') await value(yes ? api.actionApprove({ actionId: held.id }) : api.actionReject({ actionId: held.id }));
    else await value(yes ? api.holdApprove({ holdId: held.id }) : api.holdCancel({ holdId: held.id }));
    write(yes ? `Approved ${held.what}.` : `Declined ${held.what}; it did not run.`);
  } catch (error) {
    // Decided meanwhile (from another terminal, or the run ended): say so and go on.
    if (error instanceof CliFailure) write(`Could not ${yes ? 'approve' : 'decline'} ${held.what}: ${error.message}`);
    else throw error;
  }
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** `posthoc approve ID` and `posthoc reject ID`: an action's id, or a held call's. */
export function registerApprovalCommands(program: Command, ctx: CliContext): void {
  for (const approve of [true, false]) {
    program
      .command(approve ? 'approve' : 'reject')
      .description(
        approve
          ? 'approve what a running task holds for you: an action over its rows limit, or a held service call'
          : 'decline what a running task holds for you (nothing of it runs or is sent)',
      )
      .argument('<id>', 'the action\'s id, or the held call\'s (posthoc run prints it)')
      .addOption(ctx.dataDirOption())
      .option('--json', 'print JSON')
      .action((id: string, opts: { dataDir?: string; json?: boolean }) =>
        ctx.withApi(opts.dataDir, async (api) => {
          const action = await api.actionGet({ actionId: id });
          if (action.ok) {
            const decided = await value(approve ? api.actionApprove({ actionId: id }) : api.actionReject({ actionId: id }));
            if (opts.json) ctx.json(decided);
            else ctx.out(approve ? `Approved action ${decided.seq}: it runs now.` : `Declined action ${decided.seq}: nothing of it runs.`);
            return;
          }
          if (action.error.code !== 'not-found') throw new CliFailure(action.error.code, action.error.message);
          const hold = await value(approve ? api.holdApprove({ holdId: id }) : api.holdCancel({ holdId: id }));
          if (opts.json) ctx.json(hold);
          else ctx.out(approve ? 'Approved the held call: it is sent now.' : 'Declined the held call: it was not sent.');
        }),
      );
  }
}
