// What a call written in a reply stands for in Posthoc, whatever harness taught the model its name: a shell
// command, Python, a file edit, the end of the task, or a tool Posthoc does not have (answered with a
// corrective observation naming what it does have). Used by calls.ts and by the untagged-command reading
// of reply.ts. A leaf like the rest of shared/.
import { languageOfTag, type CodeBlock } from './fences';
import { editAction, editorCall, shellQuote } from './edits';
import { toPlainPython } from './ipython';

export type CallOutcome =
  | { kind: 'action'; action: CodeBlock }
  | { kind: 'finish'; text: string }
  | { kind: 'unknown'; name: string; why: string };

const BASH = new Set([
  'execute_bash', 'bash', 'shell', 'run_shell_command', 'run_command', 'execute_command', 'terminal', 'run_terminal_cmd',
  'shell_command', 'run_bash', 'exec_command', 'cmd', 'command', 'sh', 'terminal_run', 'execute_shell', 'run_shell',
]);
const PYTHON = new Set([
  'execute_ipython', 'execute_ipython_cell', 'python', 'ipython', 'run_python', 'execute_python', 'python_interpreter',
  'code_interpreter', 'run_ipython', 'execute_code', 'python_repl', 'run_python_code', 'jupyter',
]);
const EDITOR = new Set(['str_replace_editor', 'str_replace_based_edit_tool', 'text_editor']);
const WRITE = new Set(['write', 'write_file', 'write_to_file', 'create_file', 'file_write']);
const READ = new Set(['read_file', 'read', 'view_file', 'cat', 'file_read']);
const FINISH = new Set(['finish', 'attempt_completion', 'final_answer', 'task_complete', 'complete_task', 'done']);

/** The tools Posthoc has, in the words the corrective observation uses. */
export const POSTHOC_TOOLS =
  'Posthoc runs code, nothing else: a fenced block tagged ```bash or ```python (```sql for a granted database), <execute>…</execute> for Python, or the run_code tool; ' +
  'a file is edited by a search/replace block under its path, or by Python that writes it. There is no browser or search tool: reach the network from code.';

/** What a named call with its arguments stands for. */
export function mapCall(rawName: string, args: Record<string, unknown>): CallOutcome {
  const name = rawName.trim();
  const key = name.toLowerCase().replace(/^functions\./, '');
  const str = (...keys: string[]): string | null => {
    for (const k of keys) {
      const v = args[k];
      if (typeof v === 'string') return v;
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return (v as string[]).map(shellQuote).join(' ');
    }
    return null;
  };
  if (key === 'run_code') {
    const language = languageOfTag(String(args.language ?? ''));
    const code = str('code');
    if (!language || !code?.trim()) return { kind: 'unknown', name, why: 'run_code needs {language: python, bash, sh or sql, code}' };
    return { kind: 'action', action: language === 'sql' ? { language, source: code, database: null } : { language, source: code } };
  }
  if (BASH.has(key)) {
    const command = str('command', 'cmd', 'script', 'code', 'commands', 'input');
    if (command === null || command.trim() === '') return { kind: 'unknown', name, why: 'it holds no command' };
    return { kind: 'action', action: { language: 'bash', source: command } };
  }
  if (PYTHON.has(key)) {
    const code = str('code', 'source', 'script', 'cell', 'input', 'command');
    if (code === null || code.trim() === '') return { kind: 'unknown', name, why: 'it holds no code' };
    const language = languageOfTag(String(args.language ?? 'python'));
    if (language === 'bash' || language === 'sh') return { kind: 'action', action: { language, source: code } };
    return { kind: 'action', action: toPlainPython(code) };
  }
  if (EDITOR.has(key)) {
    const call = editorCall(args);
    return typeof call === 'string' ? { kind: 'unknown', name, why: call } : { kind: 'action', action: call };
  }
  if (WRITE.has(key)) {
    const path = str('path', 'filePath', 'file_path', 'filename', 'file');
    const text = str('content', 'file_text', 'text', 'contents');
    if (!path || text === null) return { kind: 'unknown', name, why: 'it needs a path and the content' };
    return { kind: 'action', action: editAction([{ kind: 'write', path, text }]) };
  }
  if (READ.has(key)) {
    const path = str('path', 'filePath', 'file_path', 'filename', 'file');
    if (!path) return { kind: 'unknown', name, why: 'it names no path' };
    return { kind: 'action', action: { language: 'bash', source: `cat ${shellQuote(path)}` } };
  }
  if (FINISH.has(key)) return { kind: 'finish', text: str('result', 'answer', 'message', 'text', 'outcome', 'final_answer') ?? '' };
  return { kind: 'unknown', name, why: 'Posthoc has no such tool' };
}

/** A JSON object as models write it: strict JSON, or a Python dict literal (single quotes, True/False/None). */
export function looseJson(text: string): unknown {
  const t = text.trim();
  try {
    return JSON.parse(t);
  } catch {
    // A Python literal: swap the quote characters outside strings, and the three constants.
    let out = '';
    let quote: string | null = null;
    for (let i = 0; i < t.length; i++) {
      const c = t[i]!;
      if (quote) {
        if (c === '\\') {
          out += c + (t[i + 1] ?? '');
          i++;
        } else if (c === quote) {
          out += '"';
          quote = null;
        } else out += c === '"' ? '\\"' : c;
      } else if (c === "'" || c === '"') {
        quote = c;
        out += '"';
      } else out += c;
    }
    try {
      return JSON.parse(out.replace(/\bTrue\b/g, 'true').replace(/\bFalse\b/g, 'false').replace(/\bNone\b/g, 'null'));
    } catch {
      return undefined;
    }
  }
}

/** {name, arguments|parameters} (or OpenAI's {function: {name, arguments}}) as a name and arguments. */
export function namedCall(value: unknown): { name: string; args: Record<string, unknown> } | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  const inner = typeof o.function === 'object' && o.function !== null ? (o.function as Record<string, unknown>) : o;
  const name = inner.name ?? o.tool ?? o.tool_name;
  if (typeof name !== 'string' || name.trim() === '') return null;
  let args = inner.arguments ?? inner.parameters ?? inner.args ?? inner.input ?? {};
  if (typeof args === 'string') args = looseJson(args) ?? { input: args };
  return { name, args: typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {} };
}
