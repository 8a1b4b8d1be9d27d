// How reply.ts decides about a fenced block beyond its tag: an untagged block read by its content (a shell
// command runs as bash, another harness's command is a tool Posthoc does not have), a block shown to the
// reader as an example (not run when the reply also holds its answer), search/replace edit blocks (a file
// edit, never the code they hold), and fence tags that name a shell or IPython without being one of the
// action languages. Rules measured on the replay set (tests/unit/agent-replies-measure.test.ts).
// A leaf like the rest of shared/.
import type { CodeBlock } from './fences';
import { FOREIGN_COMMANDS, firstWord } from './calls';
import { toPlainPython } from './ipython';

/** Programs a command line starts with (the sandbox's and the usual ones), so an untagged block of them is bash. */
const SHELL_WORDS = new Set(
  ('ls cd cat echo printf grep egrep fgrep find pip pip3 npm npx node python python3 pytest head tail wc mkdir rm rmdir cp mv ' +
    'curl wget sqlite3 git du df sed awk sort uniq jq rg unzip zip tar gzip gunzip file tree touch chmod chown ln pwd which ' +
    'export env source bash sh apt apt-get make cmake gcc g++ cc go cargo java javac mvn docker kill pkill ps nl patch xxd ' +
    'od hexdump strings objdump readelf tshark nc netcat cut tr tee xargs sleep ruby perl php gdb base64 md5sum sha256sum ' +
    'openssl yarn pnpm tsc ruff black flake8 mypy uv poetry pre-commit stat less more realpath basename dirname date whoami ' +
    'id uname nproc free lsof ss netstat ping dig host nslookup checksec r2 radare2 binwalk exiftool').split(' '),
);

/** BrowserGym's actions (browsergym/core/action/functions.py), which browsing agents write as calls in a fence. */
const BROWSER_ACTIONS = new Set(
  ('goto go_back go_forward click dblclick hover fill select_option press focus clear drag_and_drop upload_file scroll ' +
    'send_msg_to_user report_infeasible noop new_tab tab_close tab_focus mouse_move mouse_click mouse_dblclick mouse_down ' +
    'mouse_up mouse_drag_and_drop mouse_upload_file keyboard_down keyboard_up keyboard_press keyboard_type keyboard_insert_text').split(' '),
);

/** What an untagged block's content is: bash, another harness's command, or neither (then the lead line decides). */
export function untaggedKind(body: string): { kind: 'bash'; source: string } | { kind: 'foreign'; name: string; harness: string } | null {
  const lines = body.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return null;
  // A diff, or a session transcript with output between prompts, is shown text.
  if (lines.some((l) => /^(@@ |\+\+\+ |--- a\/)/.test(l))) return null;
  if (lines.every((l) => l.startsWith('$ '))) return { kind: 'bash', source: lines.map((l) => l.slice(2)).join('\n') };
  if (lines.some((l) => l.startsWith('$ '))) return null;
  // A browsing agent's actions, each a call on its own line (a reply cut at its stop sequence leaves the last open).
  const calls = lines.map((l) => /^\s*([a-z_]+)\(/.exec(l)?.[1] ?? '');
  if (calls.every((c) => BROWSER_ACTIONS.has(c))) return { kind: 'foreign', name: calls[0]!, harness: 'BrowserGym, a browser action' };
  const word = firstWord(body);
  if (FOREIGN_COMMANDS.has(word)) return { kind: 'foreign', name: word, harness: 'SWE-agent' };
  const script = /^[\w.-]+\.(py|sh|pl|rb)$/.test(word);
  if (SHELL_WORDS.has(word) || script || /^(\.{0,2}\/|~\/)[\w./-]+$/.test(word) || /^[A-Z_][A-Z0-9_]*=\S*$/.test(word)) {
    return /^#!.*\bpython/.test(lines[0]!) ? null : { kind: 'bash', source: body };
  }
  if (/^#!.*\b(ba)?sh\b/.test(lines[0]!)) return { kind: 'bash', source: body };
  return null;
}

const READER =
  /\b(you can|you could|you may|you might|you'd|you would|you will need|you'll need|you need to|you should|for example|for instance|e\.g\.|example usage|usage|to run it|to run this|to use it|to use this|to try it|if you want|if you'd like|if you wish|in your terminal|on your machine|yourself|here'?s how you|here is how you|here'?s an example|here is an example|as an example|an example of|like so)\b/i;
const DONE =
  /\b(i have|i've|has been|have been|is now|are now|now works|successfully|done|completed?|finished|fixed|created|here is the|here's the|the answer|the result|in summary|summary|solved|resolved)\b/i;

/** A block the reply shows the reader (its lead speaks to them) while the reply is an answer: not run. */
export function isReaderExample(lead: string, replyProse: string, textAfter: boolean): boolean {
  return READER.test(lead) && (textAfter || DONE.test(replyProse));
}

// Placeholders a reply leaves for the reader to fill in: YOUR_API_KEY, <your-token>, your_token_here. A shell
// command holding one is an instruction for the reader (it would fail, or call a service with a made-up
// credential, as written), never an action. A program or a file edit may hold one as a default or a template.
const PLACEHOLDER = /\bYOUR_[A-Z0-9_]*[A-Z0-9]\b|<(?:your|YOUR)[\w -]{0,40}>|\b[Yy]our[_-][\w-]*?[_-]here\b/;

/** The placeholder a shell command leaves for the reader to fill in, or null. */
export function shellPlaceholder(action: CodeBlock): string | null {
  return action.language === 'bash' || action.language === 'sh' ? (PLACEHOLDER.exec(action.source)?.[0] ?? null) : null;
}

/** Fence tags that are not action languages but say what the block is: a shell, or an IPython cell. */
export function extraTagAction(tag: string, body: string): CodeBlock | null {
  if (body.trim() === '') return null;
  if (/^(ipython|ipython3|jupyter)$/.test(tag)) return toPlainPython(body);
  if (/(^|[_-])(bash|shell|zsh)([_-]|$)|_command$/.test(tag)) return { language: 'bash', source: body };
  return null;
}

/** Tags that hold data or output, never code in another language (a reply showing them is not corrected for it). */
export function isDataTag(tag: string): boolean {
  return /^(|json|jsonl|json5|yaml|yml|toml|ini|csv|tsv|xml|text|txt|plain|plaintext|markdown|md|output|log|logs|diff|patch|console|shell-session|http|env|dotenv|properties|mermaid|html)$/.test(tag);
}

/** A fence tag written as a call, as BrowserGym's actions are (```goto("http://…")): the tool it names. */
export function callInTag(tag: string): string | null {
  return /^([a-z_][\w]*)\(/.exec(tag)?.[1] ?? null;
}

/** The paragraph that leads into a block: the last paragraph of the text before it. */
export function leadOf(text: string): string {
  return text.trim().split(/\n\s*\n/).at(-1) ?? '';
}
