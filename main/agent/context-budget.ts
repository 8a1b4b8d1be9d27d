// The context budget: every request the agent sends fits the model's context window. Before each request
// (agent-loop calls `fit`), when the history is over the budget:
//   1. old observations are shortened, oldest first: head and tail kept, with the action number, and the
//      note that the full output is on that action's card (the person's record keeps every byte);
//   2. then the oldest turns are summarised, by the model, into one message of their own (the summary is
//      kept and extended on later requests, so each turn is summarised once);
// never the system prompt, the task (the first user message) or the last turn (the newest reply and what
// answered it). A history that cannot be made to fit ends the task with a message that says what to do:
// nothing over the window is ever sent. Tokens are estimated (token-estimate.ts, meant to err high).
import type { ChatMessage } from './llm-client';
import { estimateMessageTokens, estimateRequestTokens, estimateTokens, REQUEST_OVERHEAD_TOKENS } from './token-estimate';

/** Used when neither the person (`--context-window`, Settings) nor the provider's model list says. */
export const DEFAULT_CONTEXT_WINDOW = 8192;
export const MIN_CONTEXT_WINDOW = 2048;

export type Complete = (messages: ChatMessage[], onDelta: (text: string) => void, signal: AbortSignal) => Promise<string>;

export class ContextWindowTooSmall extends Error {}

const SUMMARY_HEADER = '[Summary of earlier turns, written to fit the context window]';
const OBSERVATION_HEAD = /^Observation for action (\d+)/m;

/** The room kept free for the model's reply. */
export function replyReserve(window: number): number {
  return Math.min(4096, Math.floor(window / 5));
}

type Summary = { covers: number; key: string; text: string };

export class ContextBudget {
  private summary: Summary | null = null;

  constructor(
    readonly window: number,
    private readonly complete: Complete,
  ) {
    if (!Number.isInteger(window) || window < MIN_CONTEXT_WINDOW) {
      throw new ContextWindowTooSmall(`A context window of ${window} tokens is too small: give at least ${MIN_CONTEXT_WINDOW}.`);
    }
  }

  /** The most tokens a request may hold: the window less the reply's room. */
  get budget(): number {
    return this.window - replyReserve(this.window);
  }

  /** The messages to send instead of `history`: the same when they fit. */
  async fit(history: readonly ChatMessage[], signal: AbortSignal): Promise<ChatMessage[]> {
    const budget = this.budget;
    if (estimateRequestTokens(history) <= budget) return [...history];
    const taskIndex = history.findIndex((m, i) => i > 0 && m.role === 'user');
    const head = history.slice(0, taskIndex + 1); // the system prompt and the task
    const lastTurnStart = lastTurnIndex(history, taskIndex);
    const middle = history.slice(taskIndex + 1, lastTurnStart);
    const tail = history.slice(lastTurnStart);
    const fixed = estimateRequestTokens([...head, ...tail]);
    if (fixed > budget) {
      // The last turn alone is too big: shorten its observations too (its reply is never touched).
      const shortenedTail = tail.map((m) => (isObservation(m) ? shorten(m, Math.max(256, Math.floor((budget - estimateRequestTokens(head)) / 2))) : m));
      const request = [...head, ...(middle.length ? [this.placeholder(middle.length)] : []), ...shortenedTail];
      if (estimateRequestTokens(request) > budget) throw this.tooSmall(head, tail);
      return request;
    }
    // 1. Shorten old observations, oldest first, to ever smaller sizes until the request fits.
    const kept = [...middle];
    let total = estimateRequestTokens([...head, ...kept, ...tail]);
    for (const limit of [2000, 800, 300]) {
      for (let i = 0; i < kept.length && total > budget; i++) {
        if (!isObservation(kept[i]!)) continue;
        const before = estimateMessageTokens(kept[i]!);
        kept[i] = shorten(kept[i]!, limit);
        total += estimateMessageTokens(kept[i]!) - before;
      }
      if (total <= budget) return [...head, ...kept, ...tail];
    }
    // 2. Summarise the oldest turns: as many as it takes for the rest to fit beside the summary.
    const room = budget - fixed;
    const summaryRoom = Math.floor(room / 3);
    let covers = 0;
    let rest = estimateRequestTokens(kept) - REQUEST_OVERHEAD_TOKENS;
    while (covers < kept.length && rest > room - summaryRoom) {
      rest -= estimateMessageTokens(kept[covers]!);
      covers++;
      // A turn is a reply and what answered it: never split one between the summary and the rest.
      while (covers < kept.length && kept[covers]!.role !== 'assistant') {
        rest -= estimateMessageTokens(kept[covers]!);
        covers++;
      }
    }
    const summary = await this.summarise(middle, kept, covers, summaryRoom, signal);
    const request = [...head, summary, ...kept.slice(covers), ...tail];
    if (estimateRequestTokens(request) > budget) throw this.tooSmall(head, tail);
    return request;
  }

