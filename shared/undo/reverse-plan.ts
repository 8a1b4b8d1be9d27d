// An action's reverse plan, computed from its effects in one place, and the words the card and the CLI
// show for it, rendered from that data in one place. Nothing stores the plan: the store computes it each
// time it reads an action. Each channel adds one case to planStepsOf (and one to stepWords): the files
// (what is removed, restored and moved back per folder), the databases (how, and the first compensating
// statements), the services (the exact inverse calls, newest first) and what nothing can take back.
// Pure; a leaf like the rest of shared/.
import type { Action, DbEffect, Effect, FsEffect, ReversePlan, ReverseStep, RestEffect } from '../domain';
import type { McpEffect } from '../domain/mcp';
import { describeGitUndo, foldGitPaths, summarizeGit } from './git-internals';

type PlanInput = Pick<Action, 'kind' | 'status' | 'output' | 'effects'>;

/** Calls that may have changed a service: mutating, and not refused or cancelled at the gateway. */
export function sentWrites(effects: readonly Effect[]): RestEffect[] {
  return effects.filter((c): c is RestEffect => c.channel === 'rest' && c.mutating && !c.refused);
}

/** MCP tool calls that may have changed something: not read-only, not refused, not answered with an error. */
export function mcpWrites(effects: readonly Effect[]): McpEffect[] {
  return effects.filter((c): c is McpEffect => c.channel === 'mcp' && c.mutating && c.refused === null && !c.isError);
}

/** An MCP call whose inverse a partial undo already made. */
export function isMcpTakenBack(c: McpEffect): boolean {
  return c.undone !== null && c.undone !== undefined && c.undone.error === null;
}

/** The reverse plan of an action as it stands: its state, the steps undo takes, and what nothing can take back. */
export function reversePlanOf(action: PlanInput): ReversePlan {
  const folders = action.effects.filter((e) => e.channel === 'fs').length;
  const empty = { folders, steps: [], irreversible: [], takenBack: [] };
  if (action.status === 'running') return { state: 'recording', ...empty };
  if (action.status === 'awaiting-approval') return { state: 'awaiting-approval', ...empty };
  if (action.status === 'failed' && action.effects.length === 0 && action.output.exitCode === null && !action.output.timedOut) {
    return { state: 'not-run', ...empty };
  }
  // A SQL action that failed was rolled back whole: nothing of it is left to undo.
  const effects = action.kind === 'sql' && action.status === 'failed' ? action.effects.filter((e) => e.channel !== 'db') : action.effects;
  const unrecorded = action.status === 'interrupted' && action.output.interrupted?.recorded === false;
  const writes = sentWrites(effects);
  const tools = mcpWrites(effects);
  // A stdio server's calls with no inverse are covered by the action's checkpoint only as far as the granted
  // folders go; a remote one's are not covered at all. Both are named as what undo cannot take back.
  return {
    state: unrecorded ? 'unrecorded' : 'ready',
    folders,
    // Local steps first (files, then databases), the calls that leave the machine last, newest first.
    steps: [
      ...effects.flatMap((e) => (e.channel === 'fs' ? fsStep(e) : [])),
      ...effects.flatMap((e) => (e.channel === 'db' ? dbStep(e) : [])),
      // The memory's notes, newest first (each comes off the end of the file it was appended to).
      ...effects.flatMap((e): ReverseStep[] => (e.channel === 'memory' && e.refused === null ? [{ channel: 'memory', note: e.note }] : [])).reverse(),
      ...writes
        .filter((c) => c.inverse && !isTakenBack(c))
        .reverse()
        .map((c): ReverseStep => ({ channel: 'rest', ...c.inverse! })),
      ...tools
        .filter((c) => c.inverse && !isMcpTakenBack(c))
        .reverse()
        .map((c): ReverseStep => ({ channel: 'mcp', server: c.server, tool: c.inverse!.tool, arguments: JSON.stringify(c.inverse!.arguments), summary: c.inverse!.summary })),
    ],
    irreversible: [
      ...writes.filter((c) => !c.inverse).map((c) => ({ channel: 'rest' as const, service: c.service, method: c.method, path: c.path })),
      // A confined server that keeps nothing but the granted folders (folderOnly): the checkpoint covers its calls.
      ...tools.filter((c) => !c.inverse && !(c.transport === 'stdio' && c.folderOnly)).map((c) => ({ channel: 'mcp' as const, server: c.server, tool: c.tool })),
    ],
    takenBack: [
      ...writes.filter(isTakenBack).map((c) => ({ channel: 'rest' as const, service: c.service, method: c.method, path: c.path, summary: c.inverse?.summary ?? '' })),
      ...tools.filter(isMcpTakenBack).map((c) => ({ channel: 'mcp' as const, server: c.server, tool: c.tool, summary: c.inverse?.summary ?? '' })),
    ],
  };
}

