// The multi-turn CodeAct loop: ask the model, run the code blocks of its reply in order, send back one
// observation per block, and repeat until a reply has no code block or the step limit is reached.
import { assertNever, type Action } from '../../shared/domain';
import { parseReply, type CodeBlock } from './codeact-parser';
import type { ChatMessage } from './llm-client';

export type AgentHooks = {
  complete(messages: ChatMessage[], onDelta: (text: string) => void, signal: AbortSignal): Promise<string>;
  onDelta(text: string): void;
  /** Records the reply; returns its message id, which each action of the reply carries. */
  onAssistantMessage(text: string): string | null;
  runAction(block: CodeBlock, messageId: string | null): Promise<Action>;
  onObservation(text: string): void;
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
  for (let step = 1; step <= input.maxSteps; step++) {
    if (signal.aborted) return { status: 'cancelled' };
    let reply: string;
    try {
      reply = await hooks.complete(input.fit ? await input.fit(history, signal) : history, hooks.onDelta, signal);
    } catch (error) {
      if (signal.aborted) return { status: 'cancelled' };
      return { status: 'failed', error: error instanceof Error ? error.message : String(error) };
    }
    history.push({ role: 'assistant', content: reply });
    const messageId = hooks.onAssistantMessage(reply) ?? null;
    const { actions, prose } = parseReply(reply);
    if (actions.length === 0) return { status: 'done', answer: prose || reply.trim() };

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
    const observation = observations.join('\n\n');
    history.push({ role: 'user', content: observation });
    hooks.onObservation(observation);
  }
  return {
    status: 'failed',
    error: `Stopped after ${input.maxSteps} steps without a final answer (step limit). Raise the limit in Settings or with --max-steps.`,
  };
}

/** What the model reads about one action: output (capped), exit code and the files it changed. */
export function describeObservation(action: Action): string {
  const lines = [`Observation for action ${action.seq} (${action.language}): ${statusLine(action)}`];
  if (action.output.stdout) lines.push('stdout:', cap(action.output.stdout));
  if (action.output.stderr) lines.push('stderr:', cap(action.output.stderr));
  for (const effect of action.effects) {
    switch (effect.channel) {
      case 'fs': {
        const parts = [
          effect.added.length ? `added ${effect.added.join(', ')}` : '',
          effect.modified.length ? `modified ${effect.modified.join(', ')}` : '',
          effect.deleted.length ? `deleted ${effect.deleted.join(', ')}` : '',
          effect.renamed?.length ? `renamed ${effect.renamed.map((r) => `${r.from} to ${r.to}`).join(', ')}` : '',
        ].filter(Boolean);
        lines.push(`files changed in ${effect.workspace}: ${parts.length ? parts.join('; ') : 'none'}`);
        break;
      }
      case 'rest':
        lines.push(
          effect.refused
            ? `gateway refused ${effect.method} svc/${effect.service}${effect.path}: ${effect.refused}`
            : `called ${effect.method} svc/${effect.service}${effect.path} → HTTP ${effect.status}`,
        );
        break;
      case 'db':
        lines.push(
          effect.refused
            ? `database ${effect.database} refused: ${effect.refused}`
            : `database ${effect.database}: ${effect.rowsAffected} row(s) changed${effect.tables.length ? ` in ${effect.tables.join(', ')}` : ''}${effect.undo.kind === 'held' ? ' (held in an open transaction until the person keeps or undoes it)' : ''}`,
        );
        break;
      case 'packages':
        lines.push(
          effect.refused
            ? `${effect.manager} download of ${effect.name} refused: ${effect.refused}`
            : `${effect.manager} downloaded ${effect.name}${effect.version ? ` ${effect.version}` : ''}${effect.source === 'cache' ? ' (from the host cache)' : ''}`,
        );
        break;
      default:
        assertNever(effect, 'effect');
    }
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
