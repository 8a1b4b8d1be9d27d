// Human-readable output for the CLI; --json output is the domain objects themselves.
import { assertNever, type Action, type Effect } from '../../shared/domain';
import { NOT_COVERED_WHY } from '../../shared/undo/not-covered-words';
import { describeReversePlan } from '../../shared/undo/reverse-plan';
import { describeGitRepo, summarizeGit } from '../../shared/undo/git-internals';

export function formatAction(action: Action): string {
  const lines = [
    `▶ action ${action.seq} (${action.language}) — ${action.status}${action.output.exitCode !== null ? `, exit ${action.output.exitCode}` : ''}   [${action.id}]`,
    ...indent(action.source.trimEnd()),
  ];
  if (action.output.stdout.trim()) lines.push('  stdout:', ...indent(action.output.stdout.trimEnd(), 4));
  if (action.output.stderr.trim()) lines.push('  stderr:', ...indent(action.output.stderr.trimEnd(), 4));
  for (const effect of action.effects) lines.push(...formatEffect(effect));
  // Figures the code drew (plt.show()): where to get each one.
  for (const f of action.figures ?? []) {
    lines.push(`  ▣ figure ${f.n}: ${f.width} × ${f.height} PNG, ${f.bytes} bytes${f.released ? ' — released when the action was kept' : ` — posthoc figure ${action.id} ${f.n} > figure-${f.n}.png`}`);
  }
  if (action.output.interrupted) lines.push(`  stopped: ${action.output.interrupted.reason}`);
  lines.push(`  undo: ${describeReversePlan(action.reverse, action.kind)}`);
  lines.push(`  level: ${action.confinement.level} — ${action.confinement.reason}`);
  return lines.join('\n');
}

function whileRunning(effect: Extract<Effect, { channel: 'fs' }>): string[] {
  const w = effect.whileRunning;
  if (!w) return [];
  const both = new Set(w.ambiguous);
  const mark = (p: string) => (both.has(p) ? ' (also written by this action: undo cannot tell the two apart and refuses for it)' : '');
  const paths = [...w.added, ...w.modified, ...w.deleted, ...w.renamed.map((r) => `${r.from} => ${r.to}`)];
  return paths.map((p) => `  ≈ ${p}: changed outside Posthoc while this action ran, kept by undo${mark(p)}`);
}

function formatEffect(effect: Effect): string[] {
  switch (effect.channel) {
    case 'fs': {
      // A git repository's internals are one line per repository: what happened to it, its files counted.
      const git = summarizeGit(effect);
      return [
        ...git.rest.added.map((p) => `  + ${p}`),
        ...git.rest.modified.map((p) => `  ~ ${p}`),
        ...git.rest.deleted.map((p) => `  - ${p}`),
        ...git.repos.map((r) => `  ⎇ ${describeGitRepo(r)}`),
        ...(effect.renamed ?? []).map((r) => `  ${r.from} => ${r.to}`),
        ...(effect.notCovered ?? []).map((n) => `  ! ${n.path}: not covered by undo (${NOT_COVERED_WHY[n.reason]})${n.changed ? ', changed by this action' : ''}`),
        // Changed by someone else while the action ran: kept by undo (attribution, fs-channel.ts).
        ...whileRunning(effect),
      ];
    }
    case 'rest':
      return [
        `  → ${effect.method} svc/${effect.service}${effect.path}  ${effect.refused ? `refused (${effect.status}): ${effect.refused}` : effect.status}`,
        ...(effect.hold ? [`    held (${effect.hold.kind === 'window' ? 'send window' : 'approval'}): ${effect.hold.state}`] : []),
        ...(effect.inverse ? [`    ↶ ${effect.inverse.method} svc/${effect.inverse.service}${effect.inverse.path} — ${effect.inverse.summary}`] : []),
        ...(effect.undone ? [`    ↶ ${effect.undone.error ? `failed: ${effect.undone.error}` : `sent (HTTP ${effect.undone.status})`}`] : []),
      ];
    case 'db':
      return effect.refused
        ? [`  db ${effect.database}: refused — ${effect.refused}`]
        : [
            `  db ${effect.database}: ${effect.rowsAffected} row(s) changed${effect.tables.length ? ` in ${effect.tables.join(', ')}` : ''}${effect.heldUntil ? ` — transaction held open until ${effect.heldUntil} (other writers wait)` : ''}`,
            ...effect.undo.statements.map((sql) => `    ↶ ${sql}`),
            ...(effect.undo.statementCount > effect.undo.statements.length ? [`    ↶ … ${effect.undo.statementCount - effect.undo.statements.length} more`] : []),
          ];
    case 'packages':
      return [
        `  ↓ ${effect.manager} ${effect.name}${effect.version ? ` ${effect.version}` : ''}${effect.file ? ` (${effect.file})` : ''}  ${effect.refused ? `refused: ${effect.refused}` : effect.source === 'cache' ? 'from the host cache' : effect.source}`,
      ];
    case 'memory':
      return [`  ✎ memory: ${effect.refused ? `refused — ${effect.refused}` : `+ ${effect.note}`}`];
    case 'mcp':
      return [
        `  ⚙ ${effect.server}.${effect.tool}  ${effect.refused ? `refused: ${effect.refused}` : effect.isError ? 'error' : effect.mutating ? 'changed' : 'read'}`,
        ...(effect.hold ? [`    held (approval): ${effect.hold.state}`] : []),
        ...(effect.inverse ? [`    ↶ ${effect.server}.${effect.inverse.tool} — ${effect.inverse.summary}`] : []),
        ...(effect.undone ? [`    ↶ ${effect.undone.error ? `failed: ${effect.undone.error}` : 'taken back'}`] : []),
      ];
    default:
      return assertNever(effect, 'effect');
  }
}

// A task's line lives apart (task-line.ts): `posthoc tasks` loads it without the domain's other schemas.
export { formatTaskLine } from './task-line';

export function formatActionLine(action: Action): string {
  const changed = action.effects.reduce((n, e) => (e.channel === 'fs' ? n + e.added.length + e.modified.length + e.deleted.length + (e.renamed?.length ?? 0) : n), 0);
  const calls = action.effects.filter((e) => e.channel === 'rest').length;
  const rows = action.effects.reduce((n, e) => (e.channel === 'db' ? n + e.rowsAffected : n), 0);
  const what = `${changed} file(s)${calls ? `, ${calls} call(s)` : ''}${rows ? `, ${rows} row(s)` : ''}`;
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
