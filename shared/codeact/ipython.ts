// IPython's own syntax in a Python cell, done as IPython does it, by rewriting the cell on the host before it
// becomes the action's Python source (the sandbox runs plain Python):
// - `!cmd` runs cmd in a shell, its output shown, a failure not stopping the cell; `x = !cmd` gives its lines.
// - `%pip …` (and `%conda`-less `%pip` alone) runs `python -m pip …` with the interpreter of the cell.
// - `%cd DIR` changes the working directory (and prints it, as IPython does); `%env K=V` / `%env K V` sets one.
// - `%%bash` / `%%sh` / `%%script bash` as a cell's first line: the cell is bash.
// - `%sx cmd` / `%system cmd` are `!cmd`; display-only magics (`%matplotlib`, `%load_ext`, `%autoreload`,
//   `%config`, `%time`'s own line when alone) are dropped as the no-ops they are outside a notebook
//   (`%time stmt` / `%timeit stmt` run stmt).
// A line inside a triple-quoted string is text and is never rewritten. Anything else stays as written.
// A leaf like the rest of shared/.
import type { CodeBlock } from './fences';

const PRELUDE = [
  '# IPython syntax in this cell (!cmd, %pip, %cd) rewritten for plain Python by Posthoc.',
  'import os as _ph_os, shlex as _ph_shlex, subprocess as _ph_sp, sys as _ph_sys',
  'def _ph_sh(cmd):',
  '    _ph_sys.stdout.flush()',
  '    _ph_sp.run(cmd, shell=True, executable="/bin/bash")',
  'def _ph_sh_lines(cmd):',
  '    return _ph_sp.run(cmd, shell=True, executable="/bin/bash", capture_output=True, text=True).stdout.splitlines()',
  'def _ph_cd(path):',
  '    _ph_os.chdir(_ph_os.path.expanduser(path or "~"))',
  '    print(_ph_os.getcwd())',
];

const DROPPED = new Set(['matplotlib', 'load_ext', 'autoreload', 'config', 'reload_ext', 'precision', 'pprint', 'xmode', 'colors']);

/** True when a Python cell holds IPython syntax that plain Python would reject or read otherwise. */
export function hasIPythonSyntax(source: string): boolean {
  return source !== toPlainPython(source).source;
}

/** The cell as plain Python (or bash, for a `%%bash` cell). A cell without IPython syntax comes back as written. */
export function toPlainPython(source: string): CodeBlock {
  const lines = source.split('\n');
  const firstIndex = lines.findIndex((l) => l.trim() !== '');
  const first = firstIndex >= 0 ? lines[firstIndex]!.trim() : '';
  const cell = /^%%(bash|sh|script\s+(?:ba)?sh)\s*$/.exec(first);
  if (cell) return { language: 'bash', source: lines.slice(firstIndex + 1).join('\n') };
  let rewritten = false;
  let quote: string | null = null;
  const out = lines.map((line) => {
    const inString = quote !== null;
    quote = quoteAfter(line, quote);
    if (inString) return line;
    const next = rewrite(line);
    if (next !== line) rewritten = true;
    return next;
  });
  return { language: 'python', source: rewritten ? [...PRELUDE, ...out].join('\n') : source };
}

function rewrite(line: string): string {
  const m = /^([ \t]*)(.*)$/.exec(line)!;
  const indent = m[1]!;
  const code = m[2]!;
  const assign = /^([A-Za-z_][\w]*\s*=\s*)!(.+)$/.exec(code);
  if (assign) return `${indent}${assign[1]}_ph_sh_lines(${JSON.stringify(assign[2]!.trim())})`;
  if (code.startsWith('!') && !code.startsWith('!=')) return `${indent}_ph_sh(${JSON.stringify(code.slice(1).trim())})`;
  const magic = /^%([A-Za-z_]+)\b\s*(.*)$/.exec(code);
  if (!magic || code.startsWith('%%')) return line;
  const name = magic[1]!;
  const rest = magic[2]!.trim();
  switch (name) {
    case 'pip':
      return `${indent}_ph_sh(_ph_shlex.quote(_ph_sys.executable) + ${JSON.stringify(` -m pip ${rest}`)})`;
    case 'cd':
      return `${indent}_ph_cd(${JSON.stringify(unquote(rest))})`;
    case 'sx':
    case 'system':
      return `${indent}_ph_sh(${JSON.stringify(rest)})`;
    case 'env': {
      const kv = /^([A-Za-z_]\w*)(?:\s*=\s*|\s+)(.*)$/.exec(rest);
      return kv ? `${indent}_ph_os.environ[${JSON.stringify(kv[1])}] = ${JSON.stringify(kv[2])}` : `${indent}print(dict(_ph_os.environ))`;
    }
    case 'pwd':
      return `${indent}print(_ph_os.getcwd())`;
    case 'ls':
      return `${indent}_ph_sh(${JSON.stringify(`ls ${rest}`.trim())})`;
    case 'time':
    case 'timeit':
      return rest ? `${indent}${rest}` : `${indent}pass  # %${name}`;
    default:
      return DROPPED.has(name) ? `${indent}pass  # %${name} ${rest}`.trimEnd() : line;
  }
}

function unquote(s: string): string {
  const m = /^(['"])(.*)\1$/.exec(s);
  return m ? m[2]! : s;
}

/** Which triple quote is still open after this line (null when none), starting from `open`. */
function quoteAfter(line: string, open: string | null): string | null {
  let state = open;
  let i = 0;
  while (i < line.length) {
    if (state === null) {
      if (line[i] === '#') break;
      const t = line.startsWith('"""', i) ? '"""' : line.startsWith("'''", i) ? "'''" : null;
      if (t) {
        state = t;
        i += 3;
        continue;
      }
      if (line[i] === '"' || line[i] === "'") {
        // A one-line string: skip to its end.
        const q = line[i]!;
        i++;
        while (i < line.length && line[i] !== q) i += line[i] === '\\' ? 2 : 1;
      }
      i++;
    } else {
      if (line[i] === '\\') {
        i += 2;
        continue;
      }
      if (line.startsWith(state, i)) {
        state = null;
        i += 3;
        continue;
      }
      i++;
    }
  }
  return state;
}
