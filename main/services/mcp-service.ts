// MCP servers as the person describes them: defined (a stdio command Posthoc runs confined, or a remote URL),
// listed with their tools and what they keep between tasks, their rules changed, their data cleared, removed,
// or imported from a desktop agent's config. Every definition is checked (mcp-validation.ts) before it is
// stored: no secret value is ever written here.
import type { CallInput, CallOutput } from '../../shared/contract';
import type { McpRules, McpServerDefinition, McpServerView, McpSignIn, McpToolView, McpTransport } from '../../shared/domain/mcp';
import { randomUUID } from 'node:crypto';
import type { Task } from '../../shared/domain';
import { mcpSection, pythonName, type McpPromptServer } from '../agent/mcp-prompt';
import type { GatewayReply, GatewayRoute, RouteContext, StreamingRoute } from '../gateway/gateway';
import { McpHub, type McpHubOptions } from '../effects/mcp/mcp-hub';
import { toolRule } from '../effects/mcp/rules';
import type { McpServerStore } from '../store/mcp-servers';
import type { ProcessOwner } from '../platform/process-owner';
import type { EventBus } from './event-bus';
import { readMcpConfig } from './mcp-import';
import type { SignInOutcome } from './mcp-oauth';
import { checkRules, checkServerName, checkTransport, McpDefinitionError } from './mcp-validation';
import { ServiceError } from './service-error';

/** The tools a server offers, as the tools channel listed them (the composition root joins the hub here). */
export interface McpToolSource {
  /** The tools as last listed, or null with why (never listed yet, the server did not start). */
  cached(server: McpServerDefinition): { tools: McpToolView[] | null; error: string | null };
  /** Lists them again (starting the server, or reaching it). */
  refresh(server: McpServerDefinition): Promise<{ tools: McpToolView[] | null; error: string | null }>;
  /** The server's definition changed or it is gone: what was listed for it no longer holds. */
  forget(name: string): void;
}

export const NOT_LISTED_YET = 'The tools are listed when a task first uses the server.';

const noTools: McpToolSource = {
  cached: () => ({ tools: null, error: NOT_LISTED_YET }),
  refresh: async () => ({ tools: null, error: NOT_LISTED_YET }),
  forget: () => undefined,
};

export type McpServiceOptions = {
  tools?: McpToolSource;
  /** Whose inverse data describes a server's tools, recognised from how it is started (the reference servers). */
  detectApi?: (transport: McpTransport) => string | null;
  /** Before a remote server with a token is stored: may its secret go to the server's origin? Throws in plain words if not. */
  bindCredential?: (server: string, secret: string, url: string) => void;
  /** A server signed in to with OAuth was removed or redefined: its tokens and registration leave the vault. */
  forgetSignIn?: (server: string) => Promise<void>;
  /** Sign-ins waiting for the person (mcp-oauth.ts): the link of one, and waiting for it. */
  signIns?: { pending(server: string): string | null; wait(server: string): Promise<SignInOutcome> | null };
  /** What stdio servers keep between tasks (sandbox/mcp-state.ts): sized for the views, cleared, removed with them. */
  state?: { size(name: string): Promise<number>; clear(name: string): Promise<number> };
  /** Why the server cannot be cleared or removed now (a task using it runs, Posthoc runs it), or null (mcpServerInUse). */
  inUse?: (name: string) => Promise<string | null>;
  now?: () => string;
};

export class McpService {
  constructor(
    private readonly store: McpServerStore,
    private readonly events: EventBus,
    private readonly options: McpServiceOptions = {},
  ) {}

  /** The tools channel, once the composition root has one. */
  set tools(source: McpToolSource) {
    this.options.tools = source;
  }

  private get source(): McpToolSource {
    return this.options.tools ?? noTools;
  }

  get(name: string): McpServerDefinition | undefined {
    return this.store.get(name);
  }

  definitions(): McpServerDefinition[] {
    return this.store.list();
  }