/** A call whose inverse went through in an undo that did not finish (the provider refused a later one). */
export function isTakenBack(c: RestEffect): boolean {
  return c.undone !== null && c.undone !== undefined && c.undone.error === null;
}

/** An applied action some of whose calls were already taken back: what the card calls partly undone. */
export function partlyUndone(action: Pick<Action, 'status'> & { reverse: ReversePlan }): boolean {
  return action.reverse.takenBack.length > 0 && action.status !== 'undone';
}

function fsStep(e: FsEffect): ReverseStep[] {
  const renamed = e.renamed ?? [];
  if (e.added.length + e.modified.length + e.deleted.length + renamed.length === 0) return [];
  // Only the action's own paths: what others changed while it ran is theirs, and a path both changed is
  // left as it is (undo refuses for it rather than guess whose edit it holds).
  const ambiguous = e.whileRunning?.ambiguous ?? [];
  const both = new Set(ambiguous);
  return [
    {
      channel: 'fs',
      workspace: e.workspace,
      remove: [...e.added, ...renamed.map((r) => r.to)].filter((p) => !both.has(p)),
      restore: [...e.modified, ...e.deleted, ...renamed.map((r) => r.from)].filter((p) => !both.has(p)),
      moveBack: renamed,
      leave: (e.notCovered ?? []).filter((n) => n.changed).map((n) => n.path),
      ambiguous,
    },
  ];
}

function dbStep(e: DbEffect): ReverseStep[] {
  if (e.undo.kind === 'none' || e.refused !== null) return [];
  return [{ channel: 'db', database: e.database, kind: e.undo.kind, statements: e.undo.statements, statementCount: e.undo.statementCount, tables: e.tables }];
}

/** What undo will do, in words, from the plan alone. `kind` says what "nothing changed" means. */
export function describeReversePlan(plan: ReversePlan, kind: Action['kind'] = 'code'): string {
  switch (plan.state) {
    case 'recording':
      return 'Recording what this action changes…';
    case 'not-run':
      return 'Nothing to undo: the action did not run.';
    case 'awaiting-approval':
      return 'Nothing to undo: everything was rolled back; it runs only if the person approves it.';
    case 'unrecorded': {
      const rest = readyWords({ ...plan, steps: plan.steps.filter((s) => s.channel !== 'fs') }, kind, false);
      return `Not possible yet: its file changes are not recorded (see why above).${rest ? ` Its calls: ${rest}` : ''}`;
    }
    case 'ready':
      return readyWords(plan, kind, true);
  }
}

