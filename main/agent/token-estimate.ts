// A tokenizer-free estimate of how many tokens a text costs a model, meant to err high: BPE tokenizers
// (GPT's cl100k/o200k, Llama's, Qwen's) give a run of letters about one token per 4 characters, digits
// at most 3 per token, most punctuation a token of its own, and text outside ASCII about one token per
// byte at worst. docs/BENCHMARKS.md compares it with a real tokenizer's count.
import type { ChatMessage } from './llm-client';

/** What a chat template adds per message (role markers, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 8;
/** What every request adds (the reply's priming). */
export const REQUEST_OVERHEAD_TOKENS = 8;

const PIECES = /[A-Za-z0-9]+|[ \t]+|\r?\n+|[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]+|[^\x00-\x7f]+|[\x00-\x1f\x7f]/g;

export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(PIECES)) {
    const piece = match[0];
    const c = piece.charCodeAt(0);
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) tokens += alnumTokens(piece);
    else if (c === 32 || c === 9) tokens += piece.length > 1 ? Math.ceil(piece.length / 4) : 0.25;
    else if (c === 10 || c === 13) tokens += Math.ceil(piece.length / 2);
    else if (c < 128) tokens += piece.length;
    else tokens += Buffer.byteLength(piece, 'utf8') / 1.5;
  }
  return Math.ceil(tokens);
}

/** A word ("Hello", "file") is about a token per 4 letters, digits a token per 3; a run mixing them or
 * case (base64, hashes, identifiers) splits far more often. */
function alnumTokens(run: string): number {
  if (/^[0-9]+$/.test(run)) return Math.ceil(run.length / 3);
  if (/^[A-Z]?[a-z]+$|^[A-Z]+$/.test(run)) return Math.ceil(run.length / 4);
  return Math.ceil(run.length / 1.35);
}

export function estimateMessageTokens(message: ChatMessage): number {
  // The native tool calls an assistant turn carries (when the provider speaks tools), counted with it.
  const toolCalls = (message as { toolCalls?: Array<{ name: string; arguments: string }> }).toolCalls;
  const calls = message.role === 'assistant' ? (toolCalls ?? []).reduce((sum, c) => sum + estimateTokens(c.name) + estimateTokens(c.arguments) + MESSAGE_OVERHEAD_TOKENS, 0) : 0;
  return estimateTokens(message.content) + calls + MESSAGE_OVERHEAD_TOKENS;
}

export function estimateRequestTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + estimateMessageTokens(m), REQUEST_OVERHEAD_TOKENS);
}