  /** The named servers' definitions, or a refusal naming those not defined. */
  require(names: readonly string[]): McpServerDefinition[] {
    const found = names.map((n) => [n, this.store.get(n)] as const);
    const missing = found.filter(([, d]) => !d).map(([n]) => n);
    if (missing.length) {
      throw new ServiceError(
        'invalid-input',
        `No MCP server named ${missing.join(', ')}. See the servers defined with: posthoc mcp list (define one with posthoc mcp add NAME -- COMMAND ARGS...).`,
      );
    }
    return found.map(([, d]) => d!);
  }

  async list(refresh = false): Promise<McpServerView[]> {
    const definitions = this.store.list();
    if (!refresh) return Promise.all(definitions.map(async (d) => this.view(d, this.source.cached(d), await this.stateBytes(d))));
    return Promise.all(
      definitions.map(async (d) => {
        const listed = await this.source.refresh(d).catch((error: unknown) => ({ tools: null, error: error instanceof Error ? error.message : String(error) }));
        const view = this.view(d, listed, await this.stateBytes(d));
        this.events.emit('mcp:updated', view);
        return view;
      }),
    );
  }

  async add(input: CallInput<'mcp:add'>): Promise<McpServerView> {
    const definition = this.definition(input);
    const existing = this.store.get(definition.name);
    if (existing && !input.replace) {
      throw new ServiceError(
        'conflict',
        `A server named ${definition.name} is already defined. Remove it first (posthoc mcp remove ${definition.name}) or add it again with --replace.`,
      );
    }
    // The agent writes the name in Python, where - and _ are one: two servers may not meet there.
    const twin = this.store.list().find((d) => d.name !== definition.name && pythonName(d.name) === pythonName(definition.name));
    // Nor in the data folder, where a server's state is a folder of its name (one on a case-insensitive disk).
    const caseTwin = this.store.list().find((d) => d.name !== definition.name && d.name.toLowerCase() === definition.name.toLowerCase());
    if (caseTwin) {
      throw new ServiceError(
        'conflict',
        `${caseTwin.name} and ${definition.name} differ only in case, so their data would share one folder. Choose another name, or remove ${caseTwin.name} first (posthoc mcp remove ${caseTwin.name}).`,
      );
    }
    if (twin) {
      throw new ServiceError(
        'conflict',
        `The agent would write both ${twin.name} and ${definition.name} as posthoc_tools.${pythonName(definition.name)}. Choose another name, or remove ${twin.name} first (posthoc mcp remove ${twin.name}).`,
      );
    }
    const { transport } = definition;
    if (transport.kind === 'http' && transport.auth.kind === 'bearer' && this.options.bindCredential) {
      try {
        this.options.bindCredential(definition.name, transport.auth.secret, transport.url);
      } catch (error) {
        throw new ServiceError('forbidden', error instanceof Error ? error.message : String(error));
      }
    }
    this.store.put(definition);
    this.source.forget(definition.name);
    if (existing && usesOAuth(existing) && JSON.stringify(existing.transport) !== JSON.stringify(definition.transport)) await this.forgetSignIn(existing.name);
    return this.publish(definition);
  }

  /**
   * Removes the definition and what the server kept between tasks: a server added later under the name starts
   * empty, never with another program's data (--replace keeps it). Refused while the server is in use.
   */
  async remove(name: string): Promise<{ removed: boolean; freedBytes: number }> {
    const existing = this.store.get(name);
    if (!existing) return { removed: false, freedBytes: 0 };
    await this.refuseInUse(name, `remove ${name}`, `remove it`);
    const removed = this.store.remove(name);
    if (removed) this.source.forget(name);
    const freedBytes = await this.clearFolder(name, `The server ${name} is removed, but`);
    if (usesOAuth(existing)) await this.forgetSignIn(name);
    return { removed, freedBytes };
  }

  /** Clears what a stdio server keeps between tasks (its data, npm's cache of its package): the next task starts it empty. */
  async clear(name: string): Promise<{ server: McpServerView; freedBytes: number }> {
    guard(() => checkServerName(name));
    const server = this.store.get(name);
    if (!server) throw new ServiceError('not-found', `No MCP server named ${name}. See the servers defined with: posthoc mcp list.`);
    if (server.transport.kind !== 'stdio') {
      throw new ServiceError('invalid-input', `${name} is a remote server: it keeps its data on its own side, and Posthoc keeps none for it to clear.`);
    }
    await this.refuseInUse(name, `clear the data of ${name}`, 'clear it');
    const freedBytes = await this.clearFolder(name, `The data of ${name} could not be cleared:`);
    return { server: await this.publish(server), freedBytes };
  }

