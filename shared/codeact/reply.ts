// Every reply format the agent accepts, read once for both sides (main runs the actions, the renderer folds
// them and the reasoning). On top of the fences of fences.ts:
// - `<think>…</think>` (also `<thinking>`, and CodeAct's `<thought>`; and a reply that opens with reasoning closed by a lone `</think>`) is reasoning:
//   kept apart, shown folded, never run. An unclosed `<think>` runs to the end.
// - `<execute>…</execute>` (CodeAct), `<execute_ipython>` and `<execute_bash>` (OpenHands) are actions:
//   `<execute>` is python unless its code starts with `!` (IPython's shell escape: the `!` is dropped) or a
//   shebang, then bash. A fenced block alone inside the tag is unwrapped; code on the tag's own line starts
//   at its first character. A tag left open at the end (a reply cut at the `</execute>` stop sequence CodeAct
//   models are served with) runs to the end.
//   smolagents' `<code>…</code>` (python) counts when it stands as a block of its own, closed; its older
//   ```py … ```<end_code> is a fence like any other.
// - Calls in other harnesses' formats (calls.ts: OpenHands' <function=…>, <tool_call>, [TOOL_CALLS], Llama's
//   <|python_tag|>, SWE-agent's <command>, <finish> …) at a line's start, outside fences, <answer> and
//   reasoning, run as the action they map to (tool-map.ts); one naming a tool Posthoc lacks is never run and
//   never ends the task: the loop answers it with what Posthoc has. A reply that is only a bare JSON call
//   ({"name": …, "arguments": …}) or Llama's [tool(arg=…)] list is a call too.
// - Search/replace edit blocks (aider's SEARCH/REPLACE, ORIGINAL/UPDATED), fenced or not, are a file edit
//   (edits.ts), never run as the code they hold.
// - An untagged fence is an action only when the reply holds no other action: by its content when it reads
//   as a command (bash; another harness's command, SWE-agent's `find_file` or BrowserGym's `click("12")`, is a
//   tool Posthoc lacks), otherwise when the line before it says so (run / execute, or "let me …" / "I'll …"
//   ending in a colon): python then.
// - A fenced block the reply shows the reader ("you can run it with:") is not run when the reply is also an
//   answer (reply-blocks.ts); nor is a shell command that leaves a placeholder for the reader to fill in
//   (YOUR_API_KEY, <your-token>). The part says why, and the card shows it.
// - Python actions get IPython's own syntax done as IPython does it (ipython.ts: !cmd, %pip, %cd).
// - `<answer>…</answer>` is the final answer the system prompt teaches: everything inside is shown to the
//   person and never run, fences included (a "to run it again" block in an answer is an example, not an
//   action). A reply whose only content is an answer ends the task; an answer left open at the end (a cut
//   reply, or one still streaming) runs to the end. Code outside the tag still runs, and then the reply is
//   not the final answer.
// - `<plan>…</plan>` holds the agent's checklist: lines `- [ ] step` / `- [x] step` (a bare `- step` is an
//   open item). The last plan in a reply wins. It is never run.
// - `<title>…</title>` is the task's short title the system prompt asks for in the first reply: read once (the
//   first in a reply), bounded (one line, no markdown, at most 80 characters), never run, never in the prose.
//   A `<title>` inside a fence (code that writes HTML) is that code's text.
// A reply with code in it (outside <answer>) is never the final answer, whatever it says: the code runs first.
// A leaf like the rest of shared/.
import { readFences, type CodeBlock } from './fences';
import { toPlainPython } from './ipython';
import { isDataTag } from './reply-blocks';
import { fencedParts, gapParts, readBlocks, wholeReplyCall } from './reply-parts';

export type PlanItem = { text: string; done: boolean };

export type ReplyPart =
  | { kind: 'text'; text: string; answer?: true }
  | { kind: 'reasoning'; text: string }
  | { kind: 'plan'; items: PlanItem[] }
  | {
      kind: 'code';
      /** How it was written: a fence's tag ("" untagged), or the tag's name ("execute", "execute_bash"). */
      tag: string;
      body: string;
      action: CodeBlock | null;
      /** It is (or would be, when not empty) an action. */
      isAction: boolean;
      closed: boolean;
      /** A fence, an action tag (<execute>), or a call in another harness's format (calls.ts). */
      form: 'fence' | 'tag' | 'call';
      /** It stands inside <answer>: shown, never run. */
      answer?: true;
      /** Why a block that looks like code or a call was not run (shown on the card). */
      notRun?: string;
      /** The tool it calls when Posthoc has no such tool. */
      unknownTool?: string;
    };

