// The multi-turn CodeAct loop: ask the model, run the code actions of its reply in order (every format
// shared/codeact/reply.ts reads), send back one observation per action, and repeat until a reply has no
// action or the step limit is reached. A reply with no action that announces one, or is cut inside a block,
// gets one corrective observation instead of ending the task. Messages the person sends while the agent
// works are delivered before the next request.
import type { AnyChannelSpec } from '../../shared/channels/channel-spec';
import { CHANNELS, channelOf } from '../../shared/channels/registry';
import { assertNever, type Action } from '../../shared/domain';
import { readReply, withoutReasoning, type PlanItem, type ReplyIssue } from '../../shared/codeact/reply';
import { POSTHOC_TOOLS } from '../../shared/codeact/tool-map';
import type { CodeBlock } from './codeact-parser';
import type { ChatMessage, ToolCall } from './llm-client';

/** One model turn: its text, what the provider streamed as reasoning, and its run_code tool calls (llm-client.ts). */
export type TurnReply = { text: string; reasoning?: string; toolCalls?: ToolCall[] };

export type AgentHooks = {
  complete(messages: ChatMessage[], onDelta: (text: string) => void, signal: AbortSignal): Promise<string | TurnReply>;
  onDelta(text: string): void;
  /** Records the reply; returns its message id, which each action of the reply carries. */
  onAssistantMessage(text: string): string | null;
  runAction(block: CodeBlock, messageId: string | null): Promise<Action>;
  onObservation(text: string): void;
  /** The agent's plan, when a reply carries one. */
  onPlan?(items: PlanItem[]): void;
  /** Messages the person sent while the agent worked, taken (and recorded) once each, oldest first. */
  takeMessages?(): string[];
};

export type AgentOutcome =
  | { status: 'done'; answer: string }
  | { status: 'failed'; error: string }
  | { status: 'cancelled' };

const OBSERVATION_STREAM_LIMIT = 8000;

export async function runAgent(input: {
  history: ChatMessage[];
  maxSteps: number;
  hooks: AgentHooks;
  signal: AbortSignal;
  /** Fits the messages to the model's context window before each request (context-budget.ts). */
  fit?: (messages: ChatMessage[], signal: AbortSignal) => Promise<ChatMessage[]>;
}): Promise<AgentOutcome> {
  const { hooks, signal } = input;
  const history = [...input.history];
  let corrected = false;
  for (let step = 1; step <= input.maxSteps; step++) {
    if (signal.aborted) return { status: 'cancelled' };
    for (const message of hooks.takeMessages?.() ?? []) history.push({ role: 'user', content: message });
    let turn: TurnReply;
    try {
      const raw = await hooks.complete(input.fit ? await input.fit(history, signal) : history, hooks.onDelta, signal);
      turn = typeof raw === 'string' ? { text: raw } : raw;
    } catch (error) {
      if (signal.aborted) return { status: 'cancelled' };
      return { status: 'failed', error: error instanceof Error ? error.message : String(error) };
    }
    // Reasoning the provider streamed apart is kept with the reply (shown folded), never sent back or run.
    const reasoning = turn.reasoning?.trim() ?? '';
    const reply = reasoning ? `<think>\n${reasoning}\n</think>\n\n${turn.text}` : turn.text;
    const calls = turn.toolCalls ?? [];
    history.push(calls.length > 0 ? { role: 'assistant', content: withoutReasoning(reply), toolCalls: calls } : { role: 'assistant', content: withoutReasoning(reply) });
    const messageId = hooks.onAssistantMessage(reply) ?? null;
    if (calls.length > 0) {
      // Native tool calls are the actions (code in the text beside them is not run); each gets its tool message.
      const plan = readReply(reply).plan;
      if (plan !== null) hooks.onPlan?.(plan);
      const observations: string[] = [];
      let stopped: string | null = null;
      for (const call of calls) {
        let content: string;
        if (stopped !== null) content = `Not run, because ${stopped}.`;
        else if (call.block === null) content = call.error ?? 'This call could not be run.';
        else {
          if (signal.aborted) return { status: 'cancelled' };
          const action = await hooks.runAction(call.block, messageId);
          content = describeObservation(action);
          if (action.status === 'failed') stopped = `an earlier call in your reply (action ${action.seq}) failed`;
          if (action.status === 'interrupted') stopped = `an earlier call in your reply (action ${action.seq}) was interrupted`;
        }
        history.push({ role: 'tool', content, toolCallId: call.id });
        observations.push(content);
      }
      hooks.onObservation(observations.join('\n\n'));
      corrected = false;
      continue;
    }
    const { actions, prose, plan, issue, unknownTools } = readReply(reply);
    if (plan !== null) hooks.onPlan?.(plan);
    if (actions.length === 0) {
      // A call Posthoc cannot run never ends the task; other issues are corrected once in a row (a second
      // reply with no action is the answer).
      if (issue !== null && (!corrected || issue === 'unknown-tool')) {
        corrected = true;
        const observation = correction(issue, unknownTools);
        history.push({ role: 'user', content: observation });
        hooks.onObservation(observation);
        continue;
      }
      const late = hooks.takeMessages?.() ?? [];
      if (late.length > 0) {
        // The person wrote while the model answered: the task goes on with their words.
        for (const message of late) history.push({ role: 'user', content: message });
        corrected = false;
        step--;
        continue;
      }
      return { status: 'done', answer: prose || withoutReasoning(reply) };
    }
    corrected = false;

    const observations: string[] = [];
    for (let i = 0; i < actions.length; i++) {
      if (signal.aborted) return { status: 'cancelled' };
      const action = await hooks.runAction(actions[i]!, messageId);
      observations.push(describeObservation(action));
      if (action.status === 'failed' || action.status === 'interrupted') {
        const skipped = actions.length - i - 1;
        const why = action.status === 'failed' ? 'this one failed' : 'this one was interrupted';
        if (skipped > 0) observations.push(`(${skipped} later code block(s) in your reply were not run because ${why}.)`);
        break;
      }
    }
    if (unknownTools.length > 0) observations.push(`(${notATool(unknownTools)} ${POSTHOC_TOOLS})`);
    const observation = observations.join('\n\n');
    history.push({ role: 'user', content: observation });
    hooks.onObservation(observation);
  }
  return {
    status: 'failed',
    error: `Stopped after ${input.maxSteps} steps without a final answer (step limit). Raise the limit in Settings or with --max-steps.`,
  };
}