  private async refuseInUse(name: string, what: string, retry: string): Promise<void> {
    const why = await this.options.inUse?.(name);
    if (why) throw new ServiceError('conflict', `Posthoc cannot ${what} now: ${why}. ${retry[0]!.toUpperCase()}${retry.slice(1)} once that has ended.`);
  }

  private async clearFolder(name: string, failed: string): Promise<number> {
    if (!this.options.state) return 0;
    try {
      return await this.options.state.clear(name);
    } catch (error) {
      throw new ServiceError('unavailable', `${failed} its data folder could not be removed (${error instanceof Error ? error.message : String(error)}). Remove it by hand from the data folder's mcp-state.`);
    }
  }

  /** Bytes a stdio server keeps between tasks; null for a remote one, or when it cannot be read. */
  private async stateBytes(definition: McpServerDefinition): Promise<number | null> {
    if (definition.transport.kind !== 'stdio') return null;
    if (!this.options.state) return 0;
    return this.options.state.size(definition.name).catch(() => null);
  }

  private async forgetSignIn(name: string): Promise<void> {
    try {
      await this.options.forgetSignIn?.(name);
    } catch (error) {
      throw new ServiceError(
        'unavailable',
        `The server ${name} is removed, but its sign-in could not be taken out of the keychain (${error instanceof Error ? error.message : String(error)}). Remove its oauth:mcp-${name}:… entries with posthoc secret remove once the keychain answers.`,
      );
    }
  }

  /**
   * Signs in to a server that uses OAuth: its tools when its token works (refreshed if need be), else the
   * link of the sign-in started for the person. With `wait`, first waits for the sign-in already started.
   */
  async signIn(name: string, wait = false): Promise<McpSignIn> {
    const server = this.store.get(name);
    if (!server) throw new ServiceError('not-found', `No MCP server named ${name}. See the servers defined with: posthoc mcp list.`);
    if (!usesOAuth(server)) {
      throw new ServiceError('invalid-input', `${name} does not sign in with OAuth, so there is nothing to sign in to. Only a server added with --url URL --auth oauth signs in.`);
    }
    const signIns = this.options.signIns;
    if (!signIns) throw new ServiceError('unavailable', 'Signing in to MCP servers is not available here.');
    const waiting = wait ? signIns.wait(name) : null;
    if (waiting) {
      const ended = await waiting;
      if (!ended.signedIn) return { signedIn: false, url: null, tools: null, message: ended.why };
    }
    const listed = await this.source.refresh(server).catch((error: unknown) => ({ tools: null, error: error instanceof Error ? error.message : String(error) }));
    this.events.emit('mcp:updated', this.view(server, listed, await this.stateBytes(server)));
    if (listed.tools) {
      const n = listed.tools.length;
      return { signedIn: true, url: null, tools: n, message: `Signed in to ${name}: ${n === 1 ? '1 tool' : `${n} tools`}.` };
    }
    const url = signIns.pending(name);
    if (url) return { signedIn: false, url, tools: null, message: `Sign in to ${name} in your browser: ${url}` };
    throw new ServiceError('unavailable', listed.error ?? `The server ${name} could not be reached.`);
  }

  async setRules(name: string, rules: Partial<McpRules>): Promise<McpServerView> {
    const server = this.store.get(name);
    if (!server) throw new ServiceError('not-found', `No MCP server named ${name}. See the servers defined with: posthoc mcp list.`);
    const next = { ...server, rules: guard(() => checkRules(rules, server.rules)) };
    this.store.put(next);
    return this.publish(next);
  }