/** Why a reply with no action does not end the task by itself (the loop sends one corrective observation). */
export type ReplyIssue = 'promise' | 'unterminated' | 'other-language' | 'reasoning-only' | 'empty' | 'unknown-tool';

export type ReadReply = {
  parts: ReplyPart[];
  actions: CodeBlock[];
  /** The reply without reasoning, plan and action code: the answer, when it has no action. */
  prose: string;
  reasoning: string | null;
  plan: PlanItem[] | null;
  /** What the reply's <answer> tags hold (their fences as written), or null when it has none. */
  answer: string | null;
  /** The reply's <title>, cleaned to one short line of plain words, or null when it has none (or an empty one). */
  title: string | null;
  /** Tools the reply called that Posthoc does not have (never run; the loop answers with what it has). */
  unknownTools: string[];
  /** The reply called its harness's finish (<finish>, attempt_completion): it ends the task when it runs nothing. */
  finished: boolean;
  issue: ReplyIssue | null;
};

/** The longest title a reply may give its task. */
export const TITLE_MAX = 80;

const THINK = /<(think|thinking|thought)>[\s\S]*?(?:<\/\1>|$)/gi;
const INTENT = /\b(let me|let's|let us|i'll|i will|i am going to|i'm going to|i need to|now i|next,? i|first,? i)\b/i;
const ACT_WORD = /\b(run|check|look|list|read|open|inspect|create|write|search|find|try|execute|install|count|examine|start|explore|verify|test|fix|calculate|compute|analy[sz]e|load|print|see|browse|visit|fetch|download|edit|update|delete|remove|rename|move|copy)\b/i;

export function readReply(reply: string): ReadReply {
  // smolagents' older closer, ```<end_code>, is a closing fence.
  let text = reply
    .replace(/\r\n?/g, '\n')
    .replace(/^([ \t]*(?:`{3,}|~{3,}))[ \t]*<end_code>[ \t]*$/gm, '$1')
    .replace(/^[ \t]*<end_code>[ \t]*$/gm, '')
    // End-of-turn tokens a server left in the text are not the model's words.
    .replace(/<\|(?:eot_id|im_end|end)\|>|<｜end▁of▁sentence｜>|<\/s>$/g, '');
  const reasoning: string[] = [];
  const parts: ReplyPart[] = [];
  // A reply that opens with reasoning and closes it with a lone </think> (the opener sat in the template).
  // (A server that also left the opener in the reply's text can leave two such closers: each ends reasoning.)
  for (let close = text.search(/<\/think>/i); close >= 0; close = text.search(/<\/think>/i)) {
    const open = text.search(/<think>/i);
    if (open >= 0 && open < close) break;
    const before = text.slice(0, close).trim();
    if (before) {
      reasoning.push(before);
      parts.push({ kind: 'reasoning', text: before });
    }
    text = text.slice(close + '</think>'.length);
  }
  // A title still streaming (opened, at the start or right after the reasoning, not closed yet) is not shown as text.
  text = text.replace(/(^|<\/(?:think|thinking|thought)>)\s*<title>[^<\n]{0,400}(?:<\/?t?i?t?l?e?)?$/i, '$1');
  let plan: PlanItem[] | null = null;
  const answers: string[] = [];
  let title: string | null = null;
  let unterminatedThink = false;
  // Split into reasoning, plan, execute tags and the rest, in order.
  const pattern =
    /<(think|thinking|thought)>([\s\S]*?)(?:<\/\1>|$)|<plan>([\s\S]*?)<\/plan>|<(execute|execute_ipython|execute_bash|code)>([\s\S]*?)(?:<\/\4>|$)|<answer>([\s\S]*?)(?:<\/answer>|$)|<title>([^<]{0,400})<\/title>/gi;
  let at = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    // An <answer> inside a fence that is still open (code that prints the tag) is that code's text.
    if ((m[6] !== undefined || m[7] !== undefined) && insideOpenFence(text.slice(at, m.index))) {
      pattern.lastIndex = m.index + 1;
      continue;
    }
    if (m.index > at) parts.push(...gapParts(text.slice(at, m.index)));
    at = m.index + m[0].length;
    if (m[1] !== undefined) {
      const body = (m[2] ?? '').trim();
      if (!m[0].toLowerCase().endsWith(`</${m[1].toLowerCase()}>`)) unterminatedThink = true;
      if (body) {
        reasoning.push(body);
        parts.push({ kind: 'reasoning', text: body });
      }
    } else if (m[3] !== undefined) {
      plan = planItems(m[3]);
      parts.push({ kind: 'plan', items: plan });
    } else if (m[7] !== undefined) {
      title ??= cleanTitle(m[7]);
    } else if (m[6] !== undefined) {
      // The final answer: its fences are shown, never run.
      const inside = answerParts(m[6]);
      parts.push(...inside);
      answers.push(inside.map((p) => (p.kind === 'code' ? fenceText(p) : p.kind === 'text' ? p.text : '')).join('\n'));
    } else {
      const tag = (m[4] ?? '').toLowerCase();
      const raw = m[5] ?? '';
      const closed = m[0].toLowerCase().endsWith(`</${tag}>`);
      // smolagents' <code> block counts only as a block of its own: <code> alone at a line's start, closed.
      if (tag === 'code' && (!closed || !/^[ \t]*\n/.test(raw) || !/(^|\n)[ \t]*$/.test(text.slice(0, m.index)))) {
        parts.push(...fencedParts(m[0]));
        continue;
      }
      const body = unwrapFence(raw);
      parts.push({ kind: 'code', tag, body, action: tagAction(tag, body), isAction: true, closed, form: 'tag' });
    }
  }
  if (at < text.length) parts.push(...gapParts(text.slice(at)));
  wholeReplyCall(parts);
  readBlocks(parts);

  const actions = parts.flatMap((p) => (p.kind === 'code' && p.action ? [p.action] : []));
  const unknownTools = [...new Set(parts.flatMap((p) => (p.kind === 'code' && p.unknownTool ? [p.unknownTool] : [])))];
  const finished = parts.some((p) => p.kind === 'code' && p.form === 'call' && p.tag === 'finish');
  const prose = parts
    .flatMap((p) => {
      if (p.kind === 'text') return [p.text];
      if (p.kind === 'code' && !p.isAction && p.form !== 'call') return [p.form === 'fence' ? fenceText(p) : p.body];
      return [];
    })
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const answer = answers.length ? answers.join('\n\n').trim() : null;
  // An answer in its tag is the answer, whatever its last line says ("run it again with:").
  const issue = actions.length ? null : unknownTools.length ? 'unknown-tool' : answer || finished ? null : issueOf(parts, prose, unterminatedThink);
  return { parts, actions, prose, reasoning: reasoning.length ? reasoning.join('\n\n') : null, plan, answer, title, unknownTools, finished, issue };
}

/** The reply as sent back to the model: without its reasoning (providers ask for it not to be replayed). */
export function withoutReasoning(reply: string): string {
  let text = reply;
  for (let close = text.search(/<\/think>/i); close >= 0; close = text.search(/<\/think>/i)) {
    const open = text.search(/<think>/i);
    if (open >= 0 && open < close) break;
    text = text.slice(close + '</think>'.length);
  }
  text = text.replace(THINK, '');
  return text.trim();
}

/** A title as the sidebar shows it: one line, no markdown or tags, no control or direction characters, at most TITLE_MAX characters. */
export function cleanTitle(raw: string): string | null {
  const plain = raw
    .replace(/<[^>]*>?/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g, ' ')
    .replace(/[*_`~#>|[\]"“”]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["'“”‘’]+|["'“”‘’]+$/g, '')
    .replace(/[.:;,]+$/, '')
    .trim();
  if (plain === '') return null;
  if (plain.length <= TITLE_MAX) return plain;
  const cut = plain.slice(0, TITLE_MAX - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function issueOf(parts: ReplyPart[], prose: string, unterminatedThink: boolean): ReplyIssue | null {
  const code = parts.filter((p): p is Extract<ReplyPart, { kind: 'code' }> => p.kind === 'code');
  if (code.some((p) => !p.closed && p.body.trim() !== '' && !p.notRun)) return 'unterminated';
  if (prose === '') {
    if (unterminatedThink || parts.some((p) => p.kind === 'reasoning')) return 'reasoning-only';
    return parts.some((p) => p.kind === 'plan') ? 'promise' : 'empty';
  }
  if (code.some((p) => p.body.trim() !== '' && !isDataTag(p.tag) && !p.notRun) && promises(prose)) return 'other-language';
  const last = parts.at(-1);
  if (last?.kind === 'text' && promises(lastParagraph(last.text))) return 'promise';
  return null;
}

/** Words that announce an action: "Let me check …", "I'll run …", or a line ending in a colon. */
function promises(text: string): boolean {
  const t = text.replace(/\blet me know\b/gi, '').trim();
  if (t.endsWith(':')) return true;
  return INTENT.test(t) && ACT_WORD.test(t);
}

function fenceText(p: Extract<ReplyPart, { kind: 'code' }>): string {
  // A fence longer than any run of backticks in the body, so the body cannot close it.
  const longest = Math.max(2, ...Array.from(p.body.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${p.tag}`, p.body, ...(p.closed ? [fence] : [])].join('\n');
}

/** The text ends inside a fence that has not been closed. */
function insideOpenFence(text: string): boolean {
  const last = readFences(text).at(-1);
  return last?.kind === 'fence' && last.close === null;
}

/** The inside of <answer>: its text and fences, every fence shown and none an action. */
function answerParts(body: string): ReplyPart[] {
  return fencedParts(body).map((p): ReplyPart => (p.kind === 'code' ? { ...p, action: null, isAction: false, answer: true } : p.kind === 'text' ? { ...p, answer: true } : p));
}

/** `<execute>` with a single fenced block inside: the block's code. */
function unwrapFence(body: string): string {
  const inner = readFences(body.trim()).filter((p) => p.kind === 'fence' || p.lines.some((l) => l.trim() !== ''));
  const only = inner.length === 1 ? inner[0] : undefined;
  if (only?.kind === 'fence') return only.body.join('\n');
  const code = body.replace(/^\n+|\s+$/g, '');
  // Code written on the tag's own line (CodeAct's `<execute> print("Hello World!") </execute>`) starts after
  // the space that follows the tag, as MINT strips it; Python would reject the indent.
  return body.startsWith('\n') ? code : code.replace(/^[ \t]+/, '');
}

function tagAction(tag: string, body: string): CodeBlock | null {
  if (body.trim() === '') return null;
  if (tag === 'execute_bash') return { language: 'bash', source: body };
  if (tag === 'execute_ipython') return pythonOrShell(body, false);
  return pythonOrShell(body, true);
}

/** IPython's `!cmd` lines: a block of them alone is shell; mixed with Python it stays Python. A shebang is shell. */
function pythonOrShell(body: string, shebang: boolean): CodeBlock {
  const lines = body.split('\n').filter((l) => l.trim() !== '');
  if (lines.length > 0 && lines.every((l) => l.trimStart().startsWith('!'))) {
    return { language: 'bash', source: lines.map((l) => l.trimStart().slice(1)).join('\n') };
  }
  if (shebang && /^#!.*\b(ba)?sh\b/.test(body.trimStart())) return { language: 'bash', source: body.trimStart() };
  return toPlainPython(body);
}

function planItems(body: string): PlanItem[] {
  const items: PlanItem[] = [];
  for (const line of body.split('\n')) {
    const m = /^\s*(?:[-*+]|\d+[.)])\s+(?:\[([ xX])\]\s*)?(.+?)\s*$/.exec(line);
    if (m && m[2]) items.push({ text: m[2].slice(0, 200), done: (m[1] ?? ' ').toLowerCase() === 'x' });
    if (items.length >= 20) break;
  }
  return items;
}

function lastParagraph(text: string): string {
  return text.trim().split(/\n\s*\n/).at(-1) ?? '';
}
