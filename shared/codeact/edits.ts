// File edits written in a reply, turned into one Python action that applies them exactly. Never run as the
// code they contain:
// - aider's search/replace blocks, `<<<<<<< SEARCH … ======= … >>>>>>> REPLACE` and the older
//   `<<<<<<< ORIGINAL … >>>>>>> UPDATED`, the file's path alone on the line before the marker (or before the
//   fence holding it); a block without a path takes the one before it. Read as aider reads what models
//   write: an opener closed like a tag (`<<<<<<< SEARCH>`), a second divider right before the closer, and a
//   Windows path (`src\App.tsx`, read as src/App.tsx in the sandbox).
// - the str_replace_editor calls of OpenHands and Anthropic (create, str_replace, insert, view).
// The action reads every file first and changes nothing unless each search text is found exactly once (an
// empty search creates the file, or appends when it exists, as aider does; a tool's create writes it whole); otherwise it stops with an error saying which
// edit, in which file, and what to do. Files are written whole, after every check passed. A leaf like the
// rest of shared/.
import type { CodeBlock } from './fences';

export type FileEdit =
  | { kind: 'replace'; path: string; search: string; replace: string }
  | { kind: 'create'; path: string; text: string }
  | { kind: 'write'; path: string; text: string }
  | { kind: 'insert'; path: string; line: number; text: string };

// aider's own patterns (aider/coders/editblock_coder.py): models close the opener like an HTML tag.
const OPENER = /^[ \t]*<{5,9} ?(SEARCH|ORIGINAL)>?[ \t]*$/;
const DIVIDER = /^[ \t]*={5,9}[ \t]*$/;
const CLOSER = /^[ \t]*>{5,9} ?(REPLACE|UPDATED)[ \t]*$/;
const FENCE = /^[ \t]*(`{3,}|~{3,})/;

/** The text holds a search/replace block (an opener, a divider and a closer, in that order). */
export function hasEditBlock(text: string): boolean {
  const lines = text.split('\n');
  const open = lines.findIndex((l) => OPENER.test(l));
  if (open < 0) return false;
  const divide = lines.findIndex((l, i) => i > open && DIVIDER.test(l));
  return divide > open && lines.some((l, i) => i > divide && CLOSER.test(l));
}

/**
 * The search/replace blocks of a text, in order. `fallbackPath` names the file when no line before the first
 * block does. A block whose path cannot be found is returned with path '' (the action refuses it by name).
 */
export function readEditBlocks(text: string, fallbackPath = ''): FileEdit[] {
  const lines = text.split('\n');
  const edits: FileEdit[] = [];
  let path = fallbackPath;
  for (let i = 0; i < lines.length; i++) {
    if (!OPENER.test(lines[i]!)) continue;
    path = pathBefore(lines, i) ?? path;
    const search: string[] = [];
    const replace: string[] = [];
    let j = i + 1;
    while (j < lines.length && !DIVIDER.test(lines[j]!)) search.push(lines[j++]!);
    j++;
    // A second divider right before the closer ends the replacement too (aider reads it so).
    while (j < lines.length && !CLOSER.test(lines[j]!) && !(DIVIDER.test(lines[j]!) && CLOSER.test(lines[j + 1] ?? ''))) replace.push(lines[j++]!);
    if (DIVIDER.test(lines[j] ?? '')) j++;
    const body = (xs: string[]) => (xs.length ? `${xs.join('\n')}\n` : '');
    edits.push(search.length === 0 ? { kind: 'create', path, text: body(replace) } : { kind: 'replace', path, search: body(search), replace: body(replace) });
    i = j;
  }
  return edits;
}

/** The path on the lines just before a block's opener: skipping one fence line, the nearest non-empty line that reads as a path. */
function pathBefore(lines: string[], opener: number): string | null {
  for (let k = opener - 1, seen = 0; k >= 0 && seen < 3; k--) {
    const line = lines[k]!.trim();
    if (line === '') continue;
    seen++;
    if (FENCE.test(line)) continue;
    if (CLOSER.test(line)) return null;
    const cleaned = posixPath(line.replace(/^[#*`'"]+|[*`'":]+$/g, '').trim());
    return /^[\w./~-][\w./ ~+@-]*$/.test(cleaned) && !/\s{2,}/.test(cleaned) && /[./]/.test(cleaned) ? cleaned : null;
  }
  return null;
}

/** A line opens or closes an edit block (for text that holds blocks outside a fence). */
export function isEditOpener(line: string): boolean {
  return OPENER.test(line);
}
export function isEditCloser(line: string): boolean {
  return CLOSER.test(line);
}