  /** Each server of a desktop agent's config added, or skipped with the reason (a name taken, a secret, …). */
  async import(json: string, only?: string[]): Promise<CallOutput<'mcp:import'>> {
    const read = guard(() => readMcpConfig(json, only));
    const added: McpServerView[] = [];
    const skipped = [...read.skipped];
    for (const server of read.servers) {
      if (this.store.get(server.name)) {
        skipped.push({ name: server.name, reason: `A server named ${server.name} is already defined (posthoc mcp remove ${server.name} first to replace it).` });
        continue;
      }
      try {
        added.push(await this.add({ name: server.name, transport: server.transport }));
      } catch (error) {
        skipped.push({ name: server.name, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    return { added, skipped };
  }

  /** A view of a server with the tools its rules apply to, and the bytes it keeps between tasks. */
  view(definition: McpServerDefinition, listed = this.source.cached(definition), stateBytes: number | null = null): McpServerView {
    // The rules now (they may have changed since the tools were listed), as the /mcp route applies them.
    const tools = listed.tools?.map((t) => ({ ...t, rule: toolRule(definition, { name: t.name, annotations: t.annotations }) })) ?? null;
    return { ...definition, tools, toolsError: tools ? null : (listed.error ?? NOT_LISTED_YET), stateBytes };
  }

  private definition(input: CallInput<'mcp:add'>): McpServerDefinition {
    return guard(() => {
      const name = checkServerName(input.name);
      const transport = checkTransport(input.transport as McpTransport);
      const rules = checkRules(input.rules as Partial<McpRules> | undefined);
      const api = input.api !== undefined ? input.api : (this.options.detectApi?.(transport) ?? null);
      return { name, transport, rules, api, createdAt: this.options.now?.() ?? new Date().toISOString() };
    });
  }

  /** Tells the front ends that a server's tools were listed anew (mcp:updated). */
  toolsChanged(name: string): void {
    const definition = this.store.get(name);
    if (definition) void this.publish(definition);
  }

  private async publish(definition: McpServerDefinition): Promise<McpServerView> {
    const view = this.view(definition, this.source.cached(definition), await this.stateBytes(definition));
    this.events.emit('mcp:updated', view);
    return view;
  }
}


function usesOAuth(server: McpServerDefinition): boolean {
  return server.transport.kind === 'http' && server.transport.auth.kind === 'oauth';
}

function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof McpDefinitionError) throw new ServiceError('invalid-input', error.message);
    throw error;
  }
}

/** Task ids the tool listing outside any task runs under (`posthoc mcp list --tools`, the Connections page). */
export const LISTING_PREFIX = 'mcp-list:';
export const isListing = (taskId: string): boolean => taskId.startsWith(LISTING_PREFIX);

/** The task a listing runs under: no folder, no service, no server granted; it exists only for the gateway's package routes. */
export function listingTask(taskId: string): Task {
  const at = new Date().toISOString();
  return { id: taskId, title: 'Listing an MCP server\'s tools', status: 'running', workspaces: [], services: [], mcp: [], model: '', answer: null, error: null, createdAt: at, updatedAt: at };
}

/**
 * The gateway answers a task only while one of its actions runs. A stdio server is also started by
 * Posthoc itself — as a run begins (listing its tools for the prompt), for an undo after the run, and for a
 * listing outside any task — and npx then installs its package through the gateway. Those windows carry
 * an action id with this prefix, and in them only the package routes answer: a call to a service, a
 * database, the memory or a tool would be an effect no action records.
 */
export const OWN_WINDOW = 'posthoc-mcp:';

/** A gateway route that refuses requests made in Posthoc's own windows (OWN_WINDOW): only actions' code reaches it. */
export function actionsOnly<R extends GatewayRoute | StreamingRoute>(route: R): R {
  const refuse = (ctx: RouteContext): GatewayReply | null =>
    ctx.actionId.startsWith(OWN_WINDOW)
      ? { status: 409, body: { error: 'Posthoc is starting an MCP server for this task: only package installs go through the gateway now, nothing else until an action runs.' } }
      : null;
  const guarded = (async (ctx: RouteContext, req: never) => refuse(ctx) ?? (route as (c: RouteContext, r: never) => Promise<GatewayReply>)(ctx, req)) as unknown as R;
  if (route.streaming) Object.assign(guarded, { streaming: true as const });
  return guarded;
}

/** The hub, remembering the tools it last listed for each server (whichever task listed them). */
export class ListingHub extends McpHub {
  readonly listed = new Map<string, { createdAt: string; tools: McpToolView[] }>();

