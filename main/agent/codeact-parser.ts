// CodeAct protocol: fenced blocks tagged python, bash, sh or sql in the assistant's reply are actions, run
// in order. A reply with no such block is the final answer. Other fences (json, text, untagged) are prose.
// A sql block names its database after the tag (```sql shop); the name may be left out when one is granted.
import type { ActionLanguage } from '../../shared/domain';

export type CodeBlock =
  | { language: Exclude<ActionLanguage, 'sql'>; source: string }
  | { language: 'sql'; source: string; database: string | null };
export type ParsedReply = { actions: CodeBlock[]; prose: string };

const LANGUAGE_TAGS: Record<string, ActionLanguage> = {
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

export function languageOfTag(tag: string): ActionLanguage | undefined {
  return LANGUAGE_TAGS[tag.trim().toLowerCase()];
}

export function parseReply(reply: string): ParsedReply {
  const lines = reply.replace(/\r\n?/g, '\n').split('\n');
  const actions: CodeBlock[] = [];
  const prose: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const open = OPEN.exec(line);
    if (!open) {
      prose.push(line);
      i++;
      continue;
    }
    const fence = open[1]!;
    const language = languageOfTag(open[2] ?? '');
    const body: string[] = [];
    let j = i + 1;
    let closed = false;
    for (; j < lines.length; j++) {
      if (closesFence(lines[j]!, fence)) {
        closed = true;
        break;
      }
      body.push(lines[j]!);
    }
    if (language === 'sql') {
      const name = (open[3] ?? '').trim().split(/\s+/)[0] ?? '';
      actions.push({ language, source: body.join('\n'), database: DATABASE_NAME.test(name) ? name : null });
    } else if (language) {
      // An unclosed block at the very end (a reply cut at a stop sequence) still counts as written.
      actions.push({ language, source: body.join('\n') });
    } else {
      prose.push(line, ...body);
      if (closed) prose.push(lines[j]!);
    }
    i = closed ? j + 1 : j;
  }
  return { actions: actions.filter((a) => a.source.trim().length > 0), prose: prose.join('\n').trim() };
}

/** A closing fence: the same character, at least as long as the opening one, and nothing else on the line. */
function closesFence(line: string, fence: string): boolean {
  const candidate = line.trim();
  return candidate.length >= fence.length && candidate === fence[0]!.repeat(candidate.length);
}
