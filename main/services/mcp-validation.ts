// What Posthoc accepts as an MCP server definition, checked before anything is stored: a name the sandbox
// can write, a stdio server whose environment and arguments hold no secret (they would reach its container
// and sit in Posthoc's database in plain text), a remote URL with no credential in it. Pure: every refusal is
// a sentence saying what to do instead.
import { McpServerName, McpRules, type McpTransport } from '../../shared/domain/mcp';
import { checkSecretName } from '../vault/vault';

export class McpDefinitionError extends Error {}

/** What to do instead of putting a token in a server's environment. */
export const SECRET_ADVICE =
  'put it in the vault with `posthoc secret set NAME` and define a service (`posthoc service add NAME --base-url URL --auth bearer --secret NAME`); ' +
  'the server reaches its API through $POSTHOC_GATEWAY/svc/NAME, where the vault adds the token';

// Parts of a variable's name that say it holds a credential. Long words match anywhere in the name
// (GITHUB_PERSONAL_ACCESS_TOKEN, OPENAI_APIKEY); short ones only as a whole part (API_KEY, GH_PAT, not PATH).
const SECRET_WORDS = ['TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'PASSPHRASE', 'APIKEY', 'CREDENTIAL', 'PRIVATE', 'COOKIE', 'AUTHORIZATION', 'BEARER'];
const SECRET_PARTS = new Set(['KEY', 'PAT', 'AUTH', 'PASS', 'PWD', 'SESSION', 'JWT', 'DSN', 'CREDS']);

/** Whether a variable's name says it holds a credential. */
export function secretKey(key: string): boolean {
  const upper = key.toUpperCase();
  if (SECRET_WORDS.some((w) => upper.includes(w))) return true;
  return upper.split(/[^A-Z0-9]+/).some((part) => SECRET_PARTS.has(part));
}

// Prefixes of well-known tokens: GitHub, OpenAI / Anthropic / Stripe, Slack, GitLab, AWS, Google, npm, a JWT.
const TOKEN_PREFIX = /^(gh[pousr]_|github_pat_|sk-|sk_|rk_|pk_live_|xox[abposr]-|xapp-|glpat-|AKIA|ASIA|AIza|npm_|ya29\.|eyJ[A-Za-z0-9_-]{8,}\.|Bearer\s)/;

/** Whether a value looks like a credential: a known token's prefix, a URL with a password, or a long random string. */
export function secretValue(value: string): boolean {
  const v = value.trim();
  if (TOKEN_PREFIX.test(v)) return true;
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i.test(v)) return true;
  return randomLooking(v);
}

/** At least 24 characters of token alphabet, letters and digits mixed, with the spread of random text (not a path, a word, a URL). */
function randomLooking(v: string): boolean {
  if (v.length < 24 || !/^[A-Za-z0-9_\-+/=.]+$/.test(v)) return false;
  if (v.startsWith('/') || v.startsWith('.') || v.includes('//')) return false;
  if (!/[0-9]/.test(v) || !/[A-Za-z]/.test(v)) return false;
  const counts = new Map<string, number>();
  for (const c of v) counts.set(c, (counts.get(c) ?? 0) + 1);
  let entropy = 0;
  for (const n of counts.values()) entropy -= (n / v.length) * Math.log2(n / v.length);
  return entropy >= 3.5;
}

// Python's keywords: `from posthoc_tools import class` is a syntax error, so none can be a server's name.
const PYTHON_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(' '),
);

/** A server name the sandbox can write (posthoc_tools.NAME), or a refusal that suggests one. */
export function checkServerName(name: string): string {
  const parsed = McpServerName.safeParse(name);
  if (parsed.success && PYTHON_KEYWORDS.has(parsed.data)) {
    throw new McpDefinitionError(`"${name}" cannot be a server's name: it is a Python keyword, and the agent writes the name in Python (from posthoc_tools import NAME). Try "${parsed.data}_server".`);
  }
  if (parsed.success) return parsed.data;
  throw new McpDefinitionError(
    `"${name}" cannot be a server's name: it starts with a letter and holds only letters, digits, - and _ (at most 40), because the agent writes it in Python (posthoc_tools.NAME). Try "${suggestName(name)}".`,
  );
}

