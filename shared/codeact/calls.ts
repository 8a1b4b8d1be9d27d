// Calls written in a reply's text in the formats other harnesses teach their models, found where they stand
// as calls: at the start of a line, outside fences, <answer> and reasoning (reply.ts hands this only such
// text). Each is mapped by tool-map.ts to an action, the end of the task, or a tool Posthoc does not have.
// - OpenHands' function format: <function=NAME><parameter=K>V</parameter>…</function>, or a JSON body (Llama 3.1's).
// - Hermes/Qwen <tool_call>{json}</tool_call> (a Python dict literal too), Mistral's [TOOL_CALLS] (a JSON list or
//   name[ARGS]{json}), LM Studio's [TOOL_REQUEST]…[END_TOOL_REQUEST], DeepSeek's <｜tool▁calls▁begin｜>…, and
//   Anthropic's older <function_calls><invoke name="…"><parameter name="…">…</invoke></function_calls>.
// - Llama's <|python_tag|>: Python for its code interpreter, or a JSON call, or brave_search.call(…).
// - SWE-agent's <command>…</command>; OpenHands' <finish>; any other <execute_NAME> (OpenHands' browse);
//   Cline-style tool elements (<execute_command><command>ls</command></execute_command>).
// A call left open at the end of the reply (cut at a stop sequence) runs to the end.
// A leaf like the rest of shared/.
import { readFences } from './fences';
import { looseJson, mapCall, namedCall, type CallOutcome } from './tool-map';
import { toPlainPython } from './ipython';

export type CallSpan = { start: number; end: number; format: string; body: string; outcomes: CallOutcome[]; closed: boolean };

/** Command words of agent harnesses that are tools there, not programs here (SWE-agent's and its CTF tools). */
export const FOREIGN_COMMANDS = new Set(
  ('open goto scroll_up scroll_down create edit search_dir search_file find_file submit filemap decompile disassemble ' +
    'debug_start debug_add_breakpoint debug_continue debug_step debug_exec debug_stop connect_start connect_sendline ' +
    'connect_exec connect_stop exit_forfeit str_replace_editor insert_line skip exit_cost exit_context exit_error set_cursors').split(' '),
);

const START =
  /(^|\n)[ \t]*(<function=([\w.-]+)>|<tool_call>|\[TOOL_CALLS\]|\[TOOL_REQUEST\]|<\|python_tag\|>|<｜tool▁calls▁begin｜>|<command>|<([a-z][a-z0-9]*(?:_[a-z0-9]+)+)>(?=\s*<[a-z_]+>)|<(execute_\w+)>|<finish>|<function_calls>)/g;

/** The calls in a text, in order; none starts inside a fence. */
export function findCalls(text: string): CallSpan[] {
  const spans: CallSpan[] = [];
  START.lastIndex = 0;
  for (let m = START.exec(text); m !== null; m = START.exec(text)) {
    const start = m.index + m[1]!.length;
    if (insideFence(text.slice(0, start))) continue;
    const open = m[2]!;
    const after = m.index + m[0].length;
    const span = readCall(text, start, after, open, m[3], m[5], m[4]);
    if (span) {
      spans.push(span);
      START.lastIndex = Math.max(span.end, after);
    }
  }
  return spans;
}