  /** The summary message covering `middle[0..covers)`, reusing and extending the last one. */
  private async summarise(middle: readonly ChatMessage[], kept: readonly ChatMessage[], covers: number, room: number, signal: AbortSignal): Promise<ChatMessage> {
    const key = (n: number) => middle.slice(0, n).map((m) => `${m.role}:${m.content.length}:${m.content.slice(0, 64)}`).join('|');
    let previous = this.summary && this.summary.covers <= covers && this.summary.key === key(this.summary.covers) ? this.summary : null;
    let from = previous?.covers ?? 0;
    // Summarise in pieces that each fit the window with the summary so far.
    while (from < covers) {
      const prompt = (chunk: readonly ChatMessage[]): ChatMessage[] => [
        {
          role: 'system',
          content:
            'You condense the earlier part of an agent\'s work for the agent itself. Write a short summary (at most 200 words, plain text): what was done, what was found (exact file names, numbers, errors), what remains. Keep facts the agent will need; drop raw output.',
        },
        {
          role: 'user',
          content: `${previous ? `The summary so far:\n${previous.text}\n\n` : ''}The turns to add:\n\n${chunk.map((m) => `[${m.role === 'assistant' ? 'agent' : 'observation'}]\n${m.content}`).join('\n\n')}`,
        },
      ];
      let to = from + 1;
      while (to < covers && estimateRequestTokens(prompt(kept.slice(from, to + 1))) <= this.budget) to++;
      let chunk = kept.slice(from, to);
      if (estimateRequestTokens(prompt(chunk)) > this.budget) chunk = chunk.map((m) => shorten(m, 300));
      const text = (await this.complete(prompt(chunk), () => {}, signal)).trim();
      previous = { covers: to, key: key(to), text: clip(text, Math.max(200, room - 64)) };
      from = to;
    }
    if (previous) this.summary = previous;
    return { role: 'user', content: `${SUMMARY_HEADER}\n${previous?.text ?? '(nothing yet)'}` };
  }

  private placeholder(turns: number): ChatMessage {
    return { role: 'user', content: `${SUMMARY_HEADER}\n(${turns} earlier message(s) left out to fit the context window; every action is on its card.)` };
  }

  private tooSmall(head: readonly ChatMessage[], tail: readonly ChatMessage[]): ContextWindowTooSmall {
    return new ContextWindowTooSmall(
      `The context window (${this.window} tokens) is too small for this request: the system prompt and the task take about ${estimateRequestTokens(head)} tokens and the last turn about ${estimateRequestTokens(tail) - REQUEST_OVERHEAD_TOKENS}. Give a larger window (--context-window or Settings) or a shorter task.`,
    );
  }
}

/** Where the last turn starts: the newest assistant reply after the task (or the newest message). */
function lastTurnIndex(history: readonly ChatMessage[], taskIndex: number): number {
  for (let i = history.length - 1; i > taskIndex; i--) if (history[i]!.role === 'assistant') return i;
  return Math.max(taskIndex + 1, history.length - 1);
}

function isObservation(m: ChatMessage): boolean {
  // 'tool': an observation sent back as a tool message, where the provider speaks tools.
  return (m.role === 'user' || (m.role as string) === 'tool') && OBSERVATION_HEAD.test(m.content);
}

/** An observation cut to about `limit` tokens per action: head and tail kept, the cut said with the action number. */
export function shorten(message: ChatMessage, limit: number): ChatMessage {
  const parts = message.content.split(/(?=^Observation for action \d+)/m);
  const per = Math.max(64, Math.floor(limit / parts.length));
  const content = parts
    .map((part) => {
      if (estimateTokens(part) <= per) return part;
      const seq = OBSERVATION_HEAD.exec(part)?.[1];
      const chars = Math.max(120, Math.floor((part.length * per) / estimateTokens(part)));
      const headChars = Math.floor(chars * 0.6);
      const tailChars = chars - headChars;
      const where = seq ? `the full output is on action ${seq}'s card; ask the person, or rerun a narrower command, to see more` : 'the full text is in the task\'s record';
      return `${part.slice(0, headChars)}\n[… ${part.length - chars} characters cut to fit the context window (${where}) …]\n${part.slice(-tailChars)}`;
    })
    .join('');
  return { ...message, content };
}

function clip(text: string, tokens: number): string {
  if (estimateTokens(text) <= tokens) return text;
  const chars = Math.floor((text.length * tokens) / estimateTokens(text));
  return `${text.slice(0, chars)} […]`;
}

/**
 * The context window a provider's model entry states (vLLM: max_model_len; others: context_length,
 * context_window, max_context_length; Anthropic: max_input_tokens), or null. The entry is read by the LLM client
 * (`LlmClient.contextWindow`), the one door to the provider.
 */
export function statedContextWindow(entry: Record<string, unknown> | null | undefined): number | null {
  if (!entry) return null;
  for (const field of ['max_model_len', 'context_length', 'context_window', 'max_context_length', 'max_input_tokens']) {
    const value = entry[field];
    if (typeof value === 'number' && Number.isInteger(value) && value >= MIN_CONTEXT_WINDOW) return value;
  }
  return null;
}