/** A path as the sandbox names it: a Windows path (models used from Windows write src\App.tsx) with forward slashes. */
export function posixPath(path: string): string {
  if (!path.includes('\\') || /^[A-Za-z]:|^\\\\/.test(path)) return path;
  return path.replace(/\\_/g, '_').replace(/\\/g, '/');
}

/** One Python action that checks, then applies, every edit. */
export function editAction(edits: FileEdit[]): CodeBlock {
  const literal = (s: string) => JSON.stringify(s);
  const rows = edits.map((e) => {
    switch (e.kind) {
      case 'replace':
        return `    ("replace", ${literal(e.path)}, ${literal(e.search)}, ${literal(e.replace)}),`;
      case 'create':
        return `    ("create", ${literal(e.path)}, "", ${literal(e.text)}),`;
      case 'write':
        return `    ("write", ${literal(e.path)}, "", ${literal(e.text)}),`;
      case 'insert':
        return `    ("insert", ${literal(e.path)}, ${e.line}, ${literal(e.text)}),`;
    }
  });
  return { language: 'python', source: [EDIT_HEADER, 'EDITS = [', ...rows, ']', EDIT_BODY].join('\n') };
}

const EDIT_HEADER = '# File edits from the reply, applied exactly: each search text must be found once, or nothing is changed.\nimport os, sys';

const EDIT_BODY = `
def _fail(n, message):
    sys.exit(f"Edit {n} not applied: {message}. No file was changed.")

texts = {}
for n, (kind, path, a, b) in enumerate(EDITS, 1):
    if not path:
        _fail(n, "the block names no file; write the file's path alone on the line before <<<<<<< SEARCH")
    if path not in texts:
        texts[path] = open(path, encoding="utf-8").read() if os.path.isfile(path) else None
    text = texts[path]
    if kind == "create":
        texts[path] = b if text is None else text + b
        continue
    if kind == "write":
        texts[path] = b
        continue
    if text is None:
        _fail(n, f"{path} does not exist; to create it, leave the search part empty")
    if kind == "insert":
        lines = text.splitlines(keepends=True)
        if not 0 <= a <= len(lines):
            _fail(n, f"{path} has {len(lines)} lines, so there is no line {a} to insert after")
        if a > 0 and not lines[a - 1].endswith("\\n"):
            lines[a - 1] += "\\n"
        texts[path] = "".join(lines[:a]) + b + ("" if b.endswith("\\n") else "\\n") + "".join(lines[a:])
        continue
    count = text.count(a)
    if count != 1:
        where = "not found" if count == 0 else f"found {count} times"
        _fail(n, f"the search text is {where} in {path}; it must match exactly one place, character for character (copy it from the file, with more lines around it if it repeats)")
    texts[path] = text.replace(a, b, 1)

changed = []
for path, text in texts.items():
    if text is None:
        continue
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    changed.append(path)
if changed:
    print("Edited " + ", ".join(changed))`;

/** What an str_replace_editor call stands for: an edit, a view (a bash action), or why it is neither. */
export function editorCall(args: Record<string, unknown>): CodeBlock | string {
  const command = String(args.command ?? '');
  const path = typeof args.path === 'string' ? args.path : '';
  if (!path) return 'it names no path';
  const str = (k: string) => (typeof args[k] === 'string' ? (args[k] as string) : null);
  switch (command) {
    case 'create':
      return editAction([{ kind: 'write', path, text: str('file_text') ?? '' }]);
    case 'str_replace': {
      const search = str('old_str');
      if (search === null || search === '') return 'str_replace needs old_str';
      return editAction([{ kind: 'replace', path, search, replace: str('new_str') ?? '' }]);
    }
    case 'insert': {
      const line = Number(args.insert_line);
      if (!Number.isInteger(line)) return 'insert needs insert_line';
      return editAction([{ kind: 'insert', path, line, text: str('new_str') ?? '' }]);
    }
    case 'view': {
      const q = shellQuote(path);
      const range = viewRange(args.view_range);
      const file = range ? `cat -n ${q} | sed -n '${range[0]},${range[1] === -1 ? '$' : range[1]}p'` : `cat -n ${q}`;
      return { language: 'bash', source: `if [ -d ${q} ]; then find ${q} -maxdepth 2 -not -path '*/.*' | sort; else ${file}; fi` };
    }
    default:
      return `its command "${command}" is not one Posthoc runs (create, str_replace, insert, view)`;
  }
}

/** A word for bash, single-quoted when it needs to be. */
export function shellQuote(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function viewRange(value: unknown): [number, number] | null {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  return Array.isArray(v) && v.length === 2 && v.every((n) => Number.isInteger(n)) ? [v[0] as number, v[1] as number] : null;
}
