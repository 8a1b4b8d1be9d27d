// Reads the MCP servers a desktop agent's config lists, the way people already have them:
// - Claude Desktop, Cursor, Windsurf, Cline: {"mcpServers": {NAME: {command, args, env} | {url, headers}}}
// - VS Code .vscode/mcp.json: {"servers": {NAME: {type: "stdio" | "http" | "sse", command, args, env, url, headers}}}
//   and its settings.json: {"mcp": {"servers": …}} (both JSON with comments and trailing commas).
// Each entry becomes a transport Posthoc accepts, or is skipped with the reason in words: a secret in its
// environment (the key named, never the value), a header carrying a token, SSE, a bad name (with one to use).
// Pure: no store, no I/O.
import type { McpTransport } from '../../shared/domain/mcp';
import { checkServerName, checkTransport, McpDefinitionError, secretKey, secretValue, suggestName } from './mcp-validation';

export const MAX_CONFIG_BYTES = 1024 * 1024;

export type ImportedServer = { name: string; transport: McpTransport };
export type Skipped = { name: string; reason: string };
export type ConfigRead = { servers: ImportedServer[]; skipped: Skipped[] };

export function readMcpConfig(json: string, only?: readonly string[]): ConfigRead {
  if (Buffer.byteLength(json, 'utf8') > MAX_CONFIG_BYTES) {
    throw new McpDefinitionError('The file is over 1 MiB: give the config that lists your MCP servers (claude_desktop_config.json, .cursor/mcp.json, .vscode/mcp.json).');
  }
  const root = parseJsonc(json);
  const entries = serversOf(root);
  const servers: ImportedServer[] = [];
  const skipped: Skipped[] = [];
  const wanted = only?.length ? new Set(only) : null;
  for (const [name, entry] of Object.entries(entries)) {
    if (wanted && !wanted.has(name)) continue;
    try {
      servers.push({ name: checkServerName(name), transport: checkTransport(transportOf(name, entry)) });
    } catch (error) {
      if (!(error instanceof McpDefinitionError)) throw error;
      skipped.push({ name, reason: error.message });
    }
  }
  for (const name of wanted ?? []) {
    if (!(name in entries)) skipped.push({ name, reason: `The file lists no server named ${name} (it lists ${Object.keys(entries).join(', ') || 'none'}).` });
  }
  return { servers, skipped };
}

/** The servers object of any of the three layouts, or a refusal saying what was expected. */
function serversOf(root: unknown): Record<string, unknown> {
  if (isObject(root)) {
    const found = root.mcpServers ?? root.servers ?? (isObject(root.mcp) ? root.mcp.servers : undefined) ?? root['mcp.servers'];
    if (isObject(found)) return found;
    if (found !== undefined) throw new McpDefinitionError('The servers in this file are not an object of NAME: {…} entries.');
  }
  throw new McpDefinitionError(
    'This file lists no MCP servers: expected "mcpServers" (Claude Desktop, Cursor), "servers" (VS Code .vscode/mcp.json) or "mcp": {"servers"} (VS Code settings.json).',
  );
}

