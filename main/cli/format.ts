// Human-readable output for the CLI; --json output is the domain objects themselves.
import { assertNever, type Action, type Effect, type Task } from '../../shared/domain';

export function formatAction(action: Action): string {
  const lines = [
    `▶ action ${action.seq} (${action.language}) — ${action.status}${action.output.exitCode !== null ? `, exit ${action.output.exitCode}` : ''}   [${action.id}]`,
    ...indent(action.source.trimEnd()),
  ];
  if (action.output.stdout.trim()) lines.push('  stdout:', ...indent(action.output.stdout.trimEnd(), 4));
  if (action.output.stderr.trim()) lines.push('  stderr:', ...indent(action.output.stderr.trimEnd(), 4));
  for (const effect of action.effects) lines.push(...formatEffect(effect));
  lines.push(`  undo: ${action.reverse.summary}`);
  lines.push(`  level: ${action.confinement.level} — ${action.confinement.reason}`);
  return lines.join('\n');
}

function formatEffect(effect: Effect): string[] {
  switch (effect.channel) {
    case 'fs':
      return [
        ...effect.added.map((p) => `  + ${p}`),
        ...effect.modified.map((p) => `  ~ ${p}`),
        ...effect.deleted.map((p) => `  - ${p}`),
      ];
    case 'rest':
      return [`  → ${effect.method} svc/${effect.service}${effect.path}  ${effect.refused ? `refused (${effect.status})` : effect.status}`];
    default:
      return assertNever(effect, 'effect');
  }
}

export function formatTaskLine(task: Task): string {
  return `${task.id}  ${task.status.padEnd(9)}  ${task.createdAt.slice(0, 19).replace('T', ' ')}  ${task.title}`;
}

export function formatActionLine(action: Action): string {
  const changed = action.effects.reduce((n, e) => (e.channel === 'fs' ? n + e.added.length + e.modified.length + e.deleted.length : n), 0);
  const calls = action.effects.filter((e) => e.channel === 'rest').length;
  const what = `${changed} file(s)${calls ? `, ${calls} call(s)` : ''}`;
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
