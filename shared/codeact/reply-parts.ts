// The parts of a reply's text between its tags (reply.ts): calls in other harnesses' formats, search/replace
// edit blocks and fences, then the decisions about blocks that need the whole reply (untagged fences read by
// their content, examples for the reader, shell commands with a placeholder for the reader, a reply that is
// only a bare call). A leaf like the rest of shared/.
import { readFences, type CodeBlock } from './fences';
import { findCalls } from './calls';
import { editAction, hasEditBlock, isEditCloser, isEditOpener, posixPath, readEditBlocks } from './edits';
import { toPlainPython } from './ipython';
import { looseJson, mapCall, namedCall, type CallOutcome } from './tool-map';
import { callInTag, extraTagAction, isReaderExample, leadOf, shellPlaceholder, untaggedKind } from './reply-blocks';
import type { ReplyPart } from './reply';

type CodePart = Extract<ReplyPart, { kind: 'code' }>;

const INTENT = /\b(let me|let's|let us|i'll|i will|i am going to|i'm going to|i need to|now i|next,? i|first,? i)\b/i;
const RUN_WORD = /\b(run|running|execute|executing)\b/i;

/** Text between tags: its calls, edit blocks and fences, in order. */
export function gapParts(text: string): ReplyPart[] {
  const parts: ReplyPart[] = [];
  let at = 0;
  for (const span of findCalls(text)) {
    if (span.start > at) parts.push(...fencedParts(text.slice(at, span.start)));
    const outcomes = span.outcomes.length ? span.outcomes : [{ kind: 'unknown', name: span.format, why: 'it names no tool' } as CallOutcome];
    outcomes.forEach((outcome, i) => parts.push(...callParts(span.format, i === 0 ? span.body : '', span.closed, outcome)));
    at = span.end;
  }
  if (at < text.length) parts.push(...fencedParts(text.slice(at)));
  return parts;
}

/** What a call stands for as parts: an action, the finish message as text, or a tool Posthoc lacks. */
export function callParts(format: string, body: string, closed: boolean, outcome: CallOutcome): ReplyPart[] {
  const base = { kind: 'code' as const, tag: format, body, closed, form: 'call' as const };
  switch (outcome.kind) {
    case 'action':
      return [{ ...base, action: outcome.action, isAction: true }];
    case 'finish':
      return [{ ...base, tag: 'finish', action: null, isAction: false }, ...(outcome.text.trim() ? [{ kind: 'text' as const, text: outcome.text.trim() }] : [])];
    case 'unknown':
      return [{ ...base, action: null, isAction: false, unknownTool: outcome.name, notRun: `Not run: ${outcome.name} is not a Posthoc tool (${outcome.why}).` }];
  }
}

/** Fences and plain text; edit blocks in either become one file edit. */
export function fencedParts(text: string): ReplyPart[] {
  const out: ReplyPart[] = [];
  for (const part of readFences(text)) {
    if (part.kind === 'text') {
      const joined = part.lines.join('\n');
      if (joined.trim() === '') continue;
      out.push(...(hasEditBlock(joined) ? textWithEdits(joined) : [{ kind: 'text' as const, text: joined.replace(/^\n+|\s+$/g, '') }]));
      continue;
    }
    const body = part.body.join('\n');
    const closed = part.close !== null;
    if (hasEditBlock(body)) {
      const before = out.at(-1);
      const fallback = before?.kind === 'text' ? pathLine(before.text.split('\n').at(-1) ?? '') : '';
      out.push({ kind: 'code', tag: part.tag, body, action: editAction(readEditBlocks(body, fallback)), isAction: true, closed, form: 'fence' });
      continue;
    }
    const named = callInTag(part.tag);
    if (named) {
      out.push({ kind: 'code', tag: part.tag, body, action: null, isAction: false, closed, form: 'fence', unknownTool: named, notRun: `Not run: ${named} is not a Posthoc tool (a browser action).` });
      continue;
    }
    const extra = part.action ? null : extraTagAction(part.tag, body);
    const action = part.action?.language === 'python' ? toPlainPython(part.action.source) : (part.action ?? extra);
    out.push({ kind: 'code', tag: part.tag, body, action, isAction: part.actionTag || extra !== null, closed, form: 'fence' });
  }
  return out;
}

/** Plain text holding edit blocks (aider writes them unfenced too): the text before, the edit, the text after. */
function textWithEdits(text: string): ReplyPart[] {
  const lines = text.split('\n');
  const first = lines.findIndex(isEditOpener);
  let last = -1;
  lines.forEach((l, i) => {
    if (isEditCloser(l)) last = i;
  });
  const from = first > 0 && pathLine(lines[first - 1]!) ? first - 1 : first;
  const body = lines.slice(from, last + 1).join('\n');
  const text1 = lines.slice(0, from).join('\n').trim();
  const text2 = lines.slice(last + 1).join('\n').trim();
  return [
    ...(text1 ? [{ kind: 'text' as const, text: text1 }] : []),
    { kind: 'code', tag: '', body, action: editAction(readEditBlocks(body)), isAction: true, closed: true, form: 'fence' },
    ...(text2 ? [{ kind: 'text' as const, text: text2 }] : []),
  ];
}

function pathLine(line: string): string {
  const t = posixPath(line.trim().replace(/^[*`'"]+|[*`'":]+$/g, ''));
  return /^[\w./~-][\w./~+@-]*$/.test(t) && /[./]/.test(t) ? t : '';
}

/** A reply that is nothing but a bare JSON call, or Llama's [tool(arg=…), …] list: those calls. */
export function wholeReplyCall(parts: ReplyPart[]): void {
  if (parts.some((p) => p.kind !== 'text' && p.kind !== 'reasoning')) return;
  const texts = parts.filter((p): p is Extract<ReplyPart, { kind: 'text' }> => p.kind === 'text');
  if (texts.length !== 1) return;
  const body = texts[0]!.text.trim();
  const index = parts.indexOf(texts[0]!);
  if (body.startsWith('{') && body.endsWith('}')) {
    const call = namedCall(looseJson(body));
    const name = call?.name ?? /^\{\s*"name"\s*:\s*"([^"]+)"\s*,\s*"(?:parameters|arguments)"\s*:/.exec(body)?.[1];
    if (!name) return;
    const outcome: CallOutcome = call ? mapCall(call.name, call.args) : { kind: 'unknown', name, why: 'its JSON could not be read' };
    parts.splice(index, 1, ...callParts('json', body, true, outcome));
    return;
  }
  const list = /^\[\s*([A-Za-z_][\w.]*\([\s\S]*\))\s*\]$/.exec(body);
  if (!list) return;
  const names = [...list[1]!.matchAll(/(?:^|\)\s*,\s*)([A-Za-z_][\w.]*)\(/g)].map((m) => m[1]!);
  parts.splice(index, 1, ...names.flatMap((name, i) => callParts('pythonic', i === 0 ? body : '', true, { kind: 'unknown', name, why: 'Posthoc has no such tool' })));
}

/** Decisions over the whole reply: untagged fences by content or lead, examples shown to the reader, and shell
 *  commands that leave a placeholder for the reader to fill in. */
export function readBlocks(parts: ReplyPart[]): void {
  const prose = parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('\n');
  const leadBefore = (i: number) => {
    const before = parts[i - 1];
    return before?.kind === 'text' ? leadOf(before.text) : '';
  };
  const textAfter = (i: number) => parts.slice(i + 1).some((p) => p.kind === 'text' && p.text.trim() !== '');
  // A block shown to the reader while the reply answers is not run, tagged or not.
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.kind !== 'code' || p.form !== 'fence' || !p.action || p.answer) continue;
    if (isReaderExample(leadBefore(i), prose, textAfter(i))) parts[i] = notRun(p, 'Not run: the reply shows this block to the reader as an example, and answers beside it.');
    else if (shellPlaceholder(p.action)) parts[i] = notRun(p, placeholderWhy(shellPlaceholder(p.action)!));
  }
  if (parts.some((p) => p.kind === 'code' && (p.isAction || p.unknownTool))) return;
  const untagged = parts.filter((p) => p.kind === 'code' && p.form === 'fence' && p.tag === '' && p.body.trim() !== '' && !p.answer).length;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.kind !== 'code' || p.form !== 'fence' || p.tag !== '' || p.body.trim() === '' || p.answer || p.notRun) continue;
    const lead = leadBefore(i);
    const kind = untaggedKind(p.body);
    if (kind?.kind === 'foreign') {
      if (textAfter(i)) continue;
      parts[i] = { ...p, unknownTool: kind.name, notRun: `Not run: ${kind.name} is a command of another agent harness (${kind.harness}), not a Posthoc tool.` };
      continue;
    }
    const lastLine = lead.trimEnd().split('\n').at(-1) ?? '';
    const asked = RUN_WORD.test(lastLine) || (INTENT.test(lastLine) && lastLine.trimEnd().endsWith(':'));
    // Read by its content alone, a command runs only as the harnesses that write it so place it: the one
    // untagged block, ending the reply (a snippet with text after it, or one of several, is shown text).
    const alone = !textAfter(i) && untagged === 1;
    if (!asked && (kind === null || !alone)) continue;
    const action: CodeBlock = kind ? { language: 'bash', source: kind.source } : toPlainPython(p.body);
    if (isReaderExample(lead, prose, textAfter(i))) {
      parts[i] = { ...p, notRun: 'Not run: the reply shows this block to the reader as an example, and answers beside it.' };
      continue;
    }
    const placeholder = shellPlaceholder(action);
    if (placeholder) {
      parts[i] = { ...p, notRun: placeholderWhy(placeholder) };
      continue;
    }
    parts[i] = { ...p, isAction: true, action };
  }
}

function placeholderWhy(placeholder: string): string {
  return `Not run: the command holds ${placeholder}, a placeholder for the reader to fill in.`;
}

function notRun(p: CodePart, why: string): CodePart {
  return { ...p, action: null, isAction: false, notRun: why };
}
