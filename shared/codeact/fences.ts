// The CodeAct fences, read once for both sides: main runs the blocks this finds as actions, the renderer
// folds the same blocks into their action cards. Blocks tagged python, bash, sh or sql (with their
// aliases) are actions, in order; a ```sql block names its database after the tag (```sql shop), which may
// be left out when one is granted. Fences open with three or more backticks or tildes (up to three spaces
// in) and close with the same character, at least as many, alone on a line; a longer fence may hold a
// shorter one. An unclosed fence at the end (a reply cut at a stop sequence, or still streaming) runs to
// the end and still counts. A leaf like the rest of shared/.
import type { ActionLanguage } from '../domain';

export type CodeBlock =
  | { language: Exclude<ActionLanguage, 'sql'>; source: string }
  | { language: 'sql'; source: string; database: string | null };

/** A reply read line by line: plain lines, and fenced blocks with what they are. */
export type FencePart =
  | { kind: 'text'; lines: string[] }
  | {
      kind: 'fence';
      /** The opening line as written, and the closing one (null when the fence is not closed). */
      open: string;
      close: string | null;
      /** The fence's tag, lowercased ("python", "sql", "" when untagged). */
      tag: string;
      body: string[];
      /** The action this block is, when its tag is an action language and it holds any code. */
      action: CodeBlock | null;
      /** Its tag is an action language (even when the block is empty). */
      actionTag: boolean;
    };

const LANGUAGE_TAGS: Readonly<Record<string, ActionLanguage>> = {
  python: 'python',
  python3: 'python',
  py: 'python',
  bash: 'bash',
  shell: 'bash',
  sh: 'sh',
  sql: 'sql',
  sqlite: 'sql',
  postgres: 'sql',
  postgresql: 'sql',
  psql: 'sql',
};

const OPEN = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)([^`]*)$/;
const DATABASE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** The action language a fence tag stands for, if any. */
export function languageOfTag(tag: string): ActionLanguage | undefined {
  return Object.hasOwn(LANGUAGE_TAGS, tag.trim().toLowerCase()) ? LANGUAGE_TAGS[tag.trim().toLowerCase()] : undefined;
}

/** Splits a reply into plain lines and fenced blocks, in order. */
export function readFences(text: string): FencePart[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const parts: FencePart[] = [];
  let plain: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const open = OPEN.exec(line);
    if (!open) {
      plain.push(line);
      i++;
      continue;
    }
    if (plain.length > 0) parts.push({ kind: 'text', lines: plain });
    plain = [];
    const fence = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !closesFence(lines[j]!, fence)) body.push(lines[j++]!);
    const closed = j < lines.length;
    const tag = (open[2] ?? '').toLowerCase();
    const language = languageOfTag(tag);
    const source = body.join('\n');
    let action: CodeBlock | null = null;
    if (language !== undefined && source.trim().length > 0) {
      if (language === 'sql') {
        const name = (open[3] ?? '').trim().split(/\s+/)[0] ?? '';
        action = { language, source, database: DATABASE_NAME.test(name) ? name : null };
      } else {
        action = { language, source };
      }
    }
    parts.push({ kind: 'fence', open: line, close: closed ? lines[j]! : null, tag, body, action, actionTag: language !== undefined });
    i = closed ? j + 1 : j;
  }
  if (plain.length > 0) parts.push({ kind: 'text', lines: plain });
  return parts;
}

/** The actions of a reply, in order, and its prose: everything but the action blocks (other fences stay, as written). */
export function parseReply(reply: string): { actions: CodeBlock[]; prose: string } {
  const actions: CodeBlock[] = [];
  const prose: string[] = [];
  for (const part of readFences(reply)) {
    if (part.kind === 'text') prose.push(...part.lines);
    else if (part.actionTag) {
      if (part.action) actions.push(part.action);
    } else prose.push(part.open, ...part.body, ...(part.close === null ? [] : [part.close]));
  }
  return { actions, prose: prose.join('\n').trim() };
}

/** A closing fence: the same character, at least as long as the opening one, and nothing else on the line. */
function closesFence(line: string, fence: string): boolean {
  const candidate = line.trim();
  return candidate.length >= fence.length && candidate === fence[0]!.repeat(candidate.length);
}
