// An action's reverse plan, computed from its effects in one place, and the words the card and the CLI
// show for it, rendered from that data in one place. Nothing stores the plan: the store computes it each
// time it reads an action. Each channel says its own part (shared/channels/NAME/spec.ts: `plan`, `words`,
// `call`); this file orders them — local channels in the registry's order, then the calls that leave the
// machine — and says what holds for every channel: the action's state, what was already taken back, and
// what nothing can take back. It names no channel.
// Pure; a leaf like the rest of shared/.
import type { AnyChannelSpec, PlanPart } from '../channels/channel-spec';
import { CHANNELS } from '../channels/registry';
import type { Action, ReversePlan, ReverseStep } from '../domain';

export { isTakenBack, sentWrites } from '../channels/services/spec';
export { isMcpTakenBack, mcpWrites } from '../channels/tools/spec';

type PlanInput = Pick<Action, 'kind' | 'status' | 'output' | 'effects'>;

/** The reverse plan of an action as it stands: its state, the steps undo takes, and what nothing can take back. */
export function reversePlanOf(action: PlanInput, channels: readonly AnyChannelSpec[] = CHANNELS): ReversePlan {
  // Each channel's effects, in recorded order (one pass: the store derives a plan for every action it reads).
  const byChannel = new Map<string, Action['effects']>();
  for (const e of action.effects) {
    const list = byChannel.get(e.channel);
    if (list) list.push(e);
    else byChannel.set(e.channel, [e]);
  }
  const parts = channels.map((c) => ({ spec: c, part: c.plan(byChannel.get(c.id) ?? [], action) as PlanPart<ReverseStep> }));
  const folders = parts.reduce((n, p) => n + (p.part.folders ?? 0), 0);
  const empty = { folders, steps: [], irreversible: [], takenBack: [] };
  if (action.status === 'running') return { state: 'recording', ...empty };
  if (action.status === 'awaiting-approval') return { state: 'awaiting-approval', ...empty };
  if (action.status === 'failed' && action.effects.length === 0 && action.output.exitCode === null && !action.output.timedOut) {
    return { state: 'not-run', ...empty };
  }
  const unrecorded = action.status === 'interrupted' && action.output.interrupted?.recorded === false;
  // Local steps first (in the registry's order), the calls that leave the machine last, each newest first.
  const ordered = [...parts.filter((p) => p.spec.undo === 'local'), ...parts.filter((p) => p.spec.undo === 'remote')];
  return {
    state: unrecorded ? 'unrecorded' : 'ready',
    folders,
    steps: ordered.flatMap((p) => p.part.steps),
    irreversible: parts.flatMap((p) => p.part.irreversible ?? []) as ReversePlan['irreversible'],
    takenBack: parts.flatMap((p) => p.part.takenBack ?? []) as ReversePlan['takenBack'],
  };
}

/** An applied action some of whose calls were already taken back: what the card calls partly undone. */
export function partlyUndone(action: Pick<Action, 'status'> & { reverse: ReversePlan }): boolean {
  return action.reverse.takenBack.length > 0 && action.status !== 'undone';
}

/** What undo will do, in words, from the plan alone. `kind` says what "nothing changed" means. */
export function describeReversePlan(plan: ReversePlan, kind: Action['kind'] = 'code', channels: readonly AnyChannelSpec[] = CHANNELS): string {
  switch (plan.state) {
    case 'recording':
      return 'Recording what this action changes…';
    case 'not-run':
      return 'Nothing to undo: the action did not run.';
    case 'awaiting-approval':
      return 'Nothing to undo: everything was rolled back; it runs only if the person approves it.';
    case 'unrecorded': {
      const recorded = new Set(channels.filter((c) => c.checkpointed).map((c) => c.id));
      const rest = readyWords({ ...plan, steps: plan.steps.filter((s) => !recorded.has(s.channel)) }, kind, false, channels);
      return `Not possible yet: its file changes are not recorded (see why above).${rest ? ` Its calls: ${rest}` : ''}`;
    }
    case 'ready':
      return readyWords(plan, kind, true, channels);
  }
}

function readyWords(plan: ReversePlan, kind: Action['kind'], sayNothing: boolean, channels: readonly AnyChannelSpec[]): string {
  const sentences: string[] = [];
  const stepsOf = (c: AnyChannelSpec) => plan.steps.filter((s) => s.channel === c.id);
  for (const c of channels.filter((c) => c.undo === 'local')) {
    sentences.push(...c.words(stepsOf(c), { before: sentences.length, folders: plan.folders }));
  }
  // The calls that leave the machine are said together, in the order undo sends them.
  const calls = channels.filter((c) => c.undo === 'remote').flatMap((c) => stepsOf(c).flatMap((s) => c.call(s) ?? []));
  if (calls.length > 0) {
    sentences.push(`${sentences.length > 0 ? 'Last, send' : 'Send'} ${calls.map((c) => `${c.name} (${c.summary})`).join(', then ')}.`);
  }
  if (plan.takenBack.length > 0) {
    sentences.push(`Already taken back by an earlier undo: ${plan.takenBack.map((c) => `${c.name}${c.summary ? ` (${c.summary})` : ''}`).join(', ')}.`);
  }
  if (plan.irreversible.length > 0) {
    sentences.push(`${plan.irreversible.map((c) => c.name).join(', ')} cannot be undone (no known inverse).`);
    if (plan.steps.length === 0 && sayNothing) sentences.push('Nothing else to undo.');
  }
  if (sentences.length === 0 && sayNothing) return kind === 'sql' ? 'Nothing to undo: no row or table changed.' : 'Nothing to undo: no file changed.';
  return sentences.join(' ');
}
