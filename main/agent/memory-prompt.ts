// The system prompt's part about the agent's memory (main/effects/memory): how to write it, and what it
// holds, bounded (its newest part kept when longer), so it counts for little in the context budget.
import { estimateTokens } from './token-estimate';

/** The most of the memory the prompt carries. */
export const MEMORY_PROMPT_TOKENS = 2000;

/** The system prompt's part about the memory: how to write it, and what it holds (bounded, newest kept). */
export function memorySection(text: string): string[] {
  let shown = text.trim();
  let cut = '';
  if (estimateTokens(shown) > MEMORY_PROMPT_TOKENS) {
    const chars = Math.floor((shown.length * MEMORY_PROMPT_TOKENS) / estimateTokens(shown));
    shown = shown.slice(-chars);
    shown = shown.slice(shown.indexOf('\n') + 1);
    cut = ' (its older part is left out here: it is longer than the prompt carries)';
  }
  return [
    '',
    'Memory:',
    '- You keep notes that outlive this task: facts about the person\'s folders, services and preferences that a later task will need. Never a secret.',
    '- To remember one, from code: POST $POSTHOC_GATEWAY/memory/notes with the JSON body {"note": "..."} (one short fact per note). It is recorded on the action and the person can undo it, read and edit the memory.',
    shown ? `- What you remembered so far${cut}:` : '- The memory is empty.',
    ...(shown ? [shown] : []),
  ];
}