function readyWords(plan: ReversePlan, kind: Action['kind'], sayNothing: boolean): string {
  const named = (workspace: string, path: string): string => (plan.folders > 1 ? `${workspace}/${path}` : path);
  const sentences: string[] = [];
  const fs = plan.steps.flatMap((s) => (s.channel === 'fs' ? [s] : []));
  if (fs.length > 0) {
    const words = fs.map((s) => {
      const movedTo = new Set(s.moveBack.map((m) => m.to));
      const movedFrom = new Set(s.moveBack.map((m) => m.from));
      const lost = new Set(s.leave);
      // A git repository's internals (objects named by hashes, refs, logs) are said as what happened to it.
      const git = summarizeGit({ added: s.remove.filter((p) => !movedTo.has(p)), modified: s.restore.filter((p) => !movedFrom.has(p) && !lost.has(p)), deleted: [] });
      const removed = git.rest.added;
      const back = git.rest.modified;
      const parts = [
        removed.length ? `delete ${list(removed)}` : '',
        s.moveBack.length ? `move ${list(s.moveBack.map((r) => `${r.to} back to ${r.from}`))}` : '',
        back.length ? `bring back the previous ${list(back)}` : '',
        ...git.repos.map(describeGitUndo),
        s.leave.length ? `leave ${list(foldGitPaths(s.leave))} as it is (not covered by undo)` : '',
      ].filter(Boolean);
      return parts.length ? `${parts.join(', ')}${plan.folders > 1 ? ` in ${s.workspace}` : ''}` : '';
    });
    sentences.push(`${capitalize(words.filter(Boolean).join('; ') || 'change nothing')}.`);
    const both = foldGitPaths(fs.flatMap((s) => s.ambiguous.map((p) => named(s.workspace, p))));
    if (both.length) {
      sentences.push(
        `Undo is refused while ${list(both)} ${both.length === 1 ? 'holds' : 'hold'} an edit made outside Posthoc while the action ran: it cannot tell that edit from the action's.`,
      );
    }
  }
  const db = plan.steps.flatMap((s) => (s.channel === 'db' ? [s] : []));
  if (db.length > 0) {
    const words = db.map((s) => {
      if (s.kind === 'held') return `roll back the held transaction on ${s.database} to before this action`;
      if (s.kind === 'snapshot') return `restore ${s.database} from the snapshot taken before this action`;
      return `run ${s.statementCount} compensating statement${s.statementCount === 1 ? '' : 's'} on ${s.database}${s.tables.length ? ` (${s.tables.join(', ')})` : ''}`;
    });
    sentences.push(`${fs.length > 0 ? 'Then ' : ''}${fs.length > 0 ? words.join('; ') : capitalize(words.join('; '))}, after checking that nothing changed them since.`);
  }
  const notes = plan.steps.flatMap((s) => (s.channel === 'memory' ? [s] : []));
  if (notes.length > 0) {
    sentences.push(`${fs.length + db.length > 0 ? 'Then take' : 'Take'} ${notes.map((n) => `"${n.note}"`).join(', ')} off the memory, if it was not edited since.`);
  }
  const calls = plan.steps.flatMap((s) => (s.channel === 'rest' || s.channel === 'mcp' ? [s] : []));
  if (calls.length > 0) {
    sentences.push(`${fs.length + db.length + notes.length > 0 ? 'Last, send' : 'Send'} ${calls.map((c) => `${callName(c)} (${c.summary})`).join(', then ')}.`);
  }
  if (plan.takenBack.length > 0) {
    sentences.push(`Already taken back by an earlier undo: ${plan.takenBack.map((c) => `${callName(c)}${c.summary ? ` (${c.summary})` : ''}`).join(', ')}.`);
  }
  if (plan.irreversible.length > 0) {
    sentences.push(`${plan.irreversible.map(callName).join(', ')} cannot be undone (no known inverse).`);
    if (plan.steps.length === 0 && sayNothing) sentences.push('Nothing else to undo.');
  }
  if (sentences.length === 0 && sayNothing) return kind === 'sql' ? 'Nothing to undo: no row or table changed.' : 'Nothing to undo: no file changed.';
  return sentences.join(' ');
}

/** A call as the card and the CLI name it: `POST svc/slack/chat.delete`, or `memory.delete_entities` for an MCP tool. */
export function callName(c: { channel: 'rest'; service: string; method: string; path: string } | { channel: 'mcp'; server: string; tool: string }): string {
  return c.channel === 'rest' ? `${c.method} svc/${c.service}${c.path}` : `${c.server}.${c.tool}`;
}

function list(paths: string[]): string {
  return paths.length <= 5 ? paths.join(', ') : `${paths.slice(0, 5).join(', ')} and ${paths.length - 5} more`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