  constructor(
    options: McpHubOptions,
    /**
     * Told when a server's listed tools changed (the front ends hear mcp:updated). The McpService it tells
     * lists its tools through this hub, so the composition root passes a late-bound callback here.
     */
    private readonly onChanged: (server: string) => void = () => undefined,
  ) {
    super(options);
  }

  override async tools(taskId: string, server: string, signal?: AbortSignal): Promise<McpToolView[]> {
    const tools = await super.tools(taskId, server, signal);
    const definition = this.definition(server);
    if (definition) {
      const before = this.listed.get(server);
      this.listed.set(server, { createdAt: definition.createdAt, tools });
      if (!before || before.createdAt !== definition.createdAt || JSON.stringify(before.tools) !== JSON.stringify(tools)) this.onChanged(server);
    }
    return tools;
  }
}

/** The tools as the hub listed them; a refresh starts (or reaches) the server outside any task, then closes it. */
export class HubToolSource implements McpToolSource {
  constructor(
    private readonly hub: ListingHub,
    /** Opens the gateway's door for a listing (npx installs through it), and closes it after. */
    private readonly window: { open(taskId: string): void; close(taskId: string): Promise<void> } = { open: () => undefined, close: async () => undefined },
  ) {}

  cached(server: McpServerDefinition): { tools: McpToolView[] | null; error: string | null } {
    const listed = this.hub.listed.get(server.name);
    return listed && listed.createdAt === server.createdAt ? { tools: listed.tools, error: null } : { tools: null, error: NOT_LISTED_YET };
  }

  async refresh(server: McpServerDefinition): Promise<{ tools: McpToolView[] | null; error: string | null }> {
    const taskId = `${LISTING_PREFIX}${randomUUID()}`;
    this.window.open(taskId);
    try {
      return { tools: await this.hub.tools(taskId, server.name), error: null };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { tools: null, error: `The server could not be asked for its tools: ${message}` };
    } finally {
      await this.hub.closeTask(taskId);
      await this.window.close(taskId).catch(() => undefined);
    }
  }

  forget(name: string): void {
    this.hub.listed.delete(name);
  }
}

/**
 * The system prompt's MCP part for a task: each granted server's tools, listed through the hub as the run
 * begins. A stdio server's first start may install its package with npx through the gateway, which answers
 * a task's requests only while one of its actions runs: `open` / `close` hold it open for the listing.
 */
export async function mcpPrompt(
  task: Task,
  deps: { hub: McpHub; open(taskId: string): void; close(taskId: string): void },
  signal?: AbortSignal,
): Promise<string> {
  const names = task.mcp ?? [];
  if (names.length === 0) return '';
  deps.open(task.id);
  let servers: McpPromptServer[];
  try {
    servers = await Promise.all(
      names.flatMap((name) => {
        const server = deps.hub.definition(name);
        if (!server) return [];
        return [
          deps.hub.tools(task.id, name, signal).then(
            (tools): McpPromptServer => ({ server, tools }),
            (error: unknown): McpPromptServer => ({ server, tools: null, error: error instanceof Error ? error.message : String(error) }),
          ),
        ];
      }),
    );
  } finally {
    deps.close(task.id);
  }
  return mcpSection(servers, task.workspaces).join('\n');
}

/**
 * Why a server's state cannot be cleared or removed now, in words, or null: a task granted it is running (in
 * any Posthoc process still alive), or a container of it exists (Posthoc listing its tools or undoing a call,
 * in this process or another). Docker not answering counts as no container: none can run then.
 */
export function mcpServerInUse(deps: {
  runningTasks(): Array<{ task: Task; owner: ProcessOwner }>;
  ownerGone(owner: ProcessOwner): boolean;
  containers(name: string): Promise<number>;
}): (name: string) => Promise<string | null> {
  return async (name) => {
    const task = deps.runningTasks().find(({ task, owner }) => (task.mcp ?? []).includes(name) && !deps.ownerGone(owner))?.task;
    if (task) return `the task "${task.title}" (${task.id}) uses ${name} and is still running`;
    const running = await deps.containers(name).catch(() => 0);
    if (running > 0) return `Posthoc is running ${name} right now (listing its tools, or undoing one of its calls)`;
    return null;
  };
}
