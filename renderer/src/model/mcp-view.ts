// What the MCP parts of the app show, as pure functions: a pasted command line read the way a shell would
// (quotes, backslashes, leading NAME=value settings), a tool's badges from its annotations, the rules after
// the person picks one for a tool, and one line per tool call an action made.
import type { McpEffect, McpRules, McpServerView, McpToolAnnotations, McpToolRule, McpTransport } from '../../../shared/domain/mcp';
import { formatBytes } from './diff-rows';

export type ParsedCommand = { command: string; args: string[]; env: Record<string, string> };

/**
 * Splits a command line as a POSIX shell would, without running anything: single and double quotes,
 * backslash escapes, and NAME=value words before the command as its environment. Throws in plain words
 * on an unclosed quote or an empty line.
 */
export function parseCommandLine(line: string): ParsedCommand {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      if (line[i + 1] !== '\n') word += line[i + 1];
      i++;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`The command line has an unclosed ${quote === '"' ? 'double' : 'single'} quote.`);
  if (inWord) words.push(word);
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) {
    const setting = words.shift()!;
    env[setting.slice(0, setting.indexOf('='))] = setting.slice(setting.indexOf('=') + 1);
  }
  if (words.length === 0) throw new Error('Give the command that starts the server, for example: npx -y @modelcontextprotocol/server-filesystem /path/to/folder');
  return { command: words[0]!, args: words.slice(1), env };
}

/** A word as a shell would read it back (quoted only when it must be). */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** How the server is reached, in one line: its command line, or its URL and how it signs in. */
export function describeTransport(transport: McpTransport): string {
  if (transport.kind === 'stdio') {
    const env = Object.entries(transport.env).map(([k, v]) => `${k}=${shellWord(v)}`);
    return [...env, transport.command, ...transport.args].map((w, i) => (i < env.length ? w : shellWord(w))).join(' ');
  }
  return transport.url;
}

export function describeAuth(transport: McpTransport): string {
  if (transport.kind === 'stdio') return 'runs confined in the sandbox, no network';
  switch (transport.auth.kind) {
    case 'none':
      return 'no credentials';
    case 'bearer':
      return `bearer token from secret ${transport.auth.secret}`;
    case 'oauth':
      return 'signs in with OAuth';
  }
}

/** What a stdio server keeps between tasks, in words; null for a remote server (its data is its own). */
export function describeState(view: Pick<McpServerView, 'stateBytes' | 'transport'>): string | null {
  if (view.transport.kind !== 'stdio' || view.stateBytes === null) return null;
  return view.stateBytes === 0 ? 'keeps nothing between tasks yet' : `keeps ${formatBytes(view.stateBytes)} between tasks (its data and its installed package)`;
}

export type Badge = { kind: 'read-only' | 'may-change' | 'destructive' | 'idempotent' | 'open-world'; label: string; title: string };

/**
 * Badges from a tool's annotations. They are the server's hints: a tool that says nothing may change
 * things (the MCP spec's defaults: not read-only, destructive).
 */
export function toolBadges(annotations: McpToolAnnotations | undefined): Badge[] {
  const a = annotations ?? {};
  if (a.readOnlyHint === true) return [{ kind: 'read-only', label: 'read-only', title: 'The server says this tool changes nothing.' }];
  const badges: Badge[] = [];
  if (a.destructiveHint === false) badges.push({ kind: 'may-change', label: 'may change', title: 'It may add things, the server says, but not delete or overwrite.' });
  else
    badges.push({
      kind: 'destructive',
      label: 'destructive',
      title: a.destructiveHint === true ? 'The server says this tool may delete or overwrite things.' : 'The server gives no hints: it may change or delete things.',
    });
  if (a.idempotentHint === true) badges.push({ kind: 'idempotent', label: 'idempotent', title: 'Calling it again with the same arguments changes nothing more.' });
  if (a.openWorldHint === true) badges.push({ kind: 'open-world', label: 'reaches outside', title: 'It reaches things outside the server (the web, other services).' });
  return badges;
}

/** The first line of a tool's description, cut short. */
export function oneLine(description: string, max = 140): string {
  const first = description.trim().split(/\n|(?<=\.)\s/)[0] ?? '';
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

/** The rules after the person picks `rule` for `tool` (the tool leaves the lists it was in). */
export function withToolRule(rules: McpRules, tool: string, rule: McpToolRule): Pick<McpRules, 'deny' | 'hold'> {
  const deny = rules.deny.filter((t) => t !== tool);
  const hold = rules.hold.filter((t) => t !== tool);
  if (rule === 'deny') deny.push(tool);
  if (rule === 'hold') hold.push(tool);
  return { deny, hold };
}

export function ruleOf(rules: McpRules, tool: string): McpToolRule {
  return rules.deny.includes(tool) ? 'deny' : rules.hold.includes(tool) ? 'hold' : 'allow';
}

/** The server's tools with the person's rule each (from the rules, which are saved before the tools are listed again). */
export function toolRows(server: McpServerView): Array<{ name: string; line: string; badges: Badge[]; rule: McpToolRule; inverseTool: string | null }> {
  return (server.tools ?? []).map((t) => ({ name: t.name, line: oneLine(t.description), badges: toolBadges(t.annotations), rule: ruleOf(server.rules, t.name), inverseTool: t.inverseTool }));
}

export function listMcpCalls(effects: ReadonlyArray<{ channel: string }>): McpEffect[] {
  return effects.filter((e): e is McpEffect => e.channel === 'mcp');
}

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export type CallLine = {
  name: string;
  args: string;
  /** What happened, in words. */
  outcome: { tone: 'ok' | 'error' | 'refused' | 'held'; text: string };
  /** The undo call, when one is known and the call ran. */
  inverse: string | null;
  undone: { tone: 'ok' | 'error'; text: string } | null;
  note: string | null;
};

/** One tool call as the card shows it. */
export function describeMcpCall(call: McpEffect): CallLine {
  const name = `${call.server}.${call.tool}`;
  const args = call.arguments === '{}' || call.arguments === '' ? '()' : `(${cut(call.arguments, 160)})`;
  let outcome: CallLine['outcome'];
  if (call.hold && call.hold.state === 'waiting') outcome = { tone: 'held', text: call.hold.kind === 'window' ? `held until ${call.hold.until ?? 'its window ends'}` : 'waits for your approval' };
  else if (call.refused !== null) outcome = { tone: 'refused', text: `refused: ${call.refused}` };
  else if (call.isError) outcome = { tone: 'error', text: `error: ${cut(call.result ?? 'the server gave no message', 300)}` };
  else outcome = { tone: 'ok', text: call.result === null || call.result === '' ? 'done (no result)' : `→ ${cut(call.result, 300)}` };
  const ran = call.refused === null && !(call.hold && call.hold.state !== 'approved' && call.hold.state !== 'sent');
  const inverse = call.inverse && ran ? `undo calls ${call.server}.${call.inverse.tool} — ${call.inverse.summary}` : null;
  const undone = call.undone ? (call.undone.error ? { tone: 'error' as const, text: `undo failed: ${call.undone.error}` } : { tone: 'ok' as const, text: 'taken back' }) : null;
  let note: string | null = null;
  if (ran && !call.isError) {
    if (!call.mutating) note = 'read-only: changed nothing';
    else if (call.folderOnly) note = 'its file changes are in the checkpoint: undo restores them with the files';
    else if (!call.inverse) note = 'no known inverse: this call cannot be undone';
  }
  return { name, args, outcome, inverse, undone, note };
}
