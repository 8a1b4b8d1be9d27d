// The replay sets read once for the replay suite and its measurement: every fixture file of
// tests/fixtures/replies/ (the set the parser's rules were written against) or of
// tests/fixtures/replies-heldout/ (collected afterwards, measured only), each reply with what its own harness
// ran, expressed as the actions Posthoc must
// run. An expected action is written as the action itself, or as what it stands for: an IPython cell
// ({"ipython": cell}), search/replace edits ({"edits": [...]}), a file written whole ({"write": …}) or an
// str_replace_editor call ({"editor": args}); those are turned into Posthoc's action by the same functions
// the parser uses, which agent-replies-edits.test.ts runs for real.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readReply, type ReplyIssue } from '../../shared/codeact/reply';
import type { CodeBlock } from '../../shared/codeact/fences';
import { editAction, editorCall, type FileEdit } from '../../shared/codeact/edits';
import { toPlainPython } from '../../shared/codeact/ipython';

export type Expected = CodeBlock | { ipython: string } | { edits: FileEdit[] } | { write: { path: string; text: string } } | { editor: Record<string, unknown> };
export type Fixture = { name: string; cite: string; reply: string; actions: Expected[]; issue?: ReplyIssue | null; reasoning?: boolean; title?: string | null; family?: string; harness?: string };
export type Replay = Fixture & { file: string; source: string; expected: CodeBlock[] };

/** The in-sample set (the replay suite asserts every reply) and the held-out set (only measured). */
export type ReplaySet = 'replies' | 'replies-heldout';

export function loadReplay(set: ReplaySet = 'replies'): Replay[] {
  const dir = join(__dirname, '../fixtures', set);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((file) => {
      const data = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { source: string; replies: Fixture[] };
      return data.replies.map((fixture) => ({ file, source: data.source, ...fixture, expected: fixture.actions.map(resolve) }));
    });
}

export function resolve(e: Expected): CodeBlock {
  if ('ipython' in e) return toPlainPython(e.ipython);
  if ('edits' in e) return editAction(e.edits);
  if ('write' in e) return editAction([{ kind: 'write', ...e.write }]);
  if ('editor' in e) {
    const call = editorCall(e.editor);
    if (typeof call === 'string') throw new Error(`fixture editor call: ${call}`);
    return call;
  }
  return e;
}

export type Score = { exact: boolean; ranByMistake: number; missed: number; wrongLanguage: number; wrongFinal: boolean };

/** One reply held against what its harness ran. */
export function score(f: Replay): Score {
  const read = readReply(f.reply);
  const got = read.actions;
  const key = (a: CodeBlock) => a.source.trim();
  const expectedKeys = f.expected.map(key);
  const gotKeys = got.map(key);
  const ranByMistake = gotKeys.filter((k) => !expectedKeys.includes(k)).length;
  const missed = expectedKeys.filter((k) => !gotKeys.includes(k)).length;
  const wrongLanguage = f.expected.filter((e) => got.some((g) => key(g) === key(e) && g.language !== e.language)).length;
  const expectedFinal = f.expected.length === 0 && (f.issue ?? null) === null;
  const gotFinal = got.length === 0 && read.issue === null;
  const issueRight = f.issue === undefined || read.issue === f.issue;
  const exact = JSON.stringify(got) === JSON.stringify(f.expected) && expectedFinal === gotFinal && issueRight;
  return { exact, ranByMistake, missed, wrongLanguage, wrongFinal: expectedFinal !== gotFinal };
}

/** A model family's name as the fixtures give it, reduced to the family. */
export function familyOf(f: Replay): string {
  const text = f.family ?? '';
  const names = ['Hermes', 'Qwen', 'Llama', 'Mistral', 'Ministral', 'Devstral', 'Mixtral', 'DeepSeek', 'GPT', 'Claude', 'Gemini'];
  const name = names.find((n) => text.startsWith(n)) ?? names.find((n) => text.includes(`(${n}`));
  if (name) return ['Ministral', 'Devstral', 'Mixtral'].includes(name) ? 'Mistral' : name;
  return text ? 'other' : 'unlabelled';
}