/** The one observation a reply with no action gets when it does not read as an answer. */
export function correction(issue: ReplyIssue, unknownTools: string[] = []): string {
  const how = 'To act, write the code in a fenced block tagged ```python or ```bash (```sql for a granted database), or in <execute>…</execute>.';
  switch (issue) {
    case 'unknown-tool':
      return `${notATool(unknownTools)} so nothing ran and the task goes on. ${POSTHOC_TOOLS} ${how} If the task is complete, reply with the answer in <answer>…</answer> and no call or code outside it.`;
    case 'promise':
      return `Your reply said what you would do but held no code, so nothing ran. ${how} If the task is complete, reply with the answer in <answer>…</answer> and no code outside it.`;
    case 'unterminated':
      return `Your reply ended inside a block that was never closed, so nothing ran. Send the whole block again and close it. ${how}`;
    case 'other-language':
      return `Your reply held code tagged with a language Posthoc does not run, so nothing ran. ${how} If the task is complete, reply with the answer in <answer>…</answer> and no code outside it.`;
    case 'reasoning-only':
      return `Your reply held only reasoning (<think>), no code and no answer. ${how} If the task is complete, reply with the answer in <answer>…</answer>.`;
    case 'empty':
      return `Your reply was empty. ${how} If the task is complete, reply with the answer in <answer>…</answer>.`;
    default:
      return assertNever(issue, 'reply issue');
  }
}

/** "Your reply called X and Y, which Posthoc does not have," */
function notATool(names: string[]): string {
  const list = names.length ? names.map((n) => `"${n}"`).join(', ') : 'a tool';
  return `Your reply called ${list}, which Posthoc does not have,`;
}

/** What the model reads about one action: output (capped), exit code and the files it changed. */
export function describeObservation(action: Action, channels: readonly AnyChannelSpec[] = CHANNELS): string {
  const lines = [`Observation for action ${action.seq} (${action.language}): ${statusLine(action)}`];
  if (action.output.stdout) lines.push('stdout:', cap(action.output.stdout));
  if (action.output.stderr) lines.push('stderr:', cap(action.output.stderr));
  // Each effect in its channel's own words (shared/channels/NAME/spec.ts `observe`).
  for (const effect of action.effects) {
    const line = channelOf(effect.channel, channels)?.observe(effect);
    if (line) lines.push(line);
  }
  return lines.join('\n');
}

function statusLine(action: Action): string {
  if (action.output.interrupted) return `interrupted: ${action.output.interrupted.reason}`;
  if (action.output.timedOut) return 'stopped by the action timeout';
  if (action.output.exitCode === null) return 'did not run to completion';
  return `exit code ${action.output.exitCode}`;
}

function cap(text: string): string {
  if (text.length <= OBSERVATION_STREAM_LIMIT) return text;
  const half = OBSERVATION_STREAM_LIMIT / 2;
  return `${text.slice(0, half)}\n[… ${text.length - OBSERVATION_STREAM_LIMIT} characters cut …]\n${text.slice(-half)}`;
}
