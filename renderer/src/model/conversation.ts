// How a task's messages and action cards read as one conversation. Pure; no React.
import { readReply } from '../../../shared/codeact/reply';
import type { Action, Message } from '../../../shared/domain';

export type ConversationItem =
  | { kind: 'message'; message: Message }
  | { kind: 'action'; action: Action };

/**
 * Messages in seq order, each action card right after the assistant message whose code block it is (its
 * messageId), in the order the actions ran. An action with no such message among these (none recorded)
 * goes at the end.
 */
export function buildConversation(messages: readonly Message[], actions: readonly Action[]): ConversationItem[] {
  const ordered = [...messages].sort((a, b) => a.seq - b.seq);
  const byMessage = new Map<string, Action[]>();
  const loose: Action[] = [];
  const known = new Set(ordered.map((m) => m.id));
  for (const action of [...actions].sort((a, b) => a.seq - b.seq)) {
    if (action.messageId === null || !known.has(action.messageId)) {
      loose.push(action);
      continue;
    }
    const list = byMessage.get(action.messageId) ?? [];
    list.push(action);
    byMessage.set(action.messageId, list);
  }
  const items: ConversationItem[] = [];
  for (const message of ordered) {
    items.push({ kind: 'message', message });
    for (const action of byMessage.get(message.id) ?? []) items.push({ kind: 'action', action });
  }
  for (const action of loose) items.push({ kind: 'action', action });
  return items;
}

/**
 * When a finished task's last item is its final assistant reply, that reply is the answer: show it once,
 * as the answer. Returns the id of the message the answer block replaces, if any.
 */
export function findAnswerMessageId(items: readonly ConversationItem[]): string | null {
  const last = items[items.length - 1];
  if (last === undefined || last.kind !== 'message' || last.message.role !== 'assistant') return null;
  return last.message.id;
}

export type TextSegment =
  | { kind: 'prose'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'code'; tag: string; text: string; isAction: boolean }
  /** A block or call the reply holds that was not run, and why (an example for the reader, a tool Posthoc lacks). */
  | { kind: 'not-run'; tag: string; text: string; reason: string };

/**
 * Splits an assistant reply into prose (markdown: the text with every fence that is not an action, so a
 * final answer's code blocks are shown, never run), reasoning (<think>, shown folded) and action code, all
 * to be shown as text (never as HTML), read by the parser main runs replies with (shared/codeact/reply.ts).
 * The plan is left out: the task shows it above the conversation. An unclosed fence (a reply still
 * streaming) runs to the end.
 */
export function splitFences(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  const addProse = (markdown: string): void => {
    const last = segments.at(-1);
    if (last?.kind === 'prose') last.text = `${last.text}\n\n${markdown}`;
    else segments.push({ kind: 'prose', text: markdown });
  };
  for (const part of readReply(text).parts) {
    if (part.kind === 'text') {
      const joined = part.text.replace(/^\n+|\s+$/g, '');
      if (joined !== '') addProse(joined);
    } else if (part.kind === 'reasoning') {
      segments.push({ kind: 'reasoning', text: part.text });
    } else if (part.kind === 'code') {
      // Whatever main ran as an action (```sql and <execute> included) is folded into its card, never shown twice.
      if (part.isAction) segments.push({ kind: 'code', tag: part.tag, text: part.body, isAction: true });
      else if (part.notRun) segments.push({ kind: 'not-run', tag: part.tag, text: part.body, reason: part.notRun });
      else if (part.form === 'call') continue;
      else addProse(fenceMarkdown(part.tag, part.body, part.closed));
    }
  }
  return segments;
}

/** A fence written back as markdown, longer than any run of backticks in its body. */
function fenceMarkdown(tag: string, body: string, closed: boolean): string {
  const longest = Math.max(2, ...Array.from(body.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${tag}`, body, ...(closed ? [fence] : [])].join('\n');
}