/** A valid name close to one that is not ("@acme/github server" → "acme-github-server"). */
export function suggestName(name: string): string {
  let s = name
    .trim()
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^A-Za-z]+/, '')
    .replace(/-+$/, '');
  if (!s) s = 'server';
  return s.slice(0, 40).replace(/-+$/, '');
}

/** A transport as Posthoc stores it, or the first problem with it. */
export function checkTransport(transport: McpTransport): McpTransport {
  if (transport.kind === 'stdio') {
    const command = transport.command.trim();
    if (!command) throw new McpDefinitionError('Give the command that starts the server, for example: -- npx -y @modelcontextprotocol/server-filesystem /path/to/folder');
    for (const [key, value] of Object.entries(transport.env)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new McpDefinitionError(`"${key}" is not an environment variable's name (letters, digits and _, not starting with a digit).`);
      if (secretKey(key) || secretValue(value)) {
        throw new McpDefinitionError(
          `The environment variable ${key} looks like it holds a secret, and a server's environment is stored in plain text and reaches its container. Leave it out: ${SECRET_ADVICE}.`,
        );
      }
    }
    const i = [command, ...transport.args].findIndex((a) => TOKEN_PREFIX.test(a.trim()) || /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i.test(a.trim()));
    if (i >= 0) {
      throw new McpDefinitionError(
        `${i === 0 ? 'The command' : `Argument ${i}`} looks like it holds a secret (a token or a password in a URL), which would be stored in plain text. Leave it out: ${SECRET_ADVICE}.`,
      );
    }
    return { kind: 'stdio', command, args: transport.args, env: transport.env };
  }
  let url: URL;
  try {
    url = new URL(transport.url.trim());
  } catch {
    throw new McpDefinitionError(`"${transport.url}" is not a URL. Give the server's address, for example https://mcp.example.com/mcp.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new McpDefinitionError(`A remote MCP server is reached over http or https, not ${url.protocol}`);
  if (url.username || url.password) {
    throw new McpDefinitionError('Put no credentials in the URL; they would be stored in plain text. Store the token: posthoc secret set NAME, then --auth bearer --secret NAME.');
  }
  for (const [key, value] of url.searchParams) {
    if (secretKey(key) || secretValue(value)) {
      throw new McpDefinitionError(
        `The URL's parameter ${key} looks like a secret, which would be stored in plain text. Store the token: posthoc secret set NAME, then --auth bearer --secret NAME.`,
      );
    }
  }
  if (url.hash) throw new McpDefinitionError('The URL must not have a fragment (#…).');
  if (transport.auth.kind === 'bearer') {
    try {
      checkSecretName(transport.auth.secret);
    } catch (error) {
      throw new McpDefinitionError(`${(error as Error).message} Name the secret that holds the token (posthoc secret set NAME), not the token itself.`);
    }
  }
  return { kind: 'http', url: url.href, auth: transport.auth };
}

/** Rules with the defaults filled in; tool names are the server's own, so only empty ones are refused. */
export function checkRules(rules: Partial<McpRules> | undefined, base?: McpRules): McpRules {
  const merged = McpRules.parse({ ...(base ?? {}), ...Object.fromEntries(Object.entries(rules ?? {}).filter(([, v]) => v !== undefined)) });
  for (const tool of [...merged.deny, ...merged.hold]) {
    if (!tool.trim()) throw new McpDefinitionError('A rule names a tool: give its name as the server lists it (posthoc mcp list --tools).');
  }
  const both = merged.deny.filter((t) => merged.hold.includes(t));
  if (both.length) throw new McpDefinitionError(`${both.join(', ')} cannot be both denied and held: choose one.`);
  return { deny: [...new Set(merged.deny)], hold: [...new Set(merged.hold)], noInverse: merged.noInverse };
}
