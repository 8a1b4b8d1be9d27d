// How a task's messages and action cards read as one conversation. Pure; no React.
import { readFences } from '../../../shared/codeact/fences';
import type { Action, Message } from '../../../shared/domain';

export type ConversationItem =
  | { kind: 'message'; message: Message }
  | { kind: 'action'; action: Action };

function time(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

/**
 * Messages in seq order, each action card right after the assistant message that produced it: the last
 * assistant message created no later than the action started (so before that step's observation). An
 * action with no such message goes after the last message before it, or first of all.
 */
export function buildConversation(messages: readonly Message[], actions: readonly Action[]): ConversationItem[] {
  const ordered = [...messages].sort((a, b) => a.seq - b.seq);
  const anchored = new Map<number, Action[]>(); // index into `ordered`, -1 for "before every message"
  for (const action of [...actions].sort((a, b) => a.seq - b.seq)) {
    const started = time(action.startedAt);
    let anchor = -1;
    let fallback = -1;
    ordered.forEach((message, index) => {
      if (time(message.createdAt) > started) return;
      fallback = index;
      if (message.role === 'assistant') anchor = index;
    });
    const at = anchor >= 0 ? anchor : fallback;
    const list = anchored.get(at) ?? [];
    list.push(action);
    anchored.set(at, list);
  }

  const items: ConversationItem[] = [];
  const pushActions = (at: number): void => {
    for (const action of anchored.get(at) ?? []) items.push({ kind: 'action', action });
  };
  pushActions(-1);
  ordered.forEach((message, index) => {
    items.push({ kind: 'message', message });
    pushActions(index);
  });
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
  | { kind: 'code'; tag: string; text: string; isAction: boolean };

/**
 * Splits an assistant reply into prose and fenced code, both to be shown as text (never as HTML). An
 * unclosed fence (a reply still streaming) runs to the end.
 */
export function splitFences(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  for (const part of readFences(text)) {
    if (part.kind === 'text') {
      const joined = part.lines.join('\n').replace(/^\n+|\s+$/g, '');
      if (joined !== '') segments.push({ kind: 'prose', text: joined });
    } else {
      // Whatever main ran as an action (```sql included) is folded into its card, never shown twice.
      segments.push({ kind: 'code', tag: part.tag, text: part.body.join('\n'), isAction: part.actionTag });
    }
  }
  return segments;
}
