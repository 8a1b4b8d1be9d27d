// Human-readable output for the CLI; --json output is the domain objects themselves.
import { CHANNELS, channelOf } from '../../shared/channels/registry';
import type { AnyChannelSpec } from '../../shared/channels/channel-spec';
import type { Action } from '../../shared/domain';
import { describeReversePlan } from '../../shared/undo/reverse-plan';

export function formatAction(action: Action, channels: readonly AnyChannelSpec[] = CHANNELS): string {
  const lines = [
    `▶ action ${action.seq} (${action.language}) — ${action.status}${action.output.exitCode !== null ? `, exit ${action.output.exitCode}` : ''}   [${action.id}]`,
    ...indent(action.source.trimEnd()),
  ];
  if (action.output.stdout.trim()) lines.push('  stdout:', ...indent(action.output.stdout.trimEnd(), 4));
  if (action.output.stderr.trim()) lines.push('  stderr:', ...indent(action.output.stderr.trimEnd(), 4));
  // Each effect's lines are its channel's own (shared/channels/NAME/spec.ts `lines`).
  for (const effect of action.effects) lines.push(...(channelOf(effect.channel, channels)?.lines(effect) ?? []));
  // Figures the code drew (plt.show()): where to get each one.
  for (const f of action.figures ?? []) {
    lines.push(`  ▣ figure ${f.n}: ${f.width} × ${f.height} PNG, ${f.bytes} bytes${f.released ? ' — released when the action was kept' : ` — posthoc figure ${action.id} ${f.n} > figure-${f.n}.png`}`);
  }
  if (action.output.interrupted) lines.push(`  stopped: ${action.output.interrupted.reason}`);
  lines.push(`  undo: ${describeReversePlan(action.reverse, action.kind, channels)}`);
  lines.push(`  level: ${action.confinement.level} — ${action.confinement.reason}`);
  return lines.join('\n');
}

// A task's line lives apart (task-line.ts): `posthoc tasks` loads it without the domain's other schemas.
export { formatTaskLine } from './task-line';

export function formatActionLine(action: Action, channels: readonly AnyChannelSpec[] = CHANNELS): string {
  // Each channel's count ("3 file(s), 10 row(s), 2 call(s)"): the ones always said, and the others when not zero.
  const what = channels.flatMap((c) => {
    if (!c.tally) return [];
    const n = action.effects.reduce((sum, e) => (e.channel === c.id ? sum + c.tally!.of(e) : sum), 0);
    return n > 0 || c.tally.always ? [`${n} ${c.tally.noun}(s)`] : [];
  }).join(', ');
  return `${action.id}  #${action.seq}  ${action.status.padEnd(8)}  ${action.confinement.level.padEnd(11)}  ${what}  ${firstLine(action.source)}`;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}

function indent(text: string, by = 2): string[] {
  const pad = ' '.repeat(by);
  return text.split('\n').map((l) => pad + l);
}