function transportOf(name: string, entry: unknown): McpTransport {
  if (!isObject(entry)) throw new McpDefinitionError('Its entry is not an object with a command or a url.');
  const type = typeof entry.type === 'string' ? entry.type.toLowerCase() : typeof entry.transport === 'string' ? entry.transport.toLowerCase() : undefined;
  if (type === 'sse') {
    throw new McpDefinitionError(
      'It uses the SSE transport, which Posthoc does not support (the MCP spec replaced it with streamable HTTP). If the server also answers streamable HTTP, add it with: ' +
        `posthoc mcp add ${suggestName(name)} --url URL`,
    );
  }
  if (typeof entry.url === 'string' || typeof entry.serverUrl === 'string' || type === 'http' || type === 'streamable-http' || type === 'streamablehttp') {
    const url = typeof entry.url === 'string' ? entry.url : typeof entry.serverUrl === 'string' ? entry.serverUrl : '';
    if (!url) throw new McpDefinitionError('It is a remote server with no url.');
    noVariables(url, 'Its url');
    const headers = isObject(entry.headers) ? entry.headers : {};
    const auth = Object.keys(headers).find((h) => h.toLowerCase() === 'authorization' || secretKey(h) || secretValue(String(headers[h])));
    if (auth) {
      const secret = `${suggestName(name).toLowerCase()}-token`.replace(/_/g, '-');
      throw new McpDefinitionError(
        `It sends a credential in its ${auth} header, and Posthoc never stores a token's value in a server's definition. ` +
          `Store the token: posthoc secret set ${secret}, then posthoc mcp add ${suggestName(name)} --url ${url} --auth bearer --secret ${secret}`,
      );
    }
    if (Object.keys(headers).length) {
      throw new McpDefinitionError(`It sends its own headers (${Object.keys(headers).join(', ')}), which Posthoc does not send to a remote server.`);
    }
    return { kind: 'http', url, auth: { kind: 'none' } };
  }
  if (type !== undefined && type !== 'stdio') throw new McpDefinitionError(`Its type "${type}" is not one Posthoc knows (stdio or http).`);
  if (typeof entry.command !== 'string' || !entry.command.trim()) throw new McpDefinitionError('It has neither a command nor a url.');
  if (entry.args !== undefined && (!Array.isArray(entry.args) || entry.args.some((a) => typeof a !== 'string' && typeof a !== 'number'))) {
    throw new McpDefinitionError('Its args are not a list of strings.');
  }
  if (typeof entry.envFile === 'string') {
    throw new McpDefinitionError(`It reads its environment from ${entry.envFile}, which may hold secrets Posthoc would store in plain text. Add it with posthoc mcp add and --env K=V for the plain settings.`);
  }
  const args = ((entry.args as unknown[] | undefined) ?? []).map(String);
  const env: Record<string, string> = {};
  if (entry.env !== undefined) {
    if (!isObject(entry.env)) throw new McpDefinitionError('Its env is not an object of NAME: value.');
    for (const [key, value] of Object.entries(entry.env)) {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw new McpDefinitionError(`Its env ${key} is not a string.`);
      env[key] = String(value);
    }
  }
  noVariables(entry.command, 'Its command');
  args.forEach((a, i) => noVariables(a, `Its argument ${i + 1}`));
  const transport: McpTransport = { kind: 'stdio', command: entry.command, args, env };
  // The secret check first (it names the key, never the value), then the variables a desktop agent fills in.
  checkTransport(transport);
  for (const [key, value] of Object.entries(env)) noVariables(value, `Its env ${key}`);
  return transport;
}

/** ${workspaceFolder}, ${input:token}, ${env:HOME}: only the desktop agent fills them in. */
function noVariables(value: string, what: string): void {
  const variable = /\$\{[^}]*\}/.exec(value)?.[0];
  if (variable) {
    throw new McpDefinitionError(`${what} uses ${variable}, which only the desktop agent fills in. Add the server with posthoc mcp add and the real value.`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON, also with // and /* comments and trailing commas (VS Code's files); a mistake is reported with its line and column. */
export function parseJsonc(text: string): unknown {
  const cleaned = stripJsonc(text.replace(/^\uFEFF/, ''));
  try {
    return JSON.parse(cleaned);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    if (position && Number(position[1]) >= cleaned.trimEnd().length) {
      throw new McpDefinitionError('The file is not valid JSON: it ends before the JSON does (a } or ] is missing at the end).');
    }
    const at = /line (\d+) column (\d+)/.exec(message);
    if (at) throw new McpDefinitionError(`The file is not valid JSON at line ${at[1]}, column ${at[2]}: ${message.replace(/ in JSON at position.*$/, '')}.`);
    if (/Unexpected end/.test(message)) throw new McpDefinitionError('The file is not valid JSON: it ends before the JSON does (a } or ] is missing at the end).');
    const pos = /position (\d+)/.exec(message);
    const where = pos ? lineColumn(cleaned, Number(pos[1])) : firstError(cleaned);
    throw new McpDefinitionError(`The file is not valid JSON${where ? ` at line ${where.line}, column ${where.column}` : ''}: ${message}.`);
  }
}

/** Comments blanked and trailing commas dropped, outside strings, keeping every other character where it was. */
function stripJsonc(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const start = i++;
      while (i < text.length && text[i] !== '"' && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      out += text.slice(start, ++i);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') {
        out += ' ';
        i++;
      }
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      out += text[j] === '}' || text[j] === ']' ? ' ' : ',';
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function lineColumn(text: string, position: number): { line: number; column: number } {
  const before = text.slice(0, position).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

/** Where the parser first fails when V8 does not say: the shortest start of the text that is wrong, not just unfinished (binary search). */
function firstError(text: string): { line: number; column: number } | null {
  // Wrong: an error before the cut; an error at the cut (or the input's end) only says the text is unfinished.
  const wrong = (k: number): boolean => {
    try {
      JSON.parse(text.slice(0, k));
      return false;
    } catch (error) {
      const message = (error as Error).message;
      const pos = /position (\d+)/.exec(message);
      if (pos) return Number(pos[1]) < k;
      return !/Unexpected end/.test(message);
    }
  };
  if (!wrong(text.length)) return null;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (wrong(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lineColumn(text, Math.max(0, lo - 1));
}
