// What takes an MCP tool call back, as data per well-known server, like the REST providers' inverse rules
// (main/oauth/providers): for each tool that changes something, the tool undo calls and how its arguments
// come from the real call's arguments and the server's answer. A server whose only state is the granted
// folders (the filesystem server) is `folderOnly`: run confined, its writes are in the action's checkpoint,
// and undo restores them with the files. `detectApi` recognises these servers from their stdio command line.
import type { McpInverse, McpTransport } from '../../../shared/domain/mcp';

/** What a tool answered, as the SDK gives it. */
export type ToolAnswer = { content?: unknown; structuredContent?: unknown; isError?: boolean };

/** The inverse of one call, or that the call changed nothing at all (so nothing is to be taken back). */
export type Derived = { inverse: McpInverse } | { nothingChanged: true; why: string };

type ToolInverse = {
  /** The tool undo calls. */
  tool: string;
  /** null: the answer does not say what changed (so no inverse is known for this call). */
  derive(args: Record<string, unknown>, answer: unknown): Derived | null;
};

export type McpApi = {
  id: string;
  /** The server keeps no state but the granted folders: a confined call's changes are the checkpoint's. */
  folderOnly: boolean;
  /** npm package names (and their bin names) that identify it on a stdio command line. */
  packages: readonly string[];
  inverses: Readonly<Record<string, ToolInverse>>;
};

type Entity = { name: string };
type Relation = { from: string; to: string; relationType: string };
type Added = { entityName: string; addedObservations: string[] };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const isEntity = (v: unknown): v is Entity => isRecord(v) && typeof v.name === 'string';
const isRelation = (v: unknown): v is Relation => isRecord(v) && typeof v.from === 'string' && typeof v.to === 'string' && typeof v.relationType === 'string';
const isAdded = (v: unknown): v is Added => isRecord(v) && typeof v.entityName === 'string' && strings(v.addedObservations);

/** A list of the answer's (structuredContent.KEY, else the JSON text of the content), or null when it has none. */
function listOf<T>(answer: unknown, key: string, is: (v: unknown) => v is T): T[] | null {
  const a = answer as ToolAnswer;
  const fromStructured = isRecord(a?.structuredContent) ? a.structuredContent[key] : undefined;
  let list: unknown = fromStructured;
  if (list === undefined && Array.isArray(a?.content)) {
    const text = a.content.find((c): c is { type: 'text'; text: string } => isRecord(c) && c.type === 'text' && typeof c.text === 'string');
    if (text) {
      try {
        const parsed: unknown = JSON.parse(text.text);
        list = Array.isArray(parsed) ? parsed : isRecord(parsed) ? parsed[key] : undefined;
      } catch {
        list = undefined;
      }
    }
  }
  if (!Array.isArray(list) || !list.every(is)) return null;
  return list;
}

const few = (names: string[]): string => (names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`);

const MEMORY: McpApi = {
  id: 'memory',
  folderOnly: false,
  packages: ['@modelcontextprotocol/server-memory', 'mcp-server-memory'],
  inverses: {
    // The server answers with the entities it really created (a name that existed already is left out).
    create_entities: {
      tool: 'delete_entities',
      derive(_args, answer) {
        const created = listOf(answer, 'entities', isEntity);
        if (!created) return null;
        if (created.length === 0) return { nothingChanged: true, why: 'every entity existed already' };
        const names = created.map((e) => e.name);
        return { inverse: { tool: 'delete_entities', arguments: { entityNames: names }, summary: `delete ${names.length === 1 ? 'entity' : 'entities'} ${few(names)}` } };
      },
    },
    create_relations: {
      tool: 'delete_relations',
      derive(_args, answer) {
        const created = listOf(answer, 'relations', isRelation);
        if (!created) return null;
        if (created.length === 0) return { nothingChanged: true, why: 'every relation existed already' };
        const relations = created.map((r) => ({ from: r.from, to: r.to, relationType: r.relationType }));
        const words = relations.map((r) => `${r.from} ${r.relationType} ${r.to}`);
        return { inverse: { tool: 'delete_relations', arguments: { relations }, summary: `delete ${relations.length === 1 ? 'relation' : 'relations'} ${few(words)}` } };
      },
    },
    add_observations: {
      tool: 'delete_observations',
      derive(_args, answer) {
        const results = listOf(answer, 'results', isAdded);
        if (!results) return null;
        const deletions = results.filter((r) => r.addedObservations.length > 0).map((r) => ({ entityName: r.entityName, observations: r.addedObservations }));
        if (deletions.length === 0) return { nothingChanged: true, why: 'every observation was there already' };
        const count = deletions.reduce((n, d) => n + d.observations.length, 0);
        return {
          inverse: {
            tool: 'delete_observations',
            arguments: { deletions },
            summary: `delete ${count === 1 ? 'the observation' : `${count} observations`} added to ${few(deletions.map((d) => d.entityName))}`,
          },
        };
      },
    },
  },
};

const FILESYSTEM: McpApi = {
  id: 'filesystem',
  folderOnly: true,
  packages: ['@modelcontextprotocol/server-filesystem', 'mcp-server-filesystem'],
  inverses: {},
};

export const MCP_APIS: readonly McpApi[] = [MEMORY, FILESYSTEM];

export function apiById(id: string | null | undefined): McpApi | undefined {
  return id ? MCP_APIS.find((a) => a.id === id) : undefined;
}

/**
 * The well-known server a stdio command line runs ('memory', 'filesystem'), or null: `npx -y
 * @modelcontextprotocol/server-memory`, `node …/server-memory/dist/index.js`, `mcp-server-memory`, with or
 * without a version (`…@2025.1.1`). A remote server is never recognised (its state is not the package's).
 */
export function detectApi(transport: McpTransport): string | null {
  if (transport.kind !== 'stdio') return null;
  const words = [transport.command, ...transport.args];
  for (const api of MCP_APIS) {
    for (const word of words) {
      // A path: its segments (…/@modelcontextprotocol/server-memory/dist/index.js); a package: name[@version].
      const unversioned = word.replace(/(.)@[^/@]*$/, '$1');
      if (api.packages.some((p) => unversioned === p || unversioned.endsWith(`/${p}`) || word.startsWith(`${p}/`) || word.includes(`/${p}/`))) return api.id;
    }
  }
  return null;
}

/** The tool undo would call to take a call of `tool` back, when the server's data knows one. */
export function inverseToolOf(api: string | null | undefined, tool: string): string | null {
  return apiById(api)?.inverses[tool]?.tool ?? null;
}

/** Whether the server keeps no state but the granted folders, so a confined call is covered by the checkpoint. */
export function isFolderOnly(api: string | null | undefined, transport: McpTransport['kind']): boolean {
  return transport === 'stdio' && apiById(api)?.folderOnly === true;
}

/** The exact inverse of a call from its real arguments and answer; null when none is known (or the answer was an error). */
export function deriveInverse(api: string | null | undefined, tool: string, args: Record<string, unknown>, answer: ToolAnswer): Derived | null {
  if (answer.isError) return null;
  const rule = apiById(api)?.inverses[tool];
  return rule ? rule.derive(args, answer) : null;
}