function readCall(text: string, start: number, after: number, open: string, fn?: string, execute?: string, element?: string): CallSpan | null {
  const until = (closer: string | RegExp) => {
    const rest = text.slice(after);
    const hit = typeof closer === 'string' ? { index: rest.indexOf(closer), length: closer.length } : matchAt(rest, closer);
    return hit.index >= 0
      ? { body: rest.slice(0, hit.index), end: after + hit.index + hit.length, closed: true }
      : { body: rest, end: text.length, closed: false };
  };
  const span = (format: string, r: { body: string; end: number; closed: boolean }, outcomes: CallOutcome[]): CallSpan => ({ start, end: r.end, format, body: r.body, outcomes, closed: r.closed });
  if (fn !== undefined) {
    const r = until('</function>');
    return span(`function=${fn}`, r, [mapCall(fn, functionArgs(r.body))]);
  }
  if (execute !== undefined) {
    const r = until(`</${execute}>`);
    return span(execute, r, [{ kind: 'unknown', name: execute.replace(/^execute_/, ''), why: 'Posthoc has no such tool' }]);
  }
  if (element !== undefined) {
    const r = until(`</${element}>`);
    if (!r.closed) return null;
    const args: Record<string, unknown> = {};
    for (const p of r.body.matchAll(/<([a-z_]+)>([\s\S]*?)<\/\1>/g)) args[p[1]!] = trimValue(p[2]!);
    return span(element, r, [mapCall(element, args)]);
  }
  switch (open) {
    case '<tool_call>': {
      const r = until('</tool_call>');
      return span('tool_call', r, [jsonOutcome(unfence(r.body))]);
    }
    case '[TOOL_REQUEST]': {
      const r = until('[END_TOOL_REQUEST]');
      return span('TOOL_REQUEST', r, [jsonOutcome(r.body)]);
    }
    case '[TOOL_CALLS]': {
      const rest = text.slice(after);
      const named = /^\s*([\w.-]+)\[ARGS\]/.exec(rest);
      const jsonStart = named ? named[0].length : rest.search(/\S/);
      const length = jsonLength(rest, jsonStart);
      const r = { body: rest.slice(0, jsonStart + length), end: after + jsonStart + length, closed: length > 0 };
      if (named) return span('TOOL_CALLS', r, [mapCall(named[1]!, asRecord(looseJson(rest.slice(jsonStart, jsonStart + length))))]);
      const value = looseJson(rest.slice(jsonStart, jsonStart + length));
      const list = Array.isArray(value) ? value : [value];
      return span('TOOL_CALLS', r, list.map((v) => outcomeOf(namedCall(v), rest)));
    }
    case '<|python_tag|>': {
      const r = until(/<\|(?:eom_id|eot_id)\|>/);
      const body = r.body.trim();
      const call = body.startsWith('{') ? namedCall(looseJson(body)) : null;
      if (call) return span('python_tag', r, [mapCall(call.name, call.args)]);
      const builtin = /^([A-Za-z_]\w*)\.call\(/.exec(body);
      if (builtin) return span('python_tag', r, [{ kind: 'unknown', name: builtin[1]!, why: 'Posthoc has no such tool' }]);
      return span('python_tag', r, body ? [{ kind: 'action', action: toPlainPython(r.body.replace(/^\n+|\s+$/g, '')) }] : []);
    }
    case '<｜tool▁calls▁begin｜>': {
      const r = until('<｜tool▁calls▁end｜>');
      const calls = [...r.body.matchAll(/<｜tool▁call▁begin｜>\s*(?:function)?\s*<｜tool▁sep｜>\s*([\w.-]+)\s*([\s\S]*?)(?:<｜tool▁call▁end｜>|$)/g)];
      return span('deepseek', r, calls.map((c) => mapCall(c[1]!, asRecord(looseJson(unfence(c[2]!))))));
    }
    case '<command>': {
      const r = until('</command>');
      return span('command', r, [commandOutcome(r.body.replace(/^\n+|\s+$/g, ''))]);
    }
    case '<finish>': {
      const r = until('</finish>');
      return span('finish', r, [{ kind: 'finish', text: r.body.trim() }]);
    }
    case '<function_calls>': {
      const r = until('</function_calls>');
      const calls = [...r.body.matchAll(/<invoke\s+name="([^"]+)"\s*>([\s\S]*?)(?:<\/invoke>|$)/g)].map((c) => {
        const args: Record<string, unknown> = {};
        for (const p of c[2]!.matchAll(/<parameter\s+name="([^"]+)"\s*>([\s\S]*?)<\/parameter>/g)) args[p[1]!] = trimValue(p[2]!);
        return mapCall(c[1]!, args);
      });
      return span('function_calls', r, calls);
    }
    default:
      return null;
  }
}

/** A shell command line (SWE-agent's <command>, an untagged fence): bash, unless its first word is another harness's tool. */
export function commandOutcome(body: string): CallOutcome {
  const word = firstWord(body);
  if (FOREIGN_COMMANDS.has(word)) return { kind: 'unknown', name: word, why: 'it is a command of another agent harness (SWE-agent), not a program here' };
  return { kind: 'action', action: { language: 'bash', source: body } };
}

/** The first word of the first line that is not empty or a comment, without a `$ ` prompt. */
export function firstWord(body: string): string {
  const line = body.split('\n').find((l) => l.trim() !== '' && !l.trim().startsWith('#')) ?? '';
  return line.trim().replace(/^\$\s+/, '').split(/\s+/)[0] ?? '';
}

/** OpenHands' <parameter=K>V</parameter> list (a malformed <parameter=K=V</parameter> too), or a JSON body. */
function functionArgs(body: string): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const p of body.matchAll(/<parameter=([\w-]+)(?:>([\s\S]*?)|=([^<>\n]*))<\/parameter>/g)) args[p[1]!] = trimValue(p[2] ?? p[3] ?? '');
  if (Object.keys(args).length > 0 || body.trim() === '') return args;
  return asRecord(looseJson(body));
}

function jsonOutcome(body: string): CallOutcome {
  return outcomeOf(namedCall(looseJson(body)), body);
}

function outcomeOf(call: { name: string; args: Record<string, unknown> } | null, body: string): CallOutcome {
  if (call) return mapCall(call.name, call.args);
  const name = /["']name["']\s*:\s*["']([^"']+)["']/.exec(body)?.[1];
  return { kind: 'unknown', name: name ?? 'a call', why: 'its JSON could not be read' };
}

/** A parameter's value as OpenHands reads it: one line break at each end dropped. */
function trimValue(value: string): string {
  return value.replace(/^\n/, '').replace(/\n$/, '');
}

function unfence(body: string): string {
  const m = /^\s*```[\w-]*\n([\s\S]*?)\n?```\s*$/.exec(body);
  return m ? m[1]! : body;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function matchAt(text: string, re: RegExp): { index: number; length: number } {
  const m = re.exec(text);
  return m ? { index: m.index, length: m[0].length } : { index: -1, length: 0 };
}

/** The length of the JSON value (an array or object, brackets balanced outside strings) starting at `from`; 0 when none. */
function jsonLength(text: string, from: number): number {
  const opener = text[from];
  if (opener !== '[' && opener !== '{') return 0;
  let depth = 0;
  let quote: string | null = null;
  for (let i = from; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) return i - from + 1;
    }
  }
  return text.length - from;
}

function insideFence(text: string): boolean {
  const last = readFences(text).at(-1);
  return last?.kind === 'fence' && last.close === null;
}
